import Testing

@testable import ConnAudit
import ConnAuditTestSupport

extension CheckKindTests {
    @Suite struct AbsenceScope {
        private static let log = """
            {"t":0,"ev":"ws.ping","gen":1}
            {"t":1,"ev":"ws.pause","gen":1}
            {"t":2,"ev":"ws.ping","gen":1}
            {"t":3,"ev":"ws.resume","gen":1}
            {"t":4,"ev":"ws.ping","gen":1}
            {"t":5,"ev":"ws.pause","gen":1}
            {"t":6,"ev":"ws.ping","gen":1}
            {"t":7,"ev":"ws.ping","gen":1}
            """

        @Test(arguments: [
            ("", [1, 3, 5, 7, 8]),
            ("after: { ev: ws.pause }", [3, 5, 7, 8]),
            ("before: { ev: ws.resume }", [1, 3]),
            ("after: { ev: ws.pause }\nbefore: { ev: ws.resume }", [3]),
            // "before R" with no R in the trace holds vacuously (Dwyer); findings wait for R
            ("before: { ev: ws.stop }", []),
            ("after: { ev: ws.resume }\nbefore: { ev: ws.pause }", [5]),
            // closed intervals only: the interval the log ends inside (from line 6) is not judged
            ("between: [{ ev: ws.pause }, { ev: ws.resume }]", [3]),
            // open: judged as events come, the last interval too
            ("after: { ev: ws.pause }\nuntil: { ev: ws.resume }", [3, 7, 8])
        ])
        func scopes(_ scope: String, _ expected: [Int]) throws {
            let v = try verdict(
                """
                id: t.quiet
                title: No pings here
                never: { ev: ws.ping }
                """ + (scope.isEmpty ? "" : "\n" + scope), Self.log)
            #expect(v == CheckKindVerdict(expected.isEmpty ? .pass : .fail, expected))
        }

        @Test func betweenJudgesEveryClosedInterval() throws {
            let v = try verdict(
                """
                id: t.quiet
                title: No pings while paused
                never: { ev: ws.ping }
                between: [{ ev: ws.pause }, { ev: ws.resume }]
                """,
                """
                {"t":1,"ev":"ws.pause","gen":1}
                {"t":2,"ev":"ws.ping","gen":1}
                {"t":3,"ev":"ws.ping","gen":1}
                {"t":4,"ev":"ws.resume","gen":1}
                {"t":5,"ev":"ws.ping","gen":1}
                {"t":6,"ev":"ws.pause","gen":1}
                {"t":7,"ev":"ws.resume","gen":1}
                {"t":8,"ev":"ws.pause","gen":1}
                {"t":9,"ev":"ws.ping","gen":1}
                {"t":10,"ev":"ws.resume","gen":1}
                """)
            #expect(v == CheckKindVerdict(.fail, [2, 3, 9]))
        }

        @Test func untilIsJudgedImmediatelyWithoutWaitingForTheIntervalToClose() throws {
            // A never-closed interval: `until` reports, `between` does not.
            let log = """
                {"t":1,"ev":"ws.pause","gen":1}
                {"t":2,"ev":"ws.ping","gen":1}
                """
            #expect(
                try verdict(
                    """
                    id: t.quiet
                    title: T
                    never: { ev: ws.ping }
                    after: { ev: ws.pause }
                    until: { ev: ws.resume }
                    """, log) == CheckKindVerdict(.fail, [2]))
            #expect(
                try verdict(
                    """
                    id: t.quiet
                    title: T
                    never: { ev: ws.ping }
                    between: [{ ev: ws.pause }, { ev: ws.resume }]
                    """, log) == CheckKindVerdict(.pass, []))
        }
    }
}

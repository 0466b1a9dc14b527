import Testing

@testable import ConnAudit
import ConnAuditTestSupport

extension CheckKindTests {
    /// rules.md: "`as:` may name any selected event (trigger, step, `first/last/next` result)".
    @Suite struct HistoryResultCaptures {
        static let rule = """
            id: t.prompt
            title: Each pong comes soon after the latest ping
            every: { ev: ws.pong }
            expect: "last({ev: ws.ping, as: q}) != null and t - q.t <= 50"
            message: "pong {t - q.t} ms after the ping at t={q.t}"
            """

        @Test func theNameReadsTheEventTheCallFound() throws {
            let on = try verdict(
                Self.rule,
                """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":30,"ev":"ws.pong","gen":1}
                """)
            #expect(on == CheckKindVerdict(.pass, []))
            let late = judge(
                try loadRule(Self.rule),
                """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":100,"ev":"ws.ping","gen":1}
                {"t":180,"ev":"ws.pong","gen":1}
                """)
            #expect(CheckKindVerdict(late) == CheckKindVerdict(.fail, [3]))
            #expect(late.violations.first?.message == "pong 80 ms after the ping at t=100")
        }

        @Test func noEventFoundIsNull() throws {
            // No ping before the pong: q is null, so the expectation is false (not undecided).
            let v = try verdict(
                Self.rule,
                """
                {"t":30,"ev":"ws.pong","gen":1}
                """)
            #expect(v == CheckKindVerdict(.fail, [1]))
        }

        @Test func aNestedSelectorSeesTheName() throws {
            // Nothing but the ping between the ping the call found and this close.
            let v = try verdict(
                """
                id: t.quiet
                title: No pong after the latest ping before the close
                every: { ev: ws.close }
                expect: "last({ev: ws.ping, as: p}) == null or count({ev: ws.pong, where: '$seq > p.$seq'}) == 0"
                """,
                """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":10,"ev":"ws.pong","gen":1}
                {"t":20,"ev":"ws.close","gen":1,"reason":"a"}
                {"t":30,"ev":"ws.ping","gen":2}
                {"t":40,"ev":"ws.close","gen":2,"reason":"a"}
                """)
            #expect(v == CheckKindVerdict(.fail, [3]))
        }

        @Test func onlyTheTermThatMatchedBindsItsName() throws {
            // The last of pong/close is a pong: p is that pong, c is null (not the pong).
            let v = try verdict(
                """
                id: t.terms
                title: The last answer is a pong
                every: { ev: ws.ping }
                expect: "last([{ev: ws.pong, as: p}, {ev: ws.close, as: c}]) == null or (p != null and c == null)"
                """,
                """
                {"t":0,"ev":"ws.close","gen":1,"reason":"x"}
                {"t":1,"ev":"ws.pong","gen":1}
                {"t":2,"ev":"ws.ping","gen":1}
                {"t":3,"ev":"ws.close","gen":1,"reason":"x"}
                {"t":4,"ev":"ws.ping","gen":1}
                """)
            // Line 3: last is the pong (p set, c null) passes; line 5: last is a close (p null)
            // fails.
            #expect(v == CheckKindVerdict(.fail, [5]))
        }
    }
}

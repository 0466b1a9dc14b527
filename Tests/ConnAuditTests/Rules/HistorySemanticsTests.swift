import Testing

@testable import ConnAudit
import ConnAuditTestSupport

extension CheckKindTests {
    @Suite struct HistorySemantics {
        @Test func historyLooksBackFromTheEventBeingProcessed() throws {
            // The current event is not part of its own history.
            let v = try verdict(
                """
                id: t.spaced
                title: Pings are spaced, at most three
                every: { ev: ws.ping }
                expect: "count({ev: ws.ping}) < 3 and (last({ev: ws.ping}) == null or t - last({ev: ws.ping}).t >= 10)"
                """,
                """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":10,"ev":"ws.ping","gen":1}
                {"t":15,"ev":"ws.ping","gen":1}
                {"t":30,"ev":"ws.ping","gen":1}
                """)
            #expect(v == CheckKindVerdict(.fail, [3, 4]))
        }

        @Test func firstAndLastAreTheOldestAndLatestMatch() throws {
            let v = try verdict(
                """
                id: t.first-last
                title: First and last
                every: { ev: ws.close }
                expect: "first({ev: ws.ping}).n == 1 and last({ev: ws.ping}).n == 3 and first({ev: ws.nothing}) == null"
                """,
                """
                {"t":0,"ev":"ws.ping","gen":1,"n":1}
                {"t":1,"ev":"ws.ping","gen":1,"n":2}
                {"t":2,"ev":"ws.ping","gen":1,"n":3}
                {"t":3,"ev":"ws.close","gen":1}
                """)
            #expect(v == CheckKindVerdict(.pass, []))
        }

        /// Inside a nested selector's `where`, a history call still looks back from the OUTER event
        /// being evaluated (the trigger, here the close), not from the nested candidate (the ping):
        /// both pings see the pong that came after them, because it came before the close.
        @Test(arguments: [
            "count({ev: ws.ping, where: \"count({ev: ws.pong}) >= 1\"}) == 2",
            // the same with the inner call correlated (answered from lists, not an aggregate)
            "count({ev: ws.ping, where: \"count({ev: ws.pong, where: 'c.t >= 0'}) >= 1\"}) == 2",
            "count({ev: ws.ping, where: \"last({ev: ws.pong}).t == 2\"}) == 2"
        ])
        func nestedHistoryIsRelativeToTheOuterEvent(_ expect: String) throws {
            let v = try verdict(
                """
                id: t.nested
                title: Nested history
                every: { ev: ws.close, as: c }
                expect: >
                  \(expect)
                """,
                """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":1,"ev":"ws.ping","gen":1}
                {"t":2,"ev":"ws.pong","gen":1}
                {"t":3,"ev":"ws.close","gen":1}
                """)
            #expect(v == CheckKindVerdict(.pass, []))
        }

        @Test func sinceASelector() throws {
            let v = try verdict(
                """
                id: t.pong-latency
                title: A pong within 100 ms of the first ping since the previous pong
                every: { ev: ws.pong }
                expect: "(t - first({ev: ws.ping}, since: {ev: ws.pong}).t <= 100) ?? true"
                """,
                """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":50,"ev":"ws.pong","gen":1}
                {"t":60,"ev":"ws.ping","gen":1}
                {"t":150,"ev":"ws.ping","gen":1}
                {"t":200,"ev":"ws.pong","gen":1}
                {"t":210,"ev":"ws.pong","gen":1}
                """)
            #expect(v == CheckKindVerdict(.fail, [5]))
        }

        @Test func sinceACapture() throws {
            // Every ping is answered before the close: a pong since the ping (captured as q).
            let v = try verdict(
                """
                id: t.answered
                title: Pings are answered before the close
                every: { ev: ws.close }
                expect: "count({ev: ws.ping, as: q, where: 'count({ev: ws.pong}, since: q) == 0'}) == 0"
                """,
                """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":1,"ev":"ws.pong","gen":1}
                {"t":2,"ev":"ws.close","gen":1}
                {"t":3,"ev":"ws.pong","gen":2}
                {"t":4,"ev":"ws.ping","gen":2}
                {"t":5,"ev":"ws.close","gen":2}
                """)
            #expect(v == CheckKindVerdict(.fail, [6]))
        }

        /// `$seq` orders events sharing a `t`: a pong at the ping's own `t` but after it answers
        /// it, one before it does not.
        private static let seqLog = """
            {"t":0,"ev":"ws.ping","gen":1}
            {"t":0,"ev":"ws.pong","gen":1}
            {"t":10,"ev":"ws.ping","gen":1}
            {"t":10,"ev":"ws.close","gen":1}
            {"t":20,"ev":"ws.pong","gen":2}
            {"t":20,"ev":"ws.ping","gen":2}
            {"t":30,"ev":"ws.close","gen":2}
            {"t":40,"ev":"ws.ping","gen":3}
            {"t":40,"ev":"ws.pong","gen":3}
            {"t":50,"ev":"ws.close","gen":3}
            """

        @Test func seqRestrictsToEventsAfterACapture() throws {
            // `c.t >= 0` reads the trigger's capture: the inner call is correlated.
            let v = try verdict(
                """
                id: t.answered
                title: Pings are answered before the close
                every: { ev: ws.close, as: c }
                expect: >
                  count({ev: ws.ping, as: q, where: "count({ev: ws.pong, where: '$seq > q.$seq and c.t >= 0'}) == 0"}) == 0
                """, Self.seqLog)
            #expect(v == CheckKindVerdict(.fail, [4, 7]))
        }

        @Test func seqRestrictionReadingOnlyAnEnclosingHistoryCapture() throws {
            // The same rule, with the inner selector reading only `q` (bound by the enclosing
            // history call's selector, not by a top-level selector).
            let v = try verdict(
                """
                id: t.answered
                title: Pings are answered before the close
                every: { ev: ws.close, as: c }
                expect: >
                  count({ev: ws.ping, as: q, where: "count({ev: ws.pong, where: '$seq > q.$seq'}) == 0"}) == 0
                """, Self.seqLog)
            #expect(v == CheckKindVerdict(.fail, [4, 7]))

        }

        @Test func seqReadsTheOrdinalInTheTimelinesSource() throws {
            let v = try verdict(
                """
                id: t.seq
                title: T
                every: { ev: ws.close, as: c }
                expect: "$seq == 3 and last({ev: ws.ping}).$seq == 2 and c.$line == 3"
                """,
                """
                {"t":0,"ev":"app.start"}
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":0,"ev":"ws.close","gen":1}
                """)
            #expect(v == CheckKindVerdict(.pass, []))
        }
    }
}

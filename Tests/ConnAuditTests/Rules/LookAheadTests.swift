import Testing

@testable import ConnAudit
import ConnAuditTestSupport

extension CheckKindTests {
    /// rules.md: "`next(SEL).f` — the first matching event **after** the current one".
    @Suite struct LookAhead {
        static let answered = """
            id: t.answered
            title: Each ping is answered within 100 ms
            every: { ev: ws.ping }
            expect: "next({ev: ws.pong}) != null and next({ev: ws.pong}).t - t <= 100"
            message: "ping at t={t}: next pong at t={next({ev: ws.pong}).t ?? 'never'}"
            """

        @Test func theAnswerIsTheFirstMatchAfterTheTrigger() throws {
            let result = judge(
                try loadRule(Self.answered),
                """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":50,"ev":"ws.pong","gen":1}
                {"t":200,"ev":"ws.ping","gen":1}
                {"t":250,"ev":"ws.state","gen":1}
                {"t":400,"ev":"ws.pong","gen":1}
                {"t":500,"ev":"ws.ping","gen":1}
                """)
            // Line 3: its pong came 200 ms later; line 6: the log ends without one (next is null).
            #expect(CheckKindVerdict(result) == CheckKindVerdict(.fail, [3, 6]))
            #expect(
                result.violations.map(\.message) == [
                    "ping at t=200: next pong at t=400", "ping at t=500: next pong at t=never"
                ])
        }

        @Test func aMissingAnswerAtTheEndIsNullNotWaiting() throws {
            // Without the null test the arithmetic on null is undecided: the undecided policy
            // decides.
            let v = try verdict(
                """
                id: t.answered
                title: Each ping is answered within 100 ms
                every: { ev: ws.ping }
                expect: "next({ev: ws.pong}).t - t <= 100"
                undecided: inconclusive
                """,
                """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":50,"ev":"ws.pong","gen":1}
                {"t":60,"ev":"ws.ping","gen":1}
                """)
            #expect(v == CheckKindVerdict(.inconclusive, [], [3]))
        }

        @Test func historyInALateJudgmentStillLooksBackFromTheTrigger() throws {
            // Judged when the pong arrives, count() must not see that pong (it came after the
            // ping).
            let v = try verdict(
                """
                id: t.first
                title: The first ping is answered
                every: { ev: ws.ping }
                expect: "count({ev: ws.pong}) > 0 or next({ev: ws.pong}) != null"
                """,
                """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":50,"ev":"ws.pong","gen":1}
                {"t":60,"ev":"ws.ping","gen":1}
                """)
            #expect(v == CheckKindVerdict(.pass, []))
            let strict = try verdict(
                """
                id: t.first
                title: No pong before, and one after
                every: { ev: ws.ping }
                expect: "count({ev: ws.pong}) == 0 and next({ev: ws.pong}) != null"
                """,
                """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":50,"ev":"ws.pong","gen":1}
                {"t":60,"ev":"ws.ping","gen":1}
                {"t":70,"ev":"ws.pong","gen":1}
                """)
            // Line 1 passes (no pong before it, one after); line 3 has a pong before it.
            #expect(strict == CheckKindVerdict(.fail, [3]))
        }

        @Test func aWhereInTheLookAheadSeesTheTrigger() throws {
            let v = try verdict(
                """
                id: t.same
                title: The next close is of the same generation
                for: source
                every: { ev: ws.connect, as: c }
                expect: "next({ev: ws.close, where: 'gen == c.gen'}) != null"
                """,
                """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":10,"ev":"ws.close","gen":2,"reason":"x"}
                {"t":20,"ev":"ws.connect","gen":2}
                {"t":30,"ev":"ws.close","gen":1,"reason":"x"}
                """)
            // gen 1's close comes at line 4; gen 2's connect (line 3) has no close of gen 2 after
            // it.
            #expect(v == CheckKindVerdict(.fail, [3]))
        }

        @Test func aLateJudgmentCutsSinceAtTheTrigger() throws {
            // The second ping is judged when the pong arrives, after the second scene: its since:
            // must still be the first scene (the latest before the ping), so one ping counts since
            // it.
            let v = try verdict(
                """
                id: t.since
                title: Each ping is answered, and follows a scene
                for: source
                every: { ev: ws.ping }
                expect: "next({ev: ws.pong}) != null and count({ev: ws.ping}, since: {ev: app.scene}) >= 1"
                """,
                """
                {"t":0,"ev":"app.scene","phase":"active"}
                {"t":1,"ev":"ws.ping","gen":1}
                {"t":2,"ev":"ws.ping","gen":1}
                {"t":3,"ev":"app.scene","phase":"active"}
                {"t":4,"ev":"ws.pong","gen":1}
                """)
            // Line 2 has no ping before it since the scene: a violation; line 3 has one.
            #expect(v == CheckKindVerdict(.fail, [2]))
        }

        @Test func aMessageThatLooksAheadWaitsForItsAnswer() throws {
            let result = judge(
                try loadRule(
                    """
                    id: t.msg
                    title: Every close has a reason
                    for: source
                    every: { ev: ws.close }
                    expect: "reason != null"
                    message: "no reason; the next connect came at t={next({ev: ws.connect}).t ?? 'never'}"
                    """),
                """
                {"t":0,"ev":"ws.close","gen":1}
                {"t":5,"ev":"ws.connect","gen":2}
                {"t":9,"ev":"ws.close","gen":2}
                """)
            #expect(
                result.violations.map(\.message) == [
                    "no reason; the next connect came at t=5",
                    "no reason; the next connect came at t=never"
                ])
        }

        @Test func aTriggerJudgedLongAfterItCameShowsNoStrangersAsNeighbours() throws {
            let rule = try loadRule(
                """
                id: t.answered
                title: Each ping is answered
                every: { ev: ws.ping }
                expect: "next({ev: ws.pong}) != null"
                """)
            // More events after the ping than the source's ring keeps: the ping has left it.
            let states = (1...TimelineContext.ring + 4).map {
                #"{"t":\#($0),"ev":"ws.state","gen":1,"state":"s\#($0)"}"#
            }
            let log = ([#"{"t":0,"ev":"ws.ping","gen":1}"#] + states).joined(separator: "\n") + "\n"
            let result = judge(rule, log)
            #expect(CheckKindVerdict(result) == CheckKindVerdict(.fail, [1]))
            // Judged at the end of the timeline, ring + 4 events later: only the ping itself is
            // shown.
            #expect(result.violations.first?.context.map(\.line) == [1])
        }
    }
}

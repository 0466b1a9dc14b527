import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// The sequence engine's cost per event: an event that concerns none of the open partial matches
/// or obligations looks at none of them, so a generation where thousands of them wait (a client
/// whose pings never get a pong) is read in linear time.
@Suite struct SequenceRunnerTests {
    private static func rule(_ body: String) throws -> CompiledRule {
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
        let text = "rules:\n  - " + lines.joined(separator: "\n    ") + "\n"
        let rule = try #require(try RuleLoader.load(files: [("rules/seq.yaml", text)]).rules.first)
        return CompiledRule(rule: rule, index: 0, overrides: [:])
    }

    /// Feeds `events` (ev, t) of generation 1 to a fresh runner of `compiled`, or to `runner`
    /// after the `after` events it was fed (lines and `$seq` go on from there: partial matches
    /// and anchors are told apart by `$seq`).
    private static func feed(
        _ compiled: CompiledRule, _ events: [(String, Double)], into runner: SequenceRunner? = nil,
        after: Int = 0
    ) -> (SequenceRunner, FindingSink) {
        let runner = runner ?? SequenceRunner(compiled, files: ["a.jsonl"])
        let made = events.enumerated().map { n, event in
            Event(
                t: event.1, ev: event.0, gen: 1, file: 0, line: after + n + 1, fields: [],
                evID: EvNames.id(event.0))
        }
        return (runner, observe(made, by: runner, after: after))
    }

    /// `runner` observes `events` (of generation 1), which take `$seq` from `after` on.
    private static func observe(_ events: [Event], by runner: SequenceRunner, after: Int = 0)
        -> FindingSink
    {
        let sink = FindingSink(files: ["a.jsonl"])
        let scope = ContextScope(context: TimelineContext(source: nil), stream: nil, gen: 1)
        for (n, e) in events.enumerated() {
            e.seq = after + n
            runner.observe(e, context: scope, sink: sink)
        }
        return sink
    }

    @Test func unansweredPingsAreNotLookedAtByTheNextPing() throws {
        // ws.late-pong-ignored's shape: every ping opens a partial waiting for a pong.
        let compiled = try Self.rule(
            """
            id: t.late
            title: late pong
            forbid:
              - { ev: ws.ping, as: p }
              - { ev: ws.pong, as: q, where: "t >= p.t + 1000", without: { ev: [ws.pong, ws.close] } }
              - { ev: ws.ping, without: { ev: [ws.close, ws.ping] } }
            """)
        let pings = (1...2_000).map { ("ws.ping", Double($0 * 100)) }
        let (runner, sink) = Self.feed(compiled, pings)
        // No ping concerns a partial waiting for a pong: none was looked at.
        #expect(runner.visits == 0)
        #expect(sink.violations.isEmpty)
        // One late pong looks at each waiting partial once, and the next ping completes one match.
        let (_, after) = Self.feed(
            compiled, [("ws.pong", 200_050), ("ws.ping", 200_100)], into: runner, after: pings.count
        )
        #expect(runner.visits == 2_000 + 1)
        #expect(after.violations[0]?.count == 1)
    }

    @Test func obligationsWithoutADueDeadlineAreNotLookedAt() throws {
        // ws.timeout-closes' shape, with every ping at the same t: no deadline ever passes.
        let compiled = try Self.rule(
            """
            id: t.timeout
            title: timeout
            each: { ev: ws.ping, as: p }
            followed_by: { ev: ws.close, where: "t >= p.t + 1000" }
            within_ms: 2000
            unless: { ev: ws.pong }
            """)
        let (runner, sink) = Self.feed(compiled, Array(repeating: ("ws.ping", 5), count: 2_000))
        #expect(runner.visits == 0)
        #expect(sink.violations.isEmpty)
        // An event past the deadlines decides them all, once each.
        let (_, after) = Self.feed(compiled, [("ws.message", 2_006)], into: runner, after: 2_000)
        #expect(runner.visits == 2_000)
        #expect(after.violations[0]?.count == 2_000)
    }

    @Test func aSequenceOfSixtyFourStepsMatchesAtItsLastStep() throws {
        // The longest sequence the loader takes: its last partial waits at stage 63 (the top bit).
        let steps = (0..<FileLoader.maxSteps).map { _ in
            "  - { ev: ws.ping, without: { ev: ws.pong } }"
        }
        let compiled = try Self.rule(
            "id: t.long\ntitle: long\nforbid:\n" + steps.joined(separator: "\n"))
        let (runner, sink) = Self.feed(
            compiled, (1..<FileLoader.maxSteps).map { ("ws.ping", Double($0)) })
        #expect(sink.violations.isEmpty)
        // A pong kills every partial; 64 more pings then complete one match, at the last ping.
        let (_, after) = Self.feed(
            compiled,
            [("ws.pong", 100)] + (1...FileLoader.maxSteps).map { ("ws.ping", 100 + Double($0)) },
            into: runner, after: FileLoader.maxSteps - 1)
        #expect(after.violations[0]?.count == 1)
        // The 63 pings, the pong, then the 64th ping after it.
        #expect(after.violations[0]?.first?.line == 2 * FileLoader.maxSteps)
    }

    @Test func onlyThePartialsAnEventKillsDieTheOthersKeepTheirOrder() throws {
        // Three requests wait at one stage; the cancel kills only the one it is near.
        let compiled = try Self.rule(
            """
            id: t.kill
            title: kill
            forbid:
              - { ev: app.req, as: r }
              - { ev: app.resp, without: { ev: app.cancel, where: "t < r.t + 10" } }
            report_at: r
            """)
        let (runner, sink) = Self.feed(
            compiled,
            [
                ("app.req", 1), ("app.req", 100), ("app.req", 200), ("app.cancel", 205),
                ("app.resp", 300)
            ])
        #expect(sink.violations[0]?.map(\.line) == [1, 2])
        // Every partial waiting died or matched, and the two that matched were reported at their
        // request: nothing they could match later would be kept, so they are gone and a later
        // cancel looks at none.
        let visits = runner.visits
        _ = Self.feed(compiled, [("app.cancel", 301)], into: runner, after: 5)
        #expect(runner.visits == visits)
        // A request still waiting is looked at.
        _ = Self.feed(compiled, [("app.req", 400), ("app.cancel", 401)], into: runner, after: 6)
        #expect(runner.visits == visits + 1)
    }

    /// Feeds `(ev, k)` events (t = their place) of generation 1 to a runner of `compiled`.
    private static func feed(
        _ compiled: CompiledRule, keyed events: [(String, Int)], skipping: Bool
    ) -> (SequenceRunner, FindingSink) {
        let runner = SequenceRunner(compiled, files: ["a.jsonl"])
        runner.skipsKnownStarts = skipping
        // `o` holds `k` too: a let that reads a capture `o` reads the candidate's own `o` where no
        // `o` is bound (rules.md), and the bound one's elsewhere.
        let made = events.enumerated().map { i, event in
            Event(
                t: Double(i), ev: event.0, gen: 1, file: 0, line: i + 1,
                fields: [
                    .init("k", .int(Int64(event.1))),
                    .init("o", .object([.init("k", .int(Int64(event.1)))]))
                ],
                evID: EvNames.id(event.0))
        }
        return (runner, observe(made, by: runner))
    }

    @Test func anIdenticalPartialOpensAgainOnceItsStageEmptied() throws {
        // Twenty partials reach stage 2 (past ``SequenceRunner/keyedFrom``: the stage keeps their
        // keys), all die there, and each grows again from stage 1 with the same captures: a stage
        // with no live partial knows none, so every one opens again and the last step matches.
        let compiled = try Self.rule(
            """
            id: t.again
            title: again
            forbid:
              - { ev: x.a, as: a }
              - { ev: x.b, without: { ev: x.e } }
              - { ev: x.d, where: "t > a.t", without: { ev: x.c } }
            message: "d after a at {a.t}"
            """)
        let starts = (0..<20).map { ("x.a", Double($0)) }
        let (runner, _) = Self.feed(compiled, starts + [("x.b", 20), ("x.c", 21), ("x.b", 22)])
        #expect(runner.stages[2].live == 20)
        let (_, sink) = Self.feed(compiled, [("x.d", 23)], into: runner, after: 23)
        #expect(sink.violations[0]?.map(\.line) == [24])
    }

    @Test func aFirstStepWhoseMatchWouldMergeIsNotTried() throws {
        // reconnect.resets-after-open's shape: every pong would open the same partial.
        let compiled = try Self.rule(
            """
            id: t.resets
            title: resets
            forbid:
              - { ev: x.pong, as: q, where: "k > 0" }
              - { ev: x.reconnect, where: "k != 1", without: { ev: x.reconnect } }
            message: "reconnect {k} after the pong at {q.t}"
            """)
        let pongs = Array(repeating: ("x.pong", 1), count: 1_000)
        let (runner, sink) = Self.feed(
            compiled,
            keyed: [("x.pong", 0)] + pongs + [("x.reconnect", 2), ("x.pong", 1), ("x.pong", 1)],
            skipping: true)
        // The first pong (k = 0) and the second are tried; the reconnect ends the partial, and the
        // next pong is tried again.
        #expect(runner.startsTried == 3)
        #expect(sink.violations[0]?.map(\.message) == ["reconnect 2 after the pong at 1"])
    }

    /// Sparing the first step changes nothing a rule says: random logs through sequences whose
    /// first step's matches merge, die on the event that would start another, or are told apart.
    @Test(arguments: 0..<80)
    func sparedFirstStepsChangeNoFinding(seed: Int) throws {
        let shapes = [
            """
            forbid:
              - { ev: x.pong, as: q, where: "k > 0" }
              - { ev: x.reconnect, where: "k != 1", without: { ev: x.reconnect } }
            message: "{k} after {q.t}"
            """,
            """
            forbid:
              - { ev: x.pong, where: "k >= 1" }
              - { ev: x.reconnect, without: { ev: x.pong, where: "k == 3" } }
            message: "{t}"
            """,
            """
            forbid:
              - { ev: x.pong, as: q, where: "k > 0" }
              - { ev: x.other, as: o }
              - { ev: x.reconnect, where: "k == q.k", without: { ev: x.other, where: "k == 2" } }
            without: { ev: x.other, where: "k == 3" }
            message: "{t} {o.t}"
            """,
            """
            forbid:
              - { ev: [x.pong, x.other], where: "k != 2" }
              - { ev: x.other, as: o, without: { ev: x.reconnect } }
              - { ev: x.reconnect }
            report_at: o
            message: "{t}"
            """,
            """
            each:
              - { ev: x.pong, as: q, where: "k > 0" }
              - { ev: x.reconnect, without: { ev: x.other, where: "k == 1" } }
            never_after: { ev: x.other, where: "k == 0" }
            message: "{t} {q.t}"
            """,
            // A review's case: the first step reads a let (after a test that often settles it)
            // whose history call reads a later capture, which the message binds. How the call
            // looks is decided where it first runs: the first step is never spared here.
            """
            let: { L: "count({ev: x.other, where: 'k == o.k'})" }
            forbid:
              - { ev: x.pong, where: "k == 1 or L > 1" }
              - { ev: x.other, as: o, without: { ev: x.reconnect } }
            message: "L={L} at {o.k}"
            """
        ]
        var random = SplitMix64(seed: UInt64(seed) &+ 0x5EED)
        let names = ["x.pong", "x.pong", "x.reconnect", "x.other"]
        let log = (0..<(20 + random.below(200))).map { _ in
            (names[random.below(names.count)], random.below(4))
        }
        for (n, shape) in shapes.enumerated() {
            let compiled = try Self.rule("id: t.s\(n)\ntitle: s\(n)\n" + shape)
            let (spared, a) = Self.feed(compiled, keyed: log, skipping: true)
            let (all, b) = Self.feed(compiled, keyed: log, skipping: false)
            let found = { (s: FindingSink) in
                (s.violations[0] ?? []).map { "\($0.line ?? 0) \($0.message)" }
            }
            #expect(found(a) == found(b), "shape \(n), seed \(seed)")
            #expect(spared.startsTried <= all.startsTried)
        }
    }
}

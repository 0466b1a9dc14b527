import Testing

@testable import ConnAudit

/// When the last live partial of a stage dies, the stage is emptied: each partial moves out of
/// its list, which keeps its room, and its captures go, unbound, to the runner's spares
/// (``SequenceRunner/spareCaptures``) for the next partial to start, up to
/// ``SequenceRunner/sparesKept``. The first stage keeps its first partial, dead, for the next
/// start to open in (``SequenceRunner/reopen(_:on:)``).
@Suite struct EmptiedStageRecyclesCapturesTests {
    private static func runner() throws -> SequenceRunner {
        // ws.late-pong-ignored's first two steps: a ping waits for a late pong, and any pong
        // ends the wait.
        let text = """
            rules:
              - id: t.late
                title: A late pong
                for: generation
                forbid:
                  - { ev: ws.ping, as: p }
                  - { ev: ws.pong, where: "t >= p.t + 1000", without: { ev: ws.pong } }
            """
        let rule = try #require(try RuleLoader.load(files: [("rules/t.yaml", text)]).rules.first)
        return SequenceRunner(
            CompiledRule(rule: rule, index: 0, overrides: [:]), files: ["a.jsonl"])
    }

    /// Feeds `events` (ev, t) of generation 1, from `$seq` `after` on.
    private static func feed(
        _ runner: SequenceRunner, _ events: [(String, Double)], after: Int = 0
    ) -> FindingSink {
        let sink = FindingSink(files: ["a.jsonl"])
        let scope = ContextScope(context: TimelineContext(source: nil), stream: nil, gen: 1)
        for (n, event) in events.enumerated() {
            let e = Event(
                t: event.1, ev: event.0, gen: 1, file: 0, line: after + n + 1, fields: [],
                evID: EvNames.id(event.0))
            e.seq = after + n
            runner.observe(e, context: scope, sink: sink)
        }
        return sink
    }

    @Test func aStageEmptiedKeepsItsRoomAndSparesTheCaptures() throws {
        let runner = try Self.runner()
        _ = Self.feed(runner, [("ws.ping", 100), ("ws.ping", 200), ("ws.ping", 300)])
        #expect(runner.stages[1].live == 3)
        #expect(runner.spareCaptures.isEmpty)
        let room = runner.stages[1].partials.capacity
        // An early pong kills every waiting ping: the stage is emptied.
        let sink = Self.feed(runner, [("ws.pong", 350)], after: 3)
        #expect(sink.violations.isEmpty)
        #expect(runner.stages[1].partials.count == 1 && runner.stages[1].live == 0)
        #expect(runner.stages[1].partials[0].dead)
        #expect(runner.stages[1].partials.capacity == room)
        #expect(runner.openStages & (1 << 1) == 0)
        #expect(runner.spareCaptures.count == 2)
        #expect(runner.spareCaptures.allSatisfy { $0.isEmpty })
        // The next ping opens in the first one's slot, bound to it alone; no spare is taken.
        _ = Self.feed(runner, [("ws.ping", 400)], after: 4)
        #expect(runner.spareCaptures.count == 2)
        #expect(runner.stages[1].partials.count == 1)
        #expect(runner.stages[1].partials[0].captures.names == ["p"])
        #expect(runner.stages[1].partials[0].captures["p"]?.t == 400)
    }

    @Test func noMoreSparesAreKeptThanTheBound() throws {
        let runner = try Self.runner()
        let pings = (1...(SequenceRunner.sparesKept + 3)).map { ("ws.ping", Double($0 * 10)) }
        _ = Self.feed(runner, pings)
        #expect(runner.stages[1].live == pings.count)
        _ = Self.feed(runner, [("ws.pong", 1_000)], after: pings.count)
        #expect(runner.stages[1].partials.count == 1 && runner.stages[1].live == 0)
        #expect(runner.spareCaptures.count == SequenceRunner.sparesKept)
        #expect(runner.spareCaptures.allSatisfy { $0.isEmpty })
    }
}

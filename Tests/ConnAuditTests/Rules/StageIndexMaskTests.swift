import Testing

@testable import ConnAudit

/// A stage says in one word which of its key indexes are made (``SequenceRunner/Stage/indexed``):
/// a partial that opens there is added to each of them, and an emptied or compacted stage drops
/// them with the mask.
@Suite struct StageIndexMaskTests {
    private static func runner() throws -> SequenceRunner {
        // A `b` grows the partial of the `a` with its `k`: past ``SequenceRunner/plannedFrom``
        // open partials, a `b` is tried only against those of its key.
        let text = """
            rules:
              - id: t.keyed
                title: keyed
                for: generation
                forbid:
                  - { ev: x.a, as: a }
                  - { ev: x.b, where: "k == a.k", without: { ev: x.e } }
                message: "b of k={k}"
            """
        let rule = try #require(try RuleLoader.load(files: [("rules/t.yaml", text)]).rules.first)
        return SequenceRunner(
            CompiledRule(rule: rule, index: 0, overrides: [:]), files: ["a.jsonl"])
    }

    /// Feeds `events` (ev, k) of generation 1, from `$seq` `after` on.
    private static func feed(
        _ runner: SequenceRunner, _ events: [(String, Int64)], after: Int = 0
    ) -> FindingSink {
        let sink = FindingSink(files: ["a.jsonl"])
        let scope = ContextScope(context: TimelineContext(source: nil), stream: nil, gen: 1)
        for (n, event) in events.enumerated() {
            let e = Event(
                t: Double(after + n), ev: event.0, gen: 1, file: 0, line: after + n + 1,
                fields: [.init("k", .int(event.1))], evID: EvNames.id(event.0))
            e.seq = after + n
            runner.observe(e, context: scope, sink: sink)
        }
        return sink
    }

    @Test func aPartialOpenedAfterTheIndexWasMadeIsInIt() throws {
        let runner = try Self.runner()
        let starts = (0..<Int64(SequenceRunner.plannedFrom)).map { ("x.a", $0) }
        // A `b` of no open key makes the step's index and grows nothing.
        var sink = Self.feed(runner, starts + [("x.b", 99)])
        #expect(sink.violations.isEmpty)
        #expect(runner.stages[1].indexed == 1 << SequenceRunner.Role.step.rawValue)
        // The `a` opened now is found through that index by its `b`.
        sink = Self.feed(runner, [("x.a", 50), ("x.b", 50)], after: starts.count + 1)
        #expect(sink.violations[0]?.map(\.message) == ["b of k=50"])
        #expect(runner.visits == 1)
    }

    @Test func anEmptiedStageDropsItsIndexes() throws {
        let runner = try Self.runner()
        let starts = (0..<Int64(SequenceRunner.plannedFrom)).map { ("x.a", $0) }
        _ = Self.feed(runner, starts + [("x.b", 99), ("x.e", 0)])
        #expect(runner.stages[1].live == 0)
        #expect(runner.stages[1].indexed == 0)
        // Reopened, the stage is tried in full, then indexed again.
        let again = (0..<Int64(SequenceRunner.plannedFrom)).map { ("x.a", $0 + 10) }
        let sink = Self.feed(runner, again + [("x.b", 13)], after: starts.count + 2)
        #expect(sink.violations[0]?.map(\.message) == ["b of k=13"])
        #expect(runner.stages[1].indexed == 1 << SequenceRunner.Role.step.rawValue)
    }
}

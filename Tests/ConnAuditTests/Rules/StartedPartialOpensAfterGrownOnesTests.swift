import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// The partial an event starts is kept apart from those it grows, and opens after every one of
/// them: its ordinal (``SequenceRunner/nextOrdinal``) follows theirs, as the partials of several
/// stages are tried in the order they opened.
@Suite struct StartedPartialOpensAfterGrownOnesTests {
    private static func runner(_ body: String) throws -> SequenceRunner {
        let rule = try #require(try RuleRuns.rules([body], file: "rules/seq.yaml").first)
        return SequenceRunner(
            CompiledRule(rule: rule, index: 0, overrides: [:]), files: ["a.jsonl"])
    }

    /// Feeds `events` (ev, t) of generation 1.
    private static func feed(_ runner: SequenceRunner, _ events: [(String, Double)]) -> FindingSink
    {
        let sink = FindingSink(files: ["a.jsonl"])
        let scope = ContextScope(context: TimelineContext(source: nil), stream: nil, gen: 1)
        for (n, event) in events.enumerated() {
            let e = Event(
                t: event.1, ev: event.0, gen: 1, file: 0, line: n + 1, fields: [],
                evID: EvNames.id(event.0))
            e.seq = n
            runner.observe(e, context: scope, sink: sink)
        }
        return sink
    }

    @Test func anEventThatGrowsAndStartsOpensTheGrownFirst() throws {
        // Every x.a starts a partial and grows each waiting one; the last step reads both
        // captures, so no two partials are alike.
        let runner = try Self.runner(
            """
            id: t.order
            title: order
            forbid:
              - { ev: x.a, as: p }
              - { ev: x.a, as: q }
              - { ev: x.b, where: "t > p.t and t > q.t" }
            """)
        _ = Self.feed(runner, [("x.a", 1), ("x.a", 2), ("x.a", 3)])
        // x.a at 2 grew the partial of 1 (to stage 2) and started one; x.a at 3 grew both
        // waiting at stage 1 and started a third. A partial that grows stays where it was too.
        let grown = runner.stages[2].partials.filter { !$0.dead }
        let waiting = runner.stages[1].partials.filter { !$0.dead }
        #expect(
            grown.map { [$0.captures["p"]!.t, $0.captures["q"]!.t] } == [[1, 2], [1, 3], [2, 3]])
        #expect(waiting.map { $0.captures["p"]!.t } == [1, 2, 3])
        // At each event, the partials it grew took their ordinals before the one it started.
        #expect(waiting.map(\.ordinal) == [0, 2, 5])
        #expect(grown.map(\.ordinal) == [1, 3, 4])
        let sink = Self.feed(runner, [("x.b", 4)])
        #expect(sink.violations[0]?.count == 1)
    }
}

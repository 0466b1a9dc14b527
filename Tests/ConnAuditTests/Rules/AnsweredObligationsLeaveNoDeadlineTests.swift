import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// Once no obligation is open, none of their deadlines is kept: a later event passing one finds
/// nothing to pop. An obligation still open keeps its deadline, and fails at it.
@Suite struct AnsweredObligationsLeaveNoDeadlineTests {
    private static func runner() throws -> SequenceRunner {
        let text = """
            rules:
              - id: t.answer
                title: answer
                each: { ev: ws.ping, as: p }
                followed_by: { ev: ws.pong }
                within_ms: 1000
            """
        let rule = try #require(try RuleLoader.load(files: [("rules/seq.yaml", text)]).rules.first)
        return SequenceRunner(
            CompiledRule(rule: rule, index: 0, overrides: [:]), files: ["a.jsonl"])
    }

    private static func feed(_ events: [(String, Double)], to runner: SequenceRunner) -> FindingSink
    {
        let sink = FindingSink(files: ["a.jsonl"])
        let scope = ContextScope(context: TimelineContext(source: nil), stream: nil, gen: 1)
        for (i, event) in events.enumerated() {
            let e = Event(
                t: event.1, ev: event.0, gen: 1, file: 0, line: i + 1, fields: [],
                evID: EvNames.id(event.0))
            e.seq = i
            runner.observe(e, context: scope, sink: sink)
        }
        return sink
    }

    @Test func answeredObligationsLeaveNoDeadline() throws {
        let runner = try Self.runner()
        let sink = Self.feed(
            [("ws.ping", 0), ("ws.pong", 10), ("ws.ping", 100), ("ws.ping", 150), ("ws.pong", 160)],
            to: runner)
        #expect(runner.obligations.live == 0)
        #expect(runner.obligations.heap.isEmpty)
        #expect(runner.obligations.earliestDeadline == .infinity)
        #expect(sink.violations.isEmpty)
    }

    @Test func anOpenObligationKeepsItsDeadline() throws {
        let runner = try Self.runner()
        let sink = Self.feed(
            [("ws.ping", 0), ("ws.pong", 10), ("ws.ping", 100), ("app.tick", 1200)], to: runner)
        #expect(sink.violations[0]?.map(\.line) == [3])
        #expect(runner.obligations.heap.isEmpty)
    }
}

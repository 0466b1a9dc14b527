import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A start whose first step tests `ev` alone and whose kept `where` has a known truth is decided
/// without a context; one that needs a test read with a context makes one, and gives the answer
/// the full path gives.
@Suite struct KnownStartsMakeNoContextTests {
    private static func compile(_ each: String) throws -> CompiledRule {
        let text = """
            rules:
              - id: t.start
                title: start
                let:
                  ending: "first({ev: [ws.close, ws.closed]})"
                each: \(each)
                followed_by: { ev: ws.pong }
                within_ms: 1000
            """
        let rule = try #require(
            try RuleLoader.load(files: [("rules/start.yaml", text)]).rules.first)
        return CompiledRule(rule: rule, index: 0, overrides: [:])
    }

    /// Feeds `events` (ev, t) of generation 1 to `runner`, with `$seq` from `after` on.
    private static func feed(_ runner: SequenceRunner, _ events: [(String, Double)], after: Int = 0)
    {
        let sink = FindingSink(files: ["a.jsonl"])
        let scope = ContextScope(context: TimelineContext(source: nil), stream: nil, gen: 1)
        for (n, event) in events.enumerated() {
            let e = Event(
                t: event.1, ev: event.0, gen: 1, file: 0, line: after + n + 1, fields: [],
                evID: EvNames.id(event.0))
            e.seq = after + n
            runner.observe(e, context: scope, sink: sink)
        }
    }

    @Test func aStartWithAKnownTruthMakesNoContext() throws {
        let each =
            #"{ ev: ws.ping, as: p, where: "count({ev: ws.recv_error}) == 0 and ending == null" }"#
        let runner = SequenceRunner(try Self.compile(each), files: ["a.jsonl"])
        #expect(runner.startWhereKept != 0)
        Self.feed(runner, [("ws.ping", 0), ("ws.ping", 10), ("ws.ping", 20)])
        #expect(runner.obligations.live == 3)
        // The first ping evaluates the `where`; the others read its kept truth.
        #expect(runner.startContextsMade == 1)
        // A known false truth decides a start too.
        Self.feed(runner, [("ws.recv_error", 30), ("ws.ping", 40), ("ws.ping", 50)], after: 3)
        #expect(runner.obligations.live == 3)
        #expect(runner.startContextsMade == 2)
    }

    @Test func aStartThatTestsAFieldMakesAContext() throws {
        let each = #"{ ev: ws.ping, id: 1, where: "count({ev: ws.recv_error}) == 0" }"#
        let runner = SequenceRunner(try Self.compile(each), files: ["a.jsonl"])
        #expect(runner.startWhereKept != 0)
        Self.feed(runner, [("ws.ping", 0), ("ws.ping", 10)])
        #expect(runner.startContextsMade == 2)
        #expect(runner.obligations.live == 0)
    }
}

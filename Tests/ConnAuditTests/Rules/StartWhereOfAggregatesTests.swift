import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A first step's `where` that reads only params, static lets and history answered from running
/// aggregates is evaluated once per move of the aggregates, and its kept truth is forgotten as
/// soon as one may have moved. A start whose terms test `ev` alone and whose kept truth is known
/// is decided without a context; one that tests a field makes one.
@Suite struct StartWhereOfAggregatesTests {
    private static func compile(_ each: String) throws -> CompiledRule {
        let text = """
            rules:
              - id: t.start
                title: start
                let:
                  ending: "first({ev: [ws.close, ws.closed]})"
                each: \(each)
                followed_by: { ev: ws.close }
                within_ms: 1000
            """
        let rule = try #require(
            try RuleLoader.load(files: [("rules/start.yaml", text)]).rules.first)
        return CompiledRule(rule: rule, index: 0, overrides: [:])
    }

    private static let aggregatesOnly =
        #"{ ev: ws.ping, as: p, where: "count({ev: ws.recv_error}) == 0 and ending == null" }"#

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

    @Test(arguments: [
        (#"{ ev: ws.ping, where: "count({ev: ws.recv_error}) == 0" }"#, true),
        (aggregatesOnly, true),
        (#"{ ev: ws.ping, where: "t > 5 and ending == null" }"#, false),
        (#"{ ev: ws.ping, as: p, where: "p.t > 5" }"#, false),
        (#"{ ev: ws.ping, where: "count({ev: ws.pong, where: 'id == 1'}) == 0" }"#, true)
    ])
    func aWhereIsKeptWhenItReadsOnlyAggregates(each: String, kept: Bool) throws {
        let runner = SequenceRunner(try Self.compile(each), files: ["a.jsonl"])
        #expect((runner.startWhereKept != 0) == kept)
    }

    @Test func aKeptTruthIsForgottenWhenAnAggregateMoves() throws {
        let runner = SequenceRunner(try Self.compile(Self.aggregatesOnly), files: ["a.jsonl"])
        #expect(runner.startWhereKept != 0)
        Self.feed(runner, [("ws.ping", 0), ("ws.ping", 10)])
        #expect(runner.obligations.live == 2)
        // The recv_error makes the trigger's `where` false from the next ping on.
        Self.feed(runner, [("ws.recv_error", 20), ("ws.ping", 30)], after: 2)
        #expect(runner.obligations.live == 2)
        Self.feed(runner, [("ws.ping", 40)], after: 4)
        #expect(runner.obligations.live == 2)
    }

    @Test func aKeptTruthIsForgottenWhenAggregatesAreSetBack() throws {
        let compiled = try Self.compile(Self.aggregatesOnly)
        let ended = SequenceRunner(compiled, files: ["a.jsonl"])
        Self.feed(ended, [("ws.close", 0)])
        let runner = SequenceRunner(compiled, files: ["a.jsonl"])
        Self.feed(runner, [("ws.ping", 0)])
        #expect(runner.obligations.live == 1)
        // Aggregates set back as a rebuilt timeline sets them: the generation has ended.
        runner.aggregateState = ended.aggregateState
        Self.feed(runner, [("ws.ping", 10)], after: 1)
        #expect(runner.obligations.live == 1)
    }

    @Test func aStartWithAKnownTruthMakesNoContext() throws {
        let runner = SequenceRunner(try Self.compile(Self.aggregatesOnly), files: ["a.jsonl"])
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

import Testing

@testable import ConnAudit

/// An event answers an open obligation when it matches `followed_by` or `unless` with the
/// obligation's captures: a few obligations are each asked in full, many through their keys
/// (``SelectorPlan``). An event that passes a deadline answers none; it fails those due.
@Suite struct ObligationsAnsweredByTheEventTests {
    private static func runner() throws -> SequenceRunner {
        let text = """
            rules:
              - id: t.answer
                title: answer
                each: { ev: ws.ping, as: p }
                followed_by: { ev: ws.pong, where: "k == p.k" }
                within_ms: 1000
                unless: { ev: ws.close, where: "k == p.k" }
            """
        let rule = try #require(try RuleLoader.load(files: [("rules/seq.yaml", text)]).rules.first)
        return SequenceRunner(
            CompiledRule(rule: rule, index: 0, overrides: [:]), files: ["a.jsonl"])
    }

    /// Feeds `(ev, t, k)` events of generation 1.
    private static func feed(_ events: [(String, Double, Int)], to runner: SequenceRunner)
        -> FindingSink
    {
        let sink = FindingSink(files: ["a.jsonl"])
        let scope = ContextScope(context: TimelineContext(source: nil), stream: nil, gen: 1)
        for (i, event) in events.enumerated() {
            let e = Event(
                t: event.1, ev: event.0, gen: 1, file: 0, line: i + 1,
                fields: [.init("k", .int(Int64(event.2)))], evID: EvNames.id(event.0))
            e.seq = i
            runner.observe(e, context: scope, sink: sink)
        }
        return sink
    }

    @Test func aFewObligationsAreAnsweredByFollowedByOrUnless() throws {
        let runner = try Self.runner()
        let sink = Self.feed(
            [
                ("ws.ping", 0, 1), ("ws.ping", 10, 2), ("ws.ping", 20, 3),
                // Answers the ping of k 2 alone, then the close that of k 1.
                ("ws.pong", 30, 2), ("ws.close", 40, 1),
                // Passes the deadline of k 3, which fails; the pong of k 3 then answers nothing.
                ("app.tick", 1_100, 0), ("ws.pong", 1_200, 3)
            ], to: runner)
        #expect(sink.violations[0]?.map(\.line) == [3])
        #expect(runner.obligations.live == 0)
    }

    @Test func manyObligationsAreAnsweredThroughTheirKeys() throws {
        let runner = try Self.runner()
        let pings = (0..<20).map { ("ws.ping", Double($0), $0) }
        // Every other one is answered, half by a pong, half by a close; the rest fail.
        let answers = stride(from: 0, to: 20, by: 2).map {
            ($0 % 4 == 0 ? "ws.pong" : "ws.close", Double(100 + $0), $0)
        }
        let sink = Self.feed(pings + answers + [("app.tick", 5_000, 0)], to: runner)
        #expect(sink.violations[0]?.map(\.line) == stride(from: 2, through: 20, by: 2).map { $0 })
        #expect(runner.obligations.live == 0)
    }
}

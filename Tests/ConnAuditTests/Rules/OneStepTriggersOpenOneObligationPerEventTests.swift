import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A trigger of one step completes one match per event at most, so its obligations are opened
/// without keys to tell matches of one event apart: each triggering event opens exactly one.
@Suite struct OneStepTriggersOpenOneObligationPerEventTests {
    @Test func eachPingOpensOneObligationAndEachPongAnswersItsOwn() throws {
        let text = """
            rules:
              - id: t.one
                title: one step
                each: { ev: ws.ping, as: p }
                followed_by: { ev: ws.pong, where: "seq == p.seq" }
            """
        let rule = try #require(try RuleLoader.load(files: [("rules/one.yaml", text)]).rules.first)
        let runner = SequenceRunner(
            CompiledRule(rule: rule, index: 0, overrides: [:]), files: ["a.jsonl"])
        let sink = FindingSink(files: ["a.jsonl"])
        let scope = ContextScope(context: TimelineContext(source: nil), stream: nil, gen: 1)
        var n = 0
        func feed(_ ev: String, _ seq: Int) {
            let e = Event(
                t: Double(n), ev: ev, gen: 1, file: 0, line: n + 1,
                fields: [Event.Field("seq", .int(Int64(seq)))], evID: EvNames.id(ev))
            e.seq = n
            n += 1
            runner.observe(e, context: scope, sink: sink)
        }
        for i in 0..<20 { feed("ws.ping", i) }
        #expect(runner.obligations.live == 20)
        for i in stride(from: 0, to: 20, by: 2) { feed("ws.pong", i) }
        #expect(runner.obligations.live == 10)
    }
}

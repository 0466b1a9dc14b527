import Testing

@testable import ConnAudit

/// A partial that dies at a stage that keeps its partials' keys (past
/// ``SequenceRunner/keyedFrom``) leaves the keys: the same partial can open there again.
@Suite struct KilledPartialLeavesTheKeysTests {
    @Test func aKilledPartialOpensAgainFromTheSameStart() throws {
        let text = """
            rules:
              - id: t.keys
                title: keys
                for: generation
                forbid:
                  - { ev: x.a, as: a }
                  - { ev: x.b }
                  - { ev: x.d, where: "t > a.t", without: { ev: x.c, where: "k == a.k" } }
            """
        let rule = try #require(try RuleLoader.load(files: [("rules/t.yaml", text)]).rules.first)
        let runner = SequenceRunner(
            CompiledRule(rule: rule, index: 0, overrides: [:]), files: ["a.jsonl"])
        let sink = FindingSink(files: ["a.jsonl"])
        let scope = ContextScope(context: TimelineContext(source: nil), stream: nil, gen: 1)
        var seq = 0
        func feed(_ ev: String, _ k: Int64) {
            let e = Event(
                t: Double(seq), ev: ev, gen: 1, file: 0, line: seq + 1,
                fields: [.init("k", .int(k))], evID: EvNames.id(ev))
            e.seq = seq
            seq += 1
            runner.observe(e, context: scope, sink: sink)
        }
        for k in 0..<20 { feed("x.a", Int64(k)) }
        feed("x.b", 0)
        #expect(runner.stages[2].live == 20)
        #expect(runner.stages[2].keys?.count == 20)
        // The `c` of k = 5 ends that partial alone; the next `b` grows every start again, and
        // only the one that died is not known.
        feed("x.c", 5)
        #expect(runner.stages[2].live == 19)
        #expect(runner.stages[2].keys?.count == 19)
        feed("x.b", 0)
        #expect(runner.stages[2].live == 20)
        #expect(runner.stages[2].keys?.count == 20)
    }
}

import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// The keys that tell apart the complete matches of one event (``SequenceRunner/isNewMatch(_:)``)
/// are of that event alone: emptied once its grown partials are taken, so none is left between
/// events, and an event that grows nothing leaves them as they are, empty.
@Suite struct SequenceMatchKeysEmptyBetweenEventsTests {
    private static func rule(_ body: String) throws -> CompiledRule {
        let rule = try #require(try RuleRuns.rules([body], file: "rules/seq.yaml").first)
        return CompiledRule(rule: rule, index: 0, overrides: [:])
    }

    @Test func matchesOfOneEventLeaveNoKeysForTheNext() throws {
        // Two triggers wait for one `go`: it completes two matches (their keys differ by `s`, which
        // `followed_by` reads), each opening an obligation.
        let compiled = try Self.rule(
            """
            id: t.keys
            title: keys
            each:
              - { ev: a.start, as: s }
              - { ev: a.go, as: g }
            followed_by: { ev: a.done, where: "t > s.t" }
            """)
        let runner = SequenceRunner(compiled, files: ["a.jsonl"])
        let sink = FindingSink(files: ["a.jsonl"])
        let scope = ContextScope(context: TimelineContext(source: nil), stream: nil, gen: 1)
        let events: [(String, Double)] = [
            ("a.start", 100), ("a.start", 200), ("a.go", 300), ("a.other", 350), ("a.go", 400)
        ]
        var keysLeft = 0
        for (n, event) in events.enumerated() {
            let e = Event(
                t: event.1, ev: event.0, gen: 1, file: 0, line: n + 1, fields: [],
                evID: EvNames.id(event.0))
            e.seq = n
            runner.observe(e, context: scope, sink: sink)
            if runner.firstMatchKey != nil || !runner.matchKeys.isEmpty { keysLeft += 1 }
        }
        #expect(keysLeft == 0)
        // Each `go` completes a match with each trigger: four obligations, none answered.
        #expect(runner.obligations.live == 4)
    }
}

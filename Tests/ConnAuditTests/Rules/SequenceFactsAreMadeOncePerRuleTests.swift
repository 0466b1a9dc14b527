import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A sequence rule's facts (``SequenceFacts``) are made once per compiled rule and read by every
/// runner of it: each runner starts from them, and what a runner changes of its own stays its own.
@Suite struct SequenceFactsAreMadeOncePerRuleTests {
    private static func rule(_ body: String) throws -> CompiledRule {
        let rule = try #require(try RuleRuns.rules([body], file: "rules/seq.yaml").first)
        return CompiledRule(rule: rule, index: 0, overrides: [:])
    }

    private static let latePong = """
        id: t.late
        title: late pong
        forbid:
          - { ev: ws.ping, as: p }
          - { ev: ws.pong, as: q, where: "t >= p.t + 1000", without: { ev: [ws.pong, ws.close] } }
          - { ev: ws.ping, without: { ev: [ws.close, ws.ping] } }
        """

    @Test func theFactsSayWhatTheRuleIs() throws {
        let facts = try Self.rule(Self.latePong).sequenceFacts
        #expect(facts.sequence.steps.count == 3)
        #expect(facts.sequenceWithout == nil)
        // The first step's only term binds `p`, which the second step reads.
        #expect(facts.startBinds == 0b1)
        #expect(facts.stepsByID == 0b101)
        #expect(facts.withoutsByID == 0b111)
        // A `forbid` without `report_at` is reported at its last step.
        #expect(facts.reportsAtLastStep)
        #expect(facts.responseWithin == nil)
        #expect(!facts.withinReadsLetsOnly)
    }

    @Test func aRunnerStartsFromItsRulesFactsAndKeepsItsChangesToItself() throws {
        let compiled = try Self.rule(Self.latePong)
        let a = SequenceRunner(compiled, files: ["a.jsonl"])
        a.stepsByID = 0
        a.withoutsByID = 0
        let b = SequenceRunner(compiled, files: ["a.jsonl"])
        #expect(b.stepsByID == 0b101)
        #expect(b.withoutsByID == 0b111)
        #expect(compiled.sequenceFacts.stepsByID == 0b101)
        #expect(b.startBinds == compiled.sequenceFacts.startBinds)
        #expect(b.startsAlike == compiled.sequenceFacts.startsAlike)
        #expect(b.reportsAtLastStep == compiled.sequenceFacts.reportsAtLastStep)
    }

    @Test func everyRunnerHoldsTheRulesOneFacts() throws {
        let compiled = try Self.rule(Self.latePong)
        let a = SequenceRunner(compiled, files: ["a.jsonl"])
        let b = SequenceRunner(compiled, files: ["a.jsonl"])
        #expect(a.facts === compiled.sequenceFacts)
        #expect(b.facts === a.facts)
    }

    @Test func aResponseKeepsItsPartsApart() throws {
        let facts = try Self.rule(
            """
            id: t.resp
            title: ping answered
            each: [{ ev: ws.ping, as: p }]
            followed_by: { ev: ws.pong }
            within_ms: 5000
            unless: { ev: ws.close }
            """
        ).sequenceFacts
        #expect(facts.responseFollowedBy != nil)
        #expect(facts.responseUnless != nil)
        #expect(facts.responseWithin != nil)
        // `within_ms` is a number: it reads no capture.
        #expect(facts.withinReadsLetsOnly)
        #expect(!facts.reportsAtLastStep)
    }

    /// Whether a complete match retires the partial it grew from is the rule's fact
    /// (``SequenceFacts/completedMatchesRetire``), read where a match completes: with
    /// `report_at` naming an earlier step, the reported anchor's partial is ended.
    @Test func aCompletedMatchRetiresItsPartialWhereTheFactsSay() throws {
        let reportedAtFirst = try Self.rule(
            """
            id: t.first
            title: a then b
            forbid:
              - { ev: x.a, as: p }
              - { ev: x.b }
            report_at: p
            """)
        #expect(reportedAtFirst.sequenceFacts.completedMatchesRetire)
        #expect(!(try Self.rule(Self.latePong)).sequenceFacts.completedMatchesRetire)
        let runner = SequenceRunner(reportedAtFirst, files: ["a.jsonl"])
        let sink = FindingSink(files: ["a.jsonl"])
        let scope = ContextScope(context: TimelineContext(source: nil), stream: nil, gen: nil)
        for (n, ev) in ["x.a", "x.b", "x.b"].enumerated() {
            let e = Event(
                t: Double(n), ev: ev, gen: nil, file: 0, line: n + 1, fields: [],
                evID: EvNames.id(ev))
            e.seq = n
            runner.observe(e, context: scope, sink: sink)
            // Reported at `x.b`: the partial of `x.a` is ended, not completed again.
            #expect(runner.stages[1].live == (n == 0 ? 1 : 0))
        }
        #expect(sink.violations.values.map(\.count) == [1])
    }
}

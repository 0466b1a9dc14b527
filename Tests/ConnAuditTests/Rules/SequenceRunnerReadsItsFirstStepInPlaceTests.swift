import Testing

@testable import ConnAudit

/// A sequence runner reads its first step through an uncounted reference
/// (``SequenceRunner/firstStep``): that holds only while the reference is the compiled rule's
/// own first step, which the runner's compiled rule keeps alive for the runner's whole life.
@Suite struct SequenceRunnerReadsItsFirstStepInPlaceTests {
    /// A two-step sequence rule.
    static func sequenceRule() throws -> Rule {
        let text = """
            rules:
              - id: t.late
                title: A pong after a ping
                for: generation
                forbid:
                  - { ev: ws.ping, as: p }
                  - { ev: ws.pong, where: "t >= p.t + 10" }
            """
        return try #require(try RuleLoader.load(files: [("rules/t.yaml", text)]).rules.first)
    }

    @Test func theFirstStepIsTheCompiledRulesOwn() throws {
        let rule = try Self.sequenceRule()
        let compiled = CompiledRule(rule: rule, index: 0, overrides: [:])
        let runner = SequenceRunner(compiled, files: ["a.jsonl"])
        let first = try #require(runner.firstStep)
        #expect(first.takeUnretainedValue() === compiled.steps[0])
    }

    @Test func theFirstStepLivesAsLongAsTheRunner() throws {
        let rule = try Self.sequenceRule()
        weak var step: StepSelectors?
        var runner: SequenceRunner? = SequenceRunner(
            CompiledRule(rule: rule, index: 0, overrides: [:]), files: ["a.jsonl"])
        step = runner?.firstStep?.takeUnretainedValue()
        #expect(step != nil)
        // The runner alone keeps its compiled rule, and with it the step.
        #expect(step === runner?.compiled.steps[0])
        runner = nil
        #expect(step == nil)
    }
}

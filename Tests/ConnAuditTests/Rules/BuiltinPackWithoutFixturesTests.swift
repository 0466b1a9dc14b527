import Testing

@testable import ConnAudit

/// A run loads the built-in pack from its texts without `tests:` (``BuiltinPack``): the rules must
/// be the same as those loaded with their fixtures, in every part a run reads.
@Suite struct BuiltinPackWithoutFixturesTests {
    @Test func eachTextWithoutTestsKeepsTheLinesOfTheTextOrBlanksThem() {
        for file in BuiltinPack.files {
            let full = file.text.split(separator: "\n", omittingEmptySubsequences: false)
            let cut = file.withoutTests.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(full.count == cut.count, "\(file.name): the line numbers move")
            for (n, (a, b)) in zip(full, cut).enumerated() where a != b {
                #expect(b.isEmpty, "\(file.name):\(n + 1) is changed, not blanked")
            }
        }
    }

    @Test func theRunsRulesAreThePacksRulesWithoutTheirFixtures() {
        let full = RuleLoader.builtin().rules
        let run = RuleLoader.builtin(fixtures: false).rules
        #expect(full.map(\.id) == run.map(\.id))
        #expect(full.contains { !$0.tests.isEmpty }, "the pack has fixtures to leave out")
        for (a, b) in zip(full, run) {
            #expect(b.tests.isEmpty && b.testsLines == nil, "\(b.id) keeps fixtures")
            #expect(a.yaml == b.yaml, "\(a.id): its YAML differs")
            #expect(a.file == b.file && a.line == b.line, "\(a.id): its place differs")
            #expect(a.title == b.title && a.description == b.description)
            #expect(a.severity == b.severity && a.scope == b.scope)
            #expect(a.params == b.params && a.boundParams == b.boundParams)
            #expect(a.findingFields == b.findingFields)
            #expect(a.letTexts.map(\.name) == b.letTexts.map(\.name))
            #expect(a.letTexts.map(\.text) == b.letTexts.map(\.text))
            // The parsed parts, to the last position: what the engine compiles.
            #expect(String(describing: a.lets) == String(describing: b.lets), "\(a.id): lets")
            #expect(String(describing: a.check) == String(describing: b.check), "\(a.id): check")
            #expect(
                String(describing: a.message) == String(describing: b.message), "\(a.id): message")
        }
        #expect(
            PartialReport.rulesHash(full, overrides: [:])
                == PartialReport.rulesHash(run, overrides: [:]))
    }

    /// Every fixture of the pack, judged by the rule as a run loads it: the same status, count
    /// and messages as by the rule loaded with its fixtures.
    @Test func theRunsRulesJudgeEveryFixtureAsThePacksRules() {
        let run = Dictionary(
            uniqueKeysWithValues: RuleLoader.builtin(fixtures: false).rules.map { ($0.id, $0) })
        var fixtures = 0
        for rule in RuleLoader.builtin().rules {
            guard let same = run[rule.id] else {
                Issue.record("\(rule.id) is missing from the run's rules")
                continue
            }
            for fixture in rule.tests {
                fixtures += 1
                let a = FixtureRunner.run(rule, fixture)
                let b = FixtureRunner.run(same, fixture)
                #expect(
                    a.status == b.status && a.violations == b.violations
                        && a.messages == b.messages,
                    "\(rule.id) fixture '\(fixture.name)'")
            }
        }
        #expect(fixtures > 100)
    }
}

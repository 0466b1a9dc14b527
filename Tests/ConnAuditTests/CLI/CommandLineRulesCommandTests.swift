import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// The `rules` command: `--list`, `--check`, `--explain` and `--test`.
@Suite struct CommandLineRulesCommandTests {
    @Test func rulesListNamesEveryRule() {
        let run = CLI.run(["rules", "--list"])
        #expect(run.code == 0)
        let lines = run.out.split(separator: "\n")
        let builtin = RuleLoader.builtin().rules
        #expect(lines.count == builtin.count)
        for (line, rule) in zip(lines, builtin) {
            #expect(line.hasPrefix(rule.id + " "))
            #expect(line.contains(rule.severity.rawValue))
            #expect(line.contains(rule.scope.rawValue))
            #expect(line.hasSuffix(rule.title))
        }
        #expect(CLI.run(["rules"]).out == run.out)
    }

    @Test func rulesCheckValidatesThePack() throws {
        let run = CLI.run(["rules", "--check"])
        #expect(run.code == 0)
        #expect(run.out == "\(RuleLoader.builtin().rules.count) rules OK, 0 warning(s)\n")
        try withScratchDirectory("cli") { dir in
            let rules = try CLI.write(CLI.testRules, dir, "r.yaml")
            let own = CLI.run(["rules", "--rules", rules, "--check"])
            #expect(own.code == 0)
            #expect(own.out == "3 rules OK, 0 warning(s)\n")
        }
    }

    @Test func rulesExplainShowsOneRule() {
        let run = CLI.run(["rules", "--explain", "ws.single-close"])
        #expect(run.code == 0)
        #expect(run.out.hasPrefix("ws.single-close — A generation is closed at most once\n"))
        #expect(run.out.contains("severity: error"))
        #expect(run.out.contains("scope: generation"))
        #expect(run.out.contains("check: count"))
        #expect(run.out.contains("defined at: <built-in>/20-ws.yaml:"))
        #expect(run.out.contains("A second ws.close in the same"))
        #expect(run.out.contains("count: { ev: ws.close }"))
        #expect(run.out.contains("max: 1"))
        #expect(!run.out.contains("ws.generation-increases"), "only the one rule's YAML")
    }

    @Test func rulesTestPassesOnTheBuiltinPack() {
        let run = CLI.run(["rules", "--test"])
        #expect(run.code == 0, "\(run.out)")
        let total = RuleLoader.builtin().rules.map(\.tests.count).reduce(0, +)
        #expect(run.out.hasSuffix("fixtures: \(total) passed, 0 failed\n"))
        #expect(!run.out.contains("FAIL"))
    }

    @Test func rulesTestFailsOnAWrongFixture() throws {
        try withScratchDirectory("cli") { dir in
            let rules = try CLI.write(
                """
                rules:
                  - id: t.noping
                    title: No pings
                    never: { ev: ws.ping }
                    tests:
                      - name: two pings
                        log: |
                          {"t":0,"ev":"ws.ping","gen":1}
                          {"t":1,"ev":"ws.ping","gen":1}
                        expect: fail
                        violations: 2
                      - name: claims a pass
                        log: |
                          {"t":0,"ev":"ws.ping","gen":1}
                        expect: pass
                  - id: t.untested
                    title: Untested
                    never: { ev: ws.pong }
                """, dir, "r.yaml")
            let run = CLI.run(["rules", "--rules", rules, "--test"])
            #expect(run.code == 1)
            #expect(run.out.contains("FAIL t.noping fixture 'claims a pass' (\(rules):12)"))
            #expect(run.out.contains("expected: pass"))
            #expect(run.out.contains("actual:   fail with 1 violation(s)"))
            #expect(run.out.contains("line 1: No pings"))
            #expect(run.out.contains("rules without fixtures: t.untested"))
            #expect(run.out.hasSuffix("fixtures: 1 passed, 1 failed\n"))
        }
    }

    /// A fixture line that is no connlog event takes no part: a typo would let an `expect: pass`
    /// fixture pass on nothing. Such a fixture fails, naming the line — unless its rule reads the
    /// reader's findings on bad lines, as log.malformed does.
    @Test func rulesTestFailsOnAFixtureWithABadLine() throws {
        try withScratchDirectory("cli") { dir in
            let rules = try CLI.write(
                """
                rules:
                  - id: t.reason
                    title: Closes have reasons
                    every: { ev: ws.close }
                    expect: "reason != null"
                    tests:
                      - name: a typo
                        log: |
                          {"t":0,"ev":"ws.close","gen":1,}
                        expect: pass
                  - id: t.any
                    title: Every ws event has a gen
                    for: source
                    every: { ev: "ws.*" }
                    expect: "gen != null"
                    tests:
                      - name: a typo under a glob
                        log: |
                          {"t":0,"ev":"ws.close","gen":1,}
                        expect: pass
                  - id: t.bad
                    title: No bad lines
                    for: corpus
                    never: { ev: $malformed }
                    tests:
                      - name: a bad line
                        log: |
                          not json
                        expect: fail
                """, dir, "r.yaml")
            let run = CLI.run(["rules", "--rules", rules, "--test"])
            #expect(run.code == 1)
            #expect(run.out.contains("FAIL t.reason fixture 'a typo' (\(rules):7)"))
            #expect(run.out.contains("line 1: not a connlog event: not valid JSON"))
            #expect(run.out.contains("FAIL t.any fixture 'a typo under a glob'"))
            #expect(!run.out.contains("FAIL t.bad"))
            #expect(run.out.hasSuffix("fixtures: 1 passed, 2 failed\n"))
        }
    }
}

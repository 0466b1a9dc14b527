import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A generation's runner whose rule keeps a keyed index or a regex step budget is set back for
/// the source's next generations like any other (``Runner/setBack()``): it makes its indexes
/// again from the new generation's events, and its budget has every step again. Each report is
/// compared with a run that makes every runner new.
@Suite struct RunnersWithIndexesSetBackTests {
    /// A pong must answer a ping of its id, found through a keyed index (`id == q.id`).
    static let keyedRule = """
        id: t.keyed
        title: A pong answers a ping of its id
        for: generation
        every: { ev: ws.pong, as: q }
        expect: "last({ev: ws.ping, where: 'id == q.id'}) != null"
        """

    /// A close's reason must match a regex that takes many steps on a long reason.
    static let regexRule = """
        id: t.regex
        title: A close names its reason
        for: generation
        every: { ev: ws.close }
        expect: "matches(reason, '^(a|b)*c$')"
        """

    static let reason = String(repeating: "ab", count: 50) + "c"

    /// Generations `0..<n`, each of which retires before the next begins: every one pongs id
    /// `x` and closes with ``reason``; only the even ones ping `x` first. An index kept from an
    /// earlier generation would find that one's ping for the odd ones.
    static func log(_ n: Int) -> String {
        (0..<n).map { g in
            let t = g * 6
            var lines = [#"{"t":\#(t),"ev":"ws.connect","gen":\#(g)}"#]
            if g % 2 == 0 { lines.append(#"{"t":\#(t + 1),"ev":"ws.ping","gen":\#(g),"id":"x"}"#) }
            lines += [
                #"{"t":\#(t + 2),"ev":"ws.pong","gen":\#(g),"id":"x"}"#,
                #"{"t":\#(t + 3),"ev":"ws.close","gen":\#(g),"reason":"\#(reason)"}"#,
                #"{"t":\#(t + 4),"ev":"ws.closed","gen":\#(g)}"#
            ]
            return lines.joined(separator: "\n") + "\n"
        }.joined()
    }

    /// The report of `rules` over `log`, retiring at every chance, with `kept` spares a rule.
    static func audit(_ rules: RuleSet, _ log: String, kept: Int) -> AuditReport {
        RunnerSpares.$kept.withValue(kept) {
            Auditor(
                rules: rules, jobs: 1, retireIdleAfter: 0,
                opener: RuleRuns.opener([("log.jsonl", log)])
            ).run([InputFile(path: "log.jsonl", isStdin: false)])
        }
    }

    static func rules(_ bodies: [String]) throws -> RuleSet {
        RuleSet(rules: try RuleRuns.rules(bodies, file: "rules/t.yaml"))
    }

    @Test func aKeyedIndexIsMadeAgainForEachGeneration() throws {
        let rules = try Self.rules([Self.keyedRule])
        let log = Self.log(300)
        let reused = Self.audit(rules, log, kept: 2)
        #expect(JSONReport.render(reused) == JSONReport.render(Self.audit(rules, log, kept: 0)))
        // The odd generations' pongs answer no ping.
        let result = try #require(reused.results.first { $0.rule.id == "t.keyed" })
        #expect(result.violations.count == 150)
        let outcome = RunnerSpares.$kept.withValue(2) {
            RetirementTests.evaluate(rules, log, retireIdleAfter: 0)
        }
        #expect(outcome.runnersReused > 250)
    }

    @Test func aRegexBudgetHasEveryStepAgainForEachGeneration() throws {
        let rules = try Self.rules([Self.regexRule])
        let log = Self.log(300)
        // The steps one search takes: a timeline has room for two, the source's 300 would
        // pass it many times over.
        var left = 1 << 40
        _ = try BoundedRegex("^(a|b)*c$").matches(Self.reason, budget: &left)
        let steps = (1 << 40) - left
        #expect(steps > 100)
        let budget = 2 * steps + 1
        let (reused, new) = RegexStepBudget.$perTimeline.withValue(budget) {
            (
                RunnersSetBackTests.report(rules, log, kept: 2),
                RunnersSetBackTests.report(rules, log, kept: 0)
            )
        }
        #expect(reused == new)
        #expect(!new.contains("regex step limit"))
        let outcome = RegexStepBudget.$perTimeline.withValue(budget) {
            RunnerSpares.$kept.withValue(2) {
                RetirementTests.evaluate(rules, log, retireIdleAfter: 0)
            }
        }
        #expect(outcome.runnersReused > 250)
    }
}

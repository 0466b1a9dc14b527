import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// Suites that load one rule from YAML and run it over one log; their tests call `rule`, `run`
/// and `lines` unqualified.
protocol SingleRuleRunning {}

extension SingleRuleRunning {
    /// Loads one rule written as a YAML list item without the `rules:` wrapper, unindented
    /// (`id: …\ntitle: …`).
    func rule(_ body: String) throws -> Rule {
        try #require(try RuleRuns.rules([body], file: "rules/engine.yaml").first)
    }

    /// One rule over one log: its result.
    func run(_ rule: Rule, _ log: String) -> RuleResult {
        RuleRuns.audit([rule], files: [("a.jsonl", log)]).results[0]
    }

    /// The lines of `findings`, in order, leaving out findings without one.
    func lines(_ findings: [Finding]) -> [Int] { findings.compactMap(\.line) }
}

extension EngineTests: SingleRuleRunning {}
extension MessageReuseTests: SingleRuleRunning {}

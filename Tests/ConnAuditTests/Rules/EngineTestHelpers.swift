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

/// Feeds a runner events by hand, as its timeline would: one generation, times and `seq` counting
/// up from `seq`, no source.
enum RunnerFeed {
    static func feed(_ runner: Runner, _ names: [String], seq: inout Int) {
        let scope = ContextScope(context: TimelineContext(source: nil))
        let sink = FindingSink(files: ["t"])
        for ev in names {
            seq += 1
            let e = Event(t: Double(seq), ev: ev, gen: 1, line: seq)
            e.seq = seq
            runner.observe(e, context: scope, sink: sink)
        }
    }

    /// The labels a `classify` runner would retire with after the events fed so far.
    static func labels(_ runner: ClassifyRunner) -> [String: Bool] {
        guard case .now(let results) = runner.retirement() else { return [:] }
        return Dictionary(uniqueKeysWithValues: results.map { ($0.name, $0.holds) })
    }
}

import Testing

@testable import ConnAudit
import ConnAuditTestSupport

// Tests of the rule engine, one check kind at a time, each kind's suite in a file of its own:
// ResponseCheckTests (each/followed_by), PrecedenceCheckTests (each/preceded_by),
// NeverAfterCheckTests, ForbidCheckTests, NeverCheckTests (never with scopes), CountCheckTests,
// ClassifyCheckTests; then ScopeTests, HistorySemanticsTests, LetTests, LookAheadTests,
// HistoryResultCaptureTests, MessageCaptureTests, and OptimisationEquivalenceTests (static
// history calls answered from running aggregates, correlated ones from lists, the equality-join
// index).
//
// Every test writes a small rule in YAML, runs it over an in-memory log through the Auditor and
// asserts the exact status, violation lines and inconclusive lines.

// MARK: - Helpers

extension CheckKindTests {
    /// Loads one rule written as a YAML list item without the `rules:` wrapper, unindented
    /// (`id: …\ntitle: …`). `header` is put above `rules:` (file-level params and lets).
    static func loadRule(_ body: String, header: String = "") throws -> Rule {
        try #require(try RuleRuns.rules([body], file: "rules/checks.yaml", header: header).first)
    }

    /// One rule over one log: its result.
    static func judge(_ rule: Rule, _ log: String) -> RuleResult {
        RuleRuns.audit([rule], files: [("a.jsonl", log)]).results[0]
    }

    static func verdict(_ body: String, _ log: String, header: String = "") throws
        -> CheckKindVerdict
    {
        CheckKindVerdict(judge(try loadRule(body, header: header), log))
    }

    /// Everything a finding says, for comparing two runs exactly.
    static func fingerprint(_ findings: [Finding]) -> [String] {
        findings.map { f in
            "\(f.file.map(String.init) ?? "-"):\(f.line.map(String.init) ?? "-") src=\(f.source?.description ?? "-") gen=\(f.gen.map(String.init) ?? "-") t=\(f.t.map { String($0) } ?? "-") \(f.message)"
        }
    }
}

/// What a rule said about a log, in a form that compares in one `#expect`.
struct CheckKindVerdict: Equatable, Sendable, CustomStringConvertible {
    var status: RuleStatus
    var violations: [Int]
    var inconclusive: [Int] = []

    init(_ status: RuleStatus, _ violations: [Int], _ inconclusive: [Int] = []) {
        self.status = status
        self.violations = violations
        self.inconclusive = inconclusive
    }

    init(_ r: RuleResult) {
        status = r.status
        violations = r.violations.compactMap(\.line)
        inconclusive = r.inconclusive.compactMap(\.line)
    }

    var description: String {
        "\(status.rawValue) violations \(violations) inconclusive \(inconclusive)"
    }
}

/// The check kinds of the rule language, each in its own suite below.
@Suite struct CheckKindTests {}

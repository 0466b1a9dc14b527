/// Everything a run found: the inputs, each rule's result, and the verdict.
public struct AuditReport: Sendable {
    public var files: [FileStats]
    public var inputs: InputStats
    /// Inputs that could not be read (or not to their end): the verdict is incomplete (exit 2).
    public var inputErrors: [InputError]
    public var results: [RuleResult]
    public var failOn: FailOn
    /// Label counts of `classify` rules that ran only for ``outcomes`` (left out by `--only` or
    /// `--skip`: not reported as rules, but the outcome counts are a fact of the corpus).
    public var backgroundLabels: [[(name: String, count: Int)]] = []
    /// Set when a baseline was applied.
    public var baseline: Baseline.Summary?
    /// Set when suppressions were applied.
    public var suppressions: Suppressions.Summary?
    /// The findings not kept in ``results``, read again for the reports that list them all (a
    /// merge of partials); nil when nothing is read again.
    public var streamed: (any FindingStream)?
    /// The suppressions and baseline that sorted the violations read again
    /// (``sortReadAgain(_:keep:)``); nil: every one read again is kept.
    var acceptance: Acceptance?

    /// `--fail-on`: the lowest severity whose violations fail the run.
    public enum FailOn: String, Sendable, CaseIterable {
        case error, warning, info, never

        func fails(_ s: Severity) -> Bool {
            switch self {
            case .never: return false
            case .info: return true
            case .warning: return s >= .warning
            case .error: return s >= .error
            }
        }
    }

    public var filePaths: [String] { files.map(\.path) }

    /// `fail` when a rule at or above `--fail-on` has a violation.
    public var verdictFails: Bool {
        results.contains { $0.status == .fail && failOn.fails($0.rule.severity) }
    }

    /// The verdict as reports name it: `fail` when a rule at or above `--fail-on` has a violation
    /// (found in what could be read, it fails the run whatever the rest holds, even when an input
    /// could not be read); else `incomplete` when an input could not be read (a gate must not read
    /// that as a pass); else `pass`. The exit status is 2 whenever an input could not be read.
    public var verdictName: String {
        if verdictFails { return "fail" }
        return inputErrors.isEmpty ? "pass" : "incomplete"
    }

    /// cli.md: 0 pass, 1 a violation at or above `--fail-on`, 2 the verdict could not be reached.
    public var exitCode: Int32 {
        if !inputErrors.isEmpty { return 2 }
        return verdictFails ? 1 : 0
    }

    public func count(_ status: RuleStatus) -> Int { results.filter { $0.status == status }.count }

    /// Whether every finding was kept (``Auditor/keepFindings`` nil): the reports that list them
    /// all (JSON, SARIF, JUnit) and baselines need it, and refuse a report without it rather than
    /// leave findings out.
    public var keptEveryFinding: Bool {
        results.allSatisfy { $0.omittedViolations == 0 && $0.omittedInconclusive == 0 }
    }

    /// The label counts of the `classify` rules (the required outcomes), in label order; nil when
    /// no loaded rule classifies generations.
    public var outcomes: [(name: String, count: Int)]? {
        let all = results.compactMap(\.labels) + backgroundLabels
        guard !all.isEmpty else { return nil }
        var out: [(name: String, count: Int)] = []
        for labels in all {
            for l in labels {
                if let i = out.firstIndex(where: { $0.name == l.name }) {
                    out[i].count += l.count
                } else {
                    out.append(l)
                }
            }
        }
        return out
    }
}

/// One violation, or one case a rule could not decide (inconclusive), with where it happened.
public struct Finding: Sendable {
    /// Index of the file in the run's file list; nil when the finding points at no line.
    public var file: Int32?
    public var line: Int?
    public var t: Double?
    public var source: SourceKey?
    public var gen: UInt64?
    public var message: String
    /// A few events of the finding's timeline around it, rendered without secret values.
    public var context: [ContextLine]
    /// The `ev` of the event the finding points at (for fingerprints; nil when it points at none).
    public var ev: String?
    /// For a finding that points at no line: what it is about (a coverage label), for fingerprints.
    public var subject: String?

    public init(
        file: Int32? = nil, line: Int? = nil, t: Double? = nil, source: SourceKey? = nil, gen: UInt64? = nil,
        message: String, context: [ContextLine] = [], ev: String? = nil
    ) {
        self.ev = ev
        self.file = file
        self.line = line
        self.t = t
        self.source = source
        self.gen = gen
        self.message = message
        self.context = context
    }

    /// Findings sort by file, line, then message, so every run and every `--jobs` prints the same.
    static func precedes(_ a: Finding, _ b: Finding) -> Bool {
        let fa = a.file ?? Int32.max, fb = b.file ?? Int32.max
        if fa != fb { return fa < fb }
        let la = a.line ?? Int.max, lb = b.line ?? Int.max
        if la != lb { return la < lb }
        return a.message < b.message
    }
}

/// An event shown around a finding.
public struct ContextLine: Sendable {
    // Declared widest first: 32 bytes a line instead of 40 (a finding shows up to five).
    public var line: Int
    /// `t=1100 ws.close gen=1 reason=pong_timeout` — only fields that were not redacted.
    public var text: String
    public var file: Int32
    /// True for the event the finding points at.
    public var isAnchor: Bool

    public init(file: Int32, line: Int, text: String, isAnchor: Bool) {
        self.file = file
        self.line = line
        self.text = text
        self.isAnchor = isAnchor
    }
}

/// How a rule came out.
public enum RuleStatus: String, Sendable {
    case pass, fail, inconclusive
    case notApplicable = "not_applicable"
}

/// One rule's result over the whole run.
public struct RuleResult: Sendable {
    public var rule: Rule
    public var status: RuleStatus
    public var violations: [Finding]
    public var inconclusive: [Finding]
    /// For `classify` rules: how many generations carry each label, in the rule's label order.
    public var labels: [(name: String, count: Int)]?
    /// Violations a baseline accepts: reported as such, not counted for the status.
    public var baselined: [Finding] = []

    /// default-pack.md: fail if any violation, else inconclusive if any, else pass.
    public init(rule: Rule, violations: [Finding], inconclusive: [Finding], applicable: Bool = true) {
        self.rule = rule
        self.violations = violations
        self.inconclusive = inconclusive
        if !violations.isEmpty {
            status = .fail
        } else if !inconclusive.isEmpty {
            status = .inconclusive
        } else {
            status = applicable ? .pass : .notApplicable
        }
    }
}

/// What was read, per file: lines read = events + malformed + blank, always.
public struct FileStats: Sendable {
    public var path: String
    public var lines = 0
    public var events = 0
    public var malformed = 0
    public var blank = 0
    /// Bytes read (after decompression).
    public var bytes = 0
    /// Set when the file could not be read to its end.
    public var error: InputError?
    /// Whether it was gzip (decompressed as it was read), whatever its name; set when read to its
    /// end or to its error.
    public var compressed = false

    public init(path: String) { self.path = path }
}

/// Totals over the inputs, as the report header shows them.
public struct InputStats: Sendable {
    public var files = 0
    public var lines = 0
    public var events = 0
    public var malformed = 0
    public var blank = 0
    public var bytes = 0
    public var sources = 0
    public var generations = 0
}

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

    /// `--fail-on`: the lowest severity whose violations fail the run.
    public enum FailOn: String, Sendable {
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

    /// The label counts of the `classify` rules (the required outcomes), in label order; nil when
    /// no loaded rule classifies generations.
    public var outcomes: [(name: String, count: Int)]? {
        let all = results.compactMap(\.labels) + backgroundLabels
        guard !all.isEmpty else { return nil }
        var out: [(name: String, count: Int)] = []
        for labels in all {
            for l in labels {
                if let i = out.firstIndex(where: { $0.name == l.name }) { out[i].count += l.count } else { out.append(l) }
            }
        }
        return out
    }
}

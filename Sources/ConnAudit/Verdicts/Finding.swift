/// One violation, or one case a rule could not decide (inconclusive), with where it happened.
///
/// Kept small: a run can hold millions (one per malformed line of a file that is not a log at
/// all), so what every finding has — where, the message, the event's name — is stored inline (56
/// bytes) and the rest, which a reader's finding on the corpus timeline does not have (a time, a
/// source, a generation, context, event fields), in one box that is absent when empty and names
/// its source by a reference shared by the source's findings.
public struct Finding: Sendable {
    private var fileIndex: Int32
    private var lineNumber: Int
    public var message: String
    /// The `ev` of the event the finding points at (for fingerprints; nil when it points at none).
    public var ev: String?
    private var rest: Rest?

    /// Index of the file in the run's file list; nil when the finding points at no line.
    public var file: Int32? {
        get { fileIndex == Self.noFile ? nil : fileIndex }
        set { fileIndex = newValue ?? Self.noFile }
    }
    public var line: Int? {
        get { lineNumber == Self.noLine ? nil : lineNumber }
        set { lineNumber = newValue ?? Self.noLine }
    }
    public var t: Double? {
        get { rest?.parts.t }
        set { update { $0.t = newValue } }
    }
    public var source: SourceKey? {
        get { rest?.parts.source?.key }
        set { update { $0.source = newValue.map(SharedSource.init) } }
    }
    public var gen: UInt64? {
        get { rest?.parts.gen }
        set { update { $0.gen = newValue } }
    }
    /// A few events of the finding's timeline around it, rendered without secret values.
    public var context: [ContextLine] {
        get { rest?.parts.context ?? [] }
        set { update { $0.context = newValue } }
    }
    /// For a finding that points at no line: what it is about (a coverage label), for fingerprints.
    public var subject: String? {
        get { rest?.parts.subject }
        set { update { $0.subject = newValue } }
    }
    /// The fields of its event that suppressions ask about (``Rule/findingFields``), as the
    /// reader kept them (a flagged value only as its redaction); never shown in a report.
    public var eventFields: [Value.ObjectEntry] {
        get { rest?.parts.eventFields ?? [] }
        set { update { $0.eventFields = newValue } }
    }

    private static let noFile = Int32.min
    private static let noLine = Int.min

    /// What not every finding has, its optionals kept as flags beside plain values (optionals of
    /// their own would each take padding).
    private struct Parts: Sendable {
        private var tValue = 0.0
        private var genValue: UInt64 = 0
        var source: SharedSource?
        var context: [ContextLine] = []
        var subject: String?
        var eventFields: [Value.ObjectEntry] = []
        private var hasT = false
        private var hasGen = false

        var t: Double? {
            get { hasT ? tValue : nil }
            set { (tValue, hasT) = (newValue ?? 0, newValue != nil) }
        }
        var gen: UInt64? {
            get { hasGen ? genValue : nil }
            set { (genValue, hasGen) = (newValue ?? 0, newValue != nil) }
        }

        var isEmpty: Bool {
            !hasT && source == nil && !hasGen && context.isEmpty && subject == nil && eventFields.isEmpty
        }
    }

    /// Never changed once made: a finding copied shares it, and a change makes a new one.
    private final class Rest: Sendable {
        let parts: Parts
        init(_ parts: Parts) { self.parts = parts }
    }

    private mutating func update(_ change: (inout Parts) -> Void) {
        var parts = rest?.parts ?? Parts()
        change(&parts)
        rest = parts.isEmpty ? nil : Rest(parts)
    }

    public init(
        file: Int32? = nil, line: Int? = nil, t: Double? = nil, source: SourceKey? = nil, gen: UInt64? = nil,
        message: String, context: [ContextLine] = [], ev: String? = nil
    ) {
        self.init(file: file, line: line, t: t, shared: source.map(SharedSource.init), gen: gen, message: message,
                  context: context, ev: ev)
    }

    /// A finding naming its source by a reference its source's other findings share.
    init(
        file: Int32?, line: Int?, t: Double?, shared source: SharedSource?, gen: UInt64?, message: String,
        context: [ContextLine], ev: String?
    ) {
        fileIndex = file ?? Self.noFile
        lineNumber = line ?? Self.noLine
        self.message = message
        self.ev = ev
        var parts = Parts()
        parts.t = t
        parts.source = source
        parts.gen = gen
        parts.context = context
        rest = parts.isEmpty ? nil : Rest(parts)
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

/// A source key in one place, for the findings of the source to share (42 bytes each otherwise).
final class SharedSource: Sendable {
    let key: SourceKey
    init(_ key: SourceKey) { self.key = key }
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
    /// Violations a suppression accepts (``Suppressions``), and which entry took each (its index).
    public var suppressed: [Finding] = []
    public var suppressedBy: [Int] = []
    /// Suppressed violations counted but not kept (``Auditor/divert``), by the entry that took them.
    public var omittedSuppressed: [Int: Int] = [:]
    /// Why the rule is not applicable, when the run says so itself (a per-upload gate and a
    /// corpus-coverage rule); nil: the rule's own `applies_if` found nothing.
    public var note: String?
    /// Findings counted but not kept (``Auditor/keepFindings``): ``violations`` holds the first
    /// ones in report order, and these many more came after them.
    public var omittedViolations = 0
    public var omittedInconclusive = 0

    /// How many violations the rule had, kept or not.
    public var violationCount: Int { violations.count + omittedViolations }
    /// How many violations suppressions accepted, kept or not.
    public var suppressedCount: Int { suppressed.count + omittedSuppressed.values.reduce(0, +) }
    /// ``suppressedCount`` by the entry that accepted them.
    public var suppressedByEntry: [Int: Int] {
        var counts = omittedSuppressed
        for i in suppressedBy { counts[i, default: 0] += 1 }
        return counts
    }
    /// How many cases it could not decide, kept or not.
    public var inconclusiveCount: Int { inconclusive.count + omittedInconclusive }

    /// The status after violations moved elsewhere (a baseline, a suppression): as the
    /// initializer decides it; a rule that was not applicable stays so.
    public mutating func recomputeStatus() {
        if !violations.isEmpty {
            status = .fail
        } else if !inconclusive.isEmpty {
            status = .inconclusive
        } else if status != .notApplicable {
            status = .pass
        }
    }

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
    /// Set when suppressions were applied.
    public var suppressions: Suppressions.Summary?

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
                if let i = out.firstIndex(where: { $0.name == l.name }) { out[i].count += l.count } else { out.append(l) }
            }
        }
        return out
    }
}

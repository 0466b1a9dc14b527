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
    /// Suppressed violations counted but not kept (``Auditor/divert``), by the entry that took
    /// them.
    public var omittedSuppressed: [Int: Int] = [:]
    /// Why the rule is not applicable, when the run says so itself (a per-upload gate and a
    /// corpus-coverage rule); nil: the rule's own `applies_if` found nothing.
    public var note: String?
    /// Findings counted but not kept (``Auditor/keepFindings``): ``violations`` holds the first
    /// ones in report order, and these many more came after them.
    public var omittedViolations = 0
    public var omittedInconclusive = 0
    /// Baselined violations counted but not kept (a merge reads them again).
    public var omittedBaselined = 0
    /// Whether the violations were sorted as they were read again from the partials of a merge
    /// (``AuditReport/sortReadAgain(_:keep:)``): the lists hold the first kept ones, the counts
    /// say how many each list has, and ``AuditReport/streamed`` reads them all.
    public var readAgain = false

    /// How many violations the rule had, kept or not.
    public var violationCount: Int { violations.count + omittedViolations }
    /// How many violations the baseline accepted, kept or not.
    public var baselinedCount: Int { baselined.count + omittedBaselined }
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
    public init(rule: Rule, violations: [Finding], inconclusive: [Finding], applicable: Bool = true)
    {
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

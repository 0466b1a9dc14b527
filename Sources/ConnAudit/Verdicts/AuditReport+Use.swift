/// What a run is for, which decides whether corpus coverage is judged.
///
/// A soak run or a fleet sample is a corpus: whether it exercised every required outcome is part
/// of its verdict. A per-upload gate judges one device's logs: a healthy upload rarely holds every
/// outcome, so a coverage rule says nothing about it.
public enum RunUse: String, Sendable, CaseIterable {
    case corpus, gate
}

extension Rule {
    /// Whether the rule judges the coverage of a corpus: a `classify` that requires labels.
    public var judgesCoverage: Bool {
        if case .classify(_, let required, _, _) = check { return !required.isEmpty }
        return false
    }
}

extension AuditReport {
    /// The note a coverage rule carries in a per-upload gate.
    static let gateNote =
        "a per-upload gate judges no corpus coverage; run with --use corpus on a soak or fleet corpus"

    /// Makes every coverage rule not applicable, with ``gateNote`` saying why: its findings go,
    /// its label counts stay (the outcome counts are still a fact of what was read).
    public mutating func judgeAsGate() {
        for k in results.indices where results[k].rule.judgesCoverage {
            results[k].violations = []
            results[k].inconclusive = []
            results[k].omittedViolations = 0
            results[k].omittedInconclusive = 0
            results[k].status = .notApplicable
            results[k].note = Self.gateNote
        }
    }
}

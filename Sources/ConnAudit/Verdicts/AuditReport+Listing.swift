/// The findings a report lists, held or read again as a writer asks for them.
///
/// A run keeps its findings in each ``RuleResult``. A merge of partials keeps only the first ones
/// of each rule, as the text report does, and hands the reports that list every finding a
/// ``FindingStream`` that reads them again from the partials, in report order: its memory does
/// not follow the number of findings.
public protocol FindingStream: AnyObject, Sendable {
    /// Calls `body` with every violation (`violations` true) or every inconclusive case of the
    /// rule `rule` (its id), in report order (``Finding/precedes(_:_:)``). Asked of the rules in
    /// the order of the run's rule list, violations before inconclusive cases, it reads on; asked
    /// of the same or an earlier one, it starts over.
    func each(rule: String, violations: Bool, _ body: (Finding) -> Void)

    /// Why the findings could not be read again (a partial changed or vanished under the merge);
    /// nil while they could. A report written after a failure is incomplete.
    var failure: String? { get }
}

extension AuditReport {
    /// Whether a report that lists every finding can be written: every finding was kept
    /// (``keptEveryFinding``), or the ones not kept are read again (``streamed``).
    public var listsEveryFinding: Bool { streamed != nil || keptEveryFinding }

    /// Calls `body` with every violation of `r` (one of ``results``), in report order: the kept
    /// ones, or, when some were not kept, all of them from ``streamed``.
    func eachViolation(of r: RuleResult, _ body: (Finding) -> Void) {
        if r.omittedViolations > 0, let streamed {
            streamed.each(rule: r.rule.id, violations: true, body)
        } else {
            for f in r.violations { body(f) }
        }
    }

    /// Calls `body` with every inconclusive case of `r`, in report order (``eachViolation``).
    func eachInconclusive(of r: RuleResult, _ body: (Finding) -> Void) {
        if r.omittedInconclusive > 0, let streamed {
            streamed.each(rule: r.rule.id, violations: false, body)
        } else {
            for f in r.inconclusive { body(f) }
        }
    }
}

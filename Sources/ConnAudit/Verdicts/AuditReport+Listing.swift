/// The findings a report lists, held or read again as a writer asks for them.
///
/// A run keeps its findings in each ``RuleResult``. A merge of partials keeps only the first ones
/// of each rule, as the text report does, and hands the reports that list every finding a
/// ``FindingStream`` that reads them again from the partials, in report order: its memory does
/// not follow the number of findings. Suppressions and a baseline sort the violations read again
/// as they come (``Acceptance``).
public protocol FindingStream: AnyObject, Sendable {
    /// Calls `body` with every violation (`violations` true) or every inconclusive case of the
    /// rule `rule` (its id), in report order (``Finding/precedes(_:_:)``). Each `lane` reads on its
    /// own: asked of the rules in the order of the run's rule list, violations before
    /// inconclusive cases, it reads on; asked of the same or an earlier one, it starts over. A
    /// report that lists a rule's kept violations, then its baselined ones, then its suppressed
    /// ones reads each list in a lane of its own, so none starts over.
    func each(rule: String, violations: Bool, lane: Int, _ body: (Finding) -> Void)

    /// Why the findings could not be read again (a partial changed or vanished under the merge);
    /// nil while they could. A report written after a failure is incomplete.
    var failure: String? { get }
}

extension FindingStream {
    /// ``each(rule:violations:lane:_:)`` in the first lane.
    func each(rule: String, violations: Bool, _ body: (Finding) -> Void) {
        each(rule: rule, violations: violations, lane: 0, body)
    }
}

extension AuditReport {
    /// Whether a report that lists every finding can be written: every finding was kept
    /// (``keptEveryFinding``), or the ones not kept are read again (``streamed``).
    public var listsEveryFinding: Bool { streamed != nil || keptEveryFinding }

    /// Whether the violations of `r` are read again from ``streamed`` rather than held.
    func readsAgain(_ r: RuleResult) -> Bool {
        streamed != nil && (r.readAgain || r.omittedViolations > 0)
    }

    /// Calls `body` with every violation of `r` (one of ``results``) that counts, in report order:
    /// the kept ones, or, when some were not kept, all of them from ``streamed``.
    func eachViolation(of r: RuleResult, _ body: (Finding) -> Void) {
        guard readsAgain(r) else {
            for f in r.violations { body(f) }
            return
        }
        eachSorted(of: r, [.kept], fingerprints: false) { body($0.finding) }
    }

    /// Calls `body` with every inconclusive case of `r`, in report order (``eachViolation``).
    func eachInconclusive(of r: RuleResult, _ body: (Finding) -> Void) {
        if r.omittedInconclusive > 0, let streamed {
            streamed.each(rule: r.rule.id, violations: false, body)
        } else {
            for f in r.inconclusive { body(f) }
        }
    }

    /// Calls `body` with the violations of `r` in each of `lists`, list by list, each in report
    /// order, with the entry that suppressed it and, with `fingerprints`, its fingerprint
    /// (``Fingerprint/of(_:paths:)``).
    func eachSorted(
        of r: RuleResult, _ lists: [ViolationList], fingerprints: Bool = true,
        _ body: (SortedViolation) -> Void
    ) {
        guard readsAgain(r) else {
            let fps =
                fingerprints
                ? Fingerprint.of(r, paths: filePaths)
                : (
                    violations: Array(repeating: "", count: r.violations.count),
                    baselined: Array(repeating: "", count: r.baselined.count),
                    suppressed: Array(repeating: "", count: r.suppressed.count)
                )
            for list in lists {
                switch list {
                case .kept:
                    for (f, fp) in zip(r.violations, fps.violations) {
                        body(SortedViolation(finding: f, list: list, fingerprint: fp))
                    }
                case .baselined:
                    for (f, fp) in zip(r.baselined, fps.baselined) {
                        body(SortedViolation(finding: f, list: list, fingerprint: fp))
                    }
                case .suppressed:
                    for (k, (f, fp)) in zip(r.suppressed, fps.suppressed).enumerated() {
                        body(
                            SortedViolation(
                                finding: f, list: list, entry: r.suppressedBy[k], fingerprint: fp))
                    }
                }
            }
            return
        }
        for list in lists {
            let count =
                switch list {
                case .kept: r.violationCount
                case .baselined: r.baselinedCount
                case .suppressed: r.suppressedCount
                }
            guard count > 0 else { continue }
            let lane =
                switch list {
                case .kept: 0
                case .baselined: 1
                case .suppressed: 2
                }
            eachReadAgain(of: r, lane: lane, fingerprints: fingerprints) {
                if $0.list == list { body($0) }
            }
        }
    }

    /// Calls `body` with every violation of `r` read again from ``streamed`` in `lane`, in report
    /// order, sorted by ``acceptance``, with the fingerprints asked for; returns the baseline
    /// entries they matched.
    @discardableResult
    func eachReadAgain(
        of r: RuleResult, lane: Int, fingerprints: Bool = false, recorded: Bool = false,
        _ body: (SortedViolation) -> Void
    ) -> Set<Int> {
        var sorter = (acceptance ?? .none(paths: filePaths)).sorter(
            rule: r.rule.id, fingerprints: fingerprints, recorded: recorded)
        streamed?.each(rule: r.rule.id, violations: true, lane: lane) { sorter.take($0, body) }
        sorter.finish(body)
        return sorter.used
    }

    /// Sorts the violations of every rule read again by `acceptance`, reading them once: each
    /// rule keeps its first `keep` kept violations, as a run that shows only the first ones keeps
    /// them, and counts the rest, and the baselined and suppressed ones (by entry). Returns the
    /// baseline entries they matched, for ``Baseline/apply(to:path:today:alsoUsed:)``. The rules
    /// whose violations are all held are left to ``Suppressions/apply(to:today:)`` and
    /// ``Baseline/apply(to:path:today:alsoUsed:)``.
    public mutating func sortReadAgain(_ acceptance: Acceptance, keep: Int) -> Set<Int> {
        self.acceptance = acceptance
        var used = Set<Int>()
        for k in results.indices where readsAgain(results[k]) {
            var r = results[k]
            var kept: [Finding] = []
            var counts = (kept: 0, baselined: 0)
            var suppressed: [Int: Int] = [:]
            let matched = eachReadAgain(of: r, lane: 0) { s in
                switch s.list {
                case .kept:
                    counts.kept += 1
                    if kept.count < keep { kept.append(s.finding) }
                case .baselined: counts.baselined += 1
                case .suppressed: suppressed[s.entry!, default: 0] += 1
                }
            }
            used.formUnion(matched)
            r.readAgain = true
            r.violations = kept
            r.omittedViolations = counts.kept - kept.count
            r.baselined = []
            r.omittedBaselined = counts.baselined
            r.suppressed = []
            r.suppressedBy = []
            for (i, n) in suppressed { r.omittedSuppressed[i, default: 0] += n }
            r.recomputeStatus()
            results[k] = r
        }
        return used
    }
}

/// The suppressions and the exact baseline a report applies, for violations read one at a time in
/// report order (``FindingStream``): each one's fate and fingerprints come out as
/// ``Suppressions/apply(to:today:)``, ``Baseline/apply(to:path:today:)``, ``Baseline/from(_:reviewed:)``
/// and ``Fingerprint/of(_:paths:)`` give them on whole lists, so a merge that never holds a rule's
/// violations writes the reports one run writes.
public struct Acceptance: Sendable {
    let suppressions: Suppressions
    /// The entries not expired, by index.
    let live: [Int]
    /// Baseline entries by rule and fingerprint (`rule \u{1F} fingerprint`), and whether each
    /// entry accepts violations today.
    let baseline: [String: [Int]]
    let baselineLive: [Bool]
    let paths: [String]

    /// `baseline` nil: none applied. `paths`: the run's files as reports print them.
    public init(suppressions: Suppressions, baseline: Baseline?, paths: [String], today: String) {
        self.suppressions = suppressions
        live = suppressions.entries.indices.filter {
            !suppressions.entries[$0].hasExpired(today: today)
        }
        var byKey: [String: [Int]] = [:]
        for (i, e) in (baseline?.entries ?? []).enumerated() {
            byKey[e.rule + "\u{1F}" + e.fingerprint, default: []].append(i)
        }
        self.baseline = byKey
        baselineLive = (baseline?.entries ?? []).map { $0.expires.map { $0 >= today } ?? true }
        self.paths = paths
    }

    /// Nothing accepted: every violation is kept.
    public static func none(paths: [String]) -> Acceptance {
        Acceptance(suppressions: Suppressions([]), baseline: nil, paths: paths, today: "")
    }

    /// Sorts the violations of rule `rule` (its id); `fingerprints`: with the fingerprints of
    /// reports, `recorded`: with those a baseline records (always when a baseline applies).
    func sorter(rule: String, fingerprints: Bool, recorded: Bool) -> ViolationSorter {
        ViolationSorter(
            rule: rule, acceptance: self,
            candidates: live.filter { suppressions.entries[$0].covers(rule: rule) },
            fingerprints: fingerprints, recorded: recorded || !baseline.isEmpty)
    }
}

/// Which of a rule's lists a violation ends in.
public enum ViolationList: Sendable {
    /// ``RuleResult/violations``: it counts.
    case kept
    /// ``RuleResult/baselined``.
    case baselined
    /// ``RuleResult/suppressed``.
    case suppressed
}

/// A violation with its fate.
struct SortedViolation {
    var finding: Finding
    var list: ViolationList
    /// The suppression entry that took it (``ViolationList/suppressed``).
    var entry: Int? = nil
    /// Its fingerprint in reports (SARIF, GitLab): occurrences counted over the rule's kept,
    /// baselined and suppressed violations together, as ``Fingerprint/of(_:paths:)`` counts them
    /// (empty when not asked for).
    var fingerprint: String
    /// Its fingerprint as a baseline records and matches it, counted over the violations before
    /// a baseline moved any (nil for a suppressed one, which no baseline sees).
    var recorded: String? = nil
}

/// One rule's violations sorted as they come, in report order (``Finding/precedes(_:_:)``).
///
/// A fingerprint numbers the occurrences of an identity in report order, and where violations tie
/// in that order (one file, line and message) the whole-list functions number the kept ones
/// before the accepted ones. So the violations that tie are held until the next one that does
/// not: the sorter holds one such group, normally one violation. Numbering occurrences holds the
/// identities of the rule's violations in one file (``Fingerprint/Occurrences``): only the
/// numberings asked for are made.
struct ViolationSorter {
    private let rule: String
    private let acceptance: Acceptance
    /// The live suppression entries that speak of the rule, in entry order.
    private let candidates: [Int]
    private var group: [Finding] = []
    private var recorded: Fingerprint.Occurrences?
    private var listed: Fingerprint.Occurrences?
    /// The baseline entries some violation matched (live or not).
    private(set) var used = Set<Int>()

    init(
        rule: String, acceptance: Acceptance, candidates: [Int], fingerprints: Bool,
        recorded: Bool
    ) {
        self.rule = rule
        self.acceptance = acceptance
        self.candidates = candidates
        if recorded { self.recorded = Fingerprint.Occurrences(rule: rule, paths: acceptance.paths) }
        if fingerprints { listed = Fingerprint.Occurrences(rule: rule, paths: acceptance.paths) }
    }

    /// Takes the next violation; hands `emit` each one whose fate is decided, in the order given.
    mutating func take(_ f: Finding, _ emit: (SortedViolation) -> Void) {
        if let last = group.last, Finding.precedes(last, f) { flush(emit) }
        group.append(f)
    }

    /// Hands `emit` the violations still held.
    mutating func finish(_ emit: (SortedViolation) -> Void) { flush(emit) }

    private mutating func flush(_ emit: (SortedViolation) -> Void) {
        guard !group.isEmpty else { return }
        let suppressions = acceptance.suppressions, paths = acceptance.paths
        var sorted = group.map { f in
            let entry = candidates.first { suppressions.matches($0, f, paths: paths) }
            return SortedViolation(
                finding: f, list: entry == nil ? .kept : .suppressed, entry: entry,
                fingerprint: "", recorded: nil)
        }
        // As a baseline sees them: the violations suppressions left, then the suppressed ones.
        for i in recorded == nil ? [] : order(sorted, [.kept, .suppressed]) {
            let fp = recorded!.next(sorted[i].finding)
            guard sorted[i].list == .kept else { continue }
            sorted[i].recorded = fp
            if let entries = acceptance.baseline[rule + "\u{1F}" + fp] {
                used.formUnion(entries)
                if entries.contains(where: { acceptance.baselineLive[$0] }) {
                    sorted[i].list = .baselined
                }
            }
        }
        for i in listed == nil ? [] : order(sorted, [.kept, .baselined, .suppressed]) {
            sorted[i].fingerprint = listed!.next(sorted[i].finding)
        }
        for s in sorted { emit(s) }
        group.removeAll(keepingCapacity: true)
    }

    /// The indexes of `sorted`, list by list in the order of `lists`, each list in the order given.
    private func order(_ sorted: [SortedViolation], _ lists: [ViolationList]) -> [Int] {
        if sorted.count == 1 { return [0] }
        return lists.flatMap { list in sorted.indices.filter { sorted[$0].list == list } }
    }
}

/// A known issue a fleet's gate accepts until a date: violations of a rule that match conditions
/// on where and what they are, whatever log they come from.
///
/// Unlike an exact baseline (``Baseline``), which accepts the violations of one log by their
/// fingerprints, a suppression keeps matching on every new upload: it names the rule and, if it
/// wants, the source, session, file, message or fields of the event the violation points at, as
/// glob patterns (`*` any text, `/` included; `?` one byte). Every condition given must hold.
/// A suppressed violation is still reported (as suppressed) but does not fail the gate. Past its
/// expiry date an entry accepts nothing: its violations count again, and the run says so.
public struct Suppression: Sendable {
    /// A rule id or a glob of ids.
    public var rule: String
    public var src: String?
    public var session: String?
    /// A glob on the file's path as reports print it (the PATH given joined with the path below
    /// it).
    public var file: String?
    public var message: String?
    /// Top-level fields of the violation's event, each a glob on the value's text (a string as
    /// itself, any other value as its JSON text).
    public var fields: [(name: String, pattern: String)]
    /// Why it is accepted (whoever loads the entry redacts a token in it: it is printed).
    public var reason: String
    /// `YYYY-MM-DD`: the entry accepts violations up to and including that day.
    public var expires: String
    /// Where the entry was written (`FILE:LINE`), to name it in messages.
    public var origin: String

    public init(
        rule: String, src: String? = nil, session: String? = nil, file: String? = nil,
        message: String? = nil, fields: [(name: String, pattern: String)] = [], reason: String,
        expires: String, origin: String
    ) {
        self.rule = rule
        self.src = src
        self.session = session
        self.file = file
        self.message = message
        self.fields = fields
        self.reason = reason
        self.expires = expires
        self.origin = origin
    }

    /// Whether the entry speaks of `ruleID`'s violations at all.
    public func covers(rule ruleID: String) -> Bool { GlobPattern(rule).matches(ruleID) }

    /// Whether `finding`, a violation of a rule the entry covers, meets every condition, its
    /// `fields:` judged on the finding's ``Finding/eventFields``.
    /// A condition on something the finding does not have (a source, a file, a field) fails.
    public func matches(_ finding: Finding, paths: [String]) -> Bool {
        matchesPlace(finding, paths: paths) && fieldsHold(on: finding.eventFields)
    }

    /// Whether `finding` meets every condition but `fields:` (those on its source, file and
    /// message).
    func matchesPlace(_ finding: Finding, paths: [String]) -> Bool {
        if let src {
            guard let key = finding.source, !key.srcIsFile, GlobPattern(src).matches(key.src) else {
                return false
            }
        }
        if let session {
            guard let text = finding.source?.session, GlobPattern(session).matches(text) else {
                return false
            }
        }
        if let file {
            guard let i = finding.file, GlobPattern(file).matches(paths[Int(i)]) else {
                return false
            }
        }
        if let message, !GlobPattern(message).matches(finding.message) { return false }
        return true
    }

    /// Whether every `fields:` condition holds on an event's `fields` (true when there is none).
    func fieldsHold(on fields: [Value.ObjectEntry]) -> Bool {
        for condition in self.fields {
            guard let value = fields.last(where: { $0.key == condition.name })?.value,
                GlobPattern(condition.pattern).matches(value.text ?? value.rendered(bare: false))
            else { return false }
        }
        return true
    }

    /// The entry as reports name it: `BUG-1234: … (.conn-audit.yaml:14, until 2027-03-31)`.
    public var justification: String {
        reason + " (suppression at \(origin), until \(expires))"
    }

    /// Whether the entry has expired by `today` (`YYYY-MM-DD`).
    public func hasExpired(today: String) -> Bool { expires < today }
}

/// The suppressions a run applies, and what applying them did.
public struct Suppressions: Sendable {
    public var entries: [Suppression]

    public init(_ entries: [Suppression]) { self.entries = entries }

    /// The event fields the entries ask about: every finding records them (``Rule/findingFields``).
    public var fieldNames: [String] {
        var seen = Set<String>()
        return entries.flatMap { $0.fields.map(\.name) }.filter { seen.insert($0).inserted }
    }

    /// What applying them did, for the reports.
    public struct Summary: Sendable {
        public var entries: [Suppression]
        /// Violations each entry accepted, by entry.
        public var accepted: [Int]
        /// Entries past their expiry date (they accepted nothing), by index.
        public var expired: [Int] = []
        /// Live entries that matched no violation, by index.
        public var unused: [Int] = []

        public var total: Int { accepted.reduce(0, +) }
    }

    /// For violations of rule `ruleID`: the entries (by index) that speak of the rule and ask
    /// about fields whose `fields:` conditions all hold on the violation's event, expired or not.
    /// A shard records them in its partial (docs/scale-out.md), which holds no field value; the
    /// merge then matches each entry as ``matches(_:_:paths:)`` does.
    public func fieldMatches(rule ruleID: String) -> (Finding) -> [Int] {
        let asking = entries.indices.filter {
            !entries[$0].fields.isEmpty && entries[$0].covers(rule: ruleID)
        }
        return { [entries] finding in
            asking.filter { entries[$0].fieldsHold(on: finding.eventFields) }
        }
    }

    /// Whether entry `i` matches `finding`, a violation of a rule it covers: its `fields:` from
    /// the finding's ``Finding/fieldMatches`` when a shard found them, else from its event's
    /// fields.
    func matches(_ i: Int, _ finding: Finding, paths: [String]) -> Bool {
        let entry = entries[i]
        guard entry.matchesPlace(finding, paths: paths) else { return false }
        if entry.fields.isEmpty { return true }
        if let held = finding.fieldMatches { return held.contains(i) }
        return entry.fieldsHold(on: finding.eventFields)
    }

    /// The live entries that speak of each rule (by id), in entry order.
    private func candidates(today: String) -> (String) -> [Int] {
        let live = entries.indices.filter { !entries[$0].hasExpired(today: today) }
        return { id in live.filter { entries[$0].covers(rule: id) } }
    }

    /// The entries as a ``ViolationFilter`` for rules `rules` (their ids), applied by the engine as
    /// violations are found: the first live entry that matches takes it, as ``apply(to:today:)``
    /// decides. `paths` are the run's files as reports print them.
    public func filter(rules: [String], paths: [String], today: String) -> ViolationFilter {
        let of = candidates(today: today)
        var byRule: [String: [Int]] = [:]
        for id in rules { byRule[id] = of(id) }
        return { [self, byRule] rule, finding in
            byRule[rule, default: []].first { self.matches($0, finding, paths: paths) }
        }
    }

    /// Moves the violations an entry accepts to each result's `suppressed` list (the first live
    /// entry that matches takes it), recomputes statuses, and counts what each entry accepted,
    /// with what ``filter(rules:paths:today:)`` accepted during the run
    /// (``RuleResult/omittedSuppressed``). Every violation not in the report was offered to that
    /// filter as it was found, or sorted as it was read again
    /// (``AuditReport/sortReadAgain(_:keep:)``), which counted it the same way.
    public func apply(to report: inout AuditReport, today: String) -> Summary {
        var summary = Summary(entries: entries, accepted: Array(repeating: 0, count: entries.count))
        let live = entries.indices.filter { !entries[$0].hasExpired(today: today) }
        summary.expired = entries.indices.filter { entries[$0].hasExpired(today: today) }
        let paths = report.filePaths
        let of = candidates(today: today)
        for k in report.results.indices {
            for (i, n) in report.results[k].omittedSuppressed { summary.accepted[i] += n }
            let r = report.results[k]
            let candidates = of(r.rule.id)
            // Violations read again were sorted as they were read (``AuditReport/sortReadAgain``).
            guard !candidates.isEmpty, !r.violations.isEmpty, !r.readAgain else { continue }
            var kept: [Finding] = []
            var result = r
            for f in r.violations {
                if let i = candidates.first(where: { matches($0, f, paths: paths) }) {
                    result.suppressed.append(f)
                    result.suppressedBy.append(i)
                    summary.accepted[i] += 1
                } else {
                    kept.append(f)
                }
            }
            result.violations = kept
            result.recomputeStatus()
            report.results[k] = result
        }
        summary.unused = live.filter { summary.accepted[$0] == 0 }
        return summary
    }
}

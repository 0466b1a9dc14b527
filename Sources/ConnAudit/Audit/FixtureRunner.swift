/// Runs rules' own fixtures (`tests:`): each fixture's log through its rule alone.
///
/// Each run reads the log and audits it with an ``Auditor`` (the whole pipeline), so the runner
/// sits beside the Auditor it drives, not in Rules/.
public enum FixtureRunner {
    public struct Outcome: Sendable {
        public var rule: Rule
        public var fixture: Fixture
        public var status: RuleStatus
        public var violations: Int
        public var messages: [String]
        /// Lines of the fixture's log that are not connlog events (`line N: reason`), unless the
        /// rule sees them (``seesBadLines(_:)``): they would take no part, so the fixture would
        /// test less than it says (a typo makes an `expect: pass` fixture pass on nothing). Such a
        /// fixture fails.
        public var badLines: [String] = []

        public var passed: Bool {
            if !badLines.isEmpty { return false }
            let expected: RuleStatus
            switch fixture.expect {
            case .pass: expected = .pass
            case .fail: expected = .fail
            case .inconclusive: expected = .inconclusive
            case .notApplicable: expected = .notApplicable
            }
            if status != expected { return false }
            if let n = fixture.violations, n != violations { return false }
            return true
        }
    }

    /// Runs every fixture of every rule in `set`, in rule order.
    public static func run(_ set: RuleSet) -> [Outcome] {
        var out: [Outcome] = []
        for rule in set.rules {
            for fixture in rule.tests { out.append(run(rule, fixture)) }
        }
        return out
    }

    public static func run(_ rule: Rule, _ fixture: Fixture) -> Outcome {
        let bytes = Array(fixture.log.utf8)
        let auditor = Auditor(
            rules: RuleSet(rules: [rule]), overrides: fixture.params, jobs: 1,
            opener: { file throws(InputError) in ByteSources.memory(bytes, path: file.path) })
        let name = "\(rule.id) fixture '\(fixture.name)'"
        let report = auditor.run([InputFile(path: name, isStdin: false)])
        let result = report.results[0]
        var outcome = Outcome(
            rule: rule, fixture: fixture, status: result.status, violations: result.violationCount,
            messages: (result.violations + result.inconclusive).map { f in
                (f.line.map { "line \($0): " } ?? "") + f.message
            })
        // Only a corpus rule that can match the reader's findings on bad lines ($malformed;
        // $secret, which a line that is a JSON object but no event still has) sees them; generation
        // and source timelines never hold them.
        if !seesBadLines(rule) {
            outcome.badLines = malformedLines(bytes, name: name)
        }
        return outcome
    }

    static func seesBadLines(_ rule: Rule) -> Bool {
        guard rule.scope == .corpus else { return false }
        guard let interest = CompiledRule(rule: rule, index: 0, overrides: [:]).interest else {
            return true
        }
        return interest.contains("$malformed") || interest.contains("$secret")
    }

    /// `line N: reason` for each line of `bytes` that is not a connlog event.
    static func malformedLines(_ bytes: [UInt8], name: String) -> [String] {
        let reader = FileReader(
            index: 0, path: name, source: ByteSources.memory(bytes, path: name), wantedFields: [])
        var out: [String] = []
        while let item = reader.next() {
            if case .malformed(let e) = item {
                out.append(
                    "line \(e.line): not a connlog event: \(e.value(of: "reason")?.string ?? "malformed")"
                )
            }
        }
        return out
    }
}

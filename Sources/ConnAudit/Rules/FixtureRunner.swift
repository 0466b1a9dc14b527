/// Runs rules' own fixtures (`tests:`): each fixture's log through its rule alone.
public enum FixtureRunner {
    public struct Outcome: Sendable {
        public var rule: Rule
        public var fixture: Fixture
        public var status: RuleStatus
        public var violations: Int
        public var messages: [String]

        public var passed: Bool {
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
        let auditor = Auditor(rules: RuleSet(rules: [rule]), jobs: 1) { file throws(InputError) in
            ByteSources.memory(bytes, path: file.path)
        }
        let name = "\(rule.id) fixture '\(fixture.name)'"
        let report = auditor.run([InputFile(path: name, isStdin: false)])
        let result = report.results[0]
        return Outcome(rule: rule, fixture: fixture, status: result.status, violations: result.violations.count,
                       messages: (result.violations + result.inconclusive).map { f in
                           (f.line.map { "line \($0): " } ?? "") + f.message
                       })
    }
}

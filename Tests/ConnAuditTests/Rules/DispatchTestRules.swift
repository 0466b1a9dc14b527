@testable import ConnAudit

/// Compiled rules for the dispatch tests: the built-in pack in the scopes a plan makes of it, and
/// the rules of a rule file given as text.
enum DispatchTestRules {
    /// Every rule of the built-in pack, then its generation rules, then its source rules.
    static func packScopes() -> [[CompiledRule]] {
        let all = compile(RuleLoader.builtin().rules)
        return [
            all, all.filter { $0.rule.scope == .generation },
            all.filter { $0.rule.scope == .source }
        ]
    }

    /// The rules of the file `text`, compiled in order.
    static func rules(_ text: String) throws -> [CompiledRule] {
        compile(try RuleLoader.load(files: [(path: "d.yaml", text: text)], lint: false).rules)
    }

    private static func compile(_ rules: [Rule]) -> [CompiledRule] {
        rules.enumerated().map { CompiledRule(rule: $0.element, index: $0.offset, overrides: [:]) }
    }
}

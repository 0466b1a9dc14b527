/// Warnings for `ev:` names that are likely misspelt (``ConnlogVocabulary``): in a stream
/// connlog defines, not one of its events, and named by no other loaded rule. Given at the rule's
/// `id:`, since an `ev:` written inside an expression's selector has no place of its own there.
extension RuleLoader {
    /// The warnings for `rules`, each loaded at the `id:` its `place` gives.
    static func unknownEvWarnings(_ rules: [(rule: Rule, place: (String) -> Diagnostic)])
        -> [Diagnostic]
    {
        var named: [String: Int] = [:]
        let names = rules.map { evNames(of: $0.rule) }
        for set in names { for name in set { named[name, default: 0] += 1 } }
        var out: [Diagnostic] = []
        for (i, set) in names.enumerated() {
            for name in set.sorted()
            where ConnlogVocabulary.isUnknownInKnownStream(name) && named[name] == 1 {
                out.append(
                    rules[i].place(
                        "rule '\(rules[i].rule.id)' names ev '\(name)', which connlog does not define and no other rule names (misspelt?)"
                    ))
            }
        }
        return out
    }

    /// Every `ev` name the rule's selectors name, its expressions' selectors too.
    static func evNames(of rule: Rule) -> Set<String> {
        var out = Set<String>()
        NameWalker.walkTerms(rule.check, lets: rule.lets, message: rule.message) { term in
            if let names = term.evNames { out.formUnion(names) }
        }
        return out
    }
}

extension CompiledRule {
    /// Whether any expression or selector of `rule` searches with a regex: `matches(x, re)`, or
    /// a field's `matches:` test, at any depth (lets, the check, history selectors, `not:`, the
    /// message).
    static func readsRegex(_ rule: Rule) -> Bool {
        var found = false
        func predicate(_ p: Selector.Predicate) {
            switch p {
            case .matches: found = true
            case .oneOf(let ps), .all(let ps): ps.forEach(predicate)
            case .not(let q): predicate(q)
            default: break
            }
        }
        func selector(_ s: Selector) {
            for term in s.terms {
                for test in term.tests { predicate(test.predicate) }
                if let w = term.whereExpr { expr(w) }
                if let n = term.negated { selector(n) }
            }
        }
        func expr(_ e: Expr) {
            NameWalker.walk(e, intoSelectors: false) { sub in
                switch sub {
                case .regex: found = true
                case .history(let call):
                    selector(call.selector)
                    if case .selector(let s)? = call.since { selector(s) }
                default: break
                }
            }
        }
        for (_, e) in rule.lets { expr(e) }
        rule.check.expressions.forEach(expr)
        rule.check.selectors.forEach(selector)
        for part in rule.message?.parts ?? [] { if case .expr(let e) = part { expr(e) } }
        return found
    }
}

extension NameWalker {
    /// Visits every term of every selector of `check`, `lets` and `message`: those written in the
    /// rules file, those inside history calls (`since:` selectors too) and each term's `not:`. What
    /// a rule binds (`as:`) or names (`ev:`) is read through this one walk.
    static func walkTerms(
        _ check: Check, lets: [(name: String, expr: Expr)] = [], message: MessageTemplate? = nil,
        _ visit: (Selector.Term) -> Void
    ) {
        func selector(_ s: Selector) {
            for term in s.terms {
                visit(term)
                if let n = term.negated { selector(n) }
            }
        }
        func expr(_ e: Expr) {
            walk(e) { sub in
                guard case .history(let call) = sub else { return }
                selector(call.selector)
                if case .selector(let s)? = call.since { selector(s) }
            }
        }
        for s in check.selectors {
            selector(s)
            whereExpressions(of: s).forEach(expr)
        }
        check.expressions.forEach(expr)
        lets.forEach { expr($0.expr) }
        if let message {
            for case .expr(let e) in message.parts { expr(e) }
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: - Walking expressions

enum NameWalker {
    /// Visits every sub-expression, each before its operands and those left to right; with
    /// `intoSelectors`, also the `where:` expressions of selectors inside history calls (after
    /// the call's value). The nodes still to visit wait on a stack of their own, so a deep tree
    /// costs memory, not call stack, and no closure is made per node.
    static func walk(_ e: Expr, intoSelectors: Bool = true, _ visit: (Expr) -> Void) {
        var pending: [Expr] = [e]
        while let x = pending.popLast() {
            visit(x)
            // Pushed last operand first, so the first is visited next.
            switch x {
            case .literal, .name, .field: break
            case .member(let b, _, _, _): pending.append(b)
            case .index(let a, let b): pending.append(b); pending.append(a)
            case .list(let items): pending.append(contentsOf: items.reversed())
            case .map(let entries): pending.append(contentsOf: entries.reversed().map(\.1))
            case .unary(_, let a): pending.append(a)
            case .binary(_, let a, let b, _): pending.append(b); pending.append(a)
            case .conditional(let a, let b, let c):
                pending.append(c); pending.append(b); pending.append(a)
            case .call(_, let args, _): pending.append(contentsOf: args.reversed())
            case .regex(let subject, _): pending.append(subject)
            case .history(let call):
                if intoSelectors {
                    if case .selector(let s)? = call.since {
                        pending.append(contentsOf: whereExpressions(of: s).reversed())
                    }
                    pending.append(contentsOf: whereExpressions(of: call.selector).reversed())
                }
                if let v = call.value { pending.append(v) }
            }
        }
    }

    static func walkSelector(_ s: Selector, _ visit: (Expr) -> Void) {
        for w in whereExpressions(of: s) { walk(w, visit) }
    }

    /// The `where:` expressions of `s`'s terms and of their `not:` selectors, in written order,
    /// each once and whole. A pass that walks each expression itself takes these: handed every
    /// sub-expression by ``walkSelector(_:_:)``, it would walk each node once per node above it.
    static func whereExpressions(of s: Selector) -> [Expr] {
        var out: [Expr] = []
        func add(_ s: Selector) {
            for term in s.terms {
                if let w = term.whereExpr { out.append(w) }
                if let n = term.negated { add(n) }
            }
        }
        add(s)
        return out
    }
}

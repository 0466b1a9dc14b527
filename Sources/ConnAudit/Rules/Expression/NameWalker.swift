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
            case .list(let items): pushReversed(items, &pending)
            case .map(let entries):
                var i = entries.count
                while i > 0 {
                    i -= 1
                    pending.append(entries[i].1)
                }
            case .unary(_, let a): pending.append(a)
            case .binary(_, let a, let b, _): pending.append(b); pending.append(a)
            case .conditional(let a, let b, let c):
                pending.append(c); pending.append(b); pending.append(a)
            case .call(_, let args, _): pushReversed(args, &pending)
            case .regex(let subject, _): pending.append(subject)
            case .history(let call):
                if intoSelectors {
                    if case .selector(let s)? = call.since {
                        pushReversed(whereExpressions(of: s), &pending)
                    }
                    pushReversed(whereExpressions(of: call.selector), &pending)
                }
                if let v = call.value { pending.append(v) }
            }
        }
    }

    /// Pushes `items` last first, so the first is popped first. One append per item: appending
    /// a reversed view of the array goes through the generic collection copy, several times the
    /// cost for the handful of items a node has.
    @inline(__always) private static func pushReversed(_ items: [Expr], _ pending: inout [Expr]) {
        var i = items.count
        while i > 0 {
            i -= 1
            pending.append(items[i])
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

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Collects the event fields a rule can read, so the reader decodes only those.
enum FieldCollector {
    static func collect(_ rule: Rule, into names: inout Set<String>) {
        // Selectors are walked here (their tests name fields too), so the walk does not go into
        // them as well: each level of calls in selectors would walk the levels below it twice.
        func expr(_ e: Expr) {
            NameWalker.walk(e, intoSelectors: false) { sub in
                switch sub {
                case .name(let n, _, _), .field(let n, _): names.insert(n)
                case .member(_, let n, _, _): names.insert(n)
                case .history(let call):
                    selector(call.selector)
                    if case .selector(let s)? = call.since { selector(s) }
                default: break
                }
            }
        }
        func selector(_ s: Selector) {
            for term in s.terms {
                for test in term.tests { names.insert(test.field) }
                if let w = term.whereExpr { expr(w) }
                if let n = term.negated { selector(n) }
            }
        }
        for (_, e) in rule.lets { expr(e) }
        names.formUnion(rule.findingFields)
        rule.check.selectors.forEach(selector)
        rule.check.expressions.forEach(expr)
        if let message = rule.message {
            for part in message.parts { if case .expr(let e) = part { expr(e) } }
        }
    }
}

extension Check {
    /// Every selector the check names directly (not those inside expressions).
    var selectors: [Selector] {
        func steps(_ s: Sequence) -> [Selector] {
            s.steps.flatMap { [$0.selector] + ($0.without.map { [$0] } ?? []) }
        }
        switch self {
        case .every(let s, let expect, _):
            if case .selector(let e) = expect { return [s, e] }
            return [s]
        case .never(let s, let scope):
            switch scope {
            case .global: return [s]
            case .window(let a, let b): return [s] + [a, b].compactMap { $0 }
            case .intervals(let f, let t, _): return [s, f, t]
            }
        case .count(let s, _, _, _): return [s]
        case .response(let t, let f, _, let u, _): return steps(t) + [f] + (u.map { [$0] } ?? [])
        case .precedence(let t, let p): return steps(t) + [p]
        case .neverAfter(let t, let n): return steps(t) + [n]
        case .forbid(let q, let w): return steps(q) + (w.map { [$0] } ?? [])
        case .classify(let c, _, _, let a):
            return c.labels.flatMap { [$0.has, $0.lacks].compactMap { $0 } }
                + (a.map { [$0] } ?? [])
        }
    }

    /// Expressions the check holds outside selectors.
    var expressions: [Expr] {
        switch self {
        case .every(_, .expression(let e), _): return [e]
        case .count(_, _, _, let by?): return [by]
        case .response(_, _, let within?, _, _): return [within]
        default: return []
        }
    }
}

import Testing

@testable import ConnAudit

/// `NameWalker.walk` visits a tree in pre-order, operands left to right, a history call's value
/// before the `where:`s of its selector and then of its `since:`. Passes that keep the first
/// thing they find rely on that order, so the walk is compared with a plain recursive one on
/// every expression of the default pack.
@Suite struct NameWalkerOrderTests {
    /// The order, said as recursion.
    static func reference(_ e: Expr, intoSelectors: Bool, _ out: inout [String]) {
        out.append(String(describing: e))
        func w(_ x: Expr) { reference(x, intoSelectors: intoSelectors, &out) }
        switch e {
        case .literal, .name, .field: break
        case .member(let b, _, _, _): w(b)
        case .index(let a, let b): w(a); w(b)
        case .list(let items): items.forEach(w)
        case .map(let entries): entries.forEach { w($0.1) }
        case .unary(_, let a): w(a)
        case .binary(_, let a, let b, _): w(a); w(b)
        case .conditional(let a, let b, let c): w(a); w(b); w(c)
        case .call(_, let args, _): args.forEach(w)
        case .regex(let subject, _): w(subject)
        case .history(let call):
            if let v = call.value { w(v) }
            guard intoSelectors else { return }
            func selector(_ s: Selector) {
                for term in s.terms {
                    if let x = term.whereExpr { reference(x, intoSelectors: true, &out) }
                    if let n = term.negated { selector(n) }
                }
            }
            selector(call.selector)
            if case .selector(let s)? = call.since { selector(s) }
        }
    }

    /// Every expression the pack's rules hold: lets, the check's, `where:`s of its selectors,
    /// message holes.
    static func packExpressions() -> [Expr] {
        var out: [Expr] = []
        for rule in RuleLoader.builtin(fixtures: false).rules {
            out += rule.lets.map(\.expr)
            out += rule.check.expressions
            for s in rule.check.selectors { out += NameWalker.whereExpressions(of: s) }
            for case .expr(let e) in rule.message?.parts ?? [] { out.append(e) }
        }
        return out
    }

    @Test(arguments: [true, false])
    func theWalkVisitsInTheOrderOfTheRecursion(intoSelectors: Bool) {
        let all = Self.packExpressions()
        #expect(all.count > 100)
        for e in all {
            var expected: [String] = []
            Self.reference(e, intoSelectors: intoSelectors, &expected)
            var seen: [String] = []
            NameWalker.walk(e, intoSelectors: intoSelectors) { seen.append(String(describing: $0)) }
            #expect(seen == expected)
        }
    }

    @Test func aHandMadeTreeIsVisitedOperandsFirstToLast() throws {
        let e = try ExpressionParser.parse(
            "a + b * pow(c, d) and (x ?? y) == z",
            compileSelector: { _, _, _ throws(ExpressionError) in Selector(terms: []) })
        var names: [String] = []
        NameWalker.walk(e) { if case .name(let n, _, _) = $0 { names.append(n) } }
        #expect(names == ["a", "b", "c", "d", "x", "y", "z"])
    }
}

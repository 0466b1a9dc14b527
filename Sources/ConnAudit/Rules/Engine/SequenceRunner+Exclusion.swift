/// Steps a death rules out.
///
/// Where every term of a step first tests `X != Y` (the leftmost operand of its `where`'s `and`s)
/// and every term of the step's `without` requires `X == Y` (an operand of its `where`'s `and`s),
/// an event that kills a partial waiting for the step cannot grow it: the `without` matched, so
/// `X == Y` held, so `X != Y` is false and the step's `where` stops there. So the `without` is
/// tried first, and the step only when it did not match (sse.no-lost-events: the `sse.processed`
/// of a partial's own id kills it, and its step asks first for another id).
///
/// The answer is the same as trying the step first:
/// - `X` and `Y` read only fields of the event, captures of earlier steps and pure functions (no
///   let, no history, no regex), and no name the step or the `without` binds: they are the same in
///   both contexts.
/// - The step's terms test no field but `ev` and have no `not:`: nothing of them runs before the
///   `where`, and the `where` stops at its first operand.
/// - The `without` reads no history and no regex (field tests included) and has no `not:`: it
///   spends no work and no regex steps, so trying it first changes no budget.
extension SequenceRunner {
    /// Per step (bit `i` for step `i`, the first 64): whether a `without` match rules out a
    /// match of the step, as the extension says.
    static func deathsExcludeGrowth(_ steps: [StepSelectors], lets: [String]) -> UInt64 {
        var bits: UInt64 = 0
        var earlier: [String] = []
        for (i, step) in steps.enumerated() {
            defer { earlier += CompiledRule.captureNames(step.selector) }
            guard i > 0, i < 64, let without = step.without else { continue }
            let bound =
                CompiledRule.captureNames(step.selector) + CompiledRule.captureNames(without)
            let readable = earlier.filter { !lets.contains($0) && !bound.contains($0) }
            if excludes(step.selector, without, readable: readable) { bits |= 1 << i }
        }
        return bits
    }

    /// Whether every term of `selector` first tests `X != Y`, for one pair that every term of
    /// `without` requires equal, both sides reading only the event and the `readable` captures.
    static func excludes(_ selector: Selector, _ without: Selector, readable: [String]) -> Bool {
        guard !selector.terms.isEmpty, !without.terms.isEmpty else { return false }
        var pair: (Expr, Expr)?
        for term in selector.terms {
            guard !term.checksFields, term.negated == nil, let w = term.whereExpr,
                case .binary(.notEqual, let x, let y, _) = leftmostOperand(w),
                isPlain(x, readable), isPlain(y, readable)
            else { return false }
            if let (a, b) = pair {
                guard (same(a, x) && same(b, y)) || (same(a, y) && same(b, x)) else { return false }
            } else {
                pair = (x, y)
            }
        }
        guard let (x, y) = pair else { return false }
        for term in without.terms {
            guard term.negated == nil, let w = term.whereExpr, readsNoHistoryNorRegex(w),
                term.tests.allSatisfy({ !usesRegex($0.predicate) })
            else { return false }
            let requires = operands(w).contains { operand in
                guard case .binary(.equal, let a, let b, _) = operand else { return false }
                return (same(a, x) && same(b, y)) || (same(a, y) && same(b, x))
            }
            guard requires else { return false }
        }
        return true
    }

    /// The operand of `expr`'s `and`s evaluated first (`expr` itself when it is no `and`).
    static func leftmostOperand(_ expr: Expr) -> Expr {
        if case .binary(.and, let l, _, _) = expr { return leftmostOperand(l) }
        return expr
    }

    /// The operands of `expr`'s `and`s: each holds when `expr` does.
    static func operands(_ expr: Expr) -> [Expr] {
        if case .binary(.and, let l, let r, _) = expr { return operands(l) + operands(r) }
        return [expr]
    }

    /// Whether `expr` reads only fields of the event and the `readable` names, through
    /// operators and functions that read nothing else.
    static func isPlain(_ expr: Expr, _ readable: [String]) -> Bool {
        switch expr {
        case .field:
            return true
        case .name(let n, _, _):
            return readable.contains(n)
        case .member(let base, _, _, _):
            return isPlain(base, readable)
        case .call(let f, let args, _):
            return f != .matches && args.allSatisfy { isPlain($0, readable) }
        case .unary(_, let x):
            return isPlain(x, readable)
        case .binary(_, let l, let r, _):
            return isPlain(l, readable) && isPlain(r, readable)
        default:
            return false
        }
    }

    /// Whether `a` and `b` are the same expression of the kinds ``isPlain(_:_:)`` accepts.
    static func same(_ a: Expr, _ b: Expr) -> Bool {
        switch (a, b) {
        case (.field(let m, _), .field(let n, _)):
            return m == n
        case (.name(let m, _, _), .name(let n, _, _)):
            return m == n
        case (.member(let x, let m, _, _), .member(let y, let n, _, _)):
            return m == n && same(x, y)
        case (.call(let f, let xs, _), .call(let g, let ys, _)):
            return f == g && xs.count == ys.count && zip(xs, ys).allSatisfy { same($0, $1) }
        case (.unary(let p, let x), .unary(let q, let y)):
            return p == q && same(x, y)
        case (.binary(let p, let x1, let x2, _), .binary(let q, let y1, let y2, _)):
            return p == q && same(x1, y1) && same(x2, y2)
        default:
            return false
        }
    }

    static func readsNoHistoryNorRegex(_ expr: Expr) -> Bool {
        expr.readsOnly { e in
            switch e {
            case .history, .regex: return false
            case .call(.matches, _, _): return false
            default: return nil
            }
        }
    }

    static func usesRegex(_ p: Selector.Predicate) -> Bool {
        switch p {
        case .matches: return true
        case .oneOf(let ps), .all(let ps): return ps.contains(where: usesRegex)
        case .not(let q): return usesRegex(q)
        default: return false
        }
    }
}

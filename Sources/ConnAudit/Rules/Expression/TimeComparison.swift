/// A comparison of one time with another time moved by an amount: `x OP y + K` (or `- K`, or
/// the two sides swapped), for `<`, `<=`, `>` and `>=`, decided from the two times and the amount
/// as the compiled expression decides it.
///
/// The two times are added and compared as ``Scalar`` values are: a time becomes a scalar as
/// ``Scalar/time(_:)`` makes it (NaN is null), the sum is taken as ``Evaluator`` adds two numbers
/// (``sum(_:_:subtract:)``), and the comparison is ``Scalar/combine(_:_:_:)``'s. A whole time
/// moved by a whole amount, both below 2^52, is compared as two doubles, which is exact there.
/// Sequences' `where:`s (``TimeBound``) and `every` expectations (``FusedTruth``) decide their
/// time comparisons with it. Tests: `TimeBoundsGiveTheGeneralAnswerTests`,
/// `FusedTruthGivesTheGeneralAnswerTests`.
struct TimeComparison: Sendable {
    /// `<`, `<=`, `>` or `>=`.
    let op: Expr.BinaryOp
    /// Whether the time that is not moved is on the left.
    let timeFirst: Bool
    /// Whether the amount is taken away (`y - K`) rather than added.
    let subtract: Bool

    /// A comparison's parts as written: the time compared as it is (`plain`), the one moved
    /// (`base`) and the amount (nil where neither side is a sum: then `plain` is the left side).
    struct Parts {
        let comparison: TimeComparison
        let plain: Expr
        let base: Expr
        let amount: Expr?
    }

    /// `expr` taken apart as an ordering comparison of which at most one side is a sum or a
    /// difference (`x OP y + K`, `y - K OP x`, `x OP y`); nil for any other expression. What the
    /// sides and the amount read is for the caller to check.
    static func parts(_ expr: Expr) -> Parts? {
        guard case .binary(let op, let l, let r, _) = expr,
            op == .less || op == .lessEqual || op == .greater || op == .greaterEqual
        else { return nil }
        if case .binary(let sumOp, let base, let amount, _) = r, sumOp == .add || sumOp == .subtract
        {
            let c = TimeComparison(op: op, timeFirst: true, subtract: sumOp == .subtract)
            return Parts(comparison: c, plain: l, base: base, amount: amount)
        }
        if case .binary(let sumOp, let base, let amount, _) = l, sumOp == .add || sumOp == .subtract
        {
            let c = TimeComparison(op: op, timeFirst: false, subtract: sumOp == .subtract)
            return Parts(comparison: c, plain: r, base: base, amount: amount)
        }
        let c = TimeComparison(op: op, timeFirst: true, subtract: false)
        return Parts(comparison: c, plain: l, base: r, amount: nil)
    }

    /// An amount as written: a literal that is a scalar (a number, a boolean, null), or a let's
    /// slot; nil for anything else (a text, a negation, `params`).
    enum Amount {
        case constant(Scalar)
        case slot(LetSlot)

        init?(_ expr: Expr) {
            switch expr {
            case .literal(let v):
                let s = Scalar(v)
                guard !s.isOtherOrNonScalar else { return nil }
                self = .constant(s)
            case .name(let name, _, let slot)
            where name != "params" && slot.layout >= 0 && slot.slot >= 0:
                self = .slot(slot)
            default:
                return nil
            }
        }
    }

    /// The comparison of the time `t` with `at` moved by `amount` (a scalar: neither
    /// ``Scalar/other`` nor ``Scalar/nonScalar``). A whole time moved by a whole amount, both
    /// below 2^52, is compared as two doubles: the scalars' integer sum is exact there, and so is
    /// each integer as a double, so the two comparisons agree (a NaN time is null, and null
    /// compares undecided).
    @inline(__always) func compare(_ t: Double, at: Double, amount: Scalar) -> Scalar {
        if case .int(let j) = amount, j > -(1 << 52), j < 1 << 52, Swift.abs(at) < 0x1p52,
            Double(Int64(at)) == at
        {
            guard !t.isNaN else { return .undecided }
            let bound = at + Double(subtract ? -j : j)
            let (x, y) = timeFirst ? (t, bound) : (bound, t)
            return .bool(holds(x, y))
        }
        return compareInFull(t, at: at, amount: amount)
    }

    /// ``compare(_:at:amount:)`` where the two doubles do not decide: out of line, so that the
    /// callers inline only the comparison of doubles.
    @inline(never) private func compareInFull(_ t: Double, at: Double, amount: Scalar) -> Scalar {
        let bound = Self.sum(Scalar.time(at), amount, subtract: subtract)
        return timeFirst
            ? Scalar.combine(op, Scalar.time(t), bound)
            : Scalar.combine(op, bound, Scalar.time(t))
    }

    /// The comparison of two times, neither moved (`x OP y`): undecided where either is NaN (a
    /// null), else as two doubles, which is how their scalars compare (an integer below 9e15 is
    /// exact as a double).
    @inline(__always) func compare(_ x: Double, _ y: Double) -> Scalar {
        guard !x.isNaN, !y.isNaN else { return .undecided }
        return .bool(holds(x, y))
    }

    @inline(__always) private func holds(_ x: Double, _ y: Double) -> Bool {
        switch op {
        case .less: x < y
        case .lessEqual: x <= y
        case .greater: x > y
        default: x >= y
        }
    }

    /// `x + y` (or `x - y`) as ``Evaluator/combine(_:_:_:)`` gives it for two scalars that are
    /// neither ``Scalar/other`` nor ``Scalar/nonScalar``: two integers exactly where that does not
    /// overflow, two numbers as a decimal sum (``DecimalRounding/sum(_:_:)``) where it is finite,
    /// anything else undecided.
    @inline(__always) static func sum(_ x: Scalar, _ y: Scalar, subtract: Bool) -> Scalar {
        if case .int(let i) = x, case .int(let j) = y {
            let (r, o) = subtract ? i.subtractingReportingOverflow(j) : i.addingReportingOverflow(j)
            if !o { return .int(r) }
        }
        guard let p = number(x), let q = number(y) else { return .undecided }
        guard (subtract ? p - q : p + q).isFinite else { return .undecided }
        return .double(DecimalRounding.sum(p, subtract ? -q : q))
    }

    @inline(__always) private static func number(_ s: Scalar) -> Double? {
        switch s {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }
}

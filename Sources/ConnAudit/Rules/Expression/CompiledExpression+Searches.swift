/// A history call compared with a constant as a scalar node: `first(SEL) != null` (what name
/// resolution makes of `count(SEL) > 0`), `first(SEL) == null`, `count(SEL) >= 2`, the tests
/// most history calls of a rule pack make.
///
/// The call is asked once, and its answer compared in place, with no ``Eval`` made for the
/// comparison or read for its truth by `and` and `or`. The node gives a boolean or undecided,
/// never ``Scalar/other`` or ``Scalar/nonScalar``, so nothing evaluates the call a second time
/// the general way. A node whose scalar run could still give ``Scalar/other`` after such a part
/// has run (an operator other than `and`, `or` and the unary ones, and a conditional whose
/// test is such a part) keeps only its general form (`Node.searches`): a search, which spends
/// its runner's work limit and may wait for a look-ahead, runs once per evaluation, as it does
/// the general way.
/// A call a ``CountedIndex`` answers is asked for its count alone
/// (``Evaluator/countedAnswer(_:_:_:)``) and compared as an integer: no ``Eval`` is made for the
/// answer either. With the history cross-check on, that count is what is checked.
/// Tests: `SearchesComparedGiveTheGeneralAnswerTests`, `CountedAnswerAgreesTests`.
extension CompiledExpression {
    /// Whether `l op r` is a history call compared with a constant (``searchComparison(_:_:_:)``).
    static func isSearchComparison(_ op: Expr.BinaryOp, _ l: Expr, _ r: Expr) -> Bool {
        searchCompared(op, l, r) != nil
    }

    /// The scalar form of `l op r` when it is a `count(SEL)` compared with an integer literal,
    /// or any history call tested `== null` or `!= null` (the literal on either side); nil
    /// otherwise.
    static func searchComparison(_ op: Expr.BinaryOp, _ l: Expr, _ r: Expr) -> Scalar.Run? {
        guard let (call, literal, callFirst) = searchCompared(op, l, r) else { return nil }
        let constant = Eval.value(literal)
        guard case .int(let k) = literal else {
            // `call == null`, `call != null`.
            let equal = op == .equal
            // An existence test a counted index answers is null exactly when it counts none.
            let counted = call.existence && call.resultCaptures.isEmpty
            return { ctx, e in
                if counted, let n = Evaluator.countedAnswer(call, ctx, e) {
                    return .bool(n > 0 ? !equal : equal)
                }
                switch Evaluator.history(call, ctx, e) {
                case .undecided: return .undecided
                case .event: return .bool(!equal)
                case .value(.null): return .bool(equal)
                case let answer: return Scalar(Evaluator.combine(op, answer, constant))
                }
            }
        }
        // `k op count` is `count op' k`, with op' the operator seen from the other side.
        let asked = callFirst ? op : op.mirrored
        return { ctx, e in
            if let n = Evaluator.countedAnswer(call, ctx, e) {
                return .bool(compare(Int64(n), asked, k))
            }
            let answer = Evaluator.history(call, ctx, e)
            if case .value(.int(let n)) = answer { return .bool(compare(n, asked, k)) }
            if case .undecided = answer { return .undecided }
            // An answer of another kind (no count gives one): compared the general way.
            return Scalar(
                callFirst
                    ? Evaluator.combine(op, answer, constant)
                    : Evaluator.combine(op, constant, answer))
        }
    }

    /// The call, its literal and whether the call is on the left, for a `count(SEL)` compared
    /// with an integer literal or a history call compared `==` or `!=` with null.
    private static func searchCompared(_ op: Expr.BinaryOp, _ l: Expr, _ r: Expr)
        -> (HistoryCall, Value, Bool)?
    {
        guard op.isComparison else { return nil }
        if case .history(let call) = l, case .literal(let v) = r, Self.compares(call, op, v) {
            return (call, v, true)
        }
        if case .history(let call) = r, case .literal(let v) = l, Self.compares(call, op, v) {
            return (call, v, false)
        }
        return nil
    }

    /// Whether `call op v` is one ``searchComparison(_:_:_:)`` compiles.
    private static func compares(_ call: HistoryCall, _ op: Expr.BinaryOp, _ v: Value) -> Bool {
        switch v {
        case .int: call.kind == .count
        case .null: op == .equal || op == .notEqual
        default: false
        }
    }

    /// `n op k` for a comparison `op`, as ``Evaluator/combine(_:_:_:)`` compares two integers.
    @inline(__always) static func compare(_ n: Int64, _ op: Expr.BinaryOp, _ k: Int64)
        -> Bool
    {
        switch op {
        case .equal: n == k
        case .notEqual: n != k
        case .less: n < k
        case .lessEqual: n <= k
        case .greater: n > k
        default: n >= k
        }
    }
}

extension Expr.BinaryOp {
    /// The comparison with its operands swapped: `a < b` is `b > a`.
    var mirrored: Expr.BinaryOp {
        switch self {
        case .less: .greater
        case .lessEqual: .greaterEqual
        case .greater: .less
        case .greaterEqual: .lessEqual
        default: self
        }
    }
}

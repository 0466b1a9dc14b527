/// An operand of a scalar node (``Scalar``), as its rule's expression gives it.
///
/// An operator of two operands (`<`, `==`, `+`, …) reads a leaf (a number, the event's `t` or a
/// field, a capture's or a let's field, a bare let) in its own closure, made for that pair of
/// leaf kinds (``CompiledExpression/scalarPair(_:_:_:)``): `t < p.t + T` runs as two closures
/// (the comparison and the sum), not five. `and`, `or`, `if` and `??` read their common leaves
/// (a let's null test, a bare let, a constant, a field, a let's or an aggregate's field) so
/// too. Any other operand is a closure of its own (``closure``). A leaf read in place gives what
/// its closure gives (the tests compare every pair of operand kinds with the tree walker:
/// `ScalarComparisonsGiveTheGeneralAnswerTests`, `CompiledTruthIsTheAnswersTruthTests`,
/// `ScalarPartsReadInPlaceTests`).
enum ScalarOperand: Sendable {
    case constant(Scalar)
    /// The current event's `t`.
    case time
    /// A field of the current event: its name and its ``FieldNames`` id.
    case field(String, Int32)
    /// `capture.field` for a bare name its rule resolved to no let.
    case captureMember(String, LetSlot, String, Int32)
    /// `let.field` for a bare name its rule resolved to a let's slot.
    case letMember(String, LetSlot, String, Int32)
    /// `first(SEL).field` or `last(SEL).field`.
    case aggregateMember(HistoryCall, String, Int32)
    /// A bare name its rule resolved.
    case bare(String, LetSlot)
    /// `let == null` (`true`) or `let != null` (`false`) for a name its rule resolved to a let's
    /// slot (``CompiledExpression/scalarNullTest(_:equal:_:_:)``).
    case nullTest(LetSlot, Bool)
    /// `x + y` (or `x - y`, `subtract`) of two leaves, and its closure (``closure``). A
    /// comparison reads it in place where its parts are a capture's or a let's field and a bare
    /// let or a constant (``SumRead``): `t >= p.t + T` runs as one closure.
    indirect case sum(ScalarOperand, ScalarOperand, subtract: Bool, Scalar.Run)
    /// An operator node, compiled as a closure.
    case run(Scalar.Run)

    /// The operand as a closure of its own.
    var closure: Scalar.Run {
        switch self {
        case .constant(let s): return { _, _ in s }
        case .time: return { _, e in Scalar.time(of: e) }
        case .field(let name, let id): return { ctx, e in Scalar.field(name, id: id, of: e, ctx) }
        case .captureMember(let capture, let hint, let field, let id):
            return { ctx, _ in
                CompiledExpression.scalarCaptureMember(capture, hint, field, id, ctx)
            }
        case .letMember(let name, let hint, let field, let id):
            return { ctx, e in
                CompiledExpression.scalarLetMember(name, hint, field, id, ctx, e)
            }
        case .aggregateMember(let call, let field, let id):
            return { ctx, _ in CompiledExpression.scalarAggregateMember(call, field, id, ctx) }
        case .bare(let name, let hint):
            return { ctx, e in CompiledExpression.scalarBare(name, hint, ctx, e) }
        case .nullTest(let hint, let equal):
            return { ctx, e in CompiledExpression.scalarNullTest(hint, equal: equal, ctx, e) }
        case .sum(_, _, _, let run): return run
        case .run(let run): return run
        }
    }
}

/// How a closure of ``CompiledExpression/scalarPair(_:_:_:)`` reads one operand: a leaf in
/// place, anything else through its closure.
protocol ScalarRead: Sendable {
    func read(_ ctx: EvalContext, _ e: Event) -> Scalar
}

struct ConstantRead: ScalarRead {
    let value: Scalar
    @inline(__always) func read(_ ctx: EvalContext, _ e: Event) -> Scalar { value }
}

struct TimeRead: ScalarRead {
    @inline(__always) func read(_ ctx: EvalContext, _ e: Event) -> Scalar { Scalar.time(of: e) }
}

struct FieldRead: ScalarRead {
    let name: String
    let id: Int32
    @inline(__always) func read(_ ctx: EvalContext, _ e: Event) -> Scalar {
        Scalar.field(name, id: id, of: e, ctx)
    }
}

struct CaptureFieldRead: ScalarRead {
    let capture: String
    let hint: LetSlot
    let field: String
    let id: Int32
    @inline(__always) func read(_ ctx: EvalContext, _ e: Event) -> Scalar {
        CompiledExpression.scalarCaptureMember(capture, hint, field, id, ctx)
    }
}

/// `capture.t` for a capture its rule resolved to a slot (``LetSlot/capture``): the captured
/// event's time read where the captures hold it, as ``CaptureFieldRead`` reads it through
/// ``Scalar/field(_:id:of:_:)`` (a time is read so for every id of `t`). A capture not bound
/// there is left to ``CompiledExpression/scalarCaptureMember(_:_:_:_:_:)``.
struct CaptureTimeRead: ScalarRead {
    let capture: String
    let hint: LetSlot
    let field: String
    @inline(__always) func read(_ ctx: EvalContext, _ e: Event) -> Scalar {
        if let t = ctx.captures.withEvent(slot: Int(hint.capture), capture, { $0.t }) {
            return Scalar.time(t)
        }
        return CompiledExpression.scalarCaptureMember(capture, hint, field, FieldNames.t, ctx)
    }
}

struct LetMemberRead: ScalarRead {
    let name: String
    let hint: LetSlot
    let field: String
    let id: Int32
    @inline(__always) func read(_ ctx: EvalContext, _ e: Event) -> Scalar {
        CompiledExpression.scalarLetMember(name, hint, field, id, ctx, e)
    }
}

struct BareRead: ScalarRead {
    let name: String
    let hint: LetSlot
    @inline(__always) func read(_ ctx: EvalContext, _ e: Event) -> Scalar {
        CompiledExpression.scalarBare(name, hint, ctx, e)
    }
}

struct AggregateMemberRead: ScalarRead {
    let call: HistoryCall
    let field: String
    let id: Int32
    @inline(__always) func read(_ ctx: EvalContext, _ e: Event) -> Scalar {
        CompiledExpression.scalarAggregateMember(call, field, id, ctx)
    }
}

struct NullTestRead: ScalarRead {
    let hint: LetSlot
    let equal: Bool
    @inline(__always) func read(_ ctx: EvalContext, _ e: Event) -> Scalar {
        CompiledExpression.scalarNullTest(hint, equal: equal, ctx, e)
    }
}

/// `a + b` or `a - b` (`subtract`), read as ``CompiledExpression/scalarPair(_:_:_:)``'s closure
/// for the operator reads it: left to right, the first ``Scalar/other`` ends the read.
struct SumRead<A: ScalarRead, B: ScalarRead>: ScalarRead {
    let a: A
    let b: B
    let subtract: Bool
    @inline(__always) func read(_ ctx: EvalContext, _ e: Event) -> Scalar {
        let x = a.read(ctx, e)
        if x.isOther { return .other }
        let y = b.read(ctx, e)
        if y.isOther { return .other }
        if case .int(let i) = x, case .int(let j) = y {
            let (r, o) = subtract ? i.subtractingReportingOverflow(j) : i.addingReportingOverflow(j)
            if !o { return .int(r) }
        }
        return Scalar.combineOther(subtract ? .subtract : .add, x, y)
    }
}

struct ClosureRead: ScalarRead {
    let run: Scalar.Run
    @inline(__always) func read(_ ctx: EvalContext, _ e: Event) -> Scalar { run(ctx, e) }
}

extension Expr.BinaryOp {
    /// `<`, `<=`, `>`, `>=`, `==` or `!=`.
    var isComparison: Bool {
        switch self {
        case .less, .lessEqual, .greater, .greaterEqual, .equal, .notEqual: true
        default: false
        }
    }
}

extension CompiledExpression {
    /// `a op b` for an operator ``Scalar/combine(_:_:_:)`` evaluates, as one closure that reads
    /// each leaf operand in place (``ScalarOperand``), left to right.
    static func scalarPair(_ op: Expr.BinaryOp, _ a: ScalarOperand, _ b: ScalarOperand)
        -> Scalar.Run
    {
        switch a {
        case .constant(let s): return scalarPair(op, ConstantRead(value: s), b)
        case .time: return scalarPair(op, TimeRead(), b)
        case .field(let name, let id): return scalarPair(op, FieldRead(name: name, id: id), b)
        case .captureMember(let capture, let hint, let field, let id):
            return scalarPair(
                op, CaptureFieldRead(capture: capture, hint: hint, field: field, id: id), b)
        case .letMember(let name, let hint, let field, let id):
            return scalarPair(op, LetMemberRead(name: name, hint: hint, field: field, id: id), b)
        case .bare(let name, let hint): return scalarPair(op, BareRead(name: name, hint: hint), b)
        default: return scalarPair(op, ClosureRead(run: a.closure), b)
        }
    }

    private static func scalarPair<A: ScalarRead>(
        _ op: Expr.BinaryOp, _ a: A, _ b: ScalarOperand
    ) -> Scalar.Run {
        switch b {
        case .constant(let s): return scalarPair(op, a, ConstantRead(value: s))
        case .time: return scalarPair(op, a, TimeRead())
        case .field(let name, let id): return scalarPair(op, a, FieldRead(name: name, id: id))
        case .captureMember(let capture, let hint, let field, let id):
            return scalarPair(
                op, a, CaptureFieldRead(capture: capture, hint: hint, field: field, id: id))
        case .letMember(let name, let hint, let field, let id):
            return scalarPair(op, a, LetMemberRead(name: name, hint: hint, field: field, id: id))
        case .bare(let name, let hint): return scalarPair(op, a, BareRead(name: name, hint: hint))
        case .sum(let x, let y, let subtract, let run) where op.isComparison:
            return scalarPair(op, a, x, y, subtract: subtract, run)
        default: return scalarPair(op, a, ClosureRead(run: b.closure))
        }
    }

    /// `a op (x + y)` (or `x - y`) for a comparison `op`, reading the sum in place where its
    /// parts are a capture's or a let's field and a bare let or a constant; through its closure
    /// `run` otherwise.
    private static func scalarPair<A: ScalarRead>(
        _ op: Expr.BinaryOp, _ a: A, _ x: ScalarOperand, _ y: ScalarOperand, subtract: Bool,
        _ run: @escaping Scalar.Run
    ) -> Scalar.Run {
        switch x {
        case .captureMember(let capture, let hint, let field, let id)
        where id == FieldNames.t && hint.capture >= 0:
            return scalarPair(
                op, a, CaptureTimeRead(capture: capture, hint: hint, field: field), y,
                subtract: subtract, run)
        case .captureMember(let capture, let hint, let field, let id):
            return scalarPair(
                op, a, CaptureFieldRead(capture: capture, hint: hint, field: field, id: id), y,
                subtract: subtract, run)
        case .letMember(let name, let hint, let field, let id):
            return scalarPair(
                op, a, LetMemberRead(name: name, hint: hint, field: field, id: id), y,
                subtract: subtract, run)
        default: return scalarPair(op, a, ClosureRead(run: run))
        }
    }

    private static func scalarPair<A: ScalarRead, X: ScalarRead>(
        _ op: Expr.BinaryOp, _ a: A, _ x: X, _ y: ScalarOperand, subtract: Bool,
        _ run: @escaping Scalar.Run
    ) -> Scalar.Run {
        switch y {
        case .bare(let name, let hint):
            return scalarPair(
                op, a, SumRead(a: x, b: BareRead(name: name, hint: hint), subtract: subtract))
        case .constant(let s):
            return scalarPair(op, a, SumRead(a: x, b: ConstantRead(value: s), subtract: subtract))
        default: return scalarPair(op, a, ClosureRead(run: run))
        }
    }

    private static func scalarPair<A: ScalarRead, B: ScalarRead>(
        _ op: Expr.BinaryOp, _ a: A, _ b: B
    ) -> Scalar.Run {
        switch op {
        // The operator is a constant of each closure: the switch of ``Scalar/combine(_:_:_:)``
        // folds away.
        case .less: return { pair(.less, a, b, $0, $1) }
        case .lessEqual: return { pair(.lessEqual, a, b, $0, $1) }
        case .greater: return { pair(.greater, a, b, $0, $1) }
        case .greaterEqual: return { pair(.greaterEqual, a, b, $0, $1) }
        case .equal: return { pair(.equal, a, b, $0, $1) }
        case .notEqual: return { pair(.notEqual, a, b, $0, $1) }
        case .add: return { pair(.add, a, b, $0, $1) }
        case .subtract: return { pair(.subtract, a, b, $0, $1) }
        default: return { pair(op, a, b, $0, $1) }
        }
    }

    /// `a op b` on the scalars of its operands, read left to right.
    @inline(__always) private static func pair<A: ScalarRead, B: ScalarRead>(
        _ op: Expr.BinaryOp, _ a: A, _ b: B, _ ctx: EvalContext, _ e: Event
    ) -> Scalar {
        let x = a.read(ctx, e)
        if x.isOther { return .other }
        let y = b.read(ctx, e)
        if y.isOther { return .other }
        return Scalar.combine(op, x, y)
    }
}

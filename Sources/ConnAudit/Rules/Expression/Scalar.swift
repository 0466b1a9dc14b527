/// Expressions over numbers, booleans and null, evaluated without an ``Eval`` per node.
///
/// A node whose parts are numbers, fields, lets, captures' fields, running aggregates' fields
/// and the operators over them (`open != null and t >= answer.t + I`) also compiles as a
/// *scalar* closure (``CompiledExpression/node(_:scalar:)``): each part gives a ``Scalar``, a plain
/// value of a few bytes with no reference in it. Any two scalars are compared in place, as
/// ``Value/looselyEquals(_:)`` and ``Value/numericOrder(_:)`` decide; two integers are added
/// in place, and any other arithmetic goes through ``Evaluator/combine(_:_:_:)``. `and`, `or`,
/// `??`, `if` and `not` follow the same truth tables as ``Evaluator``, so every answer is the
/// general one.
///
/// A value that is no scalar (a text, an event, a list) ends the scalar run with
/// ``Scalar/nonScalar`` or ``Scalar/other``, and the node is evaluated again the general way (a
/// part of `and` or `or` alone: ``scalarBinary(_:_:_:generalA:generalB:)``). That second
/// evaluation must not differ from the first: a scalar leaf only reads what reading
/// again gives alike (an event's field, a capture, a let a scope or cache keeps once
/// evaluated, an aggregate's event), and gives ``Scalar/other`` before evaluating anything else
/// (a let bound by name or laid out otherwise, a static let that is never kept, a history call
/// that searches). Parts run in the general order, and the first ``Scalar/other`` stops the
/// scalar run, so lets are first evaluated in the general order too. The one scalar node that
/// searches, a history call compared with a constant, answers once it has searched, and only
/// parents that then answer too read it as a scalar
/// (``CompiledExpression/searchComparison(_:_:_:)``).
/// Tests: `ScalarComparisonsGiveTheGeneralAnswerTests`.
enum Scalar {
    case null, undecided
    /// A value read that is no scalar: a text, list, object, big integer or event.
    case nonScalar
    /// Nothing read: the general evaluation must answer.
    case other
    case bool(Bool)
    case int(Int64)
    case double(Double)

    typealias Run = @Sendable (EvalContext, Event) -> Scalar

    /// `v` as a scalar: ``nonScalar`` for a text, list, object or big integer.
    @inline(__always) init(_ v: Value) {
        switch v {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .int(let i): self = .int(i)
        case .double(let d): self = .double(d)
        default: self = .nonScalar
        }
    }

    /// `e` as a scalar: ``nonScalar`` for an event or a value that is no scalar.
    @inline(__always) init(_ e: Eval) {
        switch e {
        case .value(let v): self.init(v)
        case .undecided: self = .undecided
        case .event: self = .nonScalar
        }
    }

    /// The value as an ``Eval`` (never asked of ``other`` or ``nonScalar``).
    @inline(__always) var eval: Eval {
        switch self {
        case .null: .null
        case .undecided, .other, .nonScalar: .undecided
        case .bool(let b): .value(.bool(b))
        case .int(let i): .value(.int(i))
        case .double(let d): .value(.double(d))
        }
    }

    /// Whether nothing was read (the general evaluation must answer).
    @inline(__always) var isOther: Bool {
        if case .other = self { return true }
        return false
    }

    /// Whether the value cannot be handed on as an ``Eval``.
    @inline(__always) var isOtherOrNonScalar: Bool {
        switch self {
        case .other, .nonScalar: return true
        default: return false
        }
    }

    /// Three-valued truth, as ``Eval/truth``: a boolean's; nil for anything else.
    @inline(__always) var truth: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// `not x` and `-x`, as ``Evaluator/unary(_:_:)`` gives them.
    @inline(__always) static func unary(_ op: Expr.UnaryOp, _ x: Scalar) -> Scalar {
        if x.isOther { return .other }
        switch op {
        case .not:
            guard let b = x.truth else { return .undecided }
            return .bool(!b)
        case .negate:
            switch x {
            case .int(let i) where i != Int64.min: return .int(-i)
            case .int(let i): return .double(-Double(i))
            case .double(let d): return .double(-d)
            case .nonScalar: return .other
            default: return .undecided
            }
        }
    }

    /// `x op y` for an operator ``Evaluator/combine(_:_:_:)`` evaluates, neither operand
    /// ``other``: what it gives for the two values. A value that is no scalar is equal to no
    /// null; with anything else it leaves the answer to the general evaluation (``other``).
    @inline(__always) static func combine(_ op: Expr.BinaryOp, _ x: Scalar, _ y: Scalar) -> Scalar {
        if case .int(let i) = x, case .int(let j) = y {
            switch op {
            case .less: return .bool(i < j)
            case .lessEqual: return .bool(i <= j)
            case .greater: return .bool(i > j)
            case .greaterEqual: return .bool(i >= j)
            case .equal: return .bool(i == j)
            case .notEqual: return .bool(i != j)
            case .add:
                let (r, o) = i.addingReportingOverflow(j)
                if !o { return .int(r) }
            case .subtract:
                let (r, o) = i.subtractingReportingOverflow(j)
                if !o { return .int(r) }
            default: break
            }
        }
        return combineOther(op, x, y)
    }

    /// ``combine(_:_:_:)`` of any pair but two integers it answers in place. A comparison or an
    /// equality test is decided here, as ``Evaluator/combine(_:_:_:)`` decides it for the two
    /// values (`gen == null` on every event, a fraction against a whole number), without making
    /// them ``Eval``s: the pack asks such tests on most events. Arithmetic other than on two
    /// integers goes to the general evaluation (decimal sums, overflow).
    @inline(never) static func combineOther(_ op: Expr.BinaryOp, _ x: Scalar, _ y: Scalar)
        -> Scalar
    {
        if case .nonScalar = x { return nonScalar(op, y) }
        if case .nonScalar = y { return nonScalar(op, x) }
        switch op {
        case .equal, .notEqual:
            guard let same = looselyEqual(x, y) else { return .undecided }
            return .bool(op == .equal ? same : !same)
        case .less, .lessEqual, .greater, .greaterEqual:
            guard let order = numericOrder(x, y) else { return .undecided }
            switch op {
            case .less: return .bool(order < 0)
            case .lessEqual: return .bool(order <= 0)
            case .greater: return .bool(order > 0)
            default: return .bool(order >= 0)
            }
        default:
            return Scalar(Evaluator.combine(op, x.eval, y.eval))
        }
    }

    /// ``Value/looselyEquals(_:)`` of two scalars (neither ``nonScalar``); nil when either is
    /// undecided (or ``other``, which ``eval`` makes undecided). Two integers compare exactly,
    /// any other two numbers as doubles; null equals null, a boolean the same boolean, and
    /// values of two different kinds are not equal.
    @inline(__always) private static func looselyEqual(_ x: Scalar, _ y: Scalar) -> Bool? {
        switch (x, y) {
        case (.undecided, _), (_, .undecided), (.other, _), (_, .other): return nil
        case (.int(let i), .int(let j)): return i == j
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        default:
            guard let p = x.number, let q = y.number else { return false }
            return p == q
        }
    }

    /// ``Value/numericOrder(_:)`` of two scalars: -1, 0 or 1; nil unless both are numbers and
    /// neither is NaN. Two integers compare exactly, any other two numbers as doubles.
    @inline(__always) private static func numericOrder(_ x: Scalar, _ y: Scalar) -> Int? {
        if case .int(let i) = x, case .int(let j) = y { return i < j ? -1 : (i > j ? 1 : 0) }
        guard let p = x.number, let q = y.number, !p.isNaN, !q.isNaN else { return nil }
        return p < q ? -1 : (p > q ? 1 : 0)
    }

    /// The number of an integer or a fraction, as ``Value/number`` gives it; nil for anything
    /// else.
    @inline(__always) private var number: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    /// `combine` of a value that is no scalar with `other`: `==` and `!=` with null are decided
    /// (a text, event or list is never null); anything else is not.
    @inline(never) private static func nonScalar(_ op: Expr.BinaryOp, _ other: Scalar) -> Scalar {
        guard case .null = other else { return .other }
        switch op {
        case .equal: return .bool(false)
        case .notEqual: return .bool(true)
        default: return .other
        }
    }

    /// `t` of `e` as ``Event/value(of:id:)`` gives it, without making a value first.
    @inline(__always) static func time(of e: Event) -> Scalar { time(e.t) }

    /// An event's time `t` as ``time(of:)`` gives it.
    @inline(__always) static func time(_ t: Double) -> Scalar {
        if t.isNaN { return .null }
        // Whole where converting to an integer and back gives it again (a whole number, as
        // `t == t.rounded()` tests, without a call to the C library).
        if abs(t) < 9e15 {
            let i = Int64(t)
            if Double(i) == t { return .int(i) }
        }
        return .double(t)
    }

    /// Field `name` of `e` as ``Evaluator/field(_:id:of:_:)`` reads it: `t` without making a
    /// value first, a field with an id where the event holds it (a text is not copied out to
    /// be found no scalar).
    @inline(__always) static func field(_ name: String, id: Int32, of e: Event, _ ctx: EvalContext)
        -> Scalar
    {
        if id == FieldNames.t { return time(of: e) }
        guard id >= 0 else { return Scalar(Evaluator.field(name, id: id, of: e, ctx)) }
        // As ``Event/value(of:id:)`` finds it: the last field with the id, or without an id
        // and of the name.
        return e.fields.withUnsafeBufferPointer { fields in
            var i = fields.count
            while i > 0 {
                i -= 1
                if fields[i].id == id || (fields[i].id < 0 && fields[i].key == name) {
                    return Scalar(fields[i].value)
                }
            }
            return .null
        }
    }
}

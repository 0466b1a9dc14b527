/// `==` and `!=` where a side is a text: a field, a capture's field, `text(…)` of either, or a
/// text constant (`text(id) != text(e.id)`, `ev == 'sse.event'`, `reason != ''`).
///
/// Each side's value is read in the comparison's own closure, where the event holds it
/// (``ValueRead``): no closure and no ``Eval`` per side, no text made by `text`. Two texts
/// compare as ``Value/looselyEquals(_:)`` compares them (String equality); a text and a value
/// of any other kind are not equal; two integers `text(…)` of each compare as the integers (a
/// decimal text is an integer's alone). Any other pair, and a side not read in place, gives
/// ``Scalar/other``: the node's general form answers (``CompiledExpression/node(_:scalar:)``).
/// Tests: `TextComparisonsReadInPlaceTests`.
protocol ValueRead: Sendable {
    /// The operand's value, read where the event holds it; nil where only the general form
    /// reads it.
    func value(_ ctx: EvalContext, _ e: Event) -> Value?
}

/// A field of the current event, with a ``FieldNames`` id or `ev`.
struct FieldValueRead: ValueRead {
    let name: String
    let id: Int32

    @inline(__always) func value(_ ctx: EvalContext, _ e: Event) -> Value? {
        Self.field(name, id, e)
    }

    /// Field `name` (id `id`) of `e` as ``Evaluator/field(_:id:of:_:)`` reads it: the last
    /// field with the id, or without an id and of the name; null when there is none. Nil for a
    /// built-in name but `ev`, and a name read without an id.
    @inline(__always) static func field(_ name: String, _ id: Int32, _ e: Event) -> Value? {
        guard id >= 0 else { return id == FieldNames.ev ? .string(e.ev) : nil }
        return e.value(of: name, id: id) ?? .null
    }
}

/// `capture.field` for a name its rule resolved to a capture's slot, where the capture is
/// bound (``CompiledExpression/captureMember(_:_:_:_:)``).
struct CaptureValueRead: ValueRead {
    let capture: String
    let slot: Int
    let field: String
    let id: Int32

    @inline(__always) func value(_ ctx: EvalContext, _ e: Event) -> Value? {
        ctx.captures.withEvent(slot: slot, capture) { FieldValueRead.field(field, id, $0) } ?? nil
    }
}

struct ConstantValueRead: ValueRead {
    let value: Value
    @inline(__always) func value(_ ctx: EvalContext, _ e: Event) -> Value? { value }
}

extension CompiledExpression {
    /// `l == r` (`equal`) or `l != r` read in place (see ``ValueRead``), where a side is a text
    /// and each is a field, a capture's field, `text(…)` of either or a constant; nil otherwise.
    static func textComparison(_ op: Expr.BinaryOp, _ l: Expr, _ r: Expr) -> Scalar.Run? {
        guard isTextComparison(op, l, r), let a = valueOperand(l) else { return nil }
        return textComparison(op == .equal, a, r)
    }

    /// Whether ``textComparison(_:_:_:)`` reads `l op r` in place.
    static func isTextComparison(_ op: Expr.BinaryOp, _ l: Expr, _ r: Expr) -> Bool {
        (op == .equal || op == .notEqual) && (textSide(l) || textSide(r))
            && valueOperand(l) != nil && valueOperand(r) != nil
    }

    /// Whether `expr` is a text for certain: `text(…)` or a text constant.
    private static func textSide(_ expr: Expr) -> Bool {
        switch expr {
        case .literal(.string): true
        case .call(.text, _, _): true
        default: false
        }
    }

    /// `expr` as a value read in place, and whether it is `text(…)` of it; nil for any other
    /// expression.
    private static func valueOperand(_ expr: Expr) -> (text: Bool, read: any ValueRead)? {
        switch expr {
        case .call(.text, let args, _) where args.count == 1:
            guard let (text, read) = valueOperand(args[0]), !text else { return nil }
            if case .literal = args[0] { return nil }
            return (true, read)
        case .literal(let v):
            return (false, ConstantValueRead(value: v))
        case .field(let name, let id) where id >= 0 || id == FieldNames.ev:
            return (false, FieldValueRead(name: name, id: id))
        case .member(.name(let bound, _, let hint), let field, let id, _)
        where hint.layout >= 0 && bound != "params" && hint.slot < 0 && hint.capture >= 0
            && (id >= 0 || id == FieldNames.ev):
            return (
                false,
                CaptureValueRead(capture: bound, slot: Int(hint.capture), field: field, id: id)
            )
        default:
            return nil
        }
    }

    private static func textComparison(
        _ equal: Bool, _ a: (text: Bool, read: any ValueRead), _ r: Expr
    ) -> Scalar.Run? {
        switch a.read {
        case let x as FieldValueRead: return textComparison(equal, a.text, x, r)
        case let x as CaptureValueRead: return textComparison(equal, a.text, x, r)
        case let x as ConstantValueRead: return textComparison(equal, a.text, x, r)
        default: return nil
        }
    }

    private static func textComparison<A: ValueRead>(
        _ equal: Bool, _ textA: Bool, _ a: A, _ r: Expr
    ) -> Scalar.Run? {
        guard let b = valueOperand(r) else { return nil }
        switch b.read {
        case let y as FieldValueRead: return textComparison(equal, textA, a, b.text, y)
        case let y as CaptureValueRead: return textComparison(equal, textA, a, b.text, y)
        case let y as ConstantValueRead: return textComparison(equal, textA, a, b.text, y)
        default: return nil
        }
    }

    private static func textComparison<A: ValueRead, B: ValueRead>(
        _ equal: Bool, _ textA: Bool, _ a: A, _ textB: Bool, _ b: B
    ) -> Scalar.Run {
        { ctx, e in
            guard let x = a.value(ctx, e), let y = b.value(ctx, e),
                let same = textsEqual(x, textA, y, textB)
            else { return .other }
            return .bool(same == equal)
        }
    }

    /// Whether `x` (`text(x)` where `textX`) equals `y` (`text(y)` where `textY`), as
    /// ``Evaluator/combine(_:_:_:)`` decides it; nil where it is left to the general form.
    @inline(__always) private static func textsEqual(
        _ x: Value, _ textX: Bool, _ y: Value, _ textY: Bool
    ) -> Bool? {
        switch (x, y) {
        case (.string(let s), .string(let t)): return s == t
        case (.int(let i), .int(let j)) where textX == textY: return i == j
        case (.string, _) where !textY: return false
        case (_, .string) where !textX: return false
        default: return nil
        }
    }
}

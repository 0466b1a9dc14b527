/// The compiling of scalar nodes: a node over numbers, booleans and null (`Scalar`) compiled
/// into closures that read their leaves in place (`ScalarOperand`).
extension CompiledExpression {
    /// A node that runs `scalar` first, and `general` when it gives no scalar.
    static func scalarFirst(_ scalar: @escaping Scalar.Run, general: @escaping Run) -> Run {
        { ctx, e in
            let v = scalar(ctx, e)
            return v.isOtherOrNonScalar ? general(ctx, e) : v.eval
        }
    }

    /// Whether `expr` compiles as a scalar (``node(_:scalar:)``): a leaf ``scalarOperand(_:)``
    /// reads, a unary, binary (but `in`, `not in`) or conditional node of such parts, a
    /// comparison with a text read in place (``isTextComparison(_:_:_:)``), or a history call
    /// compared with a constant (``isSearchComparison(_:_:_:)``).
    static func scalarKind(_ expr: Expr) -> Bool {
        switch expr {
        case .unary(_, let operand): return scalarKind(operand)
        case .binary(let op, let l, let r, _):
            return op != .isIn && op != .notIn && scalarKind(l) && scalarKind(r)
                || isTextComparison(op, l, r) || isSearchComparison(op, l, r)
        case .conditional(let c, let a, let b):
            return scalarKind(c) && scalarKind(a) && scalarKind(b)
        case .literal(let v): return !Scalar(v).isOtherOrNonScalar
        case .field: return true
        case .member(.name(let bound, _, let hint), _, _, _):
            return hint.layout >= 0 && bound != "params"
        case .member(.history(let call), _, _, _):
            return call.resultCaptures.isEmpty && (call.kind == .first || call.kind == .last)
        case .name(let name, _, let hint): return hint.layout >= 0 && name != "params"
        default: return false
        }
    }

    /// `expr` as a scalar leaf, read in its parent's closure; nil when it is no kind a scalar
    /// run reads (see ``Scalar``).
    static func scalarOperand(_ expr: Expr) -> ScalarOperand? {
        switch expr {
        case .literal(let v):
            let s = Scalar(v)
            if s.isOtherOrNonScalar { return nil }
            return .constant(s)
        case .field(_, FieldNames.t):
            return .time
        case .field(let name, let id):
            return .field(name, id)
        case .member(.name(let bound, _, let hint), let field, let id, _)
        where hint.layout >= 0 && bound != "params":
            return hint.slot < 0
                ? .captureMember(bound, hint, field, id) : .letMember(bound, hint, field, id)
        case .member(.history(let call), let field, let id, _)
        where call.resultCaptures.isEmpty && (call.kind == .first || call.kind == .last):
            return .aggregateMember(call, field, id)
        case .name(let name, _, let hint) where hint.layout >= 0 && name != "params":
            return .bare(name, hint)
        default:
            return nil
        }
    }

    /// A binary node over scalar operands `a` and `b`, as ``Evaluator/shortCircuit(_:_:_:)``
    /// and ``Evaluator/combine(_:_:_:)`` evaluate it; nil for `in` and `not in`.
    ///
    /// `and` and `or` read only their parts' truth, and always answer with a scalar: a part whose
    /// scalar run gives none is evaluated by its general form (`generalA`, `generalB`), where the
    /// general order would evaluate it next, and the other part stays scalar.
    static func scalarBinary(
        _ op: Expr.BinaryOp, _ x: ScalarOperand, _ y: ScalarOperand,
        generalA: @escaping Run, generalB: @escaping Run
    )
        -> Scalar.Run?
    {
        switch op {
        case .and, .or:
            return logical(op == .and, x, y, generalA, generalB)
        case .coalesce:
            return coalesce(x, y)
        case .isIn, .notIn:
            return nil
        default:
            return scalarPair(op, x, y)
        }
    }

    /// `x ?? y`, reading a field, a let's or a running aggregate's field or a constant in place,
    /// and any other part through its closure (``ScalarRead``).
    private static func coalesce(_ x: ScalarOperand, _ y: ScalarOperand) -> Scalar.Run {
        switch x {
        case .field(let name, let id): return coalesce(FieldRead(name: name, id: id), y)
        case .letMember(let name, let hint, let field, let id):
            return coalesce(LetMemberRead(name: name, hint: hint, field: field, id: id), y)
        case .aggregateMember(let call, let field, let id):
            return coalesce(AggregateMemberRead(call: call, field: field, id: id), y)
        default: return coalesce(ClosureRead(run: x.closure), y)
        }
    }

    private static func coalesce<A: ScalarRead>(_ a: A, _ y: ScalarOperand) -> Scalar.Run {
        switch y {
        case .constant(let s): return coalesce(a, ConstantRead(value: s))
        case .field(let name, let id): return coalesce(a, FieldRead(name: name, id: id))
        default: return coalesce(a, ClosureRead(run: y.closure))
        }
    }

    private static func coalesce<A: ScalarRead, B: ScalarRead>(_ a: A, _ b: B) -> Scalar.Run {
        { ctx, e in
            let v = a.read(ctx, e)
            switch v {
            case .null, .undecided: return b.read(ctx, e)
            default: return v
            }
        }
    }

    /// `x and y` (`isAnd`) or `x or y`, reading a let's null test or a bare name in place and
    /// any other part through its closure (``ScalarRead``).
    private static func logical(
        _ isAnd: Bool, _ x: ScalarOperand, _ y: ScalarOperand, _ generalA: @escaping Run,
        _ generalB: @escaping Run
    ) -> Scalar.Run {
        switch x {
        case .nullTest(let hint, let equal):
            return logical(isAnd, NullTestRead(hint: hint, equal: equal), y, generalA, generalB)
        default: return logical(isAnd, ClosureRead(run: x.closure), y, generalA, generalB)
        }
    }

    private static func logical<A: ScalarRead>(
        _ isAnd: Bool, _ a: A, _ y: ScalarOperand, _ generalA: @escaping Run,
        _ generalB: @escaping Run
    ) -> Scalar.Run {
        switch y {
        case .nullTest(let hint, let equal):
            return logical(isAnd, a, NullTestRead(hint: hint, equal: equal), generalA, generalB)
        case .bare(let name, let hint):
            return logical(isAnd, a, BareRead(name: name, hint: hint), generalA, generalB)
        default: return logical(isAnd, a, ClosureRead(run: y.closure), generalA, generalB)
        }
    }

    /// `a and b` and `a or b` as ``Evaluator/shortCircuit(_:_:_:)`` gives their truth.
    private static func logical<A: ScalarRead, B: ScalarRead>(
        _ isAnd: Bool, _ a: A, _ b: B, _ generalA: @escaping Run, _ generalB: @escaping Run
    ) -> Scalar.Run {
        if isAnd {
            return { ctx, e in
                let p = truth(a, generalA, ctx, e)
                if p == false { return .bool(false) }
                let q = truth(b, generalB, ctx, e)
                if q == false { return .bool(false) }
                return p == true && q == true ? .bool(true) : .undecided
            }
        }
        return { ctx, e in
            let p = truth(a, generalA, ctx, e)
            if p == true { return .bool(true) }
            let q = truth(b, generalB, ctx, e)
            if q == true { return .bool(true) }
            return p == false && q == false ? .bool(false) : .undecided
        }
    }

    /// The truth of a part of `and` or `or`: of its scalar, or where that is ``Scalar/other``, of
    /// its general form's answer (a value that is no scalar has none, either way).
    @inline(__always) private static func truth<A: ScalarRead>(
        _ scalar: A, _ general: Run, _ ctx: EvalContext, _ e: Event
    ) -> Bool? {
        let x = scalar.read(ctx, e)
        return x.isOther ? general(ctx, e).truth : x.truth
    }

    /// `if c then a else b` over scalar parts, as ``Evaluator/choose(_:_:_:)`` evaluates it: a
    /// let's null test as the test, and a constant as either branch, read in place.
    static func scalarConditional(_ test: ScalarOperand, _ yes: ScalarOperand, _ no: ScalarOperand)
        -> Scalar.Run
    {
        switch test {
        case .nullTest(let hint, let equal):
            return conditional(NullTestRead(hint: hint, equal: equal), yes, no)
        default: return conditional(ClosureRead(run: test.closure), yes, no)
        }
    }

    private static func conditional<C: ScalarRead>(
        _ c: C, _ yes: ScalarOperand, _ no: ScalarOperand
    ) -> Scalar.Run {
        switch yes {
        case .constant(let s): return conditional(c, ConstantRead(value: s), no)
        default: return conditional(c, ClosureRead(run: yes.closure), no)
        }
    }

    private static func conditional<C: ScalarRead, A: ScalarRead>(
        _ c: C, _ a: A, _ no: ScalarOperand
    ) -> Scalar.Run {
        switch no {
        case .constant(let s): return conditional(c, a, ConstantRead(value: s))
        default: return conditional(c, a, ClosureRead(run: no.closure))
        }
    }

    private static func conditional<C: ScalarRead, A: ScalarRead, B: ScalarRead>(
        _ c: C, _ a: A, _ b: B
    ) -> Scalar.Run {
        { ctx, e in
            let test = c.read(ctx, e)
            if test.isOther { return .other }
            switch test.truth {
            case true?: return a.read(ctx, e)
            case false?: return b.read(ctx, e)
            case nil: return .undecided
            }
        }
    }

    /// `let == null` (or `!=`, `equal` false) as a scalar (see ``letNullTest(_:_:equal:)``):
    /// asked of the aggregate where the let is one's `first` or `last`, else of the let's kept
    /// value. A context that binds nothing of its own (``EvalContext/hasNoLocals``) and a let
    /// that is a running aggregate's `first` or `last` are answered here, in the reading closure;
    /// anything else out of line (``scalarNullTestElsewhere(_:equal:_:_:)``).
    @inline(__always) static func scalarNullTest(
        _ hint: LetSlot, equal: Bool, _ ctx: EvalContext, _ e: Event
    ) -> Scalar {
        if ctx.hasNoLocals,
            let isNull = ctx.withShared({
                $0.withStatics { s in
                    s.table.layout == hint.layout ? s.isNull(slot: Int(hint.slot)) : nil
                }
            })
        {
            return .bool(isNull == equal)
        }
        return scalarNullTestElsewhere(hint, equal: equal, ctx, e)
    }

    /// ``scalarNullTest(_:equal:_:_:)`` in full.
    @inline(never) static func scalarNullTestElsewhere(
        _ hint: LetSlot, equal: Bool, _ ctx: EvalContext, _ e: Event
    ) -> Scalar {
        let slot = Int(hint.slot)
        let lets = ctx.letsInPlace
        if !lets.byName, let scope = lets.scope {
            // The scope's scalar: a text, list or event (``Scalar/nonScalar``) is not null.
            let v = scope._withUnsafeGuaranteedRef { scope in
                scope.table.layout == hint.layout ? scope.scalar(slot: slot) : .other
            }
            switch v {
            case .other: return .other
            case .undecided: return .undecided
            case .null: return .bool(equal)
            default: return .bool(!equal)
            }
        }
        if !lets.byName,
            let isNull = ctx.withShared({
                $0.withStatics { s in s.table.layout == hint.layout ? s.isNull(slot: slot) : nil
                }
            })
        {
            return .bool(isNull == equal)
        }
        guard let v = keptLet(slot, hint, ctx, e) else { return .other }
        switch v {
        case .undecided: return .undecided
        case .value(.null): return .bool(equal)
        default: return .bool(!equal)
        }
    }

    /// The value of the let at `slot` (resolved as `hint`), where reading it again gives the
    /// same without evaluating anything more: from the context's scope of lets (each evaluated
    /// once), or from the runner's static lets when the cache keeps it or it is an aggregate's
    /// answer. Nil where the let is bound by name, laid out otherwise, or never kept.
    @inline(__always) static func keptLet(
        _ slot: Int, _ hint: LetSlot, _ ctx: EvalContext, _ e: Event
    ) -> Eval? {
        let lets = ctx.letsInPlace
        guard !lets.byName else { return nil }
        if let scope = lets.scope {
            return scope._withUnsafeGuaranteedRef { scope in
                scope.table.layout == hint.layout ? scope.value(slot: slot) : nil
            }
        }
        return ctx.withShared {
            $0.withStatics { s in
                s.table.layout == hint.layout && s.isKept(slot: slot)
                    ? s.value(slot: slot, ctx, e) : nil
            }
        }
    }

    /// A bare name its rule resolved, as a scalar operand (see ``bare(_:_:)``). A static let the
    /// runner's cache keeps is read here, in its operand's closure; anything else out of line
    /// (``scalarBareElsewhere(_:_:_:_:)``).
    @inline(__always) static func scalarBare(
        _ name: String, _ hint: LetSlot, _ ctx: EvalContext, _ e: Event
    ) -> Scalar {
        let slot = Int(hint.slot)
        if slot >= 0, ctx.hasNoLocals,
            let hit = ctx.withShared({
                $0.withStatics { s in
                    s.table.layout == hint.layout ? s.cachedScalar(slot: slot) : nil
                }
            })
        {
            return hit
        }
        // A context with a scope of lets (an obligation's, a partial's): the scope's kept
        // scalar, read in place as ``scalarBareElsewhere(_:_:_:_:)`` reads it.
        if slot >= 0, !ctx.hasNoLocals {
            let lets = ctx.letsInPlace
            if !lets.byName, let scope = lets.scope {
                return scope._withUnsafeGuaranteedRef { scope in
                    scope.table.layout == hint.layout ? scope.scalar(slot: slot) : .other
                }
            }
        }
        return scalarBareElsewhere(name, hint, ctx, e)
    }

    /// ``scalarBare(_:_:_:_:)`` in full.
    @inline(never) static func scalarBareElsewhere(
        _ name: String, _ hint: LetSlot, _ ctx: EvalContext, _ e: Event
    ) -> Scalar {
        let slot = Int(hint.slot)
        if slot >= 0 {
            let lets = ctx.letsInPlace
            guard !lets.byName else { return .other }
            if let scope = lets.scope {
                // The scope's kept scalar is read in place.
                return scope._withUnsafeGuaranteedRef { scope in
                    scope.table.layout == hint.layout ? scope.scalar(slot: slot) : .other
                }
            }
            // A static let's kept scalar is read without copying its value out.
            return ctx.withShared {
                $0.withStatics { s in
                    s.table.layout == hint.layout ? s.scalar(slot: slot, ctx, e) : .other
                }
            } ?? .other
        }
        guard hintHolds(hint, ctx) else { return .other }
        return Scalar(Evaluator.captureOrResult(name, ctx) ?? .null)
    }

    /// `capture.field` as a scalar operand (see ``captureMember(_:_:_:_:)``).
    static func scalarCaptureMember(
        _ capture: String, _ hint: LetSlot, _ field: String, _ id: Int32, _ ctx: EvalContext
    ) -> Scalar {
        if hint.capture >= 0 {
            if let v = ctx.captures.withEvent(
                slot: Int(hint.capture), capture, { Scalar.field(field, id: id, of: $0, ctx) })
            {
                return v
            }
            return scalarUncaptured(capture, field, id, ctx)
        }
        guard hintHolds(hint, ctx) else { return .other }
        if !ctx.captures.isEmpty,
            let v = ctx.captures.withEvent(capture, { Scalar.field(field, id: id, of: $0, ctx) })
        {
            return v
        }
        return scalarUncaptured(capture, field, id, ctx)
    }

    /// `capture.field` where no capture of that name is bound: a named result's field, or null.
    @inline(never) private static func scalarUncaptured(
        _ capture: String, _ field: String, _ id: Int32, _ ctx: EvalContext
    ) -> Scalar {
        Scalar(
            Evaluator.member(Evaluator.captureOrResult(capture, ctx) ?? .null, field, id: id, ctx))
    }

    /// `first(SEL).field` or `last(SEL).field` as a scalar operand, where the engine's runner
    /// answers the call from a running aggregate (``Runner/scalarAggregateMember(_:_:id:_:)``):
    /// the field is read from the event the aggregate holds. Anywhere else the call is left to
    /// the general evaluation (``Scalar/other``): a search spends work.
    @inline(never) static func scalarAggregateMember(
        _ call: HistoryCall, _ field: String, _ id: Int32, _ ctx: EvalContext
    ) -> Scalar {
        ctx.withShared {
            $0.withRunner { $0.scalarAggregateMember(call, field, id: id, ctx) } ?? nil
        } ?? .other
    }

    /// `let.field` as a scalar operand (see ``letMember(_:_:_:_:)``): read in place from the
    /// event a running aggregate holds (here, in its operand's closure), or from the let's kept
    /// value (out of line).
    @inline(__always) static func scalarLetMember(
        _ name: String, _ hint: LetSlot, _ field: String, _ id: Int32, _ ctx: EvalContext,
        _ e: Event
    ) -> Scalar {
        let slot = Int(hint.slot)
        if ctx.hasNoLocals,
            let v = ctx.withShared({
                $0.withStatics { s in
                    s.table.layout == hint.layout
                        ? s.scalarMember(slot: slot, field, id: id, ctx) : nil
                }
            })
        {
            return v
        }
        return scalarKeptLetMember(hint, field, id, ctx, e)
    }

    /// ``scalarLetMember(_:_:_:_:_:_:)`` of a let that is not a running aggregate's event read
    /// in place: its kept value's field.
    @inline(never) static func scalarKeptLetMember(
        _ hint: LetSlot, _ field: String, _ id: Int32, _ ctx: EvalContext, _ e: Event
    ) -> Scalar {
        let slot = Int(hint.slot)
        let lets = ctx.letsInPlace
        if !lets.byName, lets.scope == nil,
            let v = ctx.withShared({
                $0.withStatics { s in
                    s.table.layout == hint.layout
                        ? s.scalarMember(slot: slot, field, id: id, ctx) : nil
                }
            })
        {
            return v
        }
        guard let whole = keptLet(slot, hint, ctx, e) else { return .other }
        return Scalar(Evaluator.member(whole, field, id: id, ctx))
    }
}

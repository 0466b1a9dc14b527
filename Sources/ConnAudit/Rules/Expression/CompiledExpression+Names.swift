extension CompiledExpression {
    /// A bare name its rule resolved (``NameResolution``): what ``Evaluator/bound(_:_:_:_:)``
    /// gives, with the name's place among the lets taken from `hint`.
    ///
    /// The hint holds where the lets are laid out as it says (``LetTable/layout``): there a let
    /// is read from its slot, and a name that is no let skips the lets and is looked up among
    /// the captures and results. A context with lets bound by name, or laid out otherwise, is
    /// handed to ``Evaluator/bound(_:_:_:_:)``, which looks every name up.
    static func bare(_ name: String, _ hint: LetSlot) -> Run {
        let slot = Int(hint.slot)
        if slot >= 0 {
            return { ctx, e in
                let lets = ctx.letsInPlace
                guard !lets.byName else { return Evaluator.bound(name, hint, ctx, e) }
                if let scope = lets.scope {
                    guard scope._withUnsafeGuaranteedRef({ $0.table.layout == hint.layout }) else {
                        return Evaluator.bound(name, hint, ctx, e)
                    }
                    if let v = scope._withUnsafeGuaranteedRef({ $0.value(slot: slot) }) { return v }
                }
                let statics = ctx.withShared {
                    $0.withStatics { s in
                        s.table.layout == hint.layout
                            ? s.value(slot: slot, ctx, e) : s.value(of: name, hint: hint, ctx, e)
                    }
                }
                if let statics { return statics }
                return Evaluator.captureOrResult(name, ctx) ?? Evaluator.unbound(name, hint, ctx, e)
            }
        }
        return { ctx, e in
            guard hintHolds(hint, ctx) else { return Evaluator.bound(name, hint, ctx, e) }
            return Evaluator.captureOrResult(name, ctx) ?? .null
        }
    }

    /// `capture.field` for a bare name its rule resolved to no let (a capture or a named
    /// result): what ``Evaluator/member(_:_:id:_:)`` gives of the name's value. A captured
    /// event's field is read where the captures hold it, so the event is not counted and
    /// released again for one field.
    ///
    /// A name resolved to a capture's slot (``LetSlot/capture``) is that capture, or the named
    /// result, wherever its rule's expression runs: the lets are not asked (no let of its rule
    /// has the name). Where it is bound to nothing it is null, never a field of the same name.
    static func captureMember(_ capture: String, _ hint: LetSlot, _ field: String, _ id: Int32)
        -> Run
    {
        let slot = Int(hint.capture)
        if slot >= 0 {
            return { ctx, _ in
                if let v = ctx.captures.withEvent(
                    slot: slot, capture, { Evaluator.field(field, id: id, of: $0, ctx) })
                {
                    return .value(v)
                }
                return Evaluator.member(
                    Evaluator.captureOrResult(capture, ctx) ?? .null, field, id: id, ctx)
            }
        }
        return { ctx, e in
            guard hintHolds(hint, ctx) else {
                return Evaluator.member(Evaluator.bound(capture, hint, ctx, e), field, id: id, ctx)
            }
            if !ctx.captures.isEmpty,
                let v = ctx.captures.withEvent(
                    capture, { Evaluator.field(field, id: id, of: $0, ctx) })
            {
                return .value(v)
            }
            // A named result, or nothing bound: null, whose member is null.
            return Evaluator.member(
                Evaluator.captureOrResult(capture, ctx) ?? .null, field, id: id, ctx)
        }
    }

    /// `let.field` for a bare name its rule resolved to a let's slot: what
    /// ``Evaluator/member(_:_:id:_:)`` gives of the let's value (``bare(_:_:)``). Where the let is
    /// a running aggregate's `first` or `last` (``StaticLets/member(slot:_:id:_:)``), the field
    /// is read from the event where the runner holds it: the event is not counted and released
    /// again for one field. Anywhere else the let's value is read whole.
    static func letMember(_ name: String, _ hint: LetSlot, _ field: String, _ id: Int32) -> Run {
        let slot = Int(hint.slot)
        let whole = bare(name, hint)
        return { ctx, e in
            if let v = withStaticLets(hint, ctx, { $0.member(slot: slot, field, id: id, ctx) }) {
                return v
            }
            return Evaluator.member(whole(ctx, e), field, id: id, ctx)
        }
    }

    /// `let == null` (or `!=`, `equal` false) for a bare name its rule resolved to a let's slot:
    /// what ``Evaluator/combine(_:_:_:)`` gives of the let's value and null. Where the let is a
    /// running aggregate's `first` or `last` (``StaticLets/isNull(slot:)``), the aggregate is
    /// asked whether it holds an event: the event is not counted and released again for a
    /// test. Anywhere else the let's value is read whole.
    static func letNullTest(_ name: String, _ hint: LetSlot, equal: Bool) -> Run {
        let slot = Int(hint.slot)
        let whole = bare(name, hint)
        return { ctx, e in
            if let isNull = withStaticLets(hint, ctx, { $0.isNull(slot: slot) }) {
                return .value(.bool(isNull == equal))
            }
            return Evaluator.combine(equal ? .equal : .notEqual, whole(ctx, e), .null)
        }
    }

    /// `body` with the runner's static lets, when a let's slot resolved at load time (`hint`)
    /// is the slot they hold in `ctx`: no lets bound by name or in a scope of the context's own,
    /// and the static lets laid out as the hint says. Nil otherwise, or when `body` gives nil.
    @inline(__always) private static func withStaticLets<T>(
        _ hint: LetSlot, _ ctx: EvalContext, _ body: (StaticLets) -> T?
    ) -> T? {
        let lets = ctx.letsInPlace
        guard !lets.byName, lets.scope == nil else { return nil }
        return ctx.withShared {
            $0.withStatics { s in s.table.layout == hint.layout ? body(s) : nil }
        }
    }

    /// Whether a name resolved to no let (`hint.slot` < 0) is no let in `ctx` either: no lets
    /// bound by name, and the lets, if any, laid out as the hint says.
    @inline(__always) static func hintHolds(_ hint: LetSlot, _ ctx: EvalContext) -> Bool {
        let lets = ctx.letsInPlace
        return !lets.byName
            && lets.scope.map({ $0._withUnsafeGuaranteedRef { $0.table.layout == hint.layout } })
                ?? true
            && ctx.withShared({ $0.withStatics { $0.table.layout == hint.layout } }) ?? true
    }
}

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
                guard ctx.boundLets == nil else { return Evaluator.bound(name, hint, ctx, e) }
                if let scope = ctx.letScope {
                    guard scope.table.layout == hint.layout else {
                        return Evaluator.bound(name, hint, ctx, e)
                    }
                    if let v = scope.value(slot: slot) { return v }
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
            guard ctx.boundLets == nil,
                ctx.letScope.map({ $0.table.layout == hint.layout }) ?? true,
                ctx.withShared({ $0.withStatics { $0.table.layout == hint.layout } }) ?? true
            else { return Evaluator.bound(name, hint, ctx, e) }
            return Evaluator.captureOrResult(name, ctx) ?? .null
        }
    }
}

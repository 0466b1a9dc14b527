/// The shapes of a rule's history calls that a runner can look up instead of scanning: a
/// `$seq > X` bound (``SeqBound``) and an equality index
/// (``Runner/keyedCandidates(_:_:context:)``). Both are read from the rule alone, once, with
/// their outer sides compiled: every runner of the rule shares them.
extension CompiledRule {
    /// The calls that may have a `$seq` bound or a keyed shape: calls that search a list (the
    /// others are answered without candidates), whose selector is one term with a `where:`.
    static func lookupCalls(_ calls: [HistoryCall], lists listOfSlot: [Int: Int]) -> [HistoryCall] {
        calls.filter { call in
            let terms = call.selector.terms
            return listOfSlot[call.slot] != nil && terms.count == 1 && terms[0].whereRef != nil
        }
    }

    /// Each of ``lookupCalls`` with a `$seq` bound, by slot.
    func seqSideTable() -> SlotTable<OuterSide> {
        var seq: [Int: OuterSide] = [:]
        for call in lookupCalls { seq[call.slot] = seqConjunct(call.selector) }
        return SlotTable(covering: callSlots, seq)
    }

    /// Each of ``lookupCalls`` with a keyed shape, by slot.
    func keyedShapeTable() -> SlotTable<KeyedShape> {
        var keyed: [Int: KeyedShape] = [:]
        for call in lookupCalls { keyed[call.slot] = keyedShape(call) }
        return SlotTable(covering: callSlots, keyed)
    }

    /// For a call whose single selector term has a conjunct `$seq > X` (or `>=`) with X reading
    /// only what is bound outside (`$seq > q.$seq`: after the captured event): X as an outer side.
    func seqConjunct(_ selector: Selector) -> OuterSide? {
        guard !bindsResults(selector),
            let (whereExpr, outerNames, own) = KeyedIndex.whereParts(
                selector, outer: declaredNames)
        else { return nil }
        for conjunct in KeyedIndex.conjuncts(whereExpr) {
            switch conjunct {
            case .binary(let op, .field("$seq", _), let x, _)
            where op == .greater || op == .greaterEqual:
                if KeyedIndex.reads(x, candidateOnly: false, outer: outerNames, own: own),
                    let side = outerSide(x, strict: op == .greater)
                {
                    return side
                }
            case .binary(let op, let x, .field("$seq", _), _) where op == .less || op == .lessEqual:
                if KeyedIndex.reads(x, candidateOnly: false, outer: outerNames, own: own),
                    let side = outerSide(x, strict: op == .less)
                {
                    return side
                }
            default: continue
            }
        }
        return nil
    }

    /// For a call like `count({ev: sse.processed, where: "text(id) == text(c.id)"})` on a list,
    /// whose single selector term has a conjunct `A == B` with A reading only the candidate and B
    /// only what is bound outside (captures, lets, params): A as the key its index files events
    /// under, B as the outer side looked up. Nil when the call is not of that shape.
    ///
    /// A selector whose `where:` (or `not:`) names a history result binds it for each candidate
    /// the scan tries: the index, trying only those of the key, would bind it or not by the key
    /// (``bindsResults(_:)``).
    func keyedShape(_ call: HistoryCall) -> KeyedShape? {
        guard let list = listOfSlot[call.slot], !bindsResults(call.selector),
            let (candidateSide, outerExpr) = KeyedIndex.split(call.selector, outer: declaredNames),
            let outer = outerSide(outerExpr)
        else { return nil }
        return KeyedShape(list: list, key: IndexKey(candidateSide), outer: outer)
    }

    /// `x`, an expression of what is bound outside a history call, with the names it reads that
    /// are bound only sometimes (captures, history results: not lets). Nil when `x` reads the
    /// current event (a bare `params`, or a let that reads one): inside a `where:` that is the
    /// candidate, so `x` is no outer side; nil too when it reads a let that names a history
    /// result (``resultLets``): taken once before the candidates, it would bind that name where
    /// the scan binds it only if a candidate is tried.
    func outerSide(_ x: Expr, strict: Bool = false) -> OuterSide? {
        var bindings: [String] = []
        var unkeyable = false
        NameWalker.walk(x) { sub in
            guard case .name(let n, _, _) = sub else { return }
            if n == "params" || eventLets.contains(n) || resultLets.contains(n) {
                unkeyable = true; return
            }
            if !letNames.contains(n), !bindings.contains(n) { bindings.append(n) }
        }
        return unkeyable ? nil : OuterSide(x, strict: strict, bindings: bindings)
    }
}

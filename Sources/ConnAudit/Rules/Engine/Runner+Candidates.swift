extension Runner {
    /// The events before the current one that `call` may match, after its `since` cut; for
    /// `next`, the events after it seen so far.
    func candidates(for call: HistoryCall, context: EvalContext) -> HistoryCandidates {
        guard let listIndex = compiled.listOfSlot[call.slot] else {
            return HistoryCandidates(events: [])
        }
        if call.kind == .next {
            let from = (judging ?? context.event).seq
            let list = lists[listIndex]
            var lo = 0, hi = list.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if list[mid].seq <= from { lo = mid + 1 } else { hi = mid }
            }
            return HistoryCandidates(events: list[lo...], incomplete: !ended)
        }
        // Everything after the latest `since` event (or the capture) and before the current one.
        var cut = Int.min
        switch call.since {
        case nil: break
        case .capture(let name)?:
            guard let captured = context.captures[name] else {
                return HistoryCandidates(events: [])
            }
            cut = captured.seq
        case .selector(let s)?:
            // Judged late (look-ahead), the latest `since` event is the latest before the trigger.
            let before = judging?.seq ?? Int.max
            if let sinceList = compiled.sinceListOfSlot[call.slot] {
                var tried = 0
                for e in lists[sinceList].reversed() where e.seq < before {
                    tried += 1
                    if Evaluator.matches(s, e, context.looking(at: e)) != nil {
                        cut = e.seq
                        break
                    }
                }
                guard spend(tried) else { return HistoryCandidates(events: []) }
            }
        }
        if let bound = seqBound(call, context: context) { cut = max(cut, bound) }
        var events = keyedCandidates(call, context: context) ?? lists[listIndex][...]
        if cut != Int.min {
            // Lists are in seq order: find the first event after the cut.
            var lo = events.startIndex, hi = events.endIndex
            while lo < hi {
                let mid = (lo + hi) / 2
                if events[mid].seq <= cut { lo = mid + 1 } else { hi = mid }
            }
            events = events[lo...]
        }
        if let judging {
            // Judged later: only what came before the trigger.
            var lo = events.startIndex, hi = events.endIndex
            while lo < hi {
                let mid = (lo + hi) / 2
                if events[mid].seq < judging.seq { lo = mid + 1 } else { hi = mid }
            }
            events = events[..<lo]
        }
        return HistoryCandidates(events: events)
    }

    /// For a call whose single selector term has a conjunct `$seq > X` (or `>=`) with X reading
    /// only what is bound outside (`$seq > q.$seq`: after the captured event), the seq before
    /// which no candidate can match: the look-back starts there instead of at the oldest event.
    func seqBound(_ call: HistoryCall, context: EvalContext) -> Int? {
        guard call.slot >= 0 else { return nil }
        let found: OuterSide?
        if let known = seqBounds[call.slot] {
            found = known
        } else {
            found = seqConjunct(call.selector)
            seqBounds[call.slot] = .some(found)
        }
        guard let found, Self.binds(found.bindings, context),
            case .value(let v) = Evaluator.evaluate(found.expr, context),
            let n = v.number, n.isFinite, abs(n) < 9e15
        else { return nil }
        let strict = found.strict
        // Candidates need seq > n (strict) or seq >= n: everything at or before the bound is cut.
        let whole = n.rounded(.down)
        return strict || whole != n ? Int(whole) : Int(whole) - 1
    }

    func seqConjunct(_ selector: Selector) -> OuterSide? {
        guard !compiled.bindsResults(selector),
            let (whereExpr, outerNames, own) = KeyedIndex.whereParts(
                selector, outer: compiled.declaredNames)
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

    /// `x`, an expression of what is bound outside a history call, with the names it reads that
    /// are bound only sometimes (captures, history results: not lets). Nil when `x` reads the
    /// current event (a bare `params`, or a let that reads one): inside a `where:` that is the
    /// candidate, so `x` is no outer side; nil too when it reads a let that names a history
    /// result (``CompiledRule/resultLets``): taken once before the candidates, it would bind
    /// that name where the scan binds it only if a candidate is tried.
    func outerSide(_ x: Expr, strict: Bool = false) -> OuterSide? {
        var bindings: [String] = []
        var unkeyable = false
        NameWalker.walk(x) { sub in
            guard case .name(let n, _, _) = sub else { return }
            if n == "params" || compiled.eventLets.contains(n) || compiled.resultLets.contains(n) {
                unkeyable = true; return
            }
            if !compiled.letNames.contains(n), !bindings.contains(n) { bindings.append(n) }
        }
        return unkeyable ? nil : OuterSide(expr: x, strict: strict, bindings: bindings)
    }

    /// Whether every one of `names` is bound in `context` as the evaluator reads a name (a bound
    /// value, a capture, a history result). One that is not is null there; the call then scans,
    /// which answers that without an index made for bound names.
    static func binds(_ names: [String], _ context: EvalContext) -> Bool {
        for name in names {
            if context.boundLets?[name] != nil { continue }
            if !context.captures.isEmpty, context.captures[name] != nil { continue }
            if let results = context.historyResults, results.lookup(name) != nil { continue }
            return false
        }
        return true
    }

    /// For a call like `count({ev: sse.processed, where: "text(id) == text(c.id)"})`, whose single
    /// selector term has a conjunct `A == B` with A reading only the candidate and B only what is
    /// bound outside (captures, lets, params), the events with A equal to B's value, from a hash
    /// index kept up to date as events are retained. Nil when the call is not of that shape.
    func keyedCandidates(_ call: HistoryCall, context: EvalContext) -> ArraySlice<Event>? {
        // (`candidates` only asks for calls with a list, all of which the tables cover.)
        guard indexes.covers(call.slot), unindexable[call.slot] == nil else { return nil }
        if let lookup = indexes[call.slot] {
            guard Self.binds(lookup.outer.bindings, context) else { return nil }
            guard case .value(let key) = Evaluator.evaluate(lookup.outer.expr, context) else {
                return []
            }
            return lookup.index.candidates(for: key)
        }
        // A selector whose `where:` (or `not:`) names a history result binds it for each candidate
        // the scan tries: the index, trying only those of the key, would bind it or not by the key
        // (``CompiledRule/bindsResults(_:)``).
        guard let listIndex = compiled.listOfSlot[call.slot], !compiled.bindsResults(call.selector),
            let (candidateSide, outerExpr) = KeyedIndex.split(
                call.selector, outer: compiled.declaredNames),
            let outer = outerSide(outerExpr)
        else {
            unindexable[call.slot] = true
            return nil
        }
        // Calls that key the same list by the same expression share one index (the selector's other
        // tests are still checked on each event found).
        let index: KeyedIndex
        if let made = madeIndexes.first(where: {
            $0.list == listIndex && KeyedIndex.sameKey($0.key, candidateSide)
        }) {
            index = made
        } else {
            index = KeyedIndex(list: listIndex, key: candidateSide)
            for e in lists[listIndex] { index.add(e, shared: sharedRef(.index)) }
            madeIndexes.append(index)
        }
        indexes[call.slot] = KeyedLookup(index: index, outer: outer)
        guard Self.binds(outer.bindings, context) else { return nil }
        guard case .value(let key) = Evaluator.evaluate(outer.expr, context) else { return [] }
        return index.candidates(for: key)
    }
}

extension Runner {
    /// Whether history list `list` keeps events with this ``EvNames`` id. Its ids are read in
    /// place: a copy of the list of ids would be retained and released per list and event.
    @inline(__always) final func listKeeps(_ list: Int, _ id: Int32) -> Bool {
        compiled.historyListIDs.withUnsafeBufferPointer { $0[list]?.contains(id) ?? true }
    }

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
    /// (The conjunct is found once per rule: ``CompiledRule/seqConjunct(_:)``.)
    func seqBound(_ call: HistoryCall, context: EvalContext) -> Int? {
        guard let found = compiled.seqSides[call.slot], Self.binds(found.bindings, context),
            case .value(let v) = found.value(context),
            let n = v.number, n.isFinite, abs(n) < 9e15
        else { return nil }
        let strict = found.strict
        // Candidates need seq > n (strict) or seq >= n: everything at or before the bound is cut.
        let whole = n.rounded(.down)
        return strict || whole != n ? Int(whole) : Int(whole) - 1
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
    /// index kept up to date as events are retained. Nil when the call is not of that shape
    /// (``CompiledRule/keyedShape(_:)``).
    func keyedCandidates(_ call: HistoryCall, context: EvalContext) -> ArraySlice<Event>? {
        guard let shape = compiled.keyedShapes[call.slot] else { return nil }
        let index: KeyedIndex
        if let made = indexes[call.slot] {
            index = made
        } else {
            // Calls that key the same list by the same expression share one index (the
            // selector's other tests are still checked on each event found).
            if let made = madeIndexes.first(where: {
                $0.list == shape.list && KeyedIndex.sameKey($0.key.expr, shape.key.expr)
            }) {
                index = made
            } else {
                index = KeyedIndex(list: shape.list, key: shape.key)
                for e in lists[shape.list] { index.add(e, shared: sharedRef(.index)) }
                madeIndexes.append(index)
            }
            indexes[call.slot] = index
        }
        guard Self.binds(shape.outer.bindings, context) else { return nil }
        guard case .value(let key) = shape.outer.value(context) else { return [] }
        return index.candidates(for: key)
    }
}

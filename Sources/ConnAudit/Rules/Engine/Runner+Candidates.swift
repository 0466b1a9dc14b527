extension Runner {
    /// Whether history list `list` keeps events with this ``EvNames`` id. Its ids are read in
    /// place: a copy of the list of ids would be retained and released per list and event.
    @inline(__always) final func listKeeps(_ list: Int, _ id: Int32) -> Bool {
        compiled.historyListIDs.withUnsafeBufferPointer { $0[list]?.contains(id) ?? true }
    }

    /// The events before the current one that `call` may match, after its `since` cut; for
    /// `next`, the events after it seen so far.
    func candidates(for call: HistoryCall, context: EvalContext) -> HistoryCandidates {
        candidates(for: call, historyPlans[call.slot], context: context)
    }

    /// ``candidates(for:context:)`` by `call`'s plan: its lists, `$seq` bound and index shape.
    final func candidates(
        for call: HistoryCall, _ plan: UnsafePointer<HistoryPlans.Plan>, context: EvalContext
    ) -> HistoryCandidates {
        let listIndex = Int(plan.pointee.list)
        guard listIndex >= 0 else { return HistoryCandidates(events: []) }
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
            let sinceList = Int(plan.pointee.sinceList)
            if sinceList >= 0 {
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
        if let seq = plan.pointee.seq,
            let bound = seq._withUnsafeGuaranteedRef({ $0.cut(context) })
        {
            cut = max(cut, bound)
        }
        var events: ArraySlice<Event>
        if let keyed = plan.pointee.keyed,
            let found = keyed._withUnsafeGuaranteedRef({
                keyedCandidates(call, $0, context: context)
            })
        {
            events = found
        } else {
            events = lists[listIndex][...]
        }
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

    /// Whether every one of `names` is bound in `context` as the evaluator reads a name (a bound
    /// value, a capture, a history result). One that is not is null there; the call then scans,
    /// which answers that without an index made for bound names.
    /// (Captures are asked first: that reads no event and no dictionary out.)
    static func binds(_ names: [String], _ context: EvalContext) -> Bool {
        for name in names {
            if !context.captures.isEmpty, context.captures.binds(name) { continue }
            if context.boundLets?[name] != nil { continue }
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
    func keyedCandidates(_ call: HistoryCall, _ shape: KeyedShape, context: EvalContext)
        -> ArraySlice<Event>?
    {
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

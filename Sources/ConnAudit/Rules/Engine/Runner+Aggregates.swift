/// The running aggregates of a runner: the answers of its static history calls (first, last,
/// count, max, min of the events its selector matches since the latest `since` match), moved by
/// each event as the runner records it.
///
/// Each change of an answer is told to the static lets' cache (``StaticLetCache``), which marks
/// the lets that read it stale. `first` changes once until its `since` cut; `last` and `count`
/// with every match; max and min only when the value passes them.
extension Runner {
    /// Moves the aggregates `e` can move (``StaticCallTable``).
    func updateAggregates(_ e: Event) {
        // The table's entries are read in place, each call uncounted: nothing is copied out of
        // the compiled rule, so nothing is retained.
        let entries = staticCalls.entries(for: e.evID)
        guard !entries.isEmpty else { return }
        // Written in place: what runs meanwhile (selectors in a context without history) cannot
        // read them.
        let aggregates = aggregateStore ?? makeAggregates()
        for entry in entries {
            let slot = Int(entry.position)
            if slot < 64, quietAggregates & (1 << UInt64(slot)) != 0 { continue }
            update(&aggregates[slot], slot, entry, e)
        }
    }

    /// The aggregates, each empty (``aggregateStore``).
    @inline(never) private func makeAggregates() -> UnsafeMutablePointer<Aggregate> {
        let count = compiled.staticCalls.count
        let made = UnsafeMutablePointer<Aggregate>.allocate(capacity: max(1, count))
        made.initialize(repeating: Aggregate(), count: count)
        aggregateStore = made
        return made
    }

    /// A context without history looking at `e`: a static call's selector, `since` and value
    /// read nothing bound outside them. Made where one is evaluated: most aggregates move by the
    /// event's id alone, and a runner whose aggregates all do never makes its shared object.
    @inline(__always) private func noHistoryContext(_ e: Event) -> EvalContext {
        EvalContext(event: e, borrowing: sharedRef(.noHistory))
    }

    /// Moves one aggregate by its table entry. What the event's id alone decides (its kind,
    /// whether the id matches the selector or `since`, whether it keeps a value) is read from
    /// the entry; the call is read only to evaluate a selector, `since` or value
    /// (``sinceMatches(_:_:)``, ``selectorMatches(_:_:)``, ``moveValue(_:_:_:_:)``, each out of
    /// line, so that the moves by id alone stay small).
    @inline(__always) private func update(
        _ aggregate: inout Aggregate, _ slot: Int, _ entry: StaticCallTable.Entry, _ e: Event
    ) {
        let flags = entry.flags
        if flags.contains(.sinceMay),
            flags.contains(.sinceByID) || sinceMatches(entry.call, e)
        {
            setBack(&aggregate, slot)
            return
        }
        guard flags.contains(.selectorMay) else { return }
        let kind = entry.kind
        // A `first` already found stays found until its `since` cut: nothing to match.
        if kind == .first, aggregate.first != nil { return }
        guard flags.contains(.selectorByID) || selectorMatches(entry.call, e) else { return }
        // A `count` without a value is read for its count alone (``StaticCall/merged(with:)``):
        // it holds no event.
        let hasValue = flags.contains(.hasValue)
        if kind == .count, !hasValue {
            aggregate.count += 1
            letCache?.changed(aggregate: slot)
            return
        }
        // The answer of the call's kind changed? (`first` changes once, `last` and `count`
        // always.)
        var changed = kind != .first || aggregate.first == nil
        // Only the events a call of the aggregate's kind reads are held (each one held is a
        // retain, and a release when it is replaced or the aggregate is set back): a `first`
        // (matched only while it has none) its first event; a `last`, which also answers a
        // `first` asked alike (``StaticCall/merged(with:)``), both; `count`, `maxof` and
        // `minof` neither.
        switch kind {
        case .first:
            fill(&aggregate.first, e)
        case .last:
            if aggregate.first == nil { fill(&aggregate.first, e) }
            aggregate.last = e
        case .count, .maxof, .minof, .next:
            break
        }
        aggregate.count += 1
        if hasValue, moveValue(&aggregate, slot, e) { changed = true }
        if changed { letCache?.changed(aggregate: slot) }
    }

    /// Puts `e` in `held`, which holds none: written in place, as an assignment would release
    /// the nil it replaces (a call, for nil too).
    @inline(__always) private func fill(_ held: inout Event?, _ e: Event) {
        assert(held == nil)
        withUnsafeMutablePointer(to: &held) { $0.initialize(to: e) }
    }

    /// Sets every aggregate back as empty (``setBackBase()``, ``aggregateState``), field by
    /// field as at a `since` cut: only a field that holds an event or a value is released and
    /// written (the count is set to zero), where an aggregate replaced whole is destroyed through
    /// its type's layout. Tells the lets' cache nothing: its caller
    /// makes every let stale.
    final func emptyAggregates() {
        guard let store = aggregateStore else { return }
        for i in 0..<compiled.staticCalls.count {
            if store[i].first != nil { store[i].first = nil }
            if store[i].last != nil { store[i].last = nil }
            store[i].count = 0
            if store[i].max != nil { store[i].max = nil }
            if store[i].min != nil { store[i].min = nil }
        }
    }

    /// Sets an aggregate back as empty at its `since` cut. Field by field: only a field that
    /// holds something is released, where the whole aggregate replaced is destroyed through its
    /// type's layout. An aggregate already empty does not change, and its lets stay fresh.
    @inline(__always) private func setBack(_ aggregate: inout Aggregate, _ slot: Int) {
        guard
            aggregate.count != 0 || aggregate.first != nil || aggregate.last != nil
                || aggregate.max != nil || aggregate.min != nil
        else { return }
        if aggregate.first != nil { aggregate.first = nil }
        if aggregate.last != nil { aggregate.last = nil }
        aggregate.count = 0
        if aggregate.max != nil { aggregate.max = nil }
        if aggregate.min != nil { aggregate.min = nil }
        letCache?.changed(aggregate: slot)
    }

    /// Whether `e` matches the `since` of `call` (which has one). `since` is read in place:
    /// bound to a name it would be copied, and its parts retained.
    @inline(never) private func sinceMatches(_ call: Unmanaged<StaticCall>, _ e: Event) -> Bool {
        call._withUnsafeGuaranteedRef {
            Evaluator.matches($0.since.unsafelyUnwrapped, e, noHistoryContext(e)) != nil
        }
    }

    /// Whether `e` matches the selector of `call`.
    @inline(never) private func selectorMatches(_ call: Unmanaged<StaticCall>, _ e: Event)
        -> Bool
    {
        call._withUnsafeGuaranteedRef {
            Evaluator.matches($0.selector, e, noHistoryContext(e)) != nil
        }
    }

    /// Moves the largest and smallest value of aggregate `slot` by `e`'s value; whether either
    /// changed.
    @inline(never) private func moveValue(_ aggregate: inout Aggregate, _ slot: Int, _ e: Event)
        -> Bool
    {
        guard let v = compiled.staticValues[slot]!(noHistoryContext(e)).value, v.number != nil
        else { return false }
        var changed = false
        if aggregate.max.map({ (v.numericOrder($0) ?? 0) > 0 }) ?? true {
            aggregate.max = v; changed = true
        }
        if aggregate.min.map({ (v.numericOrder($0) ?? 0) < 0 }) ?? true {
            aggregate.min = v; changed = true
        }
        return changed
    }

    /// The running aggregates, to be set back as they were (``RetiredTimeline``): every cached
    /// let value is then stale. Nil when none has seen anything (a fresh runner's).
    var aggregateState: [Aggregate]? {
        get {
            guard let store = aggregateStore else { return nil }
            let all = UnsafeBufferPointer(start: store, count: compiled.staticCalls.count)
            return all.contains { $0.count > 0 || $0.first != nil || $0.max != nil }
                ? Array(all) : nil
        }
        set {
            // Set back, they stand for events this runner was not given: no scan can check them.
            if newValue != nil { crossCheck?.giveUp() }
            if let newValue {
                let store = aggregateStore ?? makeAggregates()
                for (i, aggregate) in newValue.enumerated() { store[i] = aggregate }
            } else {
                emptyAggregates()
            }
            letCache?.changedAll()
            aggregatesSetBack()
        }
    }

    /// `body` with the first or last event of running aggregate `i`, read in place: not
    /// retained, as the aggregate holds it while `body` runs.
    @inline(__always) final func withAggregateEvent<T>(
        _ i: Int, first: Bool, _ body: (Event?) -> T
    ) -> T {
        guard let store = aggregateStore else { return body(nil) }
        let held = (first ? store[i].first : store[i].last).map(Unmanaged.passUnretained)
        guard let held else { return body(nil) }
        return held._withUnsafeGuaranteedRef { body($0) }
    }

    /// `field` of the event `call` finds, as a ``Scalar``, read where its running aggregate
    /// holds the event (null when it holds none): what ``Evaluator/history(_:_:_:)`` gives of
    /// the call, then ``Evaluator/member(_:_:id:_:)`` of it. Nil when `call` is no static
    /// `first` or `last`, or while answers are cross-checked (each is then checked whole).
    @inline(__always) final func scalarAggregateMember(
        _ call: HistoryCall, _ field: String, id: Int32, _ ctx: EvalContext
    ) -> Scalar? {
        guard crossCheck == nil, call.kind == .first || call.kind == .last,
            let i = compiled.staticSlots[call.slot]
        else { return nil }
        return withAggregateEvent(i, first: call.kind == .first) {
            $0.map { Scalar.field(field, id: id, of: $0, ctx) } ?? .null
        }
    }

    /// The answer of a call of `kind` from running aggregate `i`.
    @inline(__always) final func aggregateAnswer(_ i: Int, _ kind: HistoryCall.Kind) -> Eval {
        // Only the field asked for is read: the whole aggregate copied out would retain (and
        // release again) every event and value it holds.
        guard let store = aggregateStore else {
            return switch kind {
            case .first, .last, .maxof, .minof: .value(.null)
            case .count: .value(.int(0))
            case .next: .undecided
            }
        }
        switch kind {
        case .first: return store[i].first.map { .event($0) } ?? .null
        case .last: return store[i].last.map { .event($0) } ?? .null
        case .count: return .value(.int(Int64(store[i].count)))
        case .maxof: return .value(store[i].max ?? .null)
        case .minof: return .value(store[i].min ?? .null)
        case .next: return .undecided
        }
    }
}

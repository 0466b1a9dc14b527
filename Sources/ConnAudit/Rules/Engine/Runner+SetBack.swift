/// Setting a runner back to its start, for the next generation of its source (``RunnerSpares``).
extension Runner {
    /// Whether the base class's state can be set back: not stopped, no history index (keyed or
    /// counted), no regex budget, and no deadline on the source's clock. Indexes and budgets are
    /// objects of their own, and a deadline would wake the runner with its retired generation's
    /// scope: a runner that has any is freed instead.
    final var baseCanBeSetBack: Bool {
        !stopped && !usesRegex && madeIndexes.isEmpty && countedIndexes.isEmpty
            && clockEntries == 0
    }

    /// How many events a history list may hold and still keep its storage when set back: a
    /// spare runner holds no event, and no more memory than a short generation's.
    static var listCapacityKept: Int { 64 }

    /// The base class's part of ``setBack()``: every field as a new runner's. Objects made on
    /// first use (the contexts' shared objects, the aggregates' storage, short lists' storage)
    /// are kept: they hold no event and answer as new ones would.
    final func setBackBase() {
        for i in lists.indices where !lists[i].isEmpty {
            lists[i].removeAll(keepingCapacity: lists[i].capacity <= Self.listCapacityKept)
        }
        if let store = aggregateStore {
            for i in 0..<compiled.staticCalls.count { store[i] = Aggregate() }
        }
        takesEveryEvent = false
        quietAggregates = 0
        setBackOwnState()
        letCache?.setBack()
        crossCheck?.setBack()
        lastFilled = nil
        lastHoles = []
        holes = []
        judging = nil
        ended = false
        lookAheadPending = false
    }
}

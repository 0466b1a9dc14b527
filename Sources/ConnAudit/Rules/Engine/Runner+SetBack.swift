/// Setting a runner back to its start, for the next generation of its source (``RunnerSpares``).
extension Runner {
    /// Whether the base class's state can be set back: not stopped and no deadline on the
    /// source's clock. A deadline would wake the runner with its retired generation's scope: a
    /// runner that has one is freed instead. Keyed indexes, counted indexes and the regex budget
    /// are set back (``setBackIndexes()``, ``CountedIndex/setBack()``).
    final var baseCanBeSetBack: Bool {
        !stopped && clockEntries == 0
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
        emptyAggregates()
        takesEveryEvent = false
        quietAggregates = 0
        setBackOwnState()
        if usesRegex || !madeIndexes.isEmpty { setBackIndexes() }
        for index in countedIndexes { index.setBack() }
        letCache?.setBack()
        crossCheck?.setBack()
        lastFilled = nil
        lastHoles = []
        holes = []
        judging = nil
        ended = false
        lookAheadPending = false
    }

    /// The keyed indexes and the regex budget as a new runner's: no index made (each is made
    /// again from the history lists when a call first searches, as a new runner makes it),
    /// and every regex step left. The budget is the same object, set back in place: the
    /// shared objects kept (``sharedMade``) hold it.
    private final func setBackIndexes() {
        if !madeIndexes.isEmpty {
            for slot in compiled.callSlots { indexes[slot] = nil }
            madeIndexes = []
        }
        // A runner that never searched makes its budget here: a full one, as on first use.
        if usesRegex { regexBudget?.setBack() }
    }
}

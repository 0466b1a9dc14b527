/// Which of a runner's counted indexes (``CountedIndex``) an event of each ``EvNames`` id may
/// go to: those whose term names the id, or names no `ev` at all, a bit each (index `i` at bit
/// `i`). A runner reads its row once per event it records, where asking each index's term of
/// its names is a search per index; an index on the row is given the event with its names
/// already matched.
///
/// A row per id that a term names, and a last row for every other id (-1, or a name no term
/// names): the indexes whose term names no `ev`. Made with the runner's indexes, at most 64.
struct CountedRows {
    private let rows: [UInt64]

    /// The rows of `indexes` (at most 64).
    init(_ indexes: [CountedIndex]) {
        precondition(indexes.count <= 64, "a counted index past the rows' 64 bits")
        var named = 0
        for index in indexes {
            for id in index.term.evIDs ?? [] { named = max(named, Int(id) + 1) }
        }
        var rows = [UInt64](repeating: 0, count: named + 1)
        for (i, index) in indexes.enumerated() {
            let bit = UInt64(1) << UInt64(i)
            if let ids = index.term.evIDs {
                for id in ids where id >= 0 { rows[Int(id)] |= bit }
            } else {
                for row in rows.indices { rows[row] |= bit }
            }
        }
        self.rows = rows
    }

    /// The indexes an event with id `id` may go to.
    @inline(__always) func row(for id: Int32) -> UInt64 {
        rows.withUnsafeBufferPointer { rows in
            let last = rows.count - 1
            return rows[id >= 0 && Int(id) < last ? Int(id) : last]
        }
    }
}

extension Runner {
    /// Gives `e`, which the rule's history records by `route`, to the counted indexes whose
    /// list keeps it: those on its row (``countedRows``), each with its names matched, or each
    /// index in turn when there are no rows.
    @inline(__always) final func addCounted(_ e: Event, _ route: RunnerRoutes.Route) {
        guard let countedRows else {
            for i in countedIndexes.indices {
                countedIndexes.withElement(i) { index in
                    if route.keeps(index.list, self, e.evID) {
                        index.add(e, shared: sharedRef(.index))
                    }
                }
            }
            return
        }
        var row = countedRows.row(for: e.evID)
        while row != 0 {
            let i = row.trailingZeroBitCount
            row &= row &- 1
            countedIndexes.withElement(i) { index in
                if route.keeps(index.list, self, e.evID) {
                    index.add(e, idMatched: true, shared: sharedRef(.index))
                }
            }
        }
    }
}

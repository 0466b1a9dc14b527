/// The ``EvNames`` ids that some selectors may match, as a table by id — or every id, when one of
/// them may match any event. Runners ask it of every event of their timeline, so it is one lookup,
/// not a search through each selector's names.
struct EvIDSet: Sendable {
    /// Whether any event may match (a selector without `ev` names).
    let any: Bool
    private let table: [Bool]

    init(_ selectors: [Selector]) {
        var ids: [Int32] = []
        var any = false
        for s in selectors {
            guard let more = s.ids else {
                any = true
                break
            }
            ids += more
        }
        self.any = any
        var table = Array(repeating: false, count: any ? 0 : Int(ids.max() ?? -1) + 1)
        if !any {
            for id in ids where id >= 0 { table[Int(id)] = true }
        }
        self.table = table
    }

    /// Whether an event with this id may match one of the selectors (an id of -1, a name no rule
    /// mentions, matches only when any event may).
    @inline(__always) func contains(_ id: Int32) -> Bool {
        any || (id >= 0 && Int(id) < table.count && table[Int(id)])
    }
}

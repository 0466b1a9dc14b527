/// Lets every rule of one scope see only the events it can react to.
struct Dispatch {
    /// Rule indexes by ``EvNames`` id (rules reacting to any event included), in rule order.
    private var byID: [[Int]] = []
    /// Rules that react to any event: for ids no rule names.
    private var everyEvent: [Int] = []
    let count: Int

    init(_ rules: [CompiledRule]) {
        count = rules.count
        var byName: [String: [Int]] = [:]
        for (i, r) in rules.enumerated() {
            if let names = r.interest {
                for n in names { byName[n, default: []].append(i) }
            } else {
                everyEvent.append(i)
            }
        }
        var table: [[Int]] = []
        for (name, indexes) in byName {
            let id = Int(EvNames.id(name))
            if table.count <= id { table += Array(repeating: [], count: id + 1 - table.count) }
            table[id] = indexes
        }
        byID = table.map { ($0 + everyEvent).sorted() }
    }

    /// Whether any rule of the scope reacts to the event.
    func reacts(to e: Event) -> Bool { !rules(for: e.evID).isEmpty }

    /// Indexes (into the scope's rule list) of the rules that react to an event, in rule order.
    @inline(__always) func rules(for id: Int32) -> [Int] {
        let i = Int(id)
        if i >= 0 && i < byID.count {
            return byID[i].isEmpty && !everyEvent.isEmpty ? everyEvent : byID[i]
        }
        return everyEvent
    }
}

/// Lets every rule of one scope see only the events it can react to.
///
/// The rule indexes of every ``EvNames`` id sit in one array, one id's after another, and an
/// event's are a range of it: finding them copies no list, so counts no reference.
struct Dispatch {
    /// The rules that react to any event first, then each named id's rules (those included),
    /// each in rule order.
    private var order: [Int] = []
    /// By ``EvNames`` id: where its rules are in ``order`` (an id no rule names: ``everyEvent``).
    private var spans: [Range<Int>] = []
    /// Where the rules that react to any event are in ``order``.
    private let everyEvent: Range<Int>
    let count: Int

    init(_ rules: [CompiledRule]) {
        count = rules.count
        var byName: [String: [Int]] = [:]
        var any: [Int] = []
        for (i, r) in rules.enumerated() {
            if let names = r.interest {
                for n in names { byName[n, default: []].append(i) }
            } else {
                any.append(i)
            }
        }
        var byID: [[Int]] = []
        for (name, indexes) in byName {
            let id = Int(EvNames.id(name))
            if byID.count <= id { byID += Array(repeating: [], count: id + 1 - byID.count) }
            byID[id] = indexes
        }
        order = any
        everyEvent = 0..<any.count
        spans = byID.map { named in
            if named.isEmpty { return everyEvent }
            let start = order.count
            order += (named + any).sorted()
            return start..<order.count
        }
    }

    /// Whether any rule of the scope reacts to the event.
    func reacts(to e: Event) -> Bool { !rules(for: e.evID).isEmpty }

    /// Where the rules that react to an event with `ev` id `id` are, in rule order: each index
    /// of the range gives one through ``rule(at:)``.
    @inline(__always) func rules(for id: Int32) -> Range<Int> {
        let i = Int(id)
        return i >= 0 && i < spans.count ? spans[i] : everyEvent
    }

    /// The index (into the scope's rule list) of the rule at `k` of a range from
    /// ``rules(for:)``.
    @inline(__always) func rule(at k: Int) -> Int { order[k] }
}

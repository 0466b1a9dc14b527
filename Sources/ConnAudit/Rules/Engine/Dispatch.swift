/// Lets every rule of one scope see only the events it can react to.
///
/// The rules of every ``EvNames`` id sit in one array, one id's after another, and an event's
/// are a range of it: finding them copies no list, so counts no reference. Each entry also holds
/// its rule's route for the id (``RunnerRoutes``), read there once per event and runner rather
/// than looked up in the rule's own table.
struct Dispatch {
    struct Entry {
        /// The index of the rule in the scope's rule list.
        let rule: Int
        /// What the rule's runner does with an event of the span's id.
        let route: RunnerRoutes.Route
    }

    /// The rules that react to any event first, then each id's rules (those included), each in
    /// rule order.
    private var entries: [Entry] = []
    /// By ``EvNames`` id: where its rules are in ``entries`` (an id no rule tells apart from
    /// any other: ``everyEvent``).
    private var spans: [Range<Int>] = []
    /// Where the rules that react to any event are in ``entries``, with each rule's route for an
    /// id it does not name (``RunnerRoutes``'s last row).
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
        // An id a rule reacting to any event tells apart (its route differs from an unnamed
        // id's) needs a span of its own even when no other rule names it: the shared span holds
        // only unnamed ids' routes.
        var ownSpan = byID.map { !$0.isEmpty }
        for i in any {
            let view = rules[i].routes.view
            let other = view.route(for: -1)
            for id in 0..<view.rows where view.route(for: Int32(id)) != other {
                if ownSpan.count <= id {
                    ownSpan += Array(repeating: false, count: id + 1 - ownSpan.count)
                }
                ownSpan[id] = true
            }
        }
        if byID.count < ownSpan.count {
            byID += Array(repeating: [], count: ownSpan.count - byID.count)
        }
        entries = any.map { Entry(rule: $0, route: rules[$0].routes.view.route(for: -1)) }
        everyEvent = 0..<any.count
        var spans: [Range<Int>] = []
        spans.reserveCapacity(byID.count)
        for (id, named) in byID.enumerated() {
            guard ownSpan[id] else {
                spans.append(everyEvent)
                continue
            }
            let start = entries.count
            for i in (named + any).sorted() {
                entries.append(Entry(rule: i, route: rules[i].routes.view.route(for: Int32(id))))
            }
            spans.append(start..<entries.count)
        }
        self.spans = spans
    }

    /// Whether any rule of the scope reacts to the event.
    func reacts(to e: Event) -> Bool { !rules(for: e.evID).isEmpty }

    /// Where the rules that react to an event with `ev` id `id` are, in rule order: each index
    /// of the range gives one through ``entry(at:)``.
    @inline(__always) func rules(for id: Int32) -> Range<Int> {
        let i = Int(id)
        return i >= 0 && i < spans.count ? spans[i] : everyEvent
    }

    /// The rule at `k` of a range from ``rules(for:)``, with its route for the range's id.
    @inline(__always) func entry(at k: Int) -> Entry { entries[k] }
}

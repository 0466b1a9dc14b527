/// What a runner of one rule does with an event of each ``EvNames`` id, worked out once per rule
/// (``CompiledRule/routes``): one row read per event and runner, where asking each of the rule's
/// id sets would search them per event and runner. A timeline reads the row from its
/// ``Dispatch``, which keeps each rule's row for an id beside the rule.
///
/// A row says whether the check may react to the id (``Flags/handles``), whether the rule's
/// history records it at all, whether a running aggregate may move, whether a waiting look-ahead
/// may be answered, and which history lists keep it. There is a row for each id known when the
/// table is made (every id the rule names among them) and a last row for every other id (-1, or a
/// name interned later): none of the rule's sets names those, so each answers for them what it
/// answers for -1, and so does the last row.
///
/// The storage is allocated once and never changes: a runner keeps a ``View`` of it (plain
/// pointers, no reference to count) for as long as it holds the compiled rule that owns the table.
final class RunnerRoutes: @unchecked Sendable {
    struct Flags: OptionSet {
        let rawValue: UInt8
        /// The check may react to the id: its selectors may match it
        /// (``CompiledRule/checkConcerns``); for a sequence, also an id that may move a running
        /// aggregate (its first step's kept `where`s go stale then:
        /// ``SequenceRunner/startWhereSees(_:)``).
        static let handles = Flags(rawValue: 1)
        /// The rule's history records the id (``CompiledRule/historyIDs``).
        static let history = Flags(rawValue: 2)
        /// And a running aggregate may move (``StaticCallTable``).
        static let aggregates = Flags(rawValue: 4)
        /// And a `next(SEL)` may find it (``CompiledRule/lookAheadIDs``).
        static let lookAhead = Flags(rawValue: 8)

        /// Whether `flag` is set: one test of the bits wherever it is asked (in a function as
        /// large as ``Runner/record(_:_:context:sink:)``, `contains` may be left a call).
        @inline(__always) func has(_ flag: Flags) -> Bool { rawValue & flag.rawValue != 0 }
    }

    struct Route: Equatable {
        let flags: Flags
        /// The history lists that keep the id, a bit each (list `i` at bit `i`, for the first 64:
        /// lists past them are asked one by one, ``Runner/listKeeps(_:_:)``).
        let keeps: UInt64
        /// Of those, the lists that hold events (not counted ones: ``CompiledRule/countedLists``).
        let appends: UInt64

        /// Whether history list `list` keeps the event.
        @inline(__always) func keeps(_ list: Int, _ runner: Runner, _ id: Int32) -> Bool {
            list < 64 ? keeps & (1 << UInt64(list)) != 0 : runner.listKeeps(list, id)
        }
    }

    /// Plain pointers into the table: valid while the table lives.
    struct View {
        fileprivate let routes: UnsafePointer<Route>
        /// The rows of ids; row ``rows`` is every other id's.
        let rows: Int

        /// The route of an event with ``EvNames`` id `id`.
        @inline(__always) func route(for id: Int32) -> Route {
            routes[id >= 0 && Int(id) < rows ? Int(id) : rows]
        }
    }

    private let routes: UnsafeMutableBufferPointer<Route>
    let view: View

    init(_ compiled: CompiledRule) {
        // Every id the rule names was interned when it was compiled: below the count now.
        let rows = EvNames.count
        let sequence: Bool
        switch compiled.rule.check {
        case .every, .never, .count, .classify: sequence = false
        default: sequence = true
        }
        var counted: UInt64 = 0
        for (i, isCounted) in compiled.countedLists.enumerated() where i < 64 && isCounted {
            counted |= 1 << UInt64(i)
        }
        routes = .allocate(capacity: rows + 1)
        for row in 0...rows {
            let id = row < rows ? Int32(row) : -1
            var flags: Flags = []
            let moves = !compiled.staticCalls.isEmpty && !compiled.staticCalls(for: id).isEmpty
            if compiled.checkConcerns.contains(id) || (sequence && moves) { flags.insert(.handles) }
            var keeps: UInt64 = 0
            if compiled.usesHistory, compiled.historyIDs?.contains(id) ?? true {
                flags.insert(.history)
                if moves { flags.insert(.aggregates) }
                if compiled.usesLookAhead, compiled.lookAheadIDs?.contains(id) ?? true {
                    flags.insert(.lookAhead)
                }
                for (i, ids) in compiled.historyListIDs.enumerated()
                where i < 64 && ids?.contains(id) ?? true {
                    keeps |= 1 << UInt64(i)
                }
            }
            (routes.baseAddress! + row).initialize(
                to: Route(flags: flags, keeps: keeps, appends: keeps & ~counted))
        }
        view = View(routes: UnsafePointer(routes.baseAddress!), rows: rows)
    }

    deinit {
        routes.deallocate()
    }
}

/// The static calls (``CompiledRule/staticCalls``) each ``EvNames`` id may move, in one flat table
/// a runner reads in place for every event it records.
///
/// One entry per call an id's event may move (its selector or its `since` may match the id), rows
/// of entries one after another, and a row's bounds in ``offsets``: row `id` for an id the calls'
/// selectors name, and a last row for every other id (-1, or a name no call names), whose calls
/// are those that may match any event. An entry holds the call uncounted (the compiled rule's
/// ``CompiledRule/staticCalls`` keeps it alive), its position, its kind, and what the id alone
/// says of it: a runner moves an aggregate that the id alone moves from the entry, without
/// reading the call.
///
/// The storage is allocated once and never changes: a runner keeps a ``View`` of it (plain
/// pointers, no reference to count) for as long as it holds the compiled rule that owns the table.
final class StaticCallTable: @unchecked Sendable {
    struct Entry {
        /// The call, uncounted.
        let call: Unmanaged<StaticCall>
        /// Its position in ``CompiledRule/staticCalls`` (and in a runner's aggregates).
        let position: Int32
        let flags: Flags
        /// The call's kind (``StaticCall/kind``).
        let kind: HistoryCall.Kind
    }

    /// What an entry's id says of its call. At least one of ``sinceMay`` and ``selectorMay``.
    struct Flags: OptionSet {
        let rawValue: UInt8
        /// An event of the id may match the call's `since` (false when there is none).
        static let sinceMay = Flags(rawValue: 1)
        /// An event of the id may match the call's selector.
        static let selectorMay = Flags(rawValue: 2)
        /// With ``sinceMay``: an event of the id matches `since` (``StaticCall/sinceByID``).
        static let sinceByID = Flags(rawValue: 4)
        /// With ``selectorMay``: an event of the id matches the selector
        /// (``StaticCall/selectorByID``).
        static let selectorByID = Flags(rawValue: 8)
        /// The call keeps a `value` (`maxof`, `minof`).
        static let hasValue = Flags(rawValue: 16)
    }

    /// Plain pointers into the table: valid while the table lives.
    struct View {
        fileprivate let offsets: UnsafePointer<Int32>
        /// The rows of ids; row ``rows`` is every other id's.
        fileprivate let rows: Int
        fileprivate let entries: UnsafePointer<Entry>

        /// The entries of the calls an event with ``EvNames`` id `id` may move.
        @inline(__always) func entries(for id: Int32) -> UnsafeBufferPointer<Entry> {
            let row = id >= 0 && Int(id) < rows ? Int(id) : rows
            let start = Int(offsets[row])
            return UnsafeBufferPointer(start: entries + start, count: Int(offsets[row + 1]) - start)
        }
    }

    private let offsets: UnsafeMutableBufferPointer<Int32>
    private let entries: UnsafeMutableBufferPointer<Entry>
    let view: View

    /// The table of `calls`, which must outlive it.
    init(_ calls: [StaticCall]) {
        // Past the largest id any selector or `since` names, an id matches exactly what -1 does:
        // the selectors that match any event.
        var rows = 0
        for call in calls {
            for id in (call.selector.ids ?? []) + (call.since?.ids ?? []) {
                rows = max(rows, Int(id) + 1)
            }
        }
        var offsets: [Int32] = [0]
        var entries: [Entry] = []
        for row in 0...rows {
            let id = row < rows ? Int32(row) : -1
            for (i, call) in calls.enumerated() {
                var flags: Flags = []
                if call.sinceMayMatch(id) { flags.insert(.sinceMay) }
                if call.selectorMayMatch(id) { flags.insert(.selectorMay) }
                guard !flags.isEmpty else { continue }
                if flags.contains(.sinceMay), call.sinceByID { flags.insert(.sinceByID) }
                if flags.contains(.selectorMay), call.selectorByID { flags.insert(.selectorByID) }
                if call.value != nil { flags.insert(.hasValue) }
                entries.append(
                    Entry(
                        call: .passUnretained(call), position: Int32(i), flags: flags,
                        kind: call.kind))
            }
            offsets.append(Int32(entries.count))
        }
        self.offsets = .allocate(capacity: offsets.count)
        _ = self.offsets.initialize(from: offsets)
        // At least one entry, so the base address is never nil.
        self.entries = .allocate(capacity: max(1, entries.count))
        _ = self.entries.initialize(from: entries)
        view = View(
            offsets: UnsafePointer(self.offsets.baseAddress!), rows: rows,
            entries: UnsafePointer(self.entries.baseAddress!))
    }

    deinit {
        offsets.deallocate()
        entries.deallocate()
    }
}

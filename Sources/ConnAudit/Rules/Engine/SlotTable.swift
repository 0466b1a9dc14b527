/// Something kept per history call of one rule, found by the call's ``HistoryCall/slot``.
///
/// Slots are numbered across the whole process, but the calls of one rule have slots close to each
/// other: an array over the rule's range answers a lookup with a subtraction and a bounds check,
/// where a dictionary hashed the number on every history call of every evaluation. A slot outside
/// the range has no entry. The array is made on the first write (a runner per timeline keeps
/// several tables, most of which stay empty).
struct SlotTable<Element> {
    private var base = 0
    private var count = 0
    private var entries: [Element?] = []

    /// A table covering `slots` (the rule's calls), every entry empty.
    init(covering slots: [Int]) {
        var range = (lo: Int.max, hi: -1)
        Self.widen(&range, slots)
        self.init(range)
    }

    /// A table covering `slots`, filled from `values`.
    init(covering slots: [Int], _ values: [Int: Element]) {
        var range = (lo: Int.max, hi: -1)
        Self.widen(&range, slots)
        Self.widen(&range, values.keys)
        self.init(range)
        for (slot, value) in values { self[slot] = value }
    }

    /// A table from slot `lo` to `hi`; empty when `hi` is below `lo`.
    private init(_ range: (lo: Int, hi: Int)) {
        guard range.lo <= range.hi else { return }
        base = range.lo
        count = range.hi - range.lo + 1
    }

    /// `range` widened to the valid (non-negative) slots of `slots`.
    private static func widen<S: Swift.Sequence>(_ range: inout (lo: Int, hi: Int), _ slots: S)
    where S.Element == Int {
        for slot in slots where slot >= 0 {
            range.lo = Swift.min(range.lo, slot)
            range.hi = Swift.max(range.hi, slot)
        }
    }

    /// Whether `slot` is one of the rule's (an entry can be stored for it).
    @inline(__always) func covers(_ slot: Int) -> Bool {
        slot >= base && slot - base < count
    }

    @inline(__always) subscript(slot: Int) -> Element? {
        get { covers(slot) && !entries.isEmpty ? entries[slot - base] : nil }
        set {
            guard covers(slot) else { return }
            if entries.isEmpty {
                guard newValue != nil else { return }
                entries = Array(repeating: nil, count: count)
            }
            entries[slot - base] = newValue
        }
    }
}

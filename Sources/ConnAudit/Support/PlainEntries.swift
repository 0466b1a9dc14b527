/// Entries of a plain type (nothing in them is counted or destroyed) in storage of their own,
/// written in place: no copy-on-write check, bounds check or array growth per entry.
///
/// A value that does not own its storage: the one object that keeps it frees it in its
/// `deinit` (``free()``), and nothing else keeps a copy.
struct PlainEntries<Entry> {
    /// The storage, nil until the first entry needs room.
    private(set) var base: UnsafeMutablePointer<Entry>?
    /// The entries held, the first ``count`` of ``capacity``.
    var count = 0
    private(set) var capacity = 0

    /// The first entry, where the storage is known to be there.
    @inline(__always) var start: UnsafeMutablePointer<Entry> { base.unsafelyUnwrapped }

    /// Room for at least `needed` entries (doubled, at least 8), keeping those held.
    @inline(never) mutating func grow(toHold needed: Int) {
        let capacity = max(8, needed, self.capacity * 2)
        let made = UnsafeMutablePointer<Entry>.allocate(capacity: capacity)
        if let old = base {
            made.moveInitialize(from: old, count: count)
            old.deallocate()
        }
        base = made
        self.capacity = capacity
    }

    /// Holds no entry; the storage is kept while it has room for at most `kept` entries.
    mutating func removeAll(keepingUpTo kept: Int) {
        if capacity > kept {
            base?.deallocate()
            base = nil
            capacity = 0
        }
        count = 0
    }

    /// Frees the storage, for its keeper's `deinit`.
    func free() { base?.deallocate() }
}

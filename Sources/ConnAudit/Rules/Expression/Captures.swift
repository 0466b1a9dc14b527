/// The events a rule's `as:` names are bound to in one evaluation.
///
/// A rule binds a handful of names at most, so they are kept in one small array in name order
/// rather than a dictionary: a lookup compares a few short strings instead of hashing one, a copy
/// retains one buffer, and two bindings compare by their events' `$seq` in name order
/// (``seqs(of:)``, ``sameEvents(as:for:)``) without sorting.
public struct Captures: Sendable, ExpressibleByDictionaryLiteral {
    private var entries: [Entry] = []

    /// One binding. A struct, not a tuple: an array of tuples is copied and destroyed through
    /// the runtime's generic tuple code, element by element.
    ///
    /// The event comes first: ``withEvent(_:_:)`` reads it at the entry's address.
    private struct Entry {
        var event: Event
        var name: String

        init(name: String, event: Event) {
            self.event = event
            self.name = name
        }
    }

    public init() {}

    public init(dictionaryLiteral elements: (String, Event)...) {
        for (name, event) in elements { self[name] = event }
    }

    public var isEmpty: Bool { entries.isEmpty }

    /// The bound names, in order.
    public var names: [String] { entries.map(\.name) }

    /// Whether `name` is bound (without handing out, and so retaining, its event).
    func binds(_ name: String) -> Bool {
        entries.withUnsafeBufferPointer { entries in
            for i in entries.indices where entries[i].name == name { return true }
            return false
        }
    }

    public subscript(name: String) -> Event? {
        get {
            entries.withUnsafeBufferPointer { entries in
                for i in entries.indices where entries[i].name == name { return entries[i].event }
                return nil
            }
        }
        @inline(__always) set {
            if entries.isEmpty {
                // The first binding (most partial matches hold one or two), in the storage left
                // by ``unbindAll()`` when there is some: made where it is asked for, as a call
                // would cost about as much as the append.
                if let newValue { entries.append(Entry(name: name, event: newValue)) }
                return
            }
            bind(name, to: newValue)
        }
    }

    /// The setter of ``subscript(_:)`` where some name is bound already.
    private mutating func bind(_ name: String, to newValue: Event?) {
        // One pass over the names in order: the first not before `name` is it, or where it
        // goes (most often the end: one comparison, and an append).
        let n = entries.count
        var i = 0
        while i < n, entries[i].name < name { i += 1 }
        if i < n, entries[i].name == name {
            if let newValue { entries[i].event = newValue } else { entries.remove(at: i) }
        } else if let newValue {
            if i == n {
                entries.append(Entry(name: name, event: newValue))
            } else {
                entries.insert(Entry(name: name, event: newValue), at: i)
            }
        }
    }

    /// `body` with the event bound to `name`, read in place: not retained, as these captures
    /// hold it while `body` runs. Nil when `name` is not bound.
    @inline(__always) func withEvent<T>(_ name: String, _ body: (Event) -> T) -> T? {
        // Found as an unmanaged reference (a plain word), and `body` called after the search:
        // an event loaded as itself is retained for the call, and so is the buffer when a call
        // runs inside its closure.
        let found = entries.withUnsafeBufferPointer { entries -> Unmanaged<Event>? in
            for i in entries.indices where entries[i].name == name {
                assert(Self.entryEventOffset == 0, "an entry holds its event first")
                return UnsafeRawPointer(entries.baseAddress! + i).load(as: Unmanaged<Event>.self)
            }
            return nil
        }
        return found?._withUnsafeGuaranteedRef(body)
    }

    /// ``withEvent(_:_:)`` for a capture its rule resolved to `slot` (``LetSlot/capture``): its
    /// place among the rule's `as:` names in name order. These captures hold a subset of those
    /// names in the same order, so the entry at `slot` is the capture's whenever every name
    /// before it is bound, as in a sequence's steps bound in name order. One name compared
    /// confirms it (an equal name compares its two words); another entry there sends the read
    /// to the search by name, so a slot never reads another capture, and a name not bound is nil.
    @inline(__always) func withEvent<T>(slot: Int, _ name: String, _ body: (Event) -> T) -> T? {
        let found = entries.withUnsafeBufferPointer { entries -> Unmanaged<Event>? in
            assert(Self.entryEventOffset == 0, "an entry holds its event first")
            if slot < entries.count, entries[slot].name == name {
                return UnsafeRawPointer(entries.baseAddress! + slot).load(as: Unmanaged<Event>.self)
            }
            for i in entries.indices where entries[i].name == name {
                return UnsafeRawPointer(entries.baseAddress! + i).load(as: Unmanaged<Event>.self)
            }
            return nil
        }
        return found?._withUnsafeGuaranteedRef(body)
    }

    /// Where an entry holds its event: first, which ``withEvent(_:_:)`` reads it as.
    static var entryEventOffset: Int? { MemoryLayout<Entry>.offset(of: \Entry.event) }

    /// Unbinds every name, keeping the storage (when these captures are its only holder): binding
    /// names again then allocates nothing (``SequenceRunner``'s spare captures).
    mutating func unbindAll() { entries.truncate(to: 0) }

    /// Binds `name` alone to `event` (nil: binds nothing). Where `name` is the one name bound,
    /// its entry takes the event in place: no entry is made or dropped, and the name is not
    /// retained again. Any other binding is dropped.
    @inline(__always) mutating func bindAlone(_ name: String?, to event: Event) {
        if let name, entries.count == 1, entries[0].name == name {
            entries[0].event = event
            return
        }
        if !entries.isEmpty { entries.truncate(to: 0) }
        if let name { entries.append(Entry(name: name, event: event)) }
    }

    /// Binds the one name bound to `event`, in place: neither the name nor the entry is made
    /// again. False, with nothing changed, unless exactly one name is bound.
    @inline(__always) mutating func bindAgain(to event: Event) -> Bool {
        guard entries.count == 1 else { return false }
        entries[0].event = event
        return true
    }

    /// Binds every name `other` binds, as it does, in these captures, which bind none: in their
    /// storage, so captures emptied by ``unbindAll()`` take another's bindings without an
    /// allocation.
    mutating func bindAll(of other: Captures) {
        precondition(entries.isEmpty, "bindAll(of:) needs empty captures")
        entries.append(contentsOf: other.entries)
    }

    /// The `$seq` of the events bound to `names` (a handful), in name order.
    func seqs(of names: [String]) -> MatchKey { seqs(of: names, after: nil) }

    /// `first` (when given) followed by ``seqs(of:)``.
    func seqs(of names: [String], after first: Int?) -> MatchKey {
        var out = MatchKey()
        if let first { out.append(first) }
        for entry in entries where names.contains(entry.name) { out.append(entry.event.seq) }
        return out
    }

    /// Whether both bind the same names of `names` (a handful) to the same events (by `$seq`).
    func sameEvents(as other: Captures, for names: [String]) -> Bool {
        var i = 0, j = 0
        while true {
            while i < entries.count, !names.contains(entries[i].name) { i += 1 }
            while j < other.entries.count, !names.contains(other.entries[j].name) { j += 1 }
            if i == entries.count || j == other.entries.count {
                return i == entries.count && j == other.entries.count
            }
            if entries[i].name != other.entries[j].name
                || entries[i].event.seq != other.entries[j].event.seq
            {
                return false
            }
            i += 1
            j += 1
        }
    }
}

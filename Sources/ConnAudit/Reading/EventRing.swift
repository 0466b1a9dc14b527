/// The reader's recent events, each filled again for a later line once nothing else holds it:
/// such a line costs no allocation, initialisation, deinitialisation or free of its event.
///
/// An event is handed out again only when the ring's reference to it is the only counted one
/// (`isKnownUniquelyReferenced`). Everything that keeps an event keeps it counted (history
/// lists, captures, obligations, pending judgements, the context ring, logs, a let scope's
/// context, a batch on its way to a worker thread). Two references are uncounted. An engine
/// ``EvalContext``'s lives no longer than a counted one of the same event
/// (`EvalContext.eventRef`). The event ``FileReader/read()`` lends the scan (``LentLine``) is
/// this ring's own slot, looked at again only one round later, after the scan is done with it
/// and has counted whatever it keeps. So no holder can read an event handed out again here.
/// Once the ring's reference is the only one, no other thread holds the event either, and none
/// can take a new reference to it.
///
/// The slots are looked at in turn: an event is looked at again one round of the ring after it
/// was read. A slot whose event is still held gets the next new event. While more than a
/// sixteenth of a round's slots held their events, and the ring has fewer than ``limit`` slots,
/// each further held event moves to a new slot at the end, to be looked at again later; else
/// it is left to its holders. A ring whose rules let go of nearly every event within a round
/// stays at ``initial`` slots; one whose rules keep many a while grows until most are let go
/// within a round. A ring at its ``limit`` passes a held event over, left in its slot for the
/// next round, when one of the next few slots' events is held by nothing else
/// (``lookAhead``): that one is filled instead, and the held one is filled again once let go,
/// not made anew for its line and freed by its holder.
///
/// A reader that hands its events to other threads lets the ring grow to what can be on the way
/// at once (``PartitionedScan/eventsInFlight(workers:)``). Else nearly every event is still in a
/// queue when its slot comes round: it is made on the reader's thread and freed on a worker's,
/// and the allocator's work for that costs more than the event's evaluation.
struct EventRing: ~Copyable {
    /// The most slots a reader that keeps its events on its own thread uses: many times a
    /// timeline's context ring (`TimelineContext.ring`), so most events the rules keep a while
    /// are let go by then, and the ring's events take about a MB.
    static let size = 4096
    /// The slots a ring starts with: each costs a new event in the first round and a free at the
    /// end, so a file whose rules let go of their events soon makes and frees no more than these.
    static let initial = 256
    /// The most slots the ring grows to.
    let limit: Int
    /// The slots, ``count`` of them in use: a buffer of the ring's own, so a line's look at its
    /// slot checks one reference count (the event's), not an array's first.
    private var slots: UnsafeMutablePointer<Event?>
    private var capacity: Int
    /// The slots the ring has.
    private(set) var count: Int
    private var next = 0
    /// The slots of this round met holding an event held elsewhere.
    private var held = 0
    /// Where the ring's first slots' events come from, and its events go when it ends (nil:
    /// it makes its own and frees them).
    private let spares: SpareEvents?

    /// - Parameter spares: events of rings that ended, for this one's first slots; its own go
    ///   there when it ends.
    init(limit: Int = Self.size, spares: SpareEvents? = nil) {
        self.limit = max(Self.initial, limit)
        self.spares = spares
        capacity = Self.initial
        count = Self.initial
        slots = .allocate(capacity: Self.initial)
        slots.initialize(repeating: nil, count: Self.initial)
        spares?.take(into: slots, count: Self.initial)
    }

    deinit {
        if let spares {
            spares.give(slots, count: count)
        } else {
            slots.deinitialize(count: count)
        }
        slots.deallocate()
    }

    /// The next slot's event when nothing else holds it (the slot keeps it, and the caller fills
    /// it for its line); nil when the slot is empty or its event is held elsewhere: the caller
    /// makes a new event and hands it to ``keep(_:)``. Not counted: the slot's reference is the
    /// one, and it stays until the ring comes round to the slot again.
    @inline(__always) mutating func spare() -> Unmanaged<Event>? {
        guard isKnownUniquelyReferenced(&slots[next]) else {
            return count == limit ? spareAhead() : nil
        }
        // An optional reference and an optional unmanaged one are the same word (nil: zero).
        guard let spare = UnsafeRawPointer(slots + next).load(as: Unmanaged<Event>?.self) else {
            return nil
        }
        advance(round: count)
        return spare
    }

    /// The most slots after a held one a ring at its limit looks at for an event nothing else
    /// holds (``spareAhead()``).
    static let lookAhead = 8

    /// ``spare()`` at the ``limit``, the next slot's event held elsewhere (or none yet): the
    /// event of the first of the next ``lookAhead`` slots of this round that nothing else holds,
    /// the held ones passed over and left in their slots, each looked at again one round later.
    /// Nil when the next slot is empty or each of those is held too: then the caller makes a new
    /// event, and ``keep(_:)`` lets the next slot's go.
    @inline(never) private mutating func spareAhead() -> Unmanaged<Event>? {
        guard UnsafeRawPointer(slots + next).load(as: UnsafeRawPointer?.self) != nil else {
            return nil
        }
        var ahead = next + 1
        let end = min(count, ahead + Self.lookAhead)
        while ahead < end {
            if isKnownUniquelyReferenced(&slots[ahead]) {
                // Known unique, so not nil.
                let spare = UnsafeRawPointer(slots + ahead).load(as: Unmanaged<Event>.self)
                next = ahead
                advance(round: count)
                return spare
            }
            ahead += 1
        }
        return nil
    }

    /// Moves on to the next slot of a round of `round` slots, the first one after the last.
    @inline(__always) private mutating func advance(round: Int) {
        if next == round - 1 {
            next = 0
            held = 0
        } else {
            next += 1
        }
    }

    /// Puts `event`, just made, in the next slot. An event held elsewhere there moves to a new
    /// slot at the end when more than a sixteenth of this round's slots held theirs and the ring
    /// is below its ``limit``; else the ring lets go of it. A slot added goes round with the next
    /// round, not this one: else an event held long at the end would be met again at once, and
    /// the ring grow by one slot a line.
    @inline(__always) mutating func keep(_ event: Event) {
        let round = count
        if UnsafeRawPointer(slots + next).load(as: UnsafeRawPointer?.self) != nil {
            held += 1
            if held > round >> 4, round < limit {
                moveToEnd()
                (slots + next).initialize(to: event)
                advance(round: round)
                return
            }
        }
        slots[next] = event
        advance(round: round)
    }

    /// Moves the next slot's event to a new slot at the end (no reference counted), the buffer
    /// doubled when it is full; the next slot is left uninitialized.
    @inline(never) private mutating func moveToEnd() {
        if count == capacity {
            let grown = min(limit, 2 * capacity)
            let moved = UnsafeMutablePointer<Event?>.allocate(capacity: grown)
            moved.moveInitialize(from: slots, count: count)
            slots.deallocate()
            slots = moved
            capacity = grown
        }
        (slots + count).moveInitialize(from: slots + next, count: 1)
        count += 1
    }
}

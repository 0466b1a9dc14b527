/// The reader's recent events, each filled again for a later line once nothing else holds it:
/// such a line costs no allocation, initialisation, deinitialisation or free of its event.
///
/// An event is handed out again only when the ring's reference to it is the only counted one
/// (`isKnownUniquelyReferenced`). Everything that keeps an event keeps it counted (history
/// lists, captures, obligations, pending judgements, the context ring, logs, a let scope's
/// context, a batch on its way to a worker thread). The one uncounted reference, an engine
/// ``EvalContext``'s, lives no longer than a counted one of the same event
/// (`EvalContext.eventRef`). So no holder can read an event handed out again here. Once the
/// ring's reference is the only one, no other thread holds the event either, and none can take a
/// new reference to it.
///
/// The slots are looked at in turn: an event is looked at again one round of the ring after it
/// was read. A slot whose event is still held gets the next new event. While the ring has fewer
/// than ``limit`` slots, the held event moves to a new slot at the end, to be looked at again
/// later; at the limit it is left to its holders.
///
/// A reader that hands its events to other threads lets the ring grow to what can be on the way
/// at once (``PartitionedScan/eventsInFlight(workers:)``). Else nearly every event is still in a
/// queue when its slot comes round: it is made on the reader's thread and freed on a worker's,
/// and the allocator's work for that costs more than the event's evaluation.
struct EventRing {
    /// The slots a ring starts with, and the most a reader that keeps its events on its own
    /// thread uses: many times a timeline's context ring (`TimelineContext.ring`), so most
    /// events the rules keep a while are let go by then, and the ring's events take a few
    /// hundred KB.
    static let size = 1024
    /// The most slots the ring grows to.
    let limit: Int
    private var slots: [Event?]
    private var next = 0

    init(limit: Int = Self.size) {
        self.limit = max(Self.size, limit)
        slots = [Event?](repeating: nil, count: Self.size)
    }

    /// The slots the ring has.
    var count: Int { slots.count }

    /// The next slot's event when nothing else holds it (the slot keeps it, and the caller fills
    /// it for its line); nil when the slot is empty or its event is held elsewhere: the caller
    /// makes a new event and hands it to ``keep(_:)``.
    @inline(__always) mutating func spare() -> Event? {
        guard isKnownUniquelyReferenced(&slots[next]), let spare = slots[next] else { return nil }
        next = next == slots.count - 1 ? 0 : next + 1
        return spare
    }

    /// Puts `event`, just made, in the next slot. The event held elsewhere there moves to a new
    /// slot at the end while the ring is below its ``limit``, else the ring lets go of it.
    /// A slot added goes round with the next round, not this one: else an event held long at
    /// the end would be met again at once, and the ring grow by one slot a line.
    @inline(__always) mutating func keep(_ event: Event) {
        let round = slots.count
        if round < limit, let held = slots[next] { slots.append(held) }
        slots[next] = event
        next = next == round - 1 ? 0 : next + 1
    }
}

/// The reader's recent events, each filled again for a later line once nothing else holds it:
/// such a line costs no allocation, initialisation, deinitialisation or free of its event.
///
/// An event is handed out again only when the ring's reference to it is the only counted one
/// (`isKnownUniquelyReferenced`). Everything that keeps an event keeps it counted (history
/// lists, captures, obligations, pending judgements, the context ring, logs, a let scope's
/// context). The one uncounted reference, an engine ``EvalContext``'s, lives no longer than a
/// counted one of the same event (`EvalContext.eventRef`). So no holder can read an event
/// handed out again here. Once the ring's reference is the only one, no other thread holds the
/// event either, and none can take a new reference to it.
///
/// The slots are looked at in turn: an event is looked at again ``size`` lines after it was
/// read. A slot whose event is still held gets the next new event, and the held one is left to
/// its holders.
struct EventRing {
    /// Many times a timeline's context ring (`TimelineContext.ring`): most events the rules keep
    /// a while are let go by then, and the ring's events take a few hundred KB.
    static let size = 1024
    private var slots = [Event?](repeating: nil, count: Self.size)
    private var next = 0

    /// The next slot's event when nothing else holds it (the slot keeps it, and the caller fills
    /// it for its line); nil when the slot is empty or its event is held elsewhere: the caller
    /// makes a new event and hands it to ``keep(_:)``.
    @inline(__always) mutating func spare() -> Event? {
        guard isKnownUniquelyReferenced(&slots[next]), let spare = slots[next] else { return nil }
        next = next == Self.size - 1 ? 0 : next + 1
        return spare
    }

    /// Puts `event`, just made, in the next slot, in place of the event held elsewhere there.
    @inline(__always) mutating func keep(_ event: Event) {
        slots[next] = event
        next = next == Self.size - 1 ? 0 : next + 1
    }
}

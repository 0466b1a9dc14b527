import Synchronization

/// Events of rings that ended, nothing else holding them, for later rings to fill again: a
/// reader's events outlive it, and the next reader's first lines take them instead of new ones.
///
/// At most ``limit`` events, whatever the rings give back: a ring ends with up to its own limit
/// of events, and the spares hold at most one ring's worth on top of the rings in use. Each is
/// held by its one reference here, so no other thread can read it, and a ring takes it as it
/// takes an event of its own it finds nothing else holds (``EventRing/spare()``). The process's
/// spares (``shared``) are never freed: the last reader's events end with the process, not one
/// free at a time.
final class SpareEvents: @unchecked Sendable {
    /// The spares of every reader (``FileReader``).
    static let shared = SpareEvents(limit: EventRing.size)
    /// The most events kept.
    let limit: Int
    /// The events kept, each holding its one reference: ``kept`` of them from the first on. A
    /// buffer of its own, read and written under the lock of ``kept`` only, so an event moves in
    /// and out without a reference counted.
    private let events: UnsafeMutablePointer<Unmanaged<Event>>
    private let kept = Mutex(0)

    init(limit: Int) {
        self.limit = limit
        events = .allocate(capacity: limit)
    }

    deinit {
        kept.withLock { kept in
            for i in 0..<kept { events[i].release() }
        }
        events.deallocate()
    }

    /// How many events are kept.
    var count: Int { kept.withLock { $0 } }

    /// Moves up to `count` events into `slots`, which hold nil, from the first on.
    func take(into slots: UnsafeMutablePointer<Event?>, count: Int) {
        kept.withLock { kept in
            let taken = min(kept, count)
            for i in 0..<taken {
                // An optional reference and an unmanaged one are the same word: the slot's nil
                // is overwritten, and the reference moves with no count.
                UnsafeMutableRawPointer(slots + i).storeBytes(
                    of: events[kept - 1 - i], as: Unmanaged<Event>.self)
            }
            kept -= taken
        }
    }

    /// Keeps each of `count` slots' events that nothing else holds, while there is room, and
    /// lets go of the others; the slots are left uninitialized.
    func give(_ slots: UnsafeMutablePointer<Event?>, count: Int) {
        kept.withLock { kept in
            for i in 0..<count {
                if kept < limit, isKnownUniquelyReferenced(&slots[i]) {
                    // Known unique, so not nil: its reference moves here with no count.
                    events[kept] = UnsafeRawPointer(slots + i).load(as: Unmanaged<Event>.self)
                    kept += 1
                } else {
                    (slots + i).deinitialize(count: 1)
                }
            }
        }
    }
}

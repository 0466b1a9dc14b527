import Testing

@testable import ConnAudit

/// A ring that ends gives the events nothing else holds to its spares (``SpareEvents``), and the
/// next ring fills its first slots with them; an event still held is left to its holder.
@Suite struct SpareEventsTests {
    /// Puts `lines` new events through `ring`, one a line, and returns them.
    static func fill(_ ring: inout EventRing, lines: Int) -> [Event] {
        var made: [Event] = []
        for line in 1...lines {
            #expect(ring.spare() == nil)
            let e = Event(t: Double(line), ev: "x.step", line: line)
            ring.keep(e)
            made.append(e)
        }
        return made
    }

    @Test func theEventsARingEndsWithServeTheNextRingButOneStillHeld() {
        let spares = SpareEvents(limit: EventRing.size)
        var ring = EventRing(spares: spares)
        var held: Event?
        var given: Set<ObjectIdentifier> = []
        do {
            let made = Self.fill(&ring, lines: 8)
            held = made[3]
            given = Set(made.map(ObjectIdentifier.init))
            given.remove(ObjectIdentifier(made[3]))
        }
        _ = consume ring
        #expect(spares.count == 7)
        var next = EventRing(spares: spares)
        var served: Set<ObjectIdentifier> = []
        for line in 1...EventRing.initial {
            if let spare = next.spare() {
                let e = spare.takeUnretainedValue()
                e.refill(t: Double(line), ev: "y.step", gen: nil, file: 1, line: line, evID: -1)
                served.insert(ObjectIdentifier(e))
            } else {
                next.keep(Event(t: Double(line), ev: "y.step", line: line))
            }
        }
        #expect(served == given)
        #expect(spares.count == 0)
        #expect(held?.line == 4 && held?.ev == "x.step")
    }

    @Test func sparesKeepNoMoreThanTheirLimit() {
        let spares = SpareEvents(limit: 5)
        var ring = EventRing(spares: spares)
        _ = Self.fill(&ring, lines: EventRing.initial)
        _ = consume ring
        #expect(spares.count == 5)
    }
}

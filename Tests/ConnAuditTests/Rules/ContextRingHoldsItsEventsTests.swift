import Testing

@testable import ConnAudit

/// A source's context ring keeps its last ``TimelineContext/ring`` events in a buffer of its
/// own, each counted: an event stays while it is in the ring, is let go once pushed out, and
/// every event still there is let go with the ring.
@Suite struct ContextRingHoldsItsEventsTests {
    @Test func theRingHoldsItsEventsWhileItLivesAndLetsGoOfThemAfter() {
        let count = TimelineContext.ring * 2 + 3
        weak var first: Event?
        weak var newest: Event?
        weak var oldestKept: Event?
        do {
            let context = TimelineContext(source: nil)
            let sink = FindingSink(files: ["t"])
            for i in 1...count {
                let e = Event(t: Double(i), ev: "x.step", line: i)
                e.seq = i
                if i == 1 { first = e }
                if i == count - TimelineContext.ring + 1 { oldestKept = e }
                if i == count { newest = e }
                context.record(e, sink: sink)
            }
            #expect(first == nil)
            #expect(oldestKept?.line == count - TimelineContext.ring + 1)
            #expect(newest?.line == count)
            withExtendedLifetime(context) {}
        }
        #expect(oldestKept == nil)
        #expect(newest == nil)
    }
}

import Testing

@testable import ConnAudit

/// `Captures.withEvent` reads a bound event at its entry's address, as an unmanaged word, and
/// hands it on without a retain: that holds only while an entry keeps its event first.
@Suite struct CapturesReadTheirEventsInPlaceTests {
    @Test func anEntryHoldsItsEventFirst() {
        #expect(Captures.entryEventOffset == 0)
    }

    @Test func withEventGivesTheEventBoundToEachName() {
        let events = (0..<4).map { i -> Event in
            let e = Event(t: Double(i), ev: "x")
            e.seq = i + 1
            return e
        }
        var captures = Captures()
        for (name, e) in zip(["q", "p", "zz", "a"], events) { captures[name] = e }
        for (name, e) in zip(["q", "p", "zz", "a"], events) {
            #expect(captures.withEvent(name) { $0 === e } == true)
            #expect(captures.withEvent(name) { $0.seq } == e.seq)
        }
        #expect(captures.withEvent("b") { _ in true } == nil)
    }
}

import Testing

@testable import ConnAudit

/// A live timeline writes its log encoded as its events come (``EventLogWriter``): what it hands
/// over at retirement decodes to the entries and the first event, wherever that event is.
@Suite struct EventLogWriterTests {
    private func event(_ t: Double, _ ev: String, gen: UInt64? = 1, seq: Int) -> Event {
        let e = Event(t: t, ev: ev, gen: gen, file: 0, line: seq, evID: 3)
        e.seq = seq
        return e
    }

    @Test func theFirstEventMarkedOnALaterEntryComesBackAsThatEntry() {
        let names = EventLogNames()
        var w = EventLogWriter(names: names)
        // A reader finding first (never a timeline's first event), then the first real event.
        let pseudo = Event(t: 1, ev: "$malformed", gen: 1, file: 0, line: 1, pseudo: true)
        pseudo.seq = 1
        let first = event(2, "ws.ping", seq: 2)
        w.append(pseudo, clock: -.infinity, isFirst: false)
        w.append(first, clock: 1, isFirst: true)
        let (log, decodedFirst) = w.encoded(first: first).decode(names: names)
        #expect(log.count == 2)
        #expect(decodedFirst === log.last?.event)
        #expect(decodedFirst?.seq == 2)
    }

    /// An entry whose flags are all clear but the first's (no gen, `t` and the clock not whole)
    /// is told apart from the first event kept after the entries.
    @Test func aFirstEntryWithNoOtherFlagIsNotTakenForTheFirstKeptApart() {
        let names = EventLogNames()
        var w = EventLogWriter(names: names)
        let first = event(1.5, "ws.ping", gen: nil, seq: 1)
        w.append(first, clock: 0.5, isFirst: true)
        let second = event(2.5, "ws.pong", gen: nil, seq: 2)
        w.append(second, clock: 1.5, isFirst: false)
        let (log, decodedFirst) = w.encoded(first: first).decode(names: names)
        #expect(log.map(\.event.t) == [1.5, 2.5])
        #expect(log.map(\.clock) == [0.5, 1.5])
        #expect(decodedFirst === log.first?.event)
    }

    @Test func anEmptiedLogKeepsTheFirstEventAfterItsEntries() {
        let names = EventLogNames()
        var w = EventLogWriter(names: names)
        let first = event(10, "ws.ping", seq: 1)
        w.append(first, clock: -.infinity, isFirst: true)
        w.append(event(20, "ws.pong", seq: 2), clock: 10, isFirst: false)
        w.reset()
        #expect(w.entries == 0)
        let (empty, kept) = w.encoded(first: first).decode(names: names)
        #expect(empty.isEmpty)
        #expect(kept?.t == 10 && kept?.seq == 1 && kept?.ev == "ws.ping")
        // Entries written after emptying it come back, and the first still after them.
        w.append(event(30, "ws.ping", seq: 3), clock: 20, isFirst: false)
        let (log, again) = w.encoded(first: first).decode(names: names)
        #expect(log.map(\.event.seq) == [3])
        #expect(log.map(\.clock) == [20])
        #expect(again?.seq == 1)
    }

    /// Encoding hands over a copy and leaves the log as it was: entries written later follow the
    /// earlier ones, with their differences taken from them, not from the first event kept apart.
    @Test func encodingLeavesTheLogAsItWas() {
        let names = EventLogNames()
        var w = EventLogWriter(names: names)
        let first = event(100, "ws.connect", seq: 1)
        w.append(event(200, "ws.ping", seq: 5), clock: -.infinity, isFirst: false)
        let once = w.encoded(first: first)
        #expect(w.encoded(first: first).byteCount == once.byteCount)
        w.append(event(300, "ws.pong", seq: 9), clock: 250, isFirst: false)
        let (log, decodedFirst) = w.encoded(first: first).decode(names: names)
        #expect(log.map(\.event.t) == [200, 300])
        #expect(log.map(\.event.seq) == [5, 9])
        #expect(log.map(\.event.line) == [5, 9])
        #expect(decodedFirst?.t == 100 && decodedFirst?.seq == 1)
    }

    @Test func aLogThatWroteNothingHoldsNothing() {
        var w = EventLogWriter(names: EventLogNames())
        #expect(w.encoded(first: nil).byteCount == 0)
        w.discard()
        #expect(w.encoded(first: nil).byteCount == 0)
    }

    /// The writer knows an `ev` name met before by its id and the text's two words; the same
    /// bytes in another text (not the reader's interned one) are found through the table, and
    /// come back as they were.
    @Test func theSameEvBytesInAnotherTextAreFoundThroughTheTable() {
        let names = EventLogNames()
        var w = EventLogWriter(names: names)
        // Longer than 15 bytes: each text made here has storage of its own.
        let spelled = (0..<6).map { _ in String(repeating: "ws.", count: 4) + "keepalive" }
        for (i, ev) in spelled.enumerated() {
            let e = Event(t: Double(i), ev: ev, gen: 1, file: 0, line: i + 1, evID: 5)
            e.seq = i + 1
            w.append(e, clock: Double(i), isFirst: i == 0)
        }
        let (log, _) = w.encoded(first: nil).decode(names: names)
        #expect(log.map(\.event.ev) == spelled)
        #expect(log.allSatisfy { $0.event.evID == 5 })
        #expect(names.names == ["ws.ws.ws.ws.keepalive"])
    }

    /// Two different names of one id (-1, no rule names them), longer than 15 bytes and taking
    /// turns, each come back as themselves: a slot's hit needs the name's own text.
    @Test func twoUnknownNamesOfOneIDTakingTurnsComeBackAsThemselves() {
        let names = EventLogNames()
        var w = EventLogWriter(names: names)
        let spelled = (0..<8).map { i in
            String(repeating: "app.", count: 4) + (i % 2 == 0 ? "foreground" : "background")
        }
        for (i, ev) in spelled.enumerated() {
            let e = Event(t: Double(i), ev: ev, gen: 1, file: 0, line: i + 1, evID: -1)
            e.seq = i + 1
            w.append(e, clock: Double(i), isFirst: i == 0)
        }
        let (log, _) = w.encoded(first: nil).decode(names: names)
        #expect(log.map(\.event.ev) == spelled)
        #expect(Set(names.names) == Set(spelled))
    }
}

import Testing

@testable import ConnAudit

/// The parser copies a short `ev` name's words into the line when the name and the line's earlier
/// one are both immortal (``JSONLineParser/setEv(_:of:)``), and assigns it otherwise: every line
/// still reads its own name, short or long, whichever came before.
@Suite struct ImmortalEvNameTests {
    @Test func shortAndLongNamesInTurnEachReadTheirOwn() {
        let names = [
            "ws.ping", "stream.with.a.much.longer.name", "a", "x.step",
            "another.long.event.name.here",
            "ws.ping"
        ]
        var parser = JSONLineParser(wantedFields: [], evIDs: [:])
        var out = ParsedLine()
        var events: [Event] = []
        for round in 0..<50 {
            for (k, name) in names.enumerated() {
                let text = #"{"t":\#(round * 10 + k),"src":"d","ev":"\#(name)","gen":1}"#
                Array(text.utf8).withUnsafeBufferPointer { parser.parse($0, into: &out) }
                #expect(out.malformedReason == nil)
                #expect(out.ev == name)
                // The name swapped out of the line, as the reader does, leaves the event's
                // earlier name for the next parse to overwrite.
                let e = events.count < 4 ? Event(t: 0, ev: "") : events[(round + k) % 4]
                e.refill(
                    t: out.t, swappingEv: &out.ev, gen: out.gen, file: 0, line: k, evID: -1)
                #expect(e.ev == name)
                if events.count < 4 { events.append(e) }
            }
        }
        #expect(events.allSatisfy { names.contains($0.ev) })
    }

    @Test func onlyShortNamesAndLiteralsAreImmortal() {
        var short = "ws.ping"
        var long = String(repeating: "x", count: 40)
        long += "y"
        short += ""
        let literal = "a literal name longer than fifteen bytes"
        #expect(withUnsafeBytes(of: short) { JSONLineParser.isImmortal($0.baseAddress!) })
        #expect(!withUnsafeBytes(of: long) { JSONLineParser.isImmortal($0.baseAddress!) })
        #expect(withUnsafeBytes(of: literal) { JSONLineParser.isImmortal($0.baseAddress!) })
    }
}

import Testing

@testable import ConnAudit

/// Setting a capture: the first binding of empty captures is made in place (in the storage
/// ``Captures/unbindAll()`` left), the others by a pass over the names in order.
@Suite struct CapturesSetterTests {
    private static func event(_ seq: Int) -> Event {
        let e = Event(t: Double(seq), ev: "x.a", gen: 1, file: 0, line: seq + 1, fields: [])
        e.seq = seq
        return e
    }

    @Test func theFirstBindingOfEmptyCapturesIsMadeInTheirStorage() {
        var c = Captures()
        c["p"] = nil
        #expect(c.isEmpty)
        c["p"] = Self.event(1)
        c["a"] = Self.event(2)
        #expect(c.names == ["a", "p"])
        c.unbindAll()
        #expect(c.isEmpty)
        c["q"] = Self.event(3)
        #expect(c.names == ["q"])
        #expect(c["q"]?.seq == 3)
        #expect(c["p"] == nil)
    }

    @Test func laterBindingsKeepNameOrderAndReplaceOrRemove() {
        var c = Captures()
        c["m"] = Self.event(1)
        c["z"] = Self.event(2)
        c["a"] = Self.event(3)
        #expect(c.names == ["a", "m", "z"])
        c["m"] = Self.event(4)
        #expect(c["m"]?.seq == 4)
        c["a"] = nil
        #expect(c.names == ["m", "z"])
        #expect(c.seqs(of: ["m", "z"]) == c.seqs(of: ["z", "m"]))
    }
}

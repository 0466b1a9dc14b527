import Testing

@testable import ConnAudit

/// ``SpareCaptures`` keeps up to four captures in slots: the last one added is the first taken,
/// its count says how many it holds, and a slot taken is left empty for the next one.
@Suite struct SpareCapturesTakenLastInFirstOutTests {
    private static func captures(_ n: Int) -> Captures {
        let e = Event(t: Double(n), ev: "x", line: n)
        e.seq = n
        return ["p": e]
    }

    @Test func theLastAddedIsTakenFirst() {
        var spares = SpareCaptures()
        #expect(spares.isEmpty)
        for n in 0..<SpareCaptures.capacity {
            spares.append(Self.captures(n))
            #expect(spares.count == n + 1)
        }
        #expect(spares.allSatisfy { !$0.isEmpty })
        for n in (0..<SpareCaptures.capacity).reversed() {
            let taken = spares.removeLast()
            #expect(taken["p"]?.seq == n)
            #expect(spares.count == n)
        }
        #expect(spares.isEmpty)
    }

    @Test func aSlotTakenTakesTheNextOne() {
        var spares = SpareCaptures()
        spares.append(Self.captures(1))
        spares.append(Self.captures(2))
        #expect(spares.removeLast()["p"]?.seq == 2)
        spares.append(Self.captures(3))
        #expect(spares.count == 2)
        #expect(spares.removeLast()["p"]?.seq == 3)
        #expect(spares.removeLast()["p"]?.seq == 1)
        #expect(spares.isEmpty)
    }

    @Test func aTakenSpareIsNotKeptAlive() {
        weak var dropped: Event?
        var spares = SpareCaptures()
        do {
            let e = Event(t: 1, ev: "x", line: 1)
            dropped = e
            spares.append(["p": e])
            _ = spares.removeLast()
        }
        #expect(dropped == nil)
    }
}

import Testing

@testable import ConnAudit

/// A stage's partials live in a buffer of the runner's own (``SequenceRunner/PartialList``): a
/// partial is changed where it lies, the list keeps its order as partials are added, swapped and
/// dropped, and a copy of the list reads the same storage.
@Suite struct PartialListChangesInPlaceTests {
    private typealias Partial = SequenceRunner.Partial

    private static func partial(_ ordinal: Int) -> Partial {
        let e = Event(t: Double(ordinal), ev: "x.a", gen: 1, file: 0, line: ordinal + 1)
        return Partial(stage: 1, captures: ["p": e], last: e, ordinal: ordinal)
    }

    @Test func partialsAreAddedInOrderAndChangedWhereTheyLie() {
        var list = SequenceRunner.PartialList()
        for i in 0..<9 { list.append(Self.partial(i)) }
        #expect(list.count == 9 && list.capacity >= 9)
        #expect(list.map(\.ordinal) == Array(0..<9))
        let copy = list
        list[3].dead = true
        list[4].captures["p"] = nil
        #expect(copy[3].dead && copy[4].captures.isEmpty)
        #expect(list.filter { !$0.dead }.count == 8)
        list.deallocate()
        #expect(list.isEmpty && list.capacity == 0)
    }

    @Test func swapsPopsAndTruncationKeepTheOthers() {
        var list = SequenceRunner.PartialList()
        for i in 0..<6 { list.append(Self.partial(i)) }
        list.swapAt(1, 4)
        list.swapAt(2, 2)
        #expect(list.map(\.ordinal) == [0, 4, 2, 3, 1, 5])
        #expect(list[1].last.t == 4 && list[1].captures["p"]?.t == 4)
        let last = list.popLast()
        #expect(last?.ordinal == 5 && list.count == 5)
        let room = list.capacity
        list.truncate(to: 2)
        #expect(list.map(\.ordinal) == [0, 4] && list.capacity == room)
        list.truncate(to: 3)
        #expect(list.count == 2)
        list.deallocate()
        #expect(list.popLast() == nil)
    }

    /// A dropped partial lets go of its events: the list holds them only while they are in it.
    @Test func droppedPartialsLetGoOfTheirEvents() {
        var list = SequenceRunner.PartialList()
        weak var dropped: Event?
        do {
            let p = Self.partial(7)
            dropped = p.last
            list.append(p)
        }
        #expect(dropped != nil)
        list.truncate(to: 0)
        #expect(dropped == nil)
        list.deallocate()
    }
}

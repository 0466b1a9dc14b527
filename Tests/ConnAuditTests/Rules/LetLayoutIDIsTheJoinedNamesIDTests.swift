import Testing

@testable import ConnAudit

/// A rule's names are resolved against the layout of its lets (``LetSlot``), and its let tables
/// are made with the same layout: ``LetLayouts/id(_:)`` gives one id per list of names in order,
/// and lists that differ get different ids.
@Suite struct LetLayoutIDIsTheJoinedNamesIDTests {
    @Test func eachListOfNamesHasOneIDOfItsOwn() {
        let layouts: [[String]] = [
            [], ["a"], ["a", "b"], ["b", "a"], ["ab"], ["a", ""], ["", "a"], ["é"], ["e\u{301}"],
            ["open", "answer", "limit_ms"], ["open", "answer"], ["answer", "open", "limit_ms"]
        ]
        var seen: [Int32: [String]] = [:]
        for names in layouts {
            let id = LetLayouts.id(names)
            #expect(LetLayouts.id(Array(names)) == id, "\(names)")
            if let other = seen[id] {
                // Names `==` calls equal are one layout, as a let table reads them.
                #expect(other == names, "\(names) and \(other) share an id")
            }
            seen[id] = names
        }
        #expect(LetLayouts.id(["a", "b"]) != LetLayouts.id(["b", "a"]))
        #expect(LetLayouts.id(["ab"]) != LetLayouts.id(["a", "b"]))
        #expect(LetLayouts.id(["a", ""]) != LetLayouts.id(["a"]))
    }
}

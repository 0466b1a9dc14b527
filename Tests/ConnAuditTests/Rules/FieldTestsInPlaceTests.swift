import Testing

@testable import ConnAudit

/// A selector's `exists` test and its `equals` of a boolean are decided where the event holds
/// the field (``Event/holds(_:id:)``). Each must give what the test gives of the value
/// ``Event/value(of:id:)`` copies out: on fields with and without an id, repeated (the last
/// one counts), null, missing, and of every kind a boolean might be taken for.
@Suite struct FieldTestsInPlaceTests {
    static let values: [Value?] = [
        nil, .null, .bool(true), .bool(false), .int(1), .int(0), .double(1), .string("true"),
        .string(""), .array([.bool(true)])
    ]

    @Test func fieldTestsInPlaceGiveTheCopiedValuesAnswer() {
        let id = FieldNames.id("ok")
        let predicates: [Selector.Predicate] = [
            .exists(true), .exists(false), .equals(.bool(true)), .equals(.bool(false))
        ]
        for p in predicates {
            var test = Selector.FieldTest(field: "ok", predicate: p)
            test.intern()
            #expect(test.fieldID == id && id >= 0)
            for first in Self.values {
                for last in Self.values {
                    for tagged in [true, false] {
                        var fields: [Event.Field] = [.init("other", .bool(true), id: -1)]
                        if let first { fields.append(.init("ok", first, id: id)) }
                        if let last { fields.append(.init("ok", last, id: tagged ? id : -1)) }
                        let e = Event(
                            t: 1, ev: "x.y", gen: nil, file: 0, line: 1, fields: fields,
                            evID: EvNames.id("x.y"))
                        let found = e.value(of: "ok", id: id)
                        let copied: Bool =
                            switch p {
                            case .exists(let wanted): (found != nil && found != .null) == wanted
                            default: (found ?? .null).looselyEquals(.bool(p.wantedBool))
                            }
                        let inPlace = withUnsafePointer(to: test) { e.holds($0, id: id) }
                        #expect(inPlace == copied, "\(p) of \(fields)")
                    }
                }
            }
        }
    }
}

extension Selector.Predicate {
    fileprivate var wantedBool: Bool {
        if case .equals(.bool(let b)) = self { return b }
        return false
    }
}

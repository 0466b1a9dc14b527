import Testing

@testable import ConnAudit

/// A selector term's field tests are read in place, through their immutable box
/// (``Selector/Term/withTests(_:)``): what is read there is the term's ``Selector/Term/tests``,
/// a copy of the term changed later keeps its own, and matching reads the tests set last.
@Suite struct TermTestsReadInPlaceTests {
    private static func fields(_ term: Selector.Term) -> [String] {
        term.withTests { tests in tests.map(\.field) }
    }

    @Test func readInPlaceAreTheTermsTests() {
        var term = Selector.Term()
        #expect(Self.fields(term).isEmpty)
        term.tests.append(.init(field: "ev", predicate: .equals(.string("ws.ping"))))
        term.tests.append(.init(field: "code", predicate: .exists(true)))
        #expect(Self.fields(term) == ["ev", "code"])
        #expect(Self.fields(term) == term.tests.map(\.field))
    }

    @Test func aChangedCopyKeepsItsOwnTests() {
        var term = Selector.Term()
        term.tests = [.init(field: "a", predicate: .exists(true))]
        var copy = term
        copy.tests.append(.init(field: "b", predicate: .exists(true)))
        copy.tests[0] = .init(field: "c", predicate: .exists(false))
        #expect(Self.fields(term) == ["a"])
        #expect(Self.fields(copy) == ["c", "b"])
        copy.tests = []
        #expect(Self.fields(copy).isEmpty)
        #expect(Self.fields(term) == ["a"])
    }

    @Test func matchingReadsTheTestsSetLast() {
        let e = Event(
            t: 0, ev: "ws.close", gen: 1, file: 0, line: 1,
            fields: [.init("code", .int(1000))], evID: EvNames.id("ws.close"))
        let ctx = EvalContext(event: e, params: [:], history: nil, files: ["a.jsonl"])
        var term = Selector.Term()
        term.tests = [.init(field: "code", predicate: .equals(.int(1001)))]
        let before = Selector(terms: [term])
        term.tests = [.init(field: "code", predicate: .equals(.int(1000)))]
        let after = Selector(terms: [term])
        #expect(Evaluator.matches(before, e, ctx) == nil)
        #expect(Evaluator.matches(after, e, ctx)?.term == 0)
        term.tests.append(.init(field: "reason", predicate: .exists(true)))
        #expect(Evaluator.matches(Selector(terms: [term]), e, ctx) == nil)
        #expect(Evaluator.matches(after, e, ctx)?.term == 0)
    }
}

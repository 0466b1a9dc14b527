import Testing

@testable import ConnAudit

/// A counted index whose term tests `equals` and `exists` of fields, and whose key is
/// `text(FIELD)`, checks and keys an event it records without an evaluation context
/// (``CountedIndex/EventTests``). Its tests must pass exactly the events
/// ``Evaluator/termTestsHold(_:_:_:)`` passes, and its key must be the compiled key's value.
@Suite struct CountedIndexAddsWithoutAContextTests {
    typealias Agree = CompiledExpressionAgreesWithTreeWalkerTests

    static let events = IndexKeyAgreesWithTreeWalkerTests.events

    /// The selector's one term, with its fields' ids as a compiled rule gives them.
    static func term(_ text: String) throws -> Selector.Term {
        var term = try FileLoader.compileSelector(text, 0).terms[0]
        term.tests = term.tests.map { test in
            var interned = test
            interned.intern()
            return interned
        }
        return term
    }

    static func context(_ e: Event) -> EvalContext {
        EvalContext(
            event: e, params: [:], history: Agree.FixedHistory(events: []),
            files: ["logs/a.jsonl"])
    }

    @Test func theTestsPassWhatTheEvaluatorPasses() throws {
        for text in [
            "{ev: sse.processed, ok: true}", "{ev: [sse.event, ws.close]}", "{ok: true}",
            "{ev: ws.close, reason: pong_timeout}", "{ev: ws.close, code: 1000}",
            "{ev: ws.close, code: 1000.0}", "{ev: ws.close, id: 42}", "{ev: ws.close, id: '42'}",
            "{none: {exists: true}}", "{none: {exists: false}}", "{missing: {exists: false}}",
            "{id: {exists: true}}", "{ev: sse.event, id: {exists: true}}", "{gen: 2}",
            "{t: 1000}", "{ev: ws.close, ok: true, code: 1000, id: {exists: true}}"
        ] {
            let term = try Self.term(text)
            let tests = try #require(CountedIndex.EventTests(term), "\(text) reads the event")
            for e in Self.events {
                #expect(
                    tests.hold(e) == Evaluator.termTestsHold(term, e, Self.context(e)),
                    "\(text) on \(e.ev) at line \(e.line)")
            }
        }
    }

    @Test func testsThatNeedAContextAreLeftToTheEvaluator() throws {
        for text in ["{$file: 'logs/a.jsonl'}", "{ev: ws.close, code: {gt: 5}}"] {
            #expect(CountedIndex.EventTests(try Self.term(text)) == nil, "\(text)")
        }
    }

    @Test func aKeyReadFromTheEventAloneIsTheCompiledKey() {
        for name in ["id", "reason", "code", "delay_ms", "ok", "missing", "none", "$seq", "t"] {
            let key = IndexKey(.call(.text, [.field(name, id: FieldNames.id(name))], at: 0))
            #expect(key.readsEventAlone, "text(\(name))")
            for e in Self.events {
                let expected: Value? =
                    if case .value(let v) = key(e, Self.context(e)) { v } else { nil }
                #expect(
                    key.value(of: e).map { Outcome(.value($0)) }
                        == expected.map { Outcome(.value($0)) },
                    "text(\(name)) on \(e.ev) at line \(e.line)")
            }
        }
        let file = IndexKey(.call(.text, [.field("$file", id: FieldNames.file)], at: 0))
        #expect(!file.readsEventAlone)
    }
}

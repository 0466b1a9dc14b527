import Testing

@testable import ConnAudit

/// An index's key (``IndexKey``) gives what the tree walker gives for the same expression on the
/// same event: `text(FIELD)`, read without the walker, on every kind of field value (strings,
/// integers, doubles with and without a fraction, whole doubles past 2^53, nulls, missing fields,
/// built-in fields), and other keys, run compiled.
@Suite struct IndexKeyAgreesWithTreeWalkerTests {
    typealias Fixture = CompiledExpressionAgreesWithTreeWalkerTests

    static let events: [Event] =
        Fixture.events + [
            Fixture.event(
                "sse.event", t: 2, gen: 1, line: 11,
                fields: [
                    .init("id", .double(1.5)), .init("code", .double(9_007_199_254_740_992)),
                    .init("reason", .string("caf\u{65}\u{301}")), .init("delay_ms", .double(-0.0)),
                    .init("ok", .double(7))
                ]),
            Fixture.event(
                "sse.processed", t: 3, gen: 1, line: 12,
                fields: [.init("id", .array([.int(1)])), .init("code", .int(Int64.min))])
        ]

    static func parse(_ source: String) throws -> Expr {
        try ExpressionParser.parse(
            source,
            compileSelector: { text, offset, depth throws(ExpressionError) in
                try FileLoader.compileSelector(text, offset, depth)
            })
    }

    @Test func textOfAFieldIsReadWithoutTheWalkerAndGivesItsAnswer() {
        let fields = [
            "id", "reason", "code", "delay_ms", "empty", "none", "ok", "tags", "obj", "big",
            "missing", "$seq", "$line", "$file", "$t", "ev"
        ]
        for name in fields {
            // As name resolution leaves it (``NameResolution``): a field with its id.
            let expr = Expr.call(.text, [.field(name, id: FieldNames.id(name))], at: 0)
            let key = IndexKey(expr)
            #expect(key.readsFieldDirectly, "text(\(name)) is read without an expression")
            Self.agree(key, expr, "text(\(name))")
        }
    }

    @Test func otherKeysGiveTheTreeWalkersAnswer() throws {
        for source in [
            "text(id ?? '')", "id", "text(reason) + text(code)", "text(e.id)", "str(id)",
            "code", "text(obj.k)"
        ] {
            let expr = try Self.parse(source)
            let key = IndexKey(expr)
            #expect(!key.readsFieldDirectly, "\(source) runs compiled")
            Self.agree(key, expr, source)
        }
    }

    static func agree(_ key: IndexKey, _ expr: Expr, _ source: String) {
        for e in events {
            for (walking, reading) in zip(Fixture.contexts(for: e), Fixture.contexts(for: e)) {
                let walked = Outcome(Evaluator.evaluate(expr, walking))
                let read = Outcome(key(e, reading))
                #expect(read == walked, "\(source) on \(e.ev) at line \(e.line)")
            }
        }
    }
}

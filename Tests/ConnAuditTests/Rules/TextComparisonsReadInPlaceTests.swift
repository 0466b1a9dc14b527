import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// `==` and `!=` where a side is `text(…)` or a text constant read each side in place
/// (``ValueRead``): a field, `ev`, a capture's field, `text(…)` of either, a constant. Each
/// shape must give what the tree walker gives, in every layout of lets, with the capture bound
/// and not, on fields that are texts, integers (beyond 64 bits too), fractions, whole doubles
/// from 2^53 up, booleans, null, lists, objects and missing.
@Suite struct TextComparisonsReadInPlaceTests {
    typealias Resolved = ResolvedNamesGiveTheTreeWalkersAnswerTests
    typealias Agree = CompiledExpressionAgreesWithTreeWalkerTests

    /// Sides: fields of the events below, `ev`, the capture `c` (id "42", gen 2), constants.
    static let sides = [
        "id", "text(id)", "reason", "text(reason)", "ev", "text(ev)", "c.id", "text(c.id)",
        "text(c.gen)", "c.missing", "text(c.missing)", "text(gen)", "text(big)", "big", "code",
        "text(code)", "tags", "text(tags)", "ok", "'42'", "''", "'ws.close'", "'pong_timeout'",
        "42", "null", "true", "1.5"
    ]

    static let events: [Event] =
        Agree.events + [
            Agree.event(
                "sse.event", t: 1, gen: 2, line: 20,
                fields: [
                    .init("id", .string("42")), .init("code", .double(42)),
                    .init("reason", .string("é")), .init("big", .int(42))
                ]),
            Agree.event(
                "sse.event", t: 2, gen: nil, line: 21,
                fields: [
                    .init("id", .double(9_007_199_254_740_992)), .init("code", .double(.nan)),
                    .init("reason", .string("e\u{301}")), .init("big", .bigInt("-42"))
                ]),
            Agree.event(
                "sse.event", t: 3, gen: 42, line: 22,
                fields: [
                    .init("id", .int(42)), .init("id", .string("43")), .init("code", .int(42)),
                    .init("reason", .string("pong_timeout"))
                ])
        ]

    @Test func eachTextComparisonGivesTheTreeWalkersAnswer() throws {
        let rule = try Resolved.rule()
        let resolver = NameResolution.resolver(for: rule)
        let lets = rule.lets.map { (name: $0.name, expr: resolver.expr($0.expr)) }
        var readInPlace = 0
        for l in Self.sides {
            for r in Self.sides {
                for op in ["==", "!="] {
                    for source in ["\(l) \(op) \(r)", "\(l) \(op) \(r) and t > 0"] {
                        let expr = resolver.expr(
                            try IndexKeyAgreesWithTreeWalkerTests.parse(source))
                        guard case .binary(let o, let x, let y, _) = expr else { continue }
                        if CompiledExpression.isTextComparison(o, x, y) { readInPlace += 1 }
                        ScalarSumsReadInPlaceTests.agree(
                            CompiledExpression(expr), expr, source, lets: lets, on: Self.events)
                    }
                }
            }
        }
        #expect(readInPlace > 300)
    }
}

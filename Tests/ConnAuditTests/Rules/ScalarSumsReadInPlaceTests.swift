import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A comparison with a sum of a capture's or a let's field and a bare let or a constant
/// (`t >= p.t + T`) reads the sum in its own closure (``SumRead``). Each shape must give what
/// the tree walker gives, in every layout of lets, with the capture bound and not, on events
/// whose `t` is whole, a fraction, beyond 2^53, huge or missing, and where the sum overflows 64
/// bits, is a text's, a null's or a boolean's.
@Suite struct ScalarSumsReadInPlaceTests {
    typealias Resolved = ResolvedNamesGiveTheTreeWalkersAnswerTests
    typealias Agree = CompiledExpressionAgreesWithTreeWalkerTests

    /// The rule's lets: `a` (`t + 1`), `b` (`c.t ?? 0`), `w` (the first ws.connect), `x` (a
    /// boolean); the capture `c` (t 500, gen 2, timeout_ms 1000, id "42").
    static let sums = [
        "c.t + b", "c.t - b", "w.t + a", "w.t - a", "c.timeout_ms + 500", "w.t - 7",
        "c.t + 0.25", "c.gen + 9223372036854775807", "c.t - 9223372036854775807",
        "w.timeout_ms + 9223372036854775000", "c.id + 1", "c.id + a", "c.missing + a",
        "w.t + x", "c.t + w", "w.gen + b", "c.t + null"
    ]

    static let lefts = ["t", "gen", "a", "c.t", "w.t", "delay_ms", "1.5", "null", "reason"]

    static let ops = ["<", "<=", ">", ">=", "==", "!="]

    static let events: [Event] =
        Agree.events + [
            Agree.event("ws.pong", t: 1500, gen: 2, line: 11),
            Agree.event("ws.pong", t: 1000.25, gen: 2, line: 12),
            Agree.event("ws.pong", t: 9_007_199_254_740_994, gen: 2, line: 13),
            Agree.event("ws.pong", t: 1e300, gen: 3, line: 14),
            Agree.event("ws.pong", t: .nan, gen: nil, line: 15),
            Agree.event(
                "ws.pong", t: 501, gen: 1, line: 16,
                fields: [.init("delay_ms", .int(9_223_372_036_854_775_807))])
        ]

    @Test func eachComparisonWithASumGivesTheTreeWalkersAnswer() throws {
        let rule = try Resolved.rule()
        let resolver = NameResolution.resolver(for: rule)
        let lets = rule.lets.map { (name: $0.name, expr: resolver.expr($0.expr)) }
        var readInPlace = 0
        for sum in Self.sums {
            for left in Self.lefts {
                for op in Self.ops {
                    for source in ["\(left) \(op) \(sum)", "\(left) \(op) (\(sum)) and true"] {
                        let expr = resolver.expr(
                            try IndexKeyAgreesWithTreeWalkerTests.parse(source))
                        let compiled = CompiledExpression(expr)
                        if compiled.hasTruth { readInPlace += 1 }
                        Self.agree(compiled, expr, source, lets: lets)
                    }
                }
            }
        }
        #expect(readInPlace == Self.sums.count * Self.lefts.count * Self.ops.count * 2)
    }

    /// The compiled answer, and its truth read as ``CompiledExpression/holds(_:_:)`` reads it,
    /// against the tree walker's.
    static func agree(
        _ compiled: CompiledExpression, _ expr: Expr, _ source: String,
        lets: [(name: String, expr: Expr)], on events: [Event] = Self.events
    ) {
        for e in events {
            for setting in Resolved.Setting.allCases {
                for capture in [true, false] {
                    let (walking, keptW) = Resolved.context(
                        for: e, setting, lets: lets, capture: capture)
                    let (running, keptR) = Resolved.context(
                        for: e, setting, lets: lets, capture: capture)
                    let (holding, keptH) = Resolved.context(
                        for: e, setting, lets: lets, capture: capture)
                    let walked = withExtendedLifetime(keptW) {
                        Outcome(Evaluator.evaluate(expr, walking, e))
                    }
                    let run = withExtendedLifetime(keptR) { Outcome(compiled.run(running, e)) }
                    let held = withExtendedLifetime(keptH) { compiled.holds(holding, e) }
                    let truth: Bool? = if case .value(.bool(let b)) = walked { b } else { nil }
                    #expect(
                        run == walked && held == truth,
                        "\(source) on t=\(e.t), \(setting), captured: \(capture): \(run), \(String(describing: held)) vs \(walked)"
                    )
                }
            }
        }
    }
}

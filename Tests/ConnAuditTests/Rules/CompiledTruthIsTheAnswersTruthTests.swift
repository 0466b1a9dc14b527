import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A compiled expression with a scalar form answers a `where:` or an `expect:` through its truth
/// closure (``CompiledExpression/holds(_:_:)``), which reads the scalar form without making an
/// ``Eval``. It must give the truth of what ``CompiledExpression/run`` gives, and of the tree
/// walker's answer, in every layout of lets, with the capture bound or not. The pairs of operand
/// kinds are sampled: each operator meets half of them, in a checkerboard, and the next operator
/// the other half; every fourth expression is the condition of an `if` whose branches are a
/// unary minus and a `not`. Binary operators read their leaf operands in place
/// (``CompiledExpression/scalarPair(_:_:_:)``): each pair of leaf kinds is one closure.
@Suite struct CompiledTruthIsTheAnswersTruthTests {
    typealias Resolved = ResolvedNamesGiveTheTreeWalkersAnswerTests
    typealias Scalars = ScalarComparisonsGiveTheGeneralAnswerTests

    static let operators = ["+", "-", "*", "%", "==", "!=", "<", ">=", "??", "and", "or"]

    @Test func theTruthClosureGivesTheRunsAndTheTreeWalkersTruth() throws {
        let rule = try Resolved.rule()
        let resolver = NameResolution.resolver(for: rule)
        let lets = rule.lets.map { (name: $0.name, expr: resolver.expr($0.expr)) }
        var withTruth = 0
        var checked = 0
        for (o, op) in Self.operators.enumerated() {
            for (i, l) in Scalars.operands.enumerated() {
                for (j, r) in Scalars.operands.enumerated() where (i + j + o) % 2 == 0 {
                    let source =
                        checked % 4 == 0
                        ? "if \(l) \(op) (\(r)) then -(\(l)) else not (\(r))"
                        : "\(l) \(op) (\(r))"
                    checked += 1
                    let expr = resolver.expr(try IndexKeyAgreesWithTreeWalkerTests.parse(source))
                    let compiled = CompiledExpression(expr)
                    if compiled.hasTruth { withTruth += 1 }
                    Self.agree(compiled, expr, source, lets: lets)
                }
            }
        }
        #expect(withTruth > 300)
    }

    /// The shapes the built-in rules compare most: a field with a constant, with a capture's
    /// field, with a capture's field plus a let, and two comparisons joined.
    @Test func theCommonShapesHaveATruthClosure() throws {
        let rule = try Resolved.rule()
        let resolver = NameResolution.resolver(for: rule)
        let lets = rule.lets.map { (name: $0.name, expr: resolver.expr($0.expr)) }
        for source in [
            "t < 5", "gen == c.gen", "t < c.t + b", "t >= c.t + 1000 and code != 0",
            "c.t > t", "1 + t <= c.t - 2", "gen == c.gen and t < c.t + b"
        ] {
            let expr = resolver.expr(try IndexKeyAgreesWithTreeWalkerTests.parse(source))
            let compiled = CompiledExpression(expr)
            #expect(compiled.hasTruth, "\(source)")
            Self.agree(compiled, expr, source, lets: lets)
        }
    }

    static func agree(
        _ compiled: CompiledExpression, _ expr: Expr, _ source: String,
        lets: [(name: String, expr: Expr)]
    ) {
        for e in Resolved.Agree.events {
            for setting in Resolved.Setting.allCases {
                for capture in [true, false] {
                    let (walking, keptW) = Resolved.context(
                        for: e, setting, lets: lets, capture: capture)
                    let (running, keptR) = Resolved.context(
                        for: e, setting, lets: lets, capture: capture)
                    let (holding, keptH) = Resolved.context(
                        for: e, setting, lets: lets, capture: capture)
                    let walked = withExtendedLifetime(keptW) {
                        Evaluator.evaluate(expr, walking, e).truth
                    }
                    let run = withExtendedLifetime(keptR) { compiled.run(running, e).truth }
                    let held = withExtendedLifetime(keptH) { compiled.holds(holding, e) }
                    #expect(
                        held == run && run == walked,
                        "\(source) on \(e.ev), \(setting), captured: \(capture): \(String(describing: held)) vs \(String(describing: run)) vs \(String(describing: walked))"
                    )
                }
            }
        }
    }
}

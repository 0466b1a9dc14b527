import Foundation
import Testing

@testable import ConnAudit

/// A compiled bare name that its rule resolved reads the let's slot, or skips the lets, as its
/// hint says (``CompiledExpression/bare(_:_:)``). It must give what the tree walker's lookup by
/// name gives in every context: with a scope of the rule's lets, with the lets static, with
/// lets bound by name or laid out otherwise (where the hint does not hold), and with none.
@Suite struct ResolvedNamesGiveTheTreeWalkersAnswerTests {
    typealias Agree = CompiledExpressionAgreesWithTreeWalkerTests

    /// A rule with a file-level let, lets of its own (one reading a capture, one a history call,
    /// one a named result `r`) and a capture `c`.
    static let ruleText = """
        let:
          a: "t + 1"
        rules:
          - id: x.names
            title: t
            severity: error
            for: generation
            let:
              b: "c.t ?? 0"
              w: "first({ev: ws.connect})"
              x: "first({ev: ws.connect, as: r}) != null and r.t >= 0"
            every: { ev: ws.close, as: c }
            expect: "a != null and b != null and w != null"
            message: "m"
        """

    static func rule() throws -> Rule {
        try #require(try RuleLoader.load(files: [(path: "x.yaml", text: ruleText)]).rules.first)
    }

    enum Setting: CaseIterable {
        /// The rule's lets in a scope laid out as its names were resolved.
        case scope
        /// The rule's lets static (read through the context's shared object).
        case statics
        /// Lets bound by name, and a scope of another layout: the hint does not hold.
        case foreign
        /// No lets at all.
        case none
    }

    /// A context of `setting`, and what must outlive it: the static lets, which the context's
    /// shared object holds without a count (a runner owns them in the engine).
    static func context(
        for e: Event, _ setting: Setting, lets: [(name: String, expr: Expr)], capture: Bool
    ) -> (EvalContext, StaticLets?) {
        let history = Agree.FixedHistory(events: [Agree.captured, Agree.events[1]])
        let params: [String: Value] = ["timeout_ms": .int(1000)]
        var ctx: EvalContext
        var kept: StaticLets?
        switch setting {
        case .statics:
            let table = LetTable(lets, staticNames: Set(lets.map(\.name)))
            let statics = StaticLets(table: table)
            let shared = EvalShared(
                environment: EvalEnvironment(params: params, files: []), statics: statics,
                runner: nil)
            ctx = EvalContext(event: e, shared: shared)
            kept = statics
        default:
            ctx = EvalContext(event: e, params: params, history: history, files: [])
        }
        if capture { ctx.captures["c"] = Agree.captured }
        switch setting {
        case .scope:
            let scope = LetScope(table: LetTable(lets))
            ctx.letScope = scope
            scope.context = ctx
        case .foreign:
            ctx.lets = ["a": .value(.int(7))]
            let scope = LetScope(table: LetTable(lets.reversed()))
            ctx.letScope = scope
            scope.context = ctx
        case .statics, .none: break
        }
        return (ctx, kept)
    }

    static func agree(_ expr: Expr, _ source: String, lets: [(name: String, expr: Expr)]) {
        let compiled = CompiledExpression(expr)
        for e in Agree.events {
            for setting in Setting.allCases {
                for capture in [true, false] {
                    let (walking, keptW) = context(for: e, setting, lets: lets, capture: capture)
                    let (running, keptR) = context(for: e, setting, lets: lets, capture: capture)
                    let walked = withExtendedLifetime(keptW) {
                        Outcome(Evaluator.evaluate(expr, walking, e))
                    }
                    let run = withExtendedLifetime(keptR) { Outcome(compiled.run(running, e)) }
                    #expect(
                        run == walked,
                        "\(source) on \(e.ev), \(setting), captured: \(capture): \(run) vs \(walked)"
                    )
                }
            }
        }
    }

    @Test func theRulesOwnExpressionsGiveTheTreeWalkersAnswer() throws {
        let rule = try Self.rule()
        let resolver = NameResolution.resolver(for: rule)
        let lets = rule.lets.map { (name: $0.name, expr: resolver.expr($0.expr)) }
        var exprs = lets.map(\.expr) + rule.check.expressions.map(resolver.expr)
        exprs += [
            "a", "b", "w", "w.t", "c", "c.t", "c.missing", "a + b", "b ?? a",
            "first({ev: ws.connect, as: r}).gen + r.t", "r.t", "x"
        ].map {
            resolver.expr(try! IndexKeyAgreesWithTreeWalkerTests.parse($0))
        }
        for e in exprs { Self.agree(e, "\(e)", lets: lets) }
    }

    /// Random expressions over the rule's lets, its capture and fields, resolved as the rule
    /// resolves them.
    @Test func randomResolvedExpressionsGiveTheTreeWalkersAnswer() throws {
        let rule = try Self.rule()
        let resolver = NameResolution.resolver(for: rule)
        let lets = rule.lets.map { (name: $0.name, expr: resolver.expr($0.expr)) }
        var r = CapturesBindingOrderTests.SplitMix(state: 20_261_205_52)
        var checked = 0
        for _ in 0..<1500 {
            // The generator's leaves, with some of its names turned into the rule's lets.
            let source = Agree.expression(&r, depth: 3)
                .replacingOccurrences(of: "d.t", with: "b")
                .replacingOccurrences(of: "empty", with: "a")
                .replacingOccurrences(of: "none", with: "w.t")
            guard let expr = try? IndexKeyAgreesWithTreeWalkerTests.parse(source) else { continue }
            checked += 1
            Self.agree(resolver.expr(expr), source, lets: lets)
        }
        #expect(checked > 1200, "the generator writes expressions the parser reads")
    }
}

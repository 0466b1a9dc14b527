import Testing

@testable import ConnAudit

/// A counted call's outer side (``OuterKey``) gives what its compiled expression gives, as a
/// value: `text(CAPTURE.FIELD)`, read from the captures without the compiled expression, in
/// every context a rule's expressions meet (lets in a scope, static, bound by name or laid out
/// otherwise, none; the capture bound or not), and any other side, run compiled.
@Suite struct OuterKeyAgreesWithCompiledTests {
    typealias Names = ResolvedNamesGiveTheTreeWalkersAnswerTests

    @Test func textOfACapturesFieldIsReadFromTheCaptures() throws {
        for source in ["text(c.id)", "text(c.t)", "text(c.gen)", "text(c.missing)", "text(c.ev)"] {
            try Self.agree(source, direct: true)
        }
    }

    @Test func otherSidesRunCompiled() throws {
        for source in ["text(b)", "text(a)", "c.id", "text(c.id ?? '')", "text(w.t)", "text(id)"] {
            try Self.agree(source, direct: false)
        }
    }

    static func agree(_ source: String, direct: Bool) throws {
        let rule = try Names.rule()
        let resolver = NameResolution.resolver(for: rule)
        let lets = rule.lets.map { (name: $0.name, expr: resolver.expr($0.expr)) }
        let expr = resolver.expr(try IndexKeyAgreesWithTreeWalkerTests.parse(source))
        let key = OuterKey(expr)
        #expect(key.readsCaptureDirectly == direct, "\(source)")
        let compiled = CompiledExpression(expr)
        for e in Names.Agree.events {
            for setting in Names.Setting.allCases {
                for capture in [true, false] {
                    let (running, keptR) = Names.context(
                        for: e, setting, lets: lets, capture: capture)
                    let (reading, keptK) = Names.context(
                        for: e, setting, lets: lets, capture: capture)
                    let run = withExtendedLifetime(keptR) { compiled.run(running, e) }
                    let read = withExtendedLifetime(keptK) { key.value(reading) }
                    let expected: Value? = if case .value(let v) = run { v } else { nil }
                    #expect(
                        read.map { Outcome(.value($0)) } == expected.map { Outcome(.value($0)) },
                        "\(source) on \(e.ev), \(setting), captured: \(capture)")
                }
            }
        }
    }
}

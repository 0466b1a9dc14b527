import Testing

@testable import ConnAudit

/// A history call's `$seq` bound (``SeqBound``) cuts where its outer side, read as written, cuts:
/// `CAPTURE.$seq`, read from the captures without the side's expression, in every context a
/// rule's expressions meet (lets in a scope, static, bound by name or laid out otherwise, none;
/// the capture bound or not), strict (`>`) or not (`>=`), and any other side, read as written.
@Suite struct SeqBoundAgreesWithItsSideTests {
    typealias Names = ResolvedNamesGiveTheTreeWalkersAnswerTests

    @Test func aCapturesSeqIsReadFromTheCaptures() throws {
        try Self.agree("c.$seq", bindings: ["c"], direct: true)
    }

    @Test func otherSidesAreReadAsWritten() throws {
        try Self.agree("c.t", bindings: ["c"], direct: false)
        try Self.agree("c.$seq + 1", bindings: ["c"], direct: false)
        try Self.agree("b", bindings: [], direct: false)
    }

    /// A named result resolved to a slot is read from the captures only where they bind it.
    @Test func aNamedResultsSeqIsReadAsItsSideReadsIt() throws {
        try Self.agree("r.$seq", bindings: ["r"], direct: nil)
    }

    static func agree(_ source: String, bindings: [String], direct: Bool?) throws {
        let rule = try Names.rule()
        let resolver = NameResolution.resolver(for: rule)
        let lets = rule.lets.map { (name: $0.name, expr: resolver.expr($0.expr)) }
        let expr = resolver.expr(try IndexKeyAgreesWithTreeWalkerTests.parse(source))
        for strict in [true, false] {
            let side = OuterSide(expr, strict: strict, bindings: bindings)
            let bound = SeqBound(side)
            if let direct { #expect(bound.readsCaptureDirectly == direct, "\(source)") }
            for e in Names.Agree.events {
                for setting in Names.Setting.allCases {
                    for capture in [true, false] {
                        let (reading, keptR) = Names.context(
                            for: e, setting, lets: lets, capture: capture)
                        let (written, keptW) = Names.context(
                            for: e, setting, lets: lets, capture: capture)
                        let read = withExtendedLifetime(keptR) { bound.cut(reading) }
                        let expected = withExtendedLifetime(keptW) { SeqBound.cut(side, written) }
                        #expect(
                            read == expected,
                            "\(source), strict: \(strict), on \(e.ev), \(setting), captured: \(capture)"
                        )
                    }
                }
            }
        }
    }
}

import Testing

@testable import ConnAudit

/// A scope of lets keeps each evaluated let's value as a ``Scalar`` beside it, which a scalar run
/// reads in place (``LetScope/scalar(slot:)``). What it reads must be the value's scalar, before
/// and after the let is evaluated, in a copy of the scope too; a let that reads itself is
/// undecided, and the scalar of a let not yet evaluated evaluates it once.
@Suite struct LetScopeKeepsEachLetsScalarTests {
    static let definitions = [
        ("n", "1 + 1"), ("s", "'x'"), ("z", "null"), ("f", "t + 0.5"), ("r", "r + 1"),
        ("c", "p"), ("b", "n > 1")
    ]

    @Test func aKeptScalarIsTheScalarOfTheLetsValue() throws {
        let defs = try Self.definitions.map {
            (name: $0.0, expr: try IndexKeyAgreesWithTreeWalkerTests.parse($0.1))
        }
        let e = CompiledExpressionAgreesWithTreeWalkerTests.events[0]
        var ctx = EvalContext(event: e, params: [:], history: nil, files: [])
        ctx.captures["p"] = CompiledExpressionAgreesWithTreeWalkerTests.captured
        let scope = LetScope(defs)
        scope.context = ctx
        for slot in defs.indices {
            // Read as a scalar first: evaluated now, and kept.
            let first = "\(scope.scalar(slot: slot))"
            let value = try #require(scope.value(slot: slot))
            #expect(first == "\(Scalar(value))", "\(defs[slot].name)")
            #expect("\(scope.scalar(slot: slot))" == first, "\(defs[slot].name), read again")
            #expect(
                "\(scope.copy(results: nil).scalar(slot: slot))" == first,
                "\(defs[slot].name), in a copy")
        }
        #expect("\(scope.scalar(slot: 4))" == "\(Scalar.undecided)", "a let reading itself")
        #expect("\(scope.scalar(slot: 5))" == "\(Scalar.nonScalar)", "a captured event")
    }
}

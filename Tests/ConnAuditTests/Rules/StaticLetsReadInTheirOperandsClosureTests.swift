import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// In a runner whose lets are all static, a bare let the cache keeps and a running aggregate's
/// field are read in their scalar operand's closure (``CompiledExpression/scalarBare(_:_:_:_:)``,
/// ``CompiledExpression/scalarLetMember(_:_:_:_:_:_:)``). Each read must give the value for the
/// aggregates as they are at that event: never one cached before the aggregate changed.
@Suite struct StaticLetsReadInTheirOperandsClosureTests {
    private static let rule = """
        id: t.static-reads
        title: Static lets read in place
        for: source
        let:
          n: "count({ev: x.a}) * 2"
          p: "last({ev: x.a})"
        every: { ev: x.tick }
        expect: "n == want_n and (p.v ?? -1) == want_v"
        message: "n {n} v {p.v}"
        """

    private static let log = """
        {"t":0,"ev":"x.tick","want_n":0,"want_v":-1}
        {"t":1,"ev":"x.a","v":5}
        {"t":2,"ev":"x.tick","want_n":2,"want_v":5}
        {"t":3,"ev":"x.a","v":7}
        {"t":4,"ev":"x.tick","want_n":4,"want_v":7}
        {"t":5,"ev":"x.tick","want_n":2,"want_v":7}
        {"t":6,"ev":"x.a","v":9}
        {"t":7,"ev":"x.tick","want_n":6,"want_v":7}
        {"t":8,"ev":"x.tick","want_n":6,"want_v":9}
        """

    @Test(arguments: [false, true])
    func eachReadGivesTheAggregatesAsTheyAre(crossCheck: Bool) throws {
        let rule = try RuleRuns.rules([Self.rule], file: "rules/checks.yaml")[0]
        let result = HistoryCrossCheck.$isOn.withValue(crossCheck) {
            RuleRuns.audit([rule], files: [("a.jsonl", Self.log)]).results[0]
        }
        #expect(result.violations.map(\.line) == [6, 8])
        #expect(result.violations.map(\.message) == ["n 4 v 7", "n 6 v 9"])
        #expect(result.inconclusive.isEmpty)
    }
}

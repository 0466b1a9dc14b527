import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// `let == null` and `let != null`, where the let is a running aggregate's `first` or `last`,
/// ask the runner's aggregate whether it holds an event (``StaticLets/isNull(slot:)``): the
/// answer is what comparing the whole let with null gives. The cross-check sends every read the
/// whole way, so each case runs with it off and on.
@Suite struct LetNullTestReadInPlaceTests {
    private static let rule = """
        id: t.letnull
        title: Lets compared with null in place
        for: source
        let:
          p: "last({ev: x.a})"
          q: "first({ev: x.a}, since: {ev: x.reset})"
          n: "count({ev: x.a})"
        every: { ev: x.tick }
        expect: >
          (p == null) == (want_p == 0) and (null != q) == (want_q == 1)
          and (n != null) and not (n == null)
        message: "p {p == null} q {q != null} n {n == null}"
        """

    private static let log = """
        {"t":0,"ev":"x.tick","want_p":0,"want_q":0}
        {"t":1,"ev":"x.a","v":5}
        {"t":2,"ev":"x.tick","want_p":1,"want_q":1}
        {"t":4,"ev":"x.reset"}
        {"t":5,"ev":"x.tick","want_p":1,"want_q":0}
        {"t":7,"ev":"x.a","v":3}
        {"t":8,"ev":"x.tick","want_p":1,"want_q":1}
        {"t":9,"ev":"x.tick","want_p":0,"want_q":1}
        """

    private func audit(crossCheck: Bool) throws -> RuleResult {
        let rule = try RuleRuns.rules([Self.rule], file: "rules/checks.yaml")[0]
        let table = CompiledRule(rule: rule, index: 0, overrides: [:]).lets
        // `p` and `q` are one aggregate's `last` and `first`: their null tests may go in place.
        #expect(table.direct[table.slot(of: "p")!] != nil)
        #expect(table.direct[table.slot(of: "q")!] != nil)
        return HistoryCrossCheck.$isOn.withValue(crossCheck) {
            RuleRuns.audit([rule], files: [("a.jsonl", Self.log)]).results[0]
        }
    }

    @Test(arguments: [false, true])
    func aNullTestOfAnAggregatesEventIsWhatTheWholeLetGives(crossCheck: Bool) throws {
        let result = try audit(crossCheck: crossCheck)
        // Only the last tick fails (its want_p is wrong on purpose).
        #expect(result.violations.map(\.line) == [8])
        #expect(result.violations.map(\.message) == ["p false q true n false"])
        #expect(result.inconclusive.isEmpty)
    }
}

import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// `let.field`, where the let is a running aggregate's `first` or `last`, reads the field from
/// the event the runner's aggregate holds (``StaticLets/member(slot:_:id:_:)``): the answer is
/// what the let's whole value gives, null while the aggregate holds no event. The cross-check
/// sends every read the whole way, so each case runs with it off and on.
@Suite struct LetFieldReadInPlaceTests {
    private static let rule = """
        id: t.letfield
        title: Lets' fields read in place
        for: source
        let:
          p: "last({ev: x.a})"
          q: "first({ev: x.a}, since: {ev: x.reset})"
          o: "first({ev: x.a})"
        every: { ev: x.tick }
        expect: >
          (p.v ?? -1) == want_l and (q.v ?? -1) == want_f and (o.v ?? -1) == want_o
          and (p.ev ?? 'none') == (if want_l == -1 then 'none' else 'x.a')
          and (p.w ?? 'no w') == want_w
        message: "p.v {p.v} q.v {q.v} o.v {o.v} p.w {p.w}"
        """

    private static let log = """
        {"t":0,"ev":"x.tick","want_l":-1,"want_f":-1,"want_o":-1,"want_w":"no w"}
        {"t":1,"ev":"x.a","v":5}
        {"t":2,"ev":"x.tick","want_l":5,"want_f":5,"want_o":5,"want_w":"no w"}
        {"t":4,"ev":"x.reset"}
        {"t":5,"ev":"x.tick","want_l":5,"want_f":-1,"want_o":5,"want_w":"no w"}
        {"t":7,"ev":"x.a","v":3,"w":"seen"}
        {"t":8,"ev":"x.tick","want_l":3,"want_f":3,"want_o":5,"want_w":"seen"}
        {"t":9,"ev":"x.a","v":8}
        {"t":11,"ev":"x.tick","want_l":8,"want_f":3,"want_o":5,"want_w":"no w"}
        {"t":12,"ev":"x.tick","want_l":0,"want_f":3,"want_o":5,"want_w":"no w"}
        """

    private func audit(crossCheck: Bool) throws -> RuleResult {
        let rule = try RuleRuns.rules([Self.rule], file: "rules/checks.yaml")[0]
        let table = CompiledRule(rule: rule, index: 0, overrides: [:]).lets
        // Each let is one aggregate's `first` or `last`: every read above may go in place.
        #expect(table.names.allSatisfy { table.direct[table.slot(of: $0)!] != nil })
        return HistoryCrossCheck.$isOn.withValue(crossCheck) {
            RuleRuns.audit([rule], files: [("a.jsonl", Self.log)]).results[0]
        }
    }

    @Test(arguments: [false, true])
    func aFieldOfAnAggregatesEventIsWhatTheWholeLetGives(crossCheck: Bool) throws {
        let result = try audit(crossCheck: crossCheck)
        // Only the last tick fails (its want_l is wrong on purpose): its message shows the
        // fields read in place, and a field the event lacks as null.
        #expect(result.violations.map(\.line) == [10])
        #expect(result.violations.map(\.message) == ["p.v 8 q.v 3 o.v 5 p.w null"])
        #expect(result.inconclusive.isEmpty)
    }
}

import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A counted call compared with a constant is answered as an integer from its index
/// (``Evaluator/countedAnswer(_:_:_:)``), with no ``Eval``, only where the history cross-check
/// is off: the test suite turns it off here, so that the scalar answer is the one judged.
/// It must give what the events give (the rule whose calls are answered by a scan), and what
/// the general answer gives (the built-in SSE rules with the cross-check on).
@Suite struct CountedAnswerAgreesTests {
    private static func fingerprint(_ result: RuleResult) -> [String] {
        (result.violations + result.inconclusive).map {
            "\($0.line.map(String.init) ?? "-") \($0.message)"
        } + ["\(result.status)"]
    }

    @Test(arguments: 0..<CountedIndexTests.pairs.count)
    func countsAgreeWithTheEventsWithoutTheCrossCheck(_ index: Int) throws {
        let (a, b) = CountedIndexTests.pairs[index]
        let loaded = try RuleRuns.rules(
            ["id: t.counted\ntitle: T\n" + a, "id: t.events\ntitle: T\n" + b],
            file: "rules/counted.yaml")
        var failing = 0
        HistoryCrossCheck.$isOn.withValue(false) {
            for seed: UInt64 in [1, 2, 3, 5, 8, 13, 21, 34] {
                let log = CountedIndexTests.log(seed: seed)
                let counted = RuleRuns.audit([loaded[0]], log, path: "c.jsonl").results[0]
                let events = RuleRuns.audit([loaded[1]], log, path: "c.jsonl").results[0]
                #expect(
                    Self.fingerprint(counted) == Self.fingerprint(events),
                    "pair \(index) seed \(seed)")
                if !counted.violations.isEmpty { failing += 1 }
            }
        }
        // The logs make each rule fail somewhere (or the comparison would prove little).
        #expect(failing >= 3)
    }

    @Test func theSSERulesGiveTheGeneralAnswer() throws {
        let pack = RuleLoader.builtin()
        let rules = pack.rules.filter { $0.id.hasPrefix("sse.") }
        #expect(rules.count >= 4)
        for seed: UInt64 in [3, 7, 11, 19, 42] {
            let log = CountedIndexTests.log(seed: seed, events: 600)
            let general = RuleRuns.audit(rules, log, path: "c.jsonl")
            let scalar = HistoryCrossCheck.$isOn.withValue(false) {
                RuleRuns.audit(rules, log, path: "c.jsonl")
            }
            for (g, s) in zip(general.results, scalar.results) {
                #expect(Self.fingerprint(g) == Self.fingerprint(s), "seed \(seed)")
            }
        }
    }

    /// The scalar answer is taken only where no cross-check compares the answers.
    @Test func theCrossCheckKeepsTheGeneralAnswer() throws {
        let body = HistoryCrossCheckTests.roads[1]
        let off = try HistoryCrossCheck.$isOn.withValue(false) {
            try HistoryCrossCheckTests.runner(body)
        }
        #expect(off.crossCheck == nil)
        let call = try #require(HistoryCrossCheckTests.firstCall(of: off))
        let e = Event(t: 0, ev: "sse.commit", file: 0, line: 1, evID: EvNames.id("sse.commit"))
        #expect(off.countedAnswer(call, off.context(e)) == 0)
        if HistoryCrossCheck.enabled {
            let on = try HistoryCrossCheckTests.runner(body)
            #expect(on.countedAnswer(call, on.context(e)) == nil)
        }
    }
}

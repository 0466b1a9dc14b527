import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A counted call compared with a constant is answered as an integer from its index
/// (``Evaluator/countedAnswer(_:_:_:)``), with no ``Eval``. It must give what the events give
/// (the rule whose calls are answered by a scan) with the history cross-check off, and with it
/// on each count is compared with a scan's answer (a difference stops the run).
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

    /// With the cross-check on, every count is compared with a scan's answer; the verdicts are
    /// those of the run without it.
    @Test(.enabled(if: HistoryCrossCheck.enabled))
    func theSSERulesJudgeAlikeWithTheCrossCheckOnAndOff() throws {
        let pack = RuleLoader.builtin()
        let rules = pack.rules.filter { $0.id.hasPrefix("sse.") }
        #expect(rules.count >= 4)
        for seed: UInt64 in [3, 7, 11, 19, 42] {
            let log = CountedIndexTests.log(seed: seed, events: 600)
            let checked = RuleRuns.audit(rules, log, path: "c.jsonl")
            let unchecked = HistoryCrossCheck.$isOn.withValue(false) {
                RuleRuns.audit(rules, log, path: "c.jsonl")
            }
            for (c, u) in zip(checked.results, unchecked.results) {
                #expect(Self.fingerprint(c) == Self.fingerprint(u), "seed \(seed)")
            }
        }
    }

    /// The count is taken with the cross-check on too, and that count is what the check compares
    /// with the scan.
    @Test(.enabled(if: HistoryCrossCheck.enabled))
    func theCrossCheckComparesTheCount() throws {
        let body = HistoryCrossCheckTests.roads[1]
        let on = try HistoryCrossCheckTests.runner(body)
        let check = try #require(on.crossCheck)
        let off = try HistoryCrossCheck.$isOn.withValue(false) {
            try HistoryCrossCheckTests.runner(body)
        }
        #expect(off.crossCheck == nil)
        let call = try #require(HistoryCrossCheckTests.firstCall(of: on))
        let offCall = try #require(HistoryCrossCheckTests.firstCall(of: off))
        let last = try #require(check.events.last)
        let before = check.compared
        let counted = on.countedAnswer(call, on.context(last))
        #expect(counted != nil)
        #expect(counted == off.countedAnswer(offCall, off.context(last)))
        #expect(check.compared == before + 1)
    }
}

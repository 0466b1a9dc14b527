import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A generation timeline none of whose rules needs a replay keeps at most 8 logged events while
/// it is live: at or below that it retires with its whole log, past it with its runners' states
/// alone. Either way, a generation that speaks again after its retirement is judged as if it had
/// never been retired.
@Suite struct LogWithoutReplayTests {
    /// What one source's evaluation did with `log`, and the run's JSON report (see
    /// `RetirementTests`).
    private func run(_ rules: RuleSet, _ log: String, retireIdleAfter: Int) -> (
        outcome: SourceOutcome, report: String
    ) {
        (
            RetirementTests.evaluate(rules, log, retireIdleAfter: retireIdleAfter),
            RetirementTests.report(rules, log, retireIdleAfter: retireIdleAfter)
        )
    }

    /// Gen 0 logs `events` events the labeller reacts to (a connect, an open, then pings), goes
    /// quiet while 40 other generations come and go, and then reports its socket closed: an
    /// immediate close only if the rebuilt labeller still knows of the open and of no pong.
    private func log(events: Int) -> String {
        var log =
            #"{"t":0,"ev":"ws.connect","gen":0,"interval_ms":100000,"timeout_ms":100000}"# + "\n"
        log += #"{"t":1,"ev":"ws.open","gen":0}"# + "\n"
        for i in 0..<(events - 2) { log += #"{"t":\#(2 + i),"ev":"ws.ping","gen":0}"# + "\n" }
        let later = events + 1000
        for g in 1...40 {
            let t = later + g * 10
            log += #"{"t":\#(t),"ev":"ws.connect","gen":\#(g)}"# + "\n"
            log += #"{"t":\#(t + 1),"ev":"ws.open","gen":\#(g)}"# + "\n"
            log += #"{"t":\#(t + 2),"ev":"ws.close","gen":\#(g),"reason":"user"}"# + "\n"
            log += #"{"t":\#(t + 3),"ev":"ws.closed","gen":\#(g)}"# + "\n"
        }
        log += #"{"t":\#(later + 500),"ev":"ws.closed","gen":0}"# + "\n"
        return log
    }

    @Test(arguments: [3, 8, 9, 30, 1100])
    func aRetiredGenerationIsJudgedAsIfItHadStayed(events: Int) throws {
        let pack = RuleLoader.builtin()
        let outcomes = try #require(pack.rules.first { $0.id == "ws.required-outcomes" })
        let rules = RuleSet(rules: [outcomes])
        #expect(!CompiledRule(rule: outcomes, index: 0, overrides: [:]).needsReplay)
        let log = log(events: events)
        let retiring = run(rules, log, retireIdleAfter: 16)
        let keeping = run(rules, log, retireIdleAfter: RetirementTests.never)
        // Past 1,024 logged events a timeline is never retired; below, gen 0 is retired once and
        // rebuilt once.
        if events > Timeline.logLimit {
            #expect(retiring.outcome.rebuilds == 0)
        } else {
            #expect(retiring.outcome.rebuilds == 1)
        }
        #expect(retiring.outcome.retirements > 0)
        #expect(retiring.outcome.sink.labels == keeping.outcome.sink.labels)
        #expect(retiring.outcome.sink.labels[0]?["immediate_close"] == 1)
        #expect(retiring.report == keeping.report)
    }

    /// Past its 8 events a timeline keeps its runners' states alone, which no time of the clock
    /// decides: it still retires after the clock forgot its times since an event of it (t falling
    /// for thousands of events while it was quiet), and is judged as if it had stayed.
    @Test func aTimelineKeepingStatesRetiresAfterTheClockForgotItsTimes() throws {
        let pack = RuleLoader.builtin()
        let outcomes = try #require(pack.rules.first { $0.id == "ws.required-outcomes" })
        let rules = RuleSet(rules: [outcomes])
        var log =
            #"{"t":0,"ev":"ws.connect","gen":0,"interval_ms":100000,"timeout_ms":100000}"# + "\n"
        log += #"{"t":1,"ev":"ws.open","gen":0}"# + "\n"
        for i in 0..<10 { log += #"{"t":\#(2 + i),"ev":"ws.ping","gen":0}"# + "\n" }
        // Falling times, more than the clock keeps (``SourceClock/maxPeaks``): it forgets its
        // times since gen 0's last ping, which its next ping comes after.
        for i in 0..<(SourceClock.maxPeaks + 200) {
            log += #"{"t":\#(100_000 - i),"ev":"x.tick"}"# + "\n"
        }
        log += #"{"t":95000,"ev":"ws.ping","gen":0}"# + "\n"
        // Quiet for longer than its idle window, then its socket closes.
        for i in 0..<6_100 { log += #"{"t":\#(100_001 + i),"ev":"x.tick"}"# + "\n" }
        log += #"{"t":200000,"ev":"ws.closed","gen":0}"# + "\n"
        let retiring = run(rules, log, retireIdleAfter: 6_000)
        let keeping = run(rules, log, retireIdleAfter: RetirementTests.never)
        #expect(retiring.outcome.rebuilds == 1)
        #expect(retiring.outcome.sink.labels == keeping.outcome.sink.labels)
        #expect(retiring.outcome.sink.labels[0]?["immediate_close"] == 1)
        #expect(retiring.report == keeping.report)
    }
}

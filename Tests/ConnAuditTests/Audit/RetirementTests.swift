import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// Quiet generation timelines are retired (their runners dropped, their events kept) and rebuilt
/// by replaying those events when the generation speaks again (``RetiredTimeline``). Retiring
/// must change nothing a report says: these tests run the same logs with retirement at every
/// chance (`retireIdleAfter: 0`: after every event), at the default, and never, and compare.
@Suite struct RetirementTests {
    static let never = 1 << 40

    /// The JSON report of `rules` over one in-memory log (`LogWithoutReplayTests` uses it too).
    static func report(_ rules: RuleSet, _ log: String, retireIdleAfter: Int) -> String {
        let auditor = Auditor(
            rules: rules, jobs: 1, retireIdleAfter: retireIdleAfter,
            opener: RuleRuns.opener([("log.jsonl", log)]))
        return JSONReport.render(auditor.run([InputFile(path: "log.jsonl", isStdin: false)]))
    }

    /// What one source's evaluation did with `log` (all of whose lines are one source's events).
    static func evaluate(_ rules: RuleSet, _ log: String, retireIdleAfter: Int) -> SourceOutcome {
        let plan = EvaluationPlan(
            rules: rules.rules, overrides: [:], files: ["log.jsonl"],
            retireIdleAfter: retireIdleAfter)
        let reader = FileReader(
            index: 0, path: "log.jsonl",
            source: ByteSources.memory(Array(log.utf8), path: "log.jsonl"),
            wantedFields: rules.fieldsRead)
        var evaluator: SourceEvaluator?
        while let item = reader.next() {
            guard case .event(let e, let id, _) = item else { continue }
            if evaluator == nil { evaluator = SourceEvaluator(key: reader.key(of: id), plan: plan) }
            evaluator!.feed(e)
        }
        return evaluator!.finish()
    }

    @Test func everyBuiltinFixtureReportsTheSameWhetherTimelinesRetireOrNot() {
        let pack = RuleLoader.builtin()
        var compared = 0
        for rule in pack.rules {
            for fixture in rule.tests {
                let alone = RuleSet(rules: [rule])
                let kept = Self.report(alone, fixture.log, retireIdleAfter: Self.never)
                #expect(
                    Self.report(alone, fixture.log, retireIdleAfter: 0) == kept,
                    "\(rule.id) '\(fixture.name)'")
                // The whole pack over the same log: rules that retire beside rules that keep.
                let all = Self.report(pack, fixture.log, retireIdleAfter: Self.never)
                #expect(
                    Self.report(pack, fixture.log, retireIdleAfter: 0) == all,
                    "pack over \(rule.id) '\(fixture.name)'")
                compared += 1
            }
        }
        #expect(compared > 100)
    }

    /// Generations `firstGen`…, each connected, opened and closed by the user.
    private func closedGenerations(_ n: Int, from t0: Int = 0, firstGen: Int = 0) -> String {
        (firstGen..<firstGen + n).map { g in
            let t = t0 + (g - firstGen) * 10
            return """
                {"t":\(t),"ev":"ws.connect","gen":\(g)}
                {"t":\(t + 1),"ev":"ws.open","gen":\(g)}
                {"t":\(t + 2),"ev":"ws.close","gen":\(g),"reason":"user"}
                {"t":\(t + 3),"ev":"ws.closed","gen":\(g)}

                """
        }.joined()
    }

    @Test func aLateSecondCloseOfARetiredGenerationIsStillFound() throws {
        // Generation 0 ends, 400 generations later (1,600 events: far past the idle window) a
        // second close of it comes: a stale callback. ws.single-close must still see it.
        let log =
            closedGenerations(400) + #"{"t":5000,"ev":"ws.close","gen":0,"reason":"user"}"# + "\n"
        let pack = RuleLoader.builtin()
        let outcome = Self.evaluate(pack, log, retireIdleAfter: 256)
        // A timeline is retired within about two idle windows of its last event: all but the last
        // ~128 generations are.
        #expect(outcome.retirements >= 250)
        #expect(outcome.rebuilds == 1)
        let single = try #require(pack.rules.firstIndex { $0.id == "ws.single-close" })
        let found = outcome.sink.violations[single] ?? []
        #expect(found.map(\.line) == [1601])
        // The finding, its context lines and every other verdict: as without retirement.
        #expect(
            Self.report(pack, log, retireIdleAfter: 256)
                == Self.report(pack, log, retireIdleAfter: Self.never))
        #expect(
            Self.report(pack, log, retireIdleAfter: 0)
                == Self.report(pack, log, retireIdleAfter: Self.never))
    }

    @Test func aTimelineWaitingForADeadlineIsNotRetired() throws {
        // A ping of gen 0 with a long deadline, then 400 events of other generations before the
        // deadline passes: the obligation keeps gen 0 alive, and the timeout is found where it was.
        var log =
            #"{"t":0,"ev":"ws.connect","gen":0,"interval_ms":100000,"timeout_ms":100000}"# + "\n"
        log += #"{"t":1,"ev":"ws.open","gen":0}"# + "\n"
        log += #"{"t":2,"ev":"ws.ping","gen":0}"# + "\n"
        log += closedGenerations(100, from: 10, firstGen: 1)
        log += #"{"t":200000,"ev":"app.tick"}"# + "\n"
        let pack = RuleLoader.builtin()
        let outcome = Self.evaluate(pack, log, retireIdleAfter: 0)
        let timeout = try #require(pack.rules.firstIndex { $0.id == "ws.timeout-closes" })
        #expect(outcome.sink.violations[timeout]?.map(\.line) == [3])
        #expect(
            Self.report(pack, log, retireIdleAfter: 0)
                == Self.report(pack, log, retireIdleAfter: Self.never))
    }

    @Test func labelsOfRetiredGenerationsAreCounted() {
        // ws.required-outcomes counts each generation's labels at the end: retired ones too.
        let log =
            closedGenerations(40) + #"{"t":900,"ev":"ws.connect","gen":99}"# + "\n"
            + #"{"t":901,"ev":"ws.connect_failed","gen":99,"error":"NSURLErrorDomain:-1004"}"#
            + "\n"
        let pack = RuleLoader.builtin()
        let retiring = Self.evaluate(pack, log, retireIdleAfter: 0)
        let keeping = Self.evaluate(pack, log, retireIdleAfter: Self.never)
        #expect(retiring.retirements >= 40)
        #expect(keeping.retirements == 0)
        #expect(!keeping.sink.labels.isEmpty)
        #expect(retiring.sink.labels == keeping.sink.labels)
    }

    @Test func aGenerationThatKeepsComingBackIsRebuiltLessAndLessOften() {
        // Gen 0 ends, then a stale ws.closed of it comes every 301 events: each rebuild doubles its
        // idle window, so it is rebuilt a few times, not once per callback.
        var log =
            #"{"t":0,"ev":"ws.connect","gen":0}"# + "\n"
            + #"{"t":0,"ev":"ws.close","gen":0,"reason":"user"}"# + "\n"
        var t = 0
        for round in 0..<20 {
            log += #"{"t":\#(t),"ev":"ws.closed","gen":0}"# + "\n"
            t += 1
            for g in 0..<75 {
                let gen = 1 + round * 75 + g
                log +=
                    #"{"t":\#(t),"ev":"ws.connect","gen":\#(gen)}"# + "\n"
                    + #"{"t":\#(t),"ev":"ws.close","gen":\#(gen),"reason":"user"}"# + "\n"
                log +=
                    #"{"t":\#(t),"ev":"ws.open","gen":\#(gen)}"# + "\n"
                    + #"{"t":\#(t),"ev":"ws.closed","gen":\#(gen)}"# + "\n"
                t += 1
            }
        }
        let pack = RuleLoader.builtin()
        let outcome = Self.evaluate(pack, log, retireIdleAfter: 256)
        #expect(outcome.rebuilds >= 1)
        #expect(outcome.rebuilds <= 4)
        #expect(
            Self.report(pack, log, retireIdleAfter: 256)
                == Self.report(pack, log, retireIdleAfter: Self.never))
    }

    @Test func aCountWithAMinimumKeepsItsTimelines() throws {
        // Its finish reports what only the end can say: such timelines are never retired (and
        // give up their logs at the first look), while the verdicts stay the same.
        let rules = try RuleLoader.load(files: [
            (
                "r.yaml",
                """
                rules:
                  - id: t.two-opens
                    title: two opens per generation
                    for: generation
                    count: { ev: ws.open }
                    min: 2
                """
            )
        ])
        let log = closedGenerations(50)
        let outcome = Self.evaluate(rules, log, retireIdleAfter: 0)
        #expect(outcome.retirements == 0)
        #expect(outcome.sink.violations[0]?.count == 50)
        #expect(
            Self.report(rules, log, retireIdleAfter: 0)
                == Self.report(rules, log, retireIdleAfter: Self.never))
    }

    @Test func aRebuildDecidesNoOtherTimelinesDeadline() throws {
        // Time goes back: gen 1's ping at t=20 (deadline 1020) comes after an event at t=5001, so
        // its deadline is below the highest time yet waits for a later event with t > 1020 (the
        // app.tick at 6000). Gen 0, retired after t=5001, is rebuilt by its stale ws.closed in
        // between: replayed up to t=5001 on the source's clock, that would decide gen 1's deadline
        // into the replay's thrown-away findings. The replay has a clock of its own.
        let log = """
            {"t":0,"ev":"ws.connect","gen":0}
            {"t":1,"ev":"ws.close","gen":0,"reason":"user"}
            {"t":2,"ev":"ws.closed","gen":0}
            {"t":10,"ev":"ws.connect","gen":1,"interval_ms":1000,"timeout_ms":1000}
            {"t":10,"ev":"ws.open","gen":1}
            {"t":5001,"ev":"ws.closed","gen":0}
            {"t":20,"ev":"ws.ping","gen":1}
            {"t":21,"ev":"ws.closed","gen":0}
            {"t":6000,"ev":"app.tick"}

            """
        let pack = RuleLoader.builtin()
        let outcome = Self.evaluate(pack, log, retireIdleAfter: 0)
        #expect(outcome.rebuilds >= 2)
        let timeout = try #require(pack.rules.firstIndex { $0.id == "ws.timeout-closes" })
        #expect(outcome.sink.violations[timeout]?.map(\.line) == [7])
        #expect(
            Self.report(pack, log, retireIdleAfter: 0)
                == Self.report(pack, log, retireIdleAfter: Self.never))
    }

    @Test func theClockKnowsItsHighestTimeSinceAnEvent() {
        let clock = SourceClock()
        let sink = FindingSink(files: [])
        #expect(clock.highest(since: 1) == -.infinity)
        // t by seq: 1→10, 2→50, 3→20, 4→30, 5→5
        for (seq, t) in [(1, 10.0), (2, 50), (3, 20), (4, 30), (5, 5)] {
            clock.advance(to: t, seq: seq, sink: sink)
        }
        #expect(clock.highest(since: 1) == 50)
        #expect(clock.highest(since: 2) == 50)
        #expect(clock.highest(since: 3) == 30)
        #expect(clock.highest(since: 5) == 5)
        #expect(clock.highest(since: 6) == -.infinity)
        // A NaN t advances nothing.
        clock.advance(to: .nan, seq: 6, sink: sink)
        #expect(clock.highest(since: 6) == -.infinity)
        // t falling for longer than the clock remembers: the old answers become unknown (a timeline
        // that needs one gives up its log), the recent ones stay exact.
        for seq in 7...(7 + SourceClock.maxPeaks) {
            clock.advance(to: Double(-seq), seq: seq, sink: sink)
        }
        #expect(clock.highest(since: 1) == nil)
        #expect(
            clock.highest(since: 7 + SourceClock.maxPeaks) == Double(-(7 + SourceClock.maxPeaks)))
        #expect(
            clock.highest(since: 7 + SourceClock.maxPeaks - 10)
                == Double(-(7 + SourceClock.maxPeaks - 10)))
    }

    @Test func runnersThatNeedNoReplayAreSetBackFromTheirState() throws {
        // The outcome labeller alone needs no replay: a retired generation keeps no events, and a
        // rebuilt one gets its labeller's flags and aggregates back. With ws.single-close beside
        // it, a generation first retired without events (no close yet) and rebuilt by its close
        // keeps a log from there on, and the labeller's state besides.
        let pack = RuleLoader.builtin()
        let outcomes = try #require(pack.rules.first { $0.id == "ws.required-outcomes" })
        let single = try #require(pack.rules.first { $0.id == "ws.single-close" })
        // Gen 0 connects, opens and pings ten times (more events than a log kept in place of the
        // labeller's state); 60 generations later its socket reports closed (an immediate close:
        // the labeller must remember the open), then it is closed twice.
        var log =
            #"{"t":0,"ev":"ws.connect","gen":0,"interval_ms":100000,"timeout_ms":100000}"# + "\n"
        log += #"{"t":1,"ev":"ws.open","gen":0}"# + "\n"
        for i in 0..<10 { log += #"{"t":\#(2 + i),"ev":"ws.ping","gen":0}"# + "\n" }
        log += closedGenerations(60, from: 10, firstGen: 1)
        log += #"{"t":2000,"ev":"ws.closed","gen":0}"# + "\n"
        log += closedGenerations(60, from: 2010, firstGen: 100)
        log += #"{"t":4000,"ev":"ws.close","gen":0,"reason":"server_closed"}"# + "\n"
        log += closedGenerations(60, from: 4010, firstGen: 200)
        log += #"{"t":6000,"ev":"ws.close","gen":0,"reason":"user"}"# + "\n"
        for rules in [RuleSet(rules: [outcomes]), RuleSet(rules: [outcomes, single]), pack] {
            let retiring = Self.evaluate(rules, log, retireIdleAfter: 0)
            let keeping = Self.evaluate(rules, log, retireIdleAfter: Self.never)
            #expect(retiring.rebuilds >= 3)
            #expect(retiring.sink.labels == keeping.sink.labels)
            #expect(
                Self.report(rules, log, retireIdleAfter: 0)
                    == Self.report(rules, log, retireIdleAfter: Self.never))
        }
        // The immediate close of gen 0 is counted (the other generations are all "user" closes).
        let index = try #require(pack.rules.firstIndex { $0.id == "ws.required-outcomes" })
        #expect(
            Self.evaluate(pack, log, retireIdleAfter: 0).sink.labels[index]?["immediate_close"] == 1
        )
    }
}

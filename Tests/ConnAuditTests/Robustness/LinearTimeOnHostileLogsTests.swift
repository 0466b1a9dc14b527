import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// No log makes a rule's time grow with the square of its events: the built-in pack answers the
/// shapes that once did in linear time, and a rule of one's own that would is stopped by the work
/// limit, with one inconclusive finding that names the limit — never a hang.
@Suite(.timeLimit(.minutes(10)))
struct LinearTimeOnHostileLogsTests {
    private static func builtin(_ id: String) -> [Rule] {
        RuleLoader.builtin().rules.filter { $0.id == id }
    }

    private static func lines(_ n: Int, _ line: (Int) -> String) -> String {
        (0..<n).map(line).joined(separator: "\n") + "\n"
    }

    private static func result(_ report: AuditReport, _ id: String) throws -> RuleResult {
        try #require(report.results.first { $0.rule.id == id })
    }

    /// One built-in rule over `log`: its result and how long the audit took.
    private static func runBuiltin(_ id: String, _ log: String, path: String) throws -> (
        RuleResult, Duration
    ) {
        let (report, elapsed) = timed { RuleRuns.audit(builtin(id), log, path: path) }
        return (try result(report, id), elapsed)
    }

    /// A `forbid` whose two steps match every ping: each ping is tried against every earlier one.
    private static func everyPair() throws -> [Rule] {
        try RuleRuns.rules(
            [
                """
                id: my.every-pair
                title: Every pair of events
                for: source
                forbid:
                  - { ev: ws.ping, as: a }
                  - { ev: ws.ping, where: "t < a.t" }
                """
            ], file: "my.yaml")
    }

    private static func timed<T>(_ body: () throws -> T) rethrows -> (T, Duration) {
        let start = ContinuousClock.now
        let value = try body()
        return (value, ContinuousClock.now - start)
    }

    // MARK: - The built-in pack

    /// A client that reconnects without ever closing: every ws.connect while the others are live.
    @Test func aLeakOfTwentyThousandLiveConnectionsIsFoundInLinearTime() throws {
        let n = 20_000
        let log = Self.lines(n) { #"{"t":\#($0),"src":"d","ev":"ws.connect","gen":\#($0)}"# }
        let (result, elapsed) = try Self.runBuiltin(
            "ws.single-live-connection", log, path: "leak.jsonl")
        #expect(result.violations.count == n - 1)
        #expect(result.inconclusive.isEmpty)
        // Trying each open match against every later connect costs the square of the events,
        // minutes at this size even in a release build; linear, a debug build takes seconds.
        #expect(elapsed < .seconds(30), "took \(elapsed)")
        // Each names the oldest generation still live (the first match), with its ws.connect.
        #expect(
            result.violations.last?.message
                == "ws.connect of generation \(n - 1) while generation 0 (its ws.connect at t=0) is still live"
        )
    }

    /// The same gen connected again and again: one match waits for it, not one per ws.connect.
    @Test func oneLiveGenerationConnectedAgainAndAgainCostsOneMatch() throws {
        let n = 20_000
        let log =
            Self.lines(n) { #"{"t":\#($0),"src":"d","ev":"ws.connect","gen":5}"# }
            + #"{"t":\#(n),"src":"d","ev":"ws.connect","gen":6}"# + "\n"
        let (result, elapsed) = try Self.runBuiltin(
            "ws.single-live-connection", log, path: "again.jsonl")
        #expect(
            result.violations.map(\.message) == [
                "ws.connect of generation 6 while generation 5 (its ws.connect at t=0) is still live"
            ])
        #expect(elapsed < .seconds(30), "took \(elapsed)")
    }

    /// Closes of generations no match waits for are looked up by their gen, not compared with
    /// every live one.
    @Test func closesOfOtherGenerationsAreNotComparedWithEveryLiveOne() throws {
        let n = 10_000
        let log =
            Self.lines(n) { #"{"t":\#($0),"src":"d","ev":"ws.connect","gen":\#($0)}"# }
            + Self.lines(n) {
                #"{"t":\#(n + $0),"src":"d","ev":"ws.close","gen":\#(n + $0),"reason":"x"}"#
            }
            + Self.lines(n) {
                #"{"t":\#(2 * n + $0),"src":"d","ev":"ws.close","gen":\#($0),"reason":"x"}"#
            }
            + #"{"t":\#(3 * n),"src":"d","ev":"ws.connect","gen":\#(3 * n)}"# + "\n"
        let (result, elapsed) = try Self.runBuiltin(
            "ws.single-live-connection", log, path: "closes.jsonl")
        // Every live generation ended before the last ws.connect.
        #expect(result.violations.count == n - 1)
        #expect(elapsed < .seconds(30), "took \(elapsed)")
    }

    /// SSE events never processed: no event completes the lost-event sequence, and none is tried
    /// against the ones waiting.
    @Test func twentyThousandUnprocessedEventsAreCheckedInLinearTime() throws {
        let n = 20_000
        let log = Self.lines(n) { #"{"t":\#($0),"src":"d","ev":"sse.event","id":"\#($0)"}"# }
        let (result, elapsed) = try Self.runBuiltin("sse.no-lost-events", log, path: "sse.jsonl")
        #expect(result.status == .pass)
        #expect(elapsed < .seconds(30), "took \(elapsed)")
    }

    /// Many lost events behind one committed cursor: each is one obligation, and the events of
    /// other ids that follow look only at the obligation of their id.
    @Test func manyLostEventsAndLaterTrafficStayLinear() throws {
        let n = 5_000
        var log = Self.lines(n) { #"{"t":\#($0),"src":"d","ev":"sse.event","id":"lost\#($0)"}"# }
        log += """
            {"t":\(n),"src":"d","ev":"sse.event","id":"x"}
            {"t":\(n),"src":"d","ev":"sse.processed","id":"x","ok":true}
            {"t":\(n),"src":"d","ev":"sse.commit","id":"x"}

            """
        log += Self.lines(n) {
            #"{"t":\#(n + 1 + $0),"src":"d","ev":"sse.processed","id":"other\#($0)","ok":true}"#
        }
        let (result, elapsed) = try Self.runBuiltin("sse.no-lost-events", log, path: "lost.jsonl")
        #expect(result.violations.count == n)
        #expect(result.inconclusive.isEmpty)
        #expect(elapsed < .seconds(30), "took \(elapsed)")
    }

    /// Lost events, then the same cursor committed again and again: each lost event's match is
    /// complete once, its obligation open, and is not completed again by every later commit.
    @Test func repeatedCommitsAfterLostEventsStayLinear() throws {
        let n = 4_000
        var log = Self.lines(n) { #"{"t":\#($0),"src":"d","ev":"sse.event","id":"lost\#($0)"}"# }
        log += """
            {"t":\(n),"src":"d","ev":"sse.event","id":"x"}
            {"t":\(n),"src":"d","ev":"sse.processed","id":"x","ok":true}

            """
        log += Self.lines(2 * n) { #"{"t":\#(n + 1 + $0),"src":"d","ev":"sse.commit","id":"x"}"# }
        let (result, elapsed) = try Self.runBuiltin(
            "sse.no-lost-events", log, path: "commits.jsonl")
        #expect(result.violations.count == n)
        #expect(result.inconclusive.isEmpty)
        #expect(elapsed < .seconds(30), "took \(elapsed)")
    }

    /// Connections opened and never ended, then reconnects: each reconnect is one violation,
    /// found without comparing it with every open generation.
    @Test func reconnectsWhileManyGenerationsAreOpenStayLinear() throws {
        let n = 10_000
        let log =
            Self.lines(n) { #"{"t":\#($0),"src":"d","ev":"ws.open","gen":\#($0)}"# }
            + Self.lines(n) { #"{"t":\#(n + $0),"src":"d","ev":"ws.open","gen":1}"# }
            + Self.lines(n) {
                #"{"t":\#(2 * n + $0),"src":"d","ev":"ws.reconnect","attempt":1,"delay_ms":100}"#
            }
        let (result, elapsed) = try Self.runBuiltin(
            "reconnect.not-while-open", log, path: "open.jsonl")
        #expect(result.violations.count == n)
        #expect(
            result.violations.first?.message
                == "ws.reconnect while generation 0 is connected (opened at t=0)")
        #expect(result.inconclusive.isEmpty)
        #expect(elapsed < .seconds(30), "took \(elapsed)")
    }

    /// Every event of its own stream, named by no rule: each stream is found by its name in a
    /// table, not compared with every stream met before.
    @Test func aHundredThousandStreamsNoRuleNamesAreFoundInLinearTime() throws {
        let n = 100_000
        let log = Self.lines(n) { #"{"t":\#($0),"src":"d","ev":"s\#($0).x","gen":1}"# }
        let (result, elapsed) = try Self.runBuiltin(
            "ws.single-live-connection", log, path: "streams.jsonl")
        #expect(result.violations.isEmpty)
        #expect(result.inconclusive.isEmpty)
        // Comparing each new stream with all before it is 5 billion text compares here.
        #expect(elapsed < .seconds(30), "took \(elapsed)")
    }

    // MARK: - The work limit

    /// A `forbid` whose two steps match every event keeps a match per event, and each event is
    /// compared with all of them: the rule stops at the limit, with one finding saying so, where.
    @Test func aRuleOfOnesOwnThatWouldBeQuadraticStopsAtTheWorkLimit() throws {
        let rules = try Self.everyPair()
        let n = 40_000
        // t never falls: no pair completes, and every ping is tried against every earlier one.
        let log = Self.lines(n) { #"{"t":\#($0),"src":"d","ev":"ws.ping","gen":1}"# }
        let (report, elapsed) = Self.timed { RuleRuns.audit(rules, log, path: "pairs.jsonl") }
        let result = try Self.result(report, "my.every-pair")
        #expect(result.status == .inconclusive)
        #expect(result.violations.isEmpty)
        let stop = try #require(result.inconclusive.first)
        #expect(result.inconclusive.count == 1)
        #expect(stop.message.contains("work limit"), "\(stop.message)")
        #expect(stop.message.contains("\(Runner.workBase)"))
        // Where: the first event past base + per-event units, k(k-1)/2 pairs tried by the k-th.
        let line = try #require(stop.line)
        let k = Double(line)
        #expect(k * (k - 1) / 2 > Double(Runner.workBase + Runner.workPerEvent * line))
        #expect((k - 1) * (k - 2) / 2 <= Double(Runner.workBase + Runner.workPerEvent * (line - 1)))
        #expect(elapsed < .seconds(60), "took \(elapsed)")
    }

    /// A history call scanning everything before each event is charged per event compared.
    @Test func aScanningHistoryCallStopsAtTheWorkLimit() throws {
        let rules = try RuleRuns.rules(
            [
                """
                id: my.scan
                title: Scans the past
                for: source
                every: { ev: ws.ping, as: p }
                expect: "count({ev: ws.ping, where: 't > p.t'}) == 0"
                """
            ], file: "my.yaml")
        let log = Self.lines(40_000) { #"{"t":\#($0),"src":"d","ev":"ws.ping","gen":1}"# }
        let (report, elapsed) = Self.timed { RuleRuns.audit(rules, log, path: "scan.jsonl") }
        let result = try Self.result(report, "my.scan")
        #expect(result.violations.isEmpty)
        #expect(result.inconclusive.count == 1)
        #expect(result.inconclusive.first?.message.contains("work limit") == true)
        #expect(elapsed < .seconds(60), "took \(elapsed)")
    }

    /// A regex that takes pattern × text steps on a long field: the rule stops at the regex step
    /// limit (lowered here: a debug build takes about 0.3 µs a step), at the event that passed it,
    /// and reports nothing it decided with an undecided search.
    @Test func aRegexThatWouldTakeMinutesStopsAtTheRegexStepLimit() throws {
        let rules = try RuleRuns.rules(
            [
                """
                id: my.regex
                title: No such reason
                for: source
                every: { ev: ws.close }
                expect: "not matches(reason, '(a|aa|aaa|aaaa){1000}c')"
                """
            ], file: "my.yaml")
        let field = String(repeating: "a", count: 100_000) + "c"
        let log = Self.lines(5) {
            #"{"t":\#($0),"src":"d","ev":"ws.close","gen":\#($0),"reason":"\#(field)"}"#
        }
        let steps = 2_000_000
        let (report, elapsed) = Self.timed {
            RegexStepBudget.$perTimeline.withValue(steps) {
                RuleRuns.audit(rules, log, path: "regex.jsonl")
            }
        }
        let result = try Self.result(report, "my.regex")
        #expect(result.violations.isEmpty)
        let stop = try #require(result.inconclusive.first)
        #expect(result.inconclusive.count == 1)
        #expect(
            stop.message.contains("regex step limit") && stop.message.contains("\(steps)"),
            "\(stop.message)")
        #expect(stop.line == 1)
        #expect(elapsed < .seconds(60), "took \(elapsed)")
    }

    /// Below the limit nothing changes: the same rule on a short log judges every event.
    @Test func aShortLogStaysBelowTheLimit() throws {
        let rules = try Self.everyPair()
        let log = Self.lines(500) { #"{"t":\#(500 - $0),"src":"d","ev":"ws.ping","gen":1}"# }
        let result = try Self.result(
            RuleRuns.audit(rules, log, path: "short.jsonl"), "my.every-pair")
        #expect(result.violations.count == 499)
        #expect(result.inconclusive.isEmpty)
    }
}

import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A runner keeps only its earliest deadline on the source's clock: an obligation answered in
/// time costs the clock nothing, and every deadline is still decided at the first event past it.
@Suite struct ObligationDeadlinesOnTheClockTests {
    static func rule(_ body: String) throws -> CompiledRule {
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
        let text = "rules:\n  - " + lines.joined(separator: "\n    ") + "\n"
        let rule = try #require(
            try RuleLoader.load(files: [("rules/clock.yaml", text)]).rules.first)
        return CompiledRule(rule: rule, index: 0, overrides: [:])
    }

    /// A runner of `compiled` on a clock of its own, fed as a source's evaluation feeds it.
    final class Feeder {
        let clock = SourceClock()
        let runner: SequenceRunner
        let sink = FindingSink(files: ["a.jsonl"])
        let scope = ContextScope(context: TimelineContext(source: nil), stream: nil, gen: 1)
        var seq = 0
        /// The most deadlines the clock held after any event.
        var most = 0

        init(_ compiled: CompiledRule) {
            runner = SequenceRunner(compiled, files: ["a.jsonl"])
            runner.clock = clock
        }

        func feed(_ ev: String, _ t: Double, fields: [Event.Field] = []) {
            let e = Event(
                t: t, ev: ev, gen: 1, file: 0, line: seq + 1, fields: fields,
                evID: EvNames.id(ev))
            e.seq = seq
            seq += 1
            runner.observe(e, context: scope, sink: sink)
            clock.advance(to: t, seq: e.seq, sink: sink)
            most = max(most, clock.scheduledCount)
        }

        var violations: Int { sink.violations[0]?.count ?? 0 }
    }

    static let timeout = """
        id: t.timeout
        title: timeout
        each: { ev: ws.ping, as: p }
        followed_by: { ev: ws.close, where: "t >= p.t + 1000" }
        within_ms: 1000
        unless: { ev: ws.pong, where: "t < p.t + 1000" }
        """

    @Test func answeredObligationsLeaveAFewDeadlinesOnTheClock() throws {
        let feeder = Feeder(try Self.rule(Self.timeout))
        for i in 0..<2_000 {
            feeder.feed("ws.ping", Double(i * 100))
            feeder.feed("ws.pong", Double(i * 100 + 10))
        }
        #expect(feeder.violations == 0)
        // One deadline per obligation would be ten at once (a second of pings, 100 ms apart).
        #expect(feeder.most <= 2)
    }

    @Test func aDeadlineBehindAnAnsweredOneIsDecidedAtTheFirstEventPastIt() throws {
        let feeder = Feeder(try Self.rule(Self.timeout))
        feeder.feed("ws.ping", 0)
        feeder.feed("ws.pong", 10)
        // Its deadline (1100) waits behind the answered one (1000) on the clock.
        feeder.feed("ws.ping", 100)
        feeder.feed("app.tick", 1_000.5)
        feeder.feed("app.tick", 1_100)
        #expect(feeder.violations == 0)
        feeder.feed("app.tick", 1_100.5)
        #expect(feeder.violations == 1)
    }

    @Test func anEarlierDeadlineOpenedLaterStillWakesTheRunner() throws {
        let feeder = Feeder(
            try Self.rule(
                """
                id: t.varying
                title: varying
                each: { ev: ws.ping, as: p }
                followed_by: { ev: ws.close }
                within_ms: "p.ms"
                """))
        feeder.feed("ws.ping", 0, fields: [Event.Field("ms", .int(1_000))])
        feeder.feed("ws.ping", 10, fields: [Event.Field("ms", .int(100))])
        feeder.feed("app.tick", 110)
        #expect(feeder.violations == 0)
        feeder.feed("app.tick", 111)
        #expect(feeder.violations == 1)
        feeder.feed("app.tick", 1_000)
        #expect(feeder.violations == 1)
        feeder.feed("app.tick", 1_001)
        #expect(feeder.violations == 2)
    }
}

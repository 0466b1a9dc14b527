import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A runner with a deadline still on the source's clock is never set back for another
/// generation (``Runner/baseCanBeSetBack``): the clock would wake it with the retired
/// generation's scope. The clock counts each runner's deadlines (``Runner/clockEntries``), so a
/// deadline left there after the runner's obligations were all answered still counts.
@Suite struct RunnersOnTheClockNotSetBackTests {
    private static let timeout = """
        rules:
          - id: t.timeout
            title: timeout
            each: { ev: ws.ping, as: p }
            followed_by: { ev: ws.close, where: "t >= p.t + 1000" }
            within_ms: 1000
            unless: { ev: ws.pong, where: "t < p.t + 1000" }
        """

    private static func runner() throws -> (SequenceRunner, SourceClock) {
        let rule = try #require(
            try RuleLoader.load(files: [("rules/clock.yaml", timeout)]).rules.first)
        let runner = SequenceRunner(
            CompiledRule(rule: rule, index: 0, overrides: [:]), files: ["a.jsonl"])
        let clock = SourceClock()
        runner.clock = clock
        return (runner, clock)
    }

    @Test func aDeadlineLeftOnTheClockKeepsTheRunnerFromBeingSetBack() throws {
        let (runner, clock) = try Self.runner()
        let sink = FindingSink(files: ["a.jsonl"])
        let scope = ContextScope(context: TimelineContext(source: nil), stream: nil, gen: 1)
        var seq = 0
        func feed(_ ev: String, _ t: Double) {
            let e = Event(
                t: t, ev: ev, gen: 1, file: 0, line: seq + 1, fields: [], evID: EvNames.id(ev))
            e.seq = seq
            seq += 1
            runner.observe(e, context: scope, sink: sink)
            clock.advance(to: t, seq: e.seq, sink: sink)
        }
        // A ping, then one at a lower t: its earlier deadline (1000) goes on the clock beside
        // the first one's (2000). A pong answers both.
        feed("ws.ping", 1000)
        feed("ws.ping", 0)
        feed("ws.pong", 10)
        #expect(runner.clockEntries == clock.scheduledCount)
        // Past the earlier deadline: the runner has nothing open, and 2000 is still on the clock.
        feed("app.tick", 1500)
        #expect(clock.scheduledCount == 1)
        #expect(runner.clockEntries == 1)
        #expect(!runner.canBeSetBack)
        // Past the last one: nothing of the runner's is on the clock.
        feed("app.tick", 2500)
        #expect(clock.scheduledCount == 0)
        #expect(runner.clockEntries == 0)
        #expect(runner.canBeSetBack)
        #expect(sink.violations[0]?.count ?? 0 == 0)
    }

    @Test func deadlinesMovedToAnotherClockStayCounted() throws {
        let (runner, replay) = try Self.runner()
        let scope = ContextScope(context: TimelineContext(source: nil), stream: nil, gen: 1)
        replay.schedule(10, runner: runner, scope: scope)
        replay.schedule(20, runner: runner, scope: scope)
        #expect(runner.clockEntries == 2)
        let source = SourceClock()
        replay.move(to: source)
        #expect(runner.clockEntries == 2)
        #expect(!runner.canBeSetBack)
        source.advance(to: 15, sink: FindingSink(files: ["a.jsonl"]))
        #expect(runner.clockEntries == 1)
        source.advance(to: 25, sink: FindingSink(files: ["a.jsonl"]))
        #expect(runner.clockEntries == 0)
        #expect(runner.canBeSetBack)
    }
}

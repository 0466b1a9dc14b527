import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A runner with a deadline still on the source's clock is never set back for another
/// generation (``Runner/baseCanBeSetBack``): the clock would wake it with the retired
/// generation's scope. The clock counts each runner's deadlines (``Runner/clockEntries``), so a
/// deadline left there after the runner's obligations were all answered still counts.
@Suite struct RunnersOnTheClockNotSetBackTests {
    private typealias Feeder = ObligationDeadlinesOnTheClockTests.Feeder

    private static func feeder() throws -> Feeder {
        Feeder(
            try ObligationDeadlinesOnTheClockTests.rule(ObligationDeadlinesOnTheClockTests.timeout))
    }

    @Test func aDeadlineLeftOnTheClockKeepsTheRunnerFromBeingSetBack() throws {
        let feeder = try Self.feeder()
        let (runner, clock) = (feeder.runner, feeder.clock)
        // A ping, then one at a lower t: its earlier deadline (1000) goes on the clock beside
        // the first one's (2000). A pong answers both.
        feeder.feed("ws.ping", 1000)
        feeder.feed("ws.ping", 0)
        feeder.feed("ws.pong", 10)
        #expect(runner.clockEntries == clock.scheduledCount)
        // Past the earlier deadline: the runner has nothing open, and 2000 is still on the clock.
        feeder.feed("app.tick", 1500)
        #expect(clock.scheduledCount == 1)
        #expect(runner.clockEntries == 1)
        #expect(!runner.canBeSetBack)
        // Past the last one: nothing of the runner's is on the clock.
        feeder.feed("app.tick", 2500)
        #expect(clock.scheduledCount == 0)
        #expect(runner.clockEntries == 0)
        #expect(runner.canBeSetBack)
        #expect(feeder.violations == 0)
    }

    @Test func deadlinesMovedToAnotherClockStayCounted() throws {
        let feeder = try Self.feeder()
        let (runner, replay, scope) = (feeder.runner, feeder.clock, feeder.scope)
        replay.schedule(10, runner: runner, scope: scope)
        replay.schedule(20, runner: runner, scope: scope)
        #expect(runner.clockEntries == 2)
        let source = SourceClock()
        replay.move(to: source)
        #expect(runner.clockEntries == 2)
        #expect(!runner.canBeSetBack)
        source.advance(to: 15, sink: feeder.sink)
        #expect(runner.clockEntries == 1)
        source.advance(to: 25, sink: feeder.sink)
        #expect(runner.clockEntries == 0)
        #expect(runner.canBeSetBack)
    }
}

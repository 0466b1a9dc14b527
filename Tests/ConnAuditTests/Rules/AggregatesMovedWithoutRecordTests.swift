import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A runner whose history is running aggregates alone (no list, no look-ahead, no regex) moves
/// them where it observes an event, without recording it: they answer as recorded ones do.
/// A rule with a list, or with a regex (a search may spend the runner's regex budget and stop
/// it at that event), records the event in full.
@Suite struct AggregatesMovedWithoutRecordTests {
    typealias Shared = StaticCallsAskedAlikeShareOneAggregateTests

    @Test(arguments: [
        ("count({ev: ws.ping}) > 1", true),
        ("count({ev: ws.ping}, since: {ev: ws.open}) > 0 and first({ev: ws.ping}).t > 0", true),
        ("last({ev: ws.ping, where: \\\"id == c.id\\\"}) != null", false),
        ("count({ev: ws.ping, where: \\\"matches(reason, 'a+b')\\\"}) > 0", false),
        ("count({ev: ws.ping}) > 0 and next({ev: ws.pong}) != null", false)
    ])
    func whichRunnersMoveAggregatesAlone(_ expect: String, _ alone: Bool) throws {
        let runner = BasicRunner(try Shared.compiled(expect), files: [])
        #expect(runner.movesAggregatesAlone == alone, "\(expect)")
    }

    /// Moved without a record, a count and a `first` across a `since` cut answer as recorded
    /// ones do.
    @Test func aggregatesMovedAloneAnswerAsRecordedOnes() throws {
        let expect =
            "count({ev: ws.ping}, since: {ev: ws.open}) > 0 and first({ev: ws.ping}).t > 0"
        let runner = BasicRunner(try Shared.compiled(expect), files: [])
        #expect(runner.movesAggregatesAlone)
        var seq = 0
        RunnerFeed.feed(runner, ["ws.ping", "ws.ping", "ws.open", "ws.ping"], seq: &seq)
        let state = try #require(runner.aggregateState)
        // The count since the open holds the one ping after it; the `first`, the first ping.
        #expect(state.map(\.count) == [1, 1])
        #expect(state.map { $0.first?.line } == [4, 1])
    }
}

import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A running aggregate read by `count`s alone keeps its count and no event; shared with a `first`
/// or a `last` asked alike, it is a `last`, which keeps the first and last match as well.
@Suite struct CountAggregatesHoldNoEventTests {
    typealias Shared = StaticCallsAskedAlikeShareOneAggregateTests

    @Test(arguments: [
        ("count({ev: ws.ping}) > 1", HistoryCall.Kind.count),
        ("count({ev: ws.ping}) > 1 and count({ev: ws.ping}) < 9", .count),
        ("count({ev: ws.ping}) > 1 and first({ev: ws.ping}) != null", .last),
        ("first({ev: ws.ping}) != null and count({ev: ws.ping}) > 1", .last),
        ("count({ev: ws.ping}) > 1 and last({ev: ws.ping}) != null", .last),
        ("first({ev: ws.ping}) != null and last({ev: ws.ping}) != null", .last),
        ("first({ev: ws.ping}) != null", .first)
    ])
    func aSharedAggregateKeepsWhatEachCallReads(_ expect: String, _ kind: HistoryCall.Kind)
        throws
    {
        let rule = try Shared.compiled(expect)
        #expect(rule.staticCalls.map(\.kind) == [kind], "\(expect)")
    }

    /// After two pings: the count's aggregate holds no ping; one shared with a `first` holds
    /// the first and the last.
    @Test func aCountAloneHoldsNoEvent() throws {
        for (expect, holds) in [
            ("count({ev: ws.ping}) > 1", false),
            ("count({ev: ws.ping}) > 1 and first({ev: ws.ping}) != null", true)
        ] {
            let runner = BasicRunner(try Shared.compiled(expect), files: [])
            var seq = 0
            RunnerFeed.feed(runner, ["ws.ping", "ws.ping"], seq: &seq)
            let state = try #require(runner.aggregateState, "\(expect)")
            #expect(state.map(\.count) == [2], "\(expect)")
            #expect(state.map { $0.first?.line } == [holds ? 1 : nil], "\(expect)")
            #expect(state.map { $0.last?.line } == [holds ? 2 : nil], "\(expect)")
        }
    }

    /// A `count` and a `first` asked alike answer as each would alone, across a `since` cut.
    @Test func aCountSharedWithAFirstAnswersBoth() throws {
        let expect =
            "count({ev: ws.ping}, since: {ev: ws.open}) == 2"
            + " and first({ev: ws.ping}, since: {ev: ws.open}).id == 1"
        #expect(try Shared.failingCloses(expect) == ["b"])
    }
}

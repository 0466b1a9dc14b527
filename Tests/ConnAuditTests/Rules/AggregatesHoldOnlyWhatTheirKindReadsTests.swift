import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A running aggregate holds only the events a call of its kind reads: a `first` its first match,
/// a `last` its first and last, a `maxof` or `minof` none (each event held is a retain, and a
/// release when it is replaced or the aggregate is set back by its `since`).
@Suite struct AggregatesHoldOnlyWhatTheirKindReadsTests {
    typealias Shared = StaticCallsAskedAlikeShareOneAggregateTests

    /// After two pings (lines 1 and 2): the lines of the first and last events each holds.
    @Test(
        arguments: [
            ("first({ev: ws.ping}) != null", HistoryCall.Kind.first, 1, nil),
            ("last({ev: ws.ping}) != null", .last, 1, 2),
            ("first({ev: ws.ping}) != null and last({ev: ws.ping}) != null", .last, 1, 2),
            ("maxof({ev: ws.ping}, t) != null", .maxof, nil, nil),
            ("minof({ev: ws.ping}, t) != null", .minof, nil, nil)
        ] as [(String, HistoryCall.Kind, Int?, Int?)])
    func anAggregateHoldsWhatItsKindReads(
        _ expect: String, _ kind: HistoryCall.Kind, _ first: Int?, _ last: Int?
    ) throws {
        let compiled = try Shared.compiled(expect)
        #expect(compiled.staticCalls.map(\.kind) == [kind], "\(expect)")
        let runner = BasicRunner(compiled, files: [])
        var seq = 0
        RunnerFeed.feed(runner, ["ws.ping", "ws.ping"], seq: &seq)
        let state = try #require(runner.aggregateState, "\(expect)")
        // A `first` stops moving once found: it counts its first match alone.
        #expect(state.map(\.count) == [kind == .first ? 1 : 2], "\(expect)")
        #expect(state.map { $0.first?.line } == [first], "\(expect)")
        #expect(state.map { $0.last?.line } == [last], "\(expect)")
    }

    /// The answers are the same: `maxof` and `minof` of `id` over two pings, and a `first` read
    /// through its field, across a `since` cut.
    @Test func theAnswersAreTheSame() throws {
        let expect =
            "maxof({ev: ws.ping}, id) == 2 and minof({ev: ws.ping}, id) == 1"
            + " and first({ev: ws.ping}, since: {ev: ws.open}).id == 1"
        #expect(try Shared.failingCloses(expect) == ["b"])
    }
}

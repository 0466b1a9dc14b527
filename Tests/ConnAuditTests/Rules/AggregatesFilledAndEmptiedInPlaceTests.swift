import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A running aggregate's first event is written in place of the nil it replaces, and a runner set
/// back empties its aggregates field by field (``Runner/emptyAggregates()``): an event is retained
/// once for each field that holds it, so it is freed as soon as nothing else holds it, and a runner set back holds none
/// of the generation it judged and answers as a new runner does.
@Suite struct AggregatesFilledAndEmptiedInPlaceTests {
    typealias Shared = StaticCallsAskedAlikeShareOneAggregateTests

    /// Feeds events of `names` to `runner` (lines from `line` on), keeping each only weakly.
    static func feed(
        _ runner: Runner, _ names: [String], line: inout Int, held: inout [Weak]
    ) {
        let scope = ContextScope(context: TimelineContext(source: nil, enabled: false))
        let sink = FindingSink(files: ["t"])
        for ev in names {
            line += 1
            let e = Event(t: Double(line), ev: ev, gen: 1, line: line)
            e.seq = line
            held.append(Weak(e))
            runner.observe(e, context: scope, sink: sink)
        }
    }

    final class Weak {
        weak var event: Event?
        init(_ e: Event) { event = e }
    }

    /// The lines of the events still alive.
    static func alive(_ held: [Weak]) -> [Int] { held.compactMap { $0.event?.line } }

    @Test(
        arguments: [
            ("first({ev: ws.ping}, since: {ev: ws.open}) != null", [5]),
            ("last({ev: ws.ping}, since: {ev: ws.open}) != null", [5, 6])
        ] as [(String, [Int])])
    func eachEventHeldIsHeldOnce(_ expect: String, _ alive: [Int]) throws {
        // Without the cross-check, which keeps every event given (on in debug builds).
        try HistoryCrossCheck.$isOn.withValue(false) { try heldOnce(expect, alive) }
    }

    private func heldOnce(_ expect: String, _ alive: [Int]) throws {
        var runner: BasicRunner? = BasicRunner(try Shared.compiled(expect), files: [])
        var line = 0
        var events: [Weak] = []
        // Pings at lines 1 and 3, an open at 4 (the `since` cut), pings at 5 and 6.
        Self.feed(
            runner!, ["ws.ping", "ws.pong", "ws.ping", "ws.open", "ws.ping", "ws.ping"],
            line: &line, held: &events)
        // The first (and a `last`'s latest) of the stretch after the cut is held; the cut let
        // go of what the stretch before it held.
        #expect(Self.alive(events) == alive, "\(expect)")
        // Read without keeping a copy of the aggregates (which would hold their events).
        #expect(try #require(runner!.aggregateState).map { $0.first?.line } == [5], "\(expect)")
        runner = nil
        #expect(Self.alive(events) == [], "\(expect)")
    }

    @Test func aRunnerSetBackHoldsNoEventOfItsGenerationAndAnswersAsANewOne() throws {
        try HistoryCrossCheck.$isOn.withValue(false) { try setBackHoldsNone() }
    }

    private func setBackHoldsNone() throws {
        let expect =
            "first({ev: ws.ping}) != null and last({ev: ws.ping}) != null"
            + " and maxof({ev: ws.ping}, t) != null and count({ev: ws.pong}) > 0"
        let compiled = try Shared.compiled(expect)
        let runner = BasicRunner(compiled, files: [])
        var line = 0
        var events: [Weak] = []
        Self.feed(
            runner, ["ws.ping", "ws.pong", "ws.ping", "ws.ping"], line: &line, held: &events)
        // The pings' aggregate holds the first and the last.
        #expect([1, 4].allSatisfy(Self.alive(events).contains))
        #expect(runner.canBeSetBack)
        runner.setBack()
        #expect(Self.alive(events) == [])
        #expect(runner.aggregateState == nil)
        // The next generation: the same answers as a new runner's, event for event.
        let new = BasicRunner(compiled, files: [])
        var next: [Weak] = []
        var newLine = line
        Self.feed(runner, ["ws.pong", "ws.ping", "ws.ping"], line: &line, held: &next)
        Self.feed(new, ["ws.pong", "ws.ping", "ws.ping"], line: &newLine, held: &next)
        let a = try #require(runner.aggregateState)
        let b = try #require(new.aggregateState)
        #expect(a.map(\.count) == b.map(\.count))
        #expect(a.map { $0.first?.line } == b.map { $0.first?.line })
        #expect(a.map { $0.last?.line } == b.map { $0.last?.line })
        #expect(a.map { $0.max } == b.map { $0.max })
    }
}

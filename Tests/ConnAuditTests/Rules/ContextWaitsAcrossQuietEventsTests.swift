import Testing

@testable import ConnAudit

/// A source's context ring takes an event the short way only while no finding waits and no text
/// is pending (``TimelineContext``'s one flag). A finding that starts waiting gets its later
/// neighbours, events of other generations and without one coming between; once served, later
/// events take the short way again, and a finding that starts waiting after that is served too.
@Suite struct ContextWaitsAcrossQuietEventsTests {
    @Test func findingsWaitingOneAfterTheOtherGetTheirNeighbours() {
        let context = TimelineContext(source: nil)
        let sink = FindingSink(files: ["t"])
        sink.violations[0] = [Finding(message: "first"), Finding(message: "second")]
        let scope = ContextScope(context: context, stream: "ws", gen: 1)
        var seq = 0
        func record(_ ev: String, gen: UInt64?) {
            seq += 1
            let e = Event(t: Double(seq), ev: ev, gen: gen, line: seq)
            e.seq = seq
            context.record(e, sink: sink)
        }
        for _ in 0..<3 { record("ws.ping", gen: 1) }
        // Made at the event being processed: it waits from the event after it.
        context.awaitAfter(violation: true, rule: 0, index: 0, scope: scope)
        record("ws.ping", gen: 1)
        record("app.tick", gen: nil)
        record("ws.ping", gen: 2)
        record("ws.pong", gen: 1)
        for _ in 0..<3 { record("ws.ping", gen: 1) }
        #expect(sink.violations[0]?[0].context.map(\.line) == [7, 8])
        context.awaitAfter(violation: true, rule: 0, index: 1, scope: scope)
        record("app.tick", gen: nil)
        record("ws.close", gen: 1)
        record("ws.closed", gen: 1)
        record("ws.connect", gen: 1)
        #expect(sink.violations[0]?[0].context.map(\.line) == [7, 8])
        #expect(sink.violations[0]?[1].context.map(\.line) == [12, 13])
    }

    /// A text rendered for a finding's context is pending until the next event joins the ring:
    /// the event after it takes the long way once, then the short one again.
    @Test func aPendingTextIsLetGoAtTheNextEvent() {
        let context = TimelineContext(source: nil)
        let sink = FindingSink(files: ["t"])
        let scope = ContextScope(context: context)
        var events: [Event] = []
        for i in 1...4 {
            let e = Event(t: Double(i), ev: "x.step", line: i)
            e.seq = i
            events.append(e)
            context.record(e, sink: sink)
        }
        let outside = Event(t: 5, ev: "x.late", line: 5)
        outside.seq = 5
        let (lines, _) = context.lines(anchor: outside, scope: scope)
        #expect(lines.map(\.line) == [3, 4, 5])
        context.record(outside, sink: sink)
        let next = Event(t: 6, ev: "x.step", line: 6)
        next.seq = 6
        context.record(next, sink: sink)
        let (again, _) = context.lines(anchor: outside, scope: scope)
        #expect(again.map(\.line) == [3, 4, 5, 6])
        #expect(again.first { $0.isAnchor }?.text == "t=5 x.late")
    }
}

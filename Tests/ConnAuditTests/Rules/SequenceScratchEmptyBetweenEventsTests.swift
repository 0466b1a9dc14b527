import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A sequence runner's scratch is of one event and empty between events. It gathers the
/// partials an event grows or starts in its own list (``SequenceRunner/grown``), used in place:
/// every one of them moves out to its stage or to a complete match before the event is done, so
/// no partial of one event is taken up by the next. The keys that tell apart the complete matches
/// of one event (``SequenceRunner/isNewMatch(_:)``) are emptied once its grown partials are
/// taken, and an event that grows nothing leaves them as they are, empty.
@Suite struct SequenceScratchEmptyBetweenEventsTests {
    private static func rule(_ body: String) throws -> CompiledRule {
        let rule = try #require(try RuleRuns.rules([body], file: "rules/seq.yaml").first)
        return CompiledRule(rule: rule, index: 0, overrides: [:])
    }

    /// Feeds `events` (ev, t) of generation 1 to a fresh runner of `compiled`, checking the
    /// scratch after each: the number of events after which the grown list or the match keys
    /// held anything.
    private static func feed(_ compiled: CompiledRule, _ events: [(String, Double)]) -> (
        runner: SequenceRunner, sink: FindingSink, leftOver: Int
    ) {
        let runner = SequenceRunner(compiled, files: ["a.jsonl"])
        let sink = FindingSink(files: ["a.jsonl"])
        let scope = ContextScope(context: TimelineContext(source: nil), stream: nil, gen: 1)
        var leftOver = 0
        for (n, event) in events.enumerated() {
            let e = Event(
                t: event.1, ev: event.0, gen: 1, file: 0, line: n + 1, fields: [],
                evID: EvNames.id(event.0))
            e.seq = n
            runner.observe(e, context: scope, sink: sink)
            if !runner.grown.isEmpty || runner.firstMatchKey != nil || !runner.matchKeys.isEmpty {
                leftOver += 1
            }
        }
        return (runner, sink, leftOver)
    }

    @Test func startsGrowthsAndMatchesLeaveTheListEmpty() throws {
        // ws.late-pong-ignored's shape: a ping starts a partial, a late pong grows it, the next
        // ping completes it (and starts one more).
        let compiled = try Self.rule(
            """
            id: t.late
            title: late pong
            forbid:
              - { ev: ws.ping, as: p }
              - { ev: ws.pong, as: q, where: "t >= p.t + 1000", without: { ev: [ws.pong, ws.close] } }
              - { ev: ws.ping, without: { ev: [ws.close, ws.ping] } }
            """)
        let events: [(String, Double)] = [
            ("ws.ping", 100), ("ws.pong", 1_200), ("ws.ping", 1_300), ("ws.pong", 1_350),
            ("ws.ping", 1_400), ("ws.pong", 2_500), ("ws.ping", 2_600)
        ]
        let (runner, sink, leftOver) = Self.feed(compiled, events)
        #expect(leftOver == 0)
        #expect(runner.grown.isEmpty)
        // The late pongs at 1,200 and 2,500 are each followed by a ping: two violations.
        #expect(sink.violations[0]?.count == 2)
    }

    @Test func anEventThatGrowsSeveralPartialsLeavesTheListEmpty() throws {
        // Every ping waits for a pong (the last step reads its capture: the partials differ); one
        // pong grows them all at once, in the order they opened.
        let compiled = try Self.rule(
            """
            id: t.each
            title: each ping answered
            forbid:
              - { ev: ws.ping, as: p }
              - { ev: ws.pong, as: q }
              - { ev: ws.close, where: "t > p.t" }
            """)
        let pings = (1...20).map { ("ws.ping", Double($0)) }
        let (runner, sink, leftOver) = Self.feed(
            compiled, pings + [("ws.pong", 30), ("ws.close", 40)])
        #expect(leftOver == 0)
        #expect(runner.grown.isEmpty)
        // Each ping's match ends at the one close, its anchor: reported once.
        #expect(sink.violations[0]?.count == 1)
    }

    @Test func matchesOfOneEventLeaveNoKeysForTheNext() throws {
        // Two triggers wait for one `go`: it completes two matches (their keys differ by `s`, which
        // `followed_by` reads), each opening an obligation; `a.other` grows nothing.
        let compiled = try Self.rule(
            """
            id: t.keys
            title: keys
            each:
              - { ev: a.start, as: s }
              - { ev: a.go, as: g }
            followed_by: { ev: a.done, where: "t > s.t" }
            """)
        let events: [(String, Double)] = [
            ("a.start", 100), ("a.start", 200), ("a.go", 300), ("a.other", 350), ("a.go", 400)
        ]
        let (runner, _, leftOver) = Self.feed(compiled, events)
        #expect(leftOver == 0)
        // Each `go` completes a match with each trigger: four obligations, none answered.
        #expect(runner.obligations.live == 4)
    }
}

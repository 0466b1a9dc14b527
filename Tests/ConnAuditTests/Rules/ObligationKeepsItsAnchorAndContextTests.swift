import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A complete trigger match gives its anchor and its context (the match's captures, its lets
/// frozen) to the obligation it opens: the obligation's finding points at the anchor and its
/// message reads the captures, however late it is decided. With `report_at`, one obligation at
/// a time is open per anchor.
@Suite struct ObligationKeepsItsAnchorAndContextTests {
    private static func runner(_ body: String) throws -> SequenceRunner {
        let rule = try #require(try RuleRuns.rules([body], file: "rules/seq.yaml").first)
        return SequenceRunner(
            CompiledRule(rule: rule, index: 0, overrides: [:]), files: ["a.jsonl"])
    }

    /// Feeds `(ev, t)` events of generation 1, then ends the timeline.
    private static func feed(_ events: [(String, Double)], to runner: SequenceRunner)
        -> FindingSink
    {
        let sink = FindingSink(files: ["a.jsonl"])
        let scope = ContextScope(context: TimelineContext(source: nil), stream: nil, gen: 1)
        for (i, event) in events.enumerated() {
            let e = Event(
                t: event.1, ev: event.0, gen: 1, file: 0, line: i + 1, fields: [],
                evID: EvNames.id(event.0))
            e.seq = i
            runner.observe(e, context: scope, sink: sink)
        }
        runner.finish(context: scope, first: nil, lastT: events.last?.1, sink: sink)
        return sink
    }

    @Test func aFailedObligationPointsAtItsAnchorWithItsCaptures() throws {
        let runner = try Self.runner(
            """
            id: t.answer
            title: answer
            each: [{ ev: x.a, as: a }, { ev: x.b, as: b }]
            followed_by: { ev: x.c }
            within_ms: 100
            message: "a at {a.t}, b at {b.t}"
            """)
        let sink = Self.feed(
            [("x.a", 1), ("x.b", 2), ("x.c", 3), ("x.a", 10), ("x.b", 20), ("x.d", 500)],
            to: runner)
        // The x.b at 20 completes the matches of both x.a: they share their anchor, and the
        // first one's captures are shown.
        let found = try #require(sink.violations[0])
        #expect(found.map(\.line) == [5])
        #expect(found.map(\.message) == ["a at 1, b at 20"])
    }

    @Test func withReportAtOneObligationIsOpenPerAnchor() throws {
        let runner = try Self.runner(
            """
            id: t.anchor
            title: anchor
            each: [{ ev: x.a, as: a }, { ev: x.b, as: b }]
            report_at: a
            followed_by: { ev: x.c }
            within_ms: 100
            message: "a at {a.t}, b at {b.t}"
            """)
        let sink = Self.feed(
            [("x.a", 1), ("x.b", 2), ("x.b", 3), ("x.d", 500)], to: runner)
        // The second x.b completes another match of the same anchor: no second obligation.
        let found = try #require(sink.violations[0])
        #expect(found.map(\.line) == [1])
        #expect(found.map(\.message) == ["a at 1, b at 2"])
    }
}

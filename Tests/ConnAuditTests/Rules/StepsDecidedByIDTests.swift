import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// A step that tests `ev` names alone is decided by the event's id, with no evaluation context
/// (``SequenceRunner/matchByID(_:_:)``): it says what the full evaluation says.
@Suite struct StepsDecidedByIDTests {
    private static func rule(_ body: String) throws -> CompiledRule {
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
        let text = "rules:\n  - " + lines.joined(separator: "\n    ") + "\n"
        let rule = try #require(try RuleLoader.load(files: [("rules/seq.yaml", text)]).rules.first)
        return CompiledRule(rule: rule, index: 0, overrides: [:])
    }

    /// Feeds `(ev, k)` events (t = their place) of generation 1 to a runner of `compiled`, with
    /// steps decided by id where they can be (`byID`) or every one evaluated.
    private static func feed(
        _ compiled: CompiledRule, _ events: [(String, Int)], byID: Bool
    ) -> (SequenceRunner, FindingSink) {
        feed(compiled, events) { runner in
            if !byID {
                runner.stepsByID = 0
                runner.withoutsByID = 0
            }
        }
    }

    /// Feeds `(ev, k)` events (t = their place) of generation 1 to a runner of `compiled`, set
    /// up by `setUp` before the first event.
    static func feed(
        _ compiled: CompiledRule, _ events: [(String, Int)], setUp: (SequenceRunner) -> Void
    ) -> (SequenceRunner, FindingSink) {
        let runner = SequenceRunner(compiled, files: ["a.jsonl"])
        setUp(runner)
        let sink = FindingSink(files: ["a.jsonl"])
        let scope = ContextScope(context: TimelineContext(source: nil), stream: nil, gen: 1)
        for (i, event) in events.enumerated() {
            let e = Event(
                t: Double(i), ev: event.0, gen: 1, file: 0, line: i + 1,
                fields: [.init("k", .int(Int64(event.1)))], evID: EvNames.id(event.0))
            e.seq = i
            runner.observe(e, context: scope, sink: sink)
        }
        runner.finish(context: scope, first: nil, lastT: Double(events.count), sink: sink)
        return (runner, sink)
    }

    @Test func stepsOfNamesAloneAreDecidedByID() throws {
        // ws.late-pong-ignored's shape: the pong step reads a capture, the others names alone.
        let compiled = try Self.rule(
            """
            id: t.late
            title: late pong
            forbid:
              - { ev: ws.ping, as: p }
              - { ev: ws.pong, as: q, where: "t >= p.t + 1000", without: { ev: [ws.pong, ws.close] } }
              - { ev: ws.ping, without: { ev: [ws.close, ws.ping] } }
            """)
        let runner = SequenceRunner(compiled, files: ["a.jsonl"])
        #expect(runner.stepsByID == 0b101)
        #expect(runner.withoutsByID == 0b111)
        let killed = try Self.rule(
            """
            id: t.kill
            title: kill
            forbid:
              - { ev: ws.ping }
              - { ev: ws.ping, without: { ev: ws.pong, gen: 1 } }
            without: { ev: ws.close }
            """)
        let other = SequenceRunner(killed, files: ["a.jsonl"])
        #expect(other.stepsByID == 0b11)
        #expect(other.withoutsByID == 0b01)
    }

    @Test func aMatchByIDIsTheEvaluatorsTerm() throws {
        let compiled = try Self.rule(
            """
            id: t.terms
            title: terms
            forbid:
              - { ev: x.d }
              - { ev: x.d, without: [{ ev: x.a }, { ev: [x.b, x.c] }, { ev: x.c }] }
            """)
        let selector = try #require(compiled.steps[1].without)
        #expect(selector.matchesByIDAlone)
        for name in ["x.a", "x.b", "x.c", "x.d", "x.e"] {
            let e = Event(
                t: 0, ev: name, gen: 1, file: 0, line: 1, fields: [], evID: EvNames.id(name))
            let ctx = EvalContext(event: e, params: [:], history: nil, files: ["a.jsonl"])
            #expect(
                SequenceRunner.matchByID(selector, e)?.term
                    == Evaluator.matches(selector, e, ctx)?.term, "\(name)")
        }
    }

    /// Random logs through sequences with steps and `without`s of names alone, mixed with ones
    /// that read fields: the same findings either way.
    @Test(arguments: 0..<60)
    func stepsDecidedByIDChangeNoFinding(seed: Int) throws {
        let shapes = [
            """
            forbid:
              - { ev: x.ping }
              - { ev: x.ping, without: { ev: [x.pong, x.close] } }
            message: "{t}"
            """,
            """
            forbid:
              - { ev: x.ping, as: p }
              - { ev: x.pong, as: q, where: "k > p.k", without: { ev: [x.pong, x.close] } }
              - { ev: x.ping, without: { ev: [x.close, x.ping] } }
            message: "{q.t} {p.t}"
            """,
            """
            forbid:
              - { ev: [x.ping, x.pong], as: p }
              - { ev: x.close, without: { ev: x.ping, k: 2 } }
            without: [{ ev: x.pong }, { ev: x.ping, k: 3 }]
            report_at: p
            message: "{t}"
            """,
            """
            each:
              - { ev: x.ping, as: p }
              - { ev: x.pong, without: { ev: x.close } }
            never_after: { ev: x.ping, where: "k == p.k" }
            message: "{t} {p.t}"
            """,
            """
            each: { ev: x.ping, as: p }
            followed_by: { ev: x.pong, where: "k == p.k" }
            within_ms: 5
            unless: { ev: x.close }
            message: "{p.t}"
            """
        ]
        var random = SplitMix64(seed: UInt64(seed) &+ 0xB1D)
        let names = ["x.ping", "x.ping", "x.pong", "x.pong", "x.close"]
        let log = (0..<(20 + random.below(200))).map { _ in
            (names[random.below(names.count)], random.below(4))
        }
        for (n, shape) in shapes.enumerated() {
            let compiled = try Self.rule("id: t.s\(n)\ntitle: s\(n)\n" + shape)
            let (_, a) = Self.feed(compiled, log, byID: true)
            let (_, b) = Self.feed(compiled, log, byID: false)
            let found = { (s: FindingSink) in
                s.violations.values.flatMap { $0 }.map { "\($0.line ?? 0) \($0.message)" }.sorted()
            }
            #expect(found(a) == found(b), "shape \(n), seed \(seed)")
        }
    }
}

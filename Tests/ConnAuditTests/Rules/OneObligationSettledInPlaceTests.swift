import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// The one obligation open, asked by an event that may answer it and passes no deadline, is
/// settled in place (``SequenceRunner/settlesOneInPlace``): the same findings as the pass over
/// every open obligation.
@Suite struct OneObligationSettledInPlaceTests {
    private static func rule(_ body: String) throws -> CompiledRule {
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
        let text =
            "params: { T: 3 }\nlet:\n  D: \"params.T + 1\"\nrules:\n  - "
            + lines.joined(separator: "\n    ") + "\n"
        let rule = try #require(try RuleLoader.load(files: [("rules/seq.yaml", text)]).rules.first)
        return CompiledRule(rule: rule, index: 0, overrides: [:])
    }

    private static func findings(_ s: FindingSink) -> [String] {
        (s.violations.values.flatMap { $0 } + s.inconclusive.values.flatMap { $0 })
            .map { "\($0.line ?? 0) \($0.message)" }.sorted()
    }

    /// Random logs through response rules (a heartbeat's shape among them): the same findings
    /// with the one obligation settled in place and without.
    @Test(arguments: 0..<60)
    func settlingInPlaceChangesNoFinding(seed: Int) throws {
        let shapes = [
            """
            each: { ev: x.ping, as: p }
            followed_by: { ev: x.close, where: "t >= p.t + D" }
            within_ms: "D + 2"
            unless:
              - { ev: x.pong, where: "t < p.t + D" }
              - { ev: x.err, where: "t < p.t + D and count({ev: x.close}) == 0" }
            message: "{p.t}"
            """,
            """
            each: { ev: x.ping, as: p }
            followed_by: { ev: x.pong, where: "k == p.k" }
            within_ms: 4
            unless: { ev: x.close }
            report_at: p
            at_end: fail
            message: "{p.t} {p.k}"
            """,
            """
            each:
              - { ev: x.ping, as: p }
              - { ev: x.err }
            followed_by: { ev: x.pong }
            at_end: inconclusive
            message: "{p.t}"
            """
        ]
        var random = SplitMix64(seed: UInt64(seed) &+ 0x0B1)
        let names = ["x.ping", "x.ping", "x.pong", "x.pong", "x.close", "x.err", "x.other"]
        let log = (0..<(20 + random.below(200))).map { _ in
            (names[random.below(names.count)], random.below(3))
        }
        for (n, shape) in shapes.enumerated() {
            let compiled = try Self.rule("id: t.s\(n)\ntitle: s\(n)\n" + shape)
            let (inPlace, a) = StepsDecidedByIDTests.feed(compiled, log) { _ in }
            let (_, b) = StepsDecidedByIDTests.feed(compiled, log) {
                $0.settlesOneInPlace = false
            }
            #expect(Self.findings(a) == Self.findings(b), "shape \(n), seed \(seed)")
            if n == 0 { #expect(inPlace.settledInPlace > 0, "seed \(seed)") }
        }
    }

    /// Ping, pong: the pong answers the one obligation in place, and the next ping opens one.
    @Test func aPongAnswersThePingInPlace() throws {
        let compiled = try Self.rule(
            """
            id: t.hb
            title: heartbeat
            each: { ev: x.ping, as: p }
            followed_by: { ev: x.close }
            within_ms: 10
            unless: { ev: x.pong, where: "t < p.t + D" }
            """)
        let log = [("x.ping", 0), ("x.pong", 0), ("x.ping", 0), ("x.pong", 0), ("x.ping", 0)]
        let (runner, sink) = StepsDecidedByIDTests.feed(compiled, log) { _ in }
        #expect(runner.settledInPlace == 2)
        #expect(sink.violations.isEmpty)
        #expect(Self.findings(sink).count == 1)
        #expect(runner.obligations.live == 0)
    }
    /// Ping, pong, ping: the answered obligation stays in the list, dead, and the next ping's
    /// opens in its slot, with that ping as its anchor and capture.
    @Test func theNextObligationOpensInTheAnsweredOnesSlot() throws {
        let compiled = try Self.rule(
            """
            id: t.slot
            title: slot
            each: { ev: x.ping, as: p }
            followed_by: { ev: x.close }
            within_ms: 10
            unless: { ev: x.pong, where: "t < p.t + D" }
            """)
        let runner = SequenceRunner(compiled, files: ["a.jsonl"])
        let sink = FindingSink(files: ["a.jsonl"])
        let scope = ContextScope(context: TimelineContext(source: nil), stream: nil, gen: 1)
        func give(_ ev: String, _ i: Int) {
            let e = Event(t: Double(i), ev: ev, gen: 1, file: 0, line: i + 1, evID: EvNames.id(ev))
            e.seq = i
            runner.observe(e, context: scope, sink: sink)
        }
        give("x.ping", 0)
        give("x.pong", 1)
        #expect(runner.obligations.live == 0 && runner.obligations.items.count == 1)
        #expect(runner.obligations.items[0].dead)
        #expect(runner.obligations.heap.isEmpty)
        give("x.ping", 2)
        #expect(runner.obligations.live == 1 && runner.obligations.items.count == 1)
        let item = runner.obligations.items[0]
        #expect(!item.dead && item.anchor.t == 2 && item.context.captures["p"]?.t == 2)
        #expect(item.deadline == 12 && runner.obligations.heap.count == 1)
        give("x.ping", 3)
        #expect(runner.obligations.live == 2 && runner.obligations.items.count == 2)
        #expect(runner.settledInPlace == 1 && sink.violations.isEmpty)
    }
}

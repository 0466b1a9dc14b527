import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// A partial that starts where the first stage's partials all died opens in the slot the stage
/// kept (``SequenceRunner/reopen(_:on:)``): it holds nothing of the dead one, neither
/// its captures, its last event, its ordinal nor its origin.
@Suite struct StartReopensTheDeadSlotTests {
    /// A first step that binds `p` (the second step reads it), or binds nothing.
    private static func rule(binds: Bool) throws -> CompiledRule {
        let text = """
            rules:
              - id: t.reopen
                title: reopen
                for: generation
                forbid:
                  - { ev: [x.a, x.b], \(binds ? "as: p" : "k: { exists: true }") }
                  - { ev: x.e, as: r, where: "\(binds ? "p.k == k" : "k > 0")", without: { ev: x.kill } }
                  - { ev: x.f, without: { ev: x.stop } }
                message: "{r.t} {r.k}"

            """
        let rule = try #require(try RuleLoader.load(files: [("rules/t.yaml", text)]).rules.first)
        return CompiledRule(rule: rule, index: 0, overrides: [:])
    }

    private static func findings(_ s: FindingSink) -> [String] {
        (s.violations.values.flatMap { $0 } + s.inconclusive.values.flatMap { $0 })
            .map { "\($0.line ?? 0) \($0.message)" }.sorted()
    }

    /// Feeds `(ev, k)` events of generation 1 from `$seq` `from` on.
    private static func feed(
        _ runner: SequenceRunner, _ sink: FindingSink, _ events: [(String, Int)], from: Int
    ) {
        let scope = ContextScope(context: TimelineContext(source: nil), stream: nil, gen: 1)
        for (n, event) in events.enumerated() {
            let seq = from + n
            let e = Event(
                t: Double(seq), ev: event.0, gen: 1, file: 0, line: seq + 1,
                fields: [.init("k", .int(Int64(event.1)))], evID: EvNames.id(event.0))
            e.seq = seq
            runner.observe(e, context: scope, sink: sink)
        }
    }

    @Test func theReopenedSlotHoldsNothingOfTheDeadPartial() throws {
        let runner = SequenceRunner(try Self.rule(binds: true), files: ["a.jsonl"])
        let sink = FindingSink(files: ["a.jsonl"])
        // `p` bound to the event at 0, then killed: the slot stays, dead.
        Self.feed(runner, sink, [("x.a", 7), ("x.kill", 0)], from: 0)
        #expect(runner.stages[1].live == 0 && runner.stages[1].partials.count == 1)
        #expect(runner.stages[1].partials[0].dead)
        #expect(runner.openStages & (1 << 1) == 0)
        // The next start opens in it, bound to its own event alone.
        Self.feed(runner, sink, [("x.b", 5)], from: 2)
        #expect(runner.reopened == 1)
        #expect(runner.stages[1].live == 1 && runner.stages[1].partials.count == 1)
        let p = runner.stages[1].partials[0]
        #expect(!p.dead && p.stage == 1 && p.origin == -1 && p.ordinal == 1)
        #expect(p.captures.names == ["p"] && p.captures["p"]?.seq == 2)
        #expect(p.last.seq == 2)
        // It grows on a `k` of 5 (the dead one's 7 would not), and completes.
        Self.feed(runner, sink, [("x.e", 7), ("x.e", 5), ("x.f", 0)], from: 3)
        let scope = ContextScope(context: TimelineContext(source: nil), stream: nil, gen: 1)
        runner.finish(context: scope, first: nil, lastT: 5, sink: sink)
        #expect(Self.findings(sink) == ["6 4 5"])
    }

    @Test func aStartBindingNothingLeavesNoCaptureAndItsOwnEvent() throws {
        let runner = SequenceRunner(try Self.rule(binds: false), files: ["a.jsonl"])
        let sink = FindingSink(files: ["a.jsonl"])
        Self.feed(runner, sink, [("x.a", 1), ("x.kill", 0), ("x.b", 1)], from: 0)
        #expect(runner.reopened == 1)
        let p = runner.stages[1].partials[0]
        #expect(p.captures.isEmpty && p.last.seq == 2 && p.ordinal == 1 && !p.dead)
    }

    @Test func bindingOneNameAloneDropsTheOthersAndLeavesCopiesBound() {
        let (e1, e2) = (Event(t: 1, ev: "x", line: 1), Event(t: 2, ev: "x", line: 2))
        var a: Captures = ["p": e1, "q": e1]
        let b = a
        a.bindAlone("p", to: e2)
        #expect(a.names == ["p"] && a["p"] === e2)
        #expect(b.names == ["p", "q"] && b["p"] === e1)
        a.bindAlone("q", to: e1)
        #expect(a.names == ["q"] && a["q"] === e1)
        a.bindAlone(nil, to: e2)
        #expect(a.isEmpty)
    }

    /// Where every start binds one name, the slot's one binding takes the new event in place;
    /// captures binding none, or more than one name, are left as they are.
    @Test func bindingAgainTakesTheEventOnlyWhereOneNameIsBound() {
        let (e1, e2) = (Event(t: 1, ev: "x", line: 1), Event(t: 2, ev: "x", line: 2))
        var one: Captures = ["p": e1]
        let copy = one
        let rebound = one.bindAgain(to: e2)
        #expect(rebound)
        #expect(one.names == ["p"] && one["p"] === e2 && copy["p"] === e1)
        var two: Captures = ["p": e1, "q": e1]
        let twoRebound = two.bindAgain(to: e2)
        #expect(!twoRebound)
        #expect(two.names == ["p", "q"] && two["p"] === e1 && two["q"] === e1)
        var none = Captures()
        let noneRebound = none.bindAgain(to: e2)
        #expect(!noneRebound && none.isEmpty)
    }

    /// A first step whose every term binds one name rebinds it without reading it; terms that
    /// bind two names, or not all of them, read the name of the term that matched.
    @Test func onlyAFirstStepBindingOneNameEverywhereRebindsWithoutTheName() throws {
        #expect(SequenceRunner(try Self.rule(binds: true), files: ["a.jsonl"]).startsBindOneName)
        #expect(!SequenceRunner(try Self.rule(binds: false), files: ["a.jsonl"]).startsBindOneName)
        func term(_ name: String?) -> Selector.Term {
            var t = Selector.Term()
            t.capture = name
            return t
        }
        let sameName = Selector(terms: [term("p"), term("p")])
        #expect(SequenceRunner.bindsOneName(sameName, 0b11))
        #expect(!SequenceRunner.bindsOneName(sameName, 0b01))
        #expect(!SequenceRunner.bindsOneName(Selector(terms: [term("p"), term("q")]), 0b11))
        #expect(!SequenceRunner.bindsOneName(Selector(terms: [term(nil)]), 0b1))
    }

    /// Random logs: the same findings with every start making its own partial.
    @Test(arguments: 0..<60)
    func reopenedSlotsChangeNoFinding(seed: Int) throws {
        let compiled = try Self.rule(binds: seed % 2 == 0)
        var random = SplitMix64(seed: UInt64(seed) &+ 0x5E0)
        let names = ["x.a", "x.b", "x.e", "x.e", "x.f", "x.kill", "x.kill", "x.stop", "x.o"]
        let log = (0..<(20 + random.below(200))).map { _ in
            (names[random.below(names.count)], random.below(3))
        }
        let (reopening, a) = StepsDecidedByIDTests.feed(compiled, log) { _ in }
        let (_, b) = StepsDecidedByIDTests.feed(compiled, log) { $0.reopensInPlace = false }
        #expect(Self.findings(a) == Self.findings(b), "seed \(seed)")
        #expect(reopening.reopened > 0, "seed \(seed)")
    }
}

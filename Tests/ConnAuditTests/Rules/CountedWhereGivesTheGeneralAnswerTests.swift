import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// A term's `where:` of counted calls keyed by its own candidate (``CountedWhere``) gives the
/// truth the compiled `where:` gives with the candidate bound, for ids of every kind (short and
/// long texts, non-ASCII, numbers, booleans, null, missing) and histories with none, one or
/// several events of each id; and it gives none where the general way must answer.
@Suite struct CountedWhereGivesTheGeneralAnswerTests {
    /// `where:`s of the counted shape: sse.no-lost-events' first step, and each comparison.
    static let shapes: [String] = [
        "count({ev: sse.event, where: 'text(id) == text(e.id)'}) == 0 and count({ev: sse.processed, ok: true, where: 'text(id) == text(e.id)'}) == 0",
        "count({ev: sse.event, where: 'text(e.id) == text(id)'}) >= 2",
        "1 < count({ev: sse.processed, where: 'text(id) == text(e.id)'}) and count({ev: sse.commit, where: 'text(id) == text(e.id)'}) != 0",
        "count({ev: sse.commit, where: 'text(id) == text(e.id)'}) > 0 and 3 >= count({ev: sse.event, where: 'text(id) == text(e.id)'})",
        "count({ev: sse.event, where: 'text(id) == text(e.id)'}) < 1 and count({ev: sse.processed, ok: false, where: 'text(id) == text(e.id)'}) <= 1"
    ]

    /// `where:`s of other shapes: a `$seq` bound, two fields, `or`, a count of a list.
    static let others: [String] = [
        "count({ev: sse.event, where: 'text(id) == text(e.id) and $seq < e.$seq'}) == 0",
        "count({ev: sse.event, where: 'text(id) == text(e.id)'}) == 0 and count({ev: sse.commit, where: 'text(id) == text(e.other)'}) == 0",
        "count({ev: sse.event, where: 'text(id) == text(e.id)'}) == 0 or count({ev: sse.commit, where: 'text(id) == text(e.id)'}) == 0",
        "count({ev: sse.event, where: 'text(id) == text(e.id)'}) == 0 and id != null"
    ]

    /// Ids: short texts, one of 16 bytes or more, non-ASCII, numbers, a boolean, null; nil for
    /// no id at all.
    private static let ids: [Value?] = [
        .string("1"), .string("2"), .string("01"), .string(""), .string("caf\u{e9}"),
        .string("a-long-event-id-of-many-bytes"), .int(1), .int(2), .double(1.5), .bool(true),
        .null, nil
    ]

    private static func step(_ where_: String) throws -> CompiledRule {
        let text = """
            rules:
              - id: t.counted-where
                title: counted where
                for: source
                each: { ev: sse.event, as: e, where: "\(where_)" }
                followed_by: { ev: sse.processed, ok: true, where: "text(id) == text(e.id)" }
                at_end: fail
            """
        let rule = try #require(try RuleLoader.load(files: [("rules/c.yaml", text)]).rules.first)
        return CompiledRule(rule: rule, index: 0, overrides: [:])
    }

    private static func event(_ ev: String, id: Value?, ok: Bool?, seq: Int) -> Event {
        var fields: [Event.Field] = []
        if let id { fields.append(.init("id", id)) }
        if let ok { fields.append(.init("ok", .bool(ok))) }
        let e = Event(
            t: Double(seq), ev: ev, gen: nil, file: 0, line: seq + 1, fields: fields,
            evID: EvNames.id(ev))
        e.seq = seq
        return e
    }

    /// A runner of the rule given a random history of the ids, and every id tried as a
    /// candidate after each event: where the counted form answers, it is the compiled
    /// `where:`'s truth; it answers every short ASCII text id; and while the
    /// answers are cross-checked, it is checked against the general way instead.
    @Test(arguments: shapes.indices)
    func theCountedTruthIsTheCompiledTruth(shape: Int) throws {
        let compiled = try Self.step(Self.shapes[shape])
        let term = compiled.steps[0].selector.terms[0]
        let counted = try #require(term.countedWhereRef?.takeUnretainedValue(), "\(shape)")
        let box = try #require(term.whereRef?.takeUnretainedValue())
        var random = SplitMix64(seed: UInt64(shape) &+ 71)
        var answered = 0
        var checked = 0
        for crossCheck in [false, true] {
            HistoryCrossCheck.$isOn.withValue(crossCheck) {
                let runner = SequenceRunner(compiled, files: ["a.jsonl"])
                let sink = FindingSink(files: ["a.jsonl"])
                let scope = ContextScope(
                    context: TimelineContext(source: nil), stream: nil, gen: nil)
                for seq in 0..<60 {
                    let ev = ["sse.event", "sse.processed", "sse.commit"][random.below(3)]
                    let id = Self.ids[random.below(Self.ids.count)]
                    let ok: Bool? = [true, false, nil][random.below(3)]
                    let e = Self.event(ev, id: id, ok: ok, seq: seq)
                    runner.observe(e, context: scope, sink: sink)
                    for candidateID in Self.ids {
                        let c = Self.event("sse.event", id: candidateID, ok: nil, seq: seq + 1)
                        let ctx = runner.context(c)
                        let general = ctx.binding("e", to: c) { box.compiled.holds($0, c) == true }
                        let fused = counted.holds(c, ctx)
                        let compared = counted.check(general, c, ctx)
                        if runner.crossCheck != nil {
                            // The general way answers, and the form is checked against it.
                            #expect(fused == nil)
                            if let compared {
                                checked += 1
                                #expect(compared == general)
                            }
                            continue
                        }
                        #expect(compared == nil)
                        if case .string(let s)? = candidateID, s.utf8.count < 16,
                            s.utf8.allSatisfy({ $0 < 128 })
                        {
                            #expect(fused != nil, "\(s)")
                        }
                        if let fused {
                            answered += 1
                            #expect(
                                fused == general,
                                "shape \(shape) seq \(seq) id \(String(describing: candidateID))")
                        }
                    }
                }
            }
        }
        #expect(checked > 0)
        #expect(answered > 100)
    }

    /// A `where:` of another shape has no counted form: the general way answers it.
    @Test(arguments: others)
    func otherShapesHaveNoCountedForm(_ where_: String) throws {
        let compiled = try Self.step(where_)
        #expect(compiled.steps[0].selector.terms[0].countedWhereRef == nil)
    }

    /// The rule judges alike whichever way its `where:` is answered: with the counted form, and
    /// with the cross-check on (every answer then checked against the general way's and a scan).
    @Test(arguments: shapes.indices)
    func theRuleJudgesAlikeEitherWay(shape: Int) throws {
        let compiled = try Self.step(Self.shapes[shape])
        for seed: UInt64 in [1, 2, 3, 5, 8] {
            let log = CountedIndexTests.log(seed: seed)
            let rule = compiled.rule
            let fast = HistoryCrossCheck.$isOn.withValue(false) {
                RuleRuns.audit([rule], log, path: "c.jsonl").results[0]
            }
            let checked = HistoryCrossCheck.$isOn.withValue(true) {
                RuleRuns.audit([rule], log, path: "c.jsonl").results[0]
            }
            #expect(
                (fast.violations + fast.inconclusive).map(\.message)
                    == (checked.violations + checked.inconclusive).map(\.message), "seed \(seed)")
            #expect(fast.status == checked.status)
        }
    }
}

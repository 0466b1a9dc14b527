import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// An `every` expectation of scalar comparisons (``FusedTruth``: fields of the event, of a let's
/// or a `first`/`last` call's running aggregate, constants, `x ?? y` of them) gives the truth the
/// compiled expression gives, for fields that are integers, fractions, integers past `Int64`,
/// texts, booleans, null, missing or given twice (found by id or by name), a `gen` or none, and
/// aggregates that hold an event or none; where it cannot decide in place it says so, and while
/// answers are cross-checked it reads nothing and agrees with the general way when checked.
@Suite struct FusedScalarComparisonsGiveTheGeneralAnswerTests {
    private static let lets = """
        let:
          open: "first({ev: x.open})"
        """

    private static func rule(_ expect: String) throws -> CompiledRule {
        let rules = try RuleRuns.rules(
            [
                """
                id: t.fused
                title: fused
                every: { ev: x.ping }
                expect: "\(expect)"
                """
            ], file: "rules/every.yaml", header: Self.lets)
        return CompiledRule(rule: try #require(rules.first), index: 0, overrides: [:])
    }

    private static func fused(_ compiled: CompiledRule) throws -> FusedTruth? {
        guard case .expression(let expr) = try #require(compiled.every).expect else {
            Issue.record("no expression")
            return nil
        }
        return FusedTruth(expr, table: compiled.lets, staticSlots: compiled.staticSlots)
    }

    /// Expectations of the fused shape: the stale-generation rules' and each kind of operand.
    static let shapes: [String] = [
        "gen == null or gen >= (last({ev: x.connect, gen: {exists: true}}).gen ?? gen)",
        "v == null or v >= (last({ev: x.connect}).v ?? v)",
        "v != null and v < (first({ev: x.connect}).v ?? 2.5)",
        "open.v == v or v > 1.5",
        "(last({ev: x.connect}).v ?? null) != v",
        "not (v <= 2) or gen == 1",
        "if open.gen == null then v >= open.v else t > open.t - 1",
        "(open.v ?? (first({ev: x.connect}).v ?? 3)) < v",
        "null == (last({ev: x.connect}).v ?? null) or null != open.v",
        "t == open.t or v != t",
        "v < t and t != null"
    ]

    /// Values a field takes: numbers an integer and a double comparison could part on, an integer
    /// past `Int64`, a text, a boolean, null, and none (missing).
    private static let values: [Value?] = [
        .int(1), .int(2), .int(3), .double(1.5), .double(2.0), .double(.nan),
        .int(Int64.max), .bigInt("18446744073709551615"), .string("2"), .bool(true), .null, nil
    ]
    private static let gens: [UInt64?] = [nil, 1, 2, UInt64.max]

    /// An event with `v` (by id or by name, sometimes given twice) and a `gen`, at random; a
    /// trigger's `t` is sometimes NaN, which reads as null.
    private static func event(_ ev: String, seq: Int, _ random: inout SplitMix64) -> Event {
        var fields: [Event.Field] = []
        for _ in 0..<(1 + random.below(2)) {
            if let v = values[random.below(values.count)] {
                let id = random.below(2) == 0 ? FieldNames.id("v") : -1
                fields.append(Event.Field("v", v, id: id))
            }
        }
        let t = ev == "x.ping" && random.below(6) == 0 ? Double.nan : Double(seq)
        let e = Event(
            t: t, ev: ev, gen: gens[random.below(gens.count)], file: 0, line: seq + 1,
            fields: fields, evID: EvNames.id(ev))
        e.seq = seq
        return e
    }

    /// Every shape, for random aggregate states and triggers: where the fused form answers, its
    /// truth is the compiled expression's; with the cross-check on it reads nothing, and checking
    /// the general answer against it passes.
    @Test(arguments: shapes.indices)
    func theFusedTruthIsTheCompiledExpressionsTruth(shape: Int) throws {
        let compiled = try Self.rule(Self.shapes[shape])
        let fused = try #require(try Self.fused(compiled), "\(Self.shapes[shape])")
        var random = SplitMix64(seed: UInt64(shape) &+ 0x5CA1A)
        var answered = 0
        for crossCheck in [false, true] {
            HistoryCrossCheck.$isOn.withValue(crossCheck) {
                for _ in 0..<60 {
                    let runner = BasicRunner(compiled, files: ["a.jsonl"])
                    let scope = ContextScope(
                        context: TimelineContext(source: nil), stream: nil, gen: 1)
                    let sink = FindingSink(files: ["a.jsonl"])
                    var seq = 0
                    for ev in ["x.open", "x.connect", "x.connect"] where random.below(3) > 0 {
                        runner.observe(
                            Self.event(ev, seq: seq, &random), context: scope, sink: sink)
                        seq += 1
                    }
                    for _ in 0..<8 {
                        let e = Self.event("x.ping", seq: seq, &random)
                        let ctx = runner.context(e)
                        let general = compiled.every!.expectRun.holds(ctx, e)
                        let answer = fused.answer(ctx, e)
                        if crossCheck {
                            #expect(answer == .unread)
                            fused.check(general, ctx, e)
                        } else if answer != .unread {
                            answered += 1
                            #expect(answer.truth == general, "\(Self.shapes[shape]) seq \(seq)")
                        }
                    }
                }
            }
        }
        #expect(answered > 100, "\(Self.shapes[shape])")
    }

    /// The shapes left to the compiled expression: arithmetic, a text constant, a function, a
    /// count, a bare let, a `??` whose left part is itself one.
    @Test func otherComparisonsAreLeftUnfused() throws {
        let left = [
            "v + 1 > 2", "v == 'x'", "len(v) == 1", "count({ev: x.connect}) > v", "open == v",
            "((open.v ?? v) ?? 1) > v", "maxof({ev: x.connect}, v) > v"
        ]
        for text in left {
            #expect(try Self.fused(try Self.rule(text)) == nil, "\(text)")
        }
    }

    /// The built-in pack's stale-generation rules are read in place.
    @Test(arguments: ["ws.stale-event-no-effect", "path.stale-update-ignored"])
    func theStaleGenerationRulesAreFused(id: String) throws {
        let rule = try #require(RuleLoader.builtin().rules.first { $0.id == id })
        let compiled = CompiledRule(rule: rule, index: 0, overrides: [:])
        #expect(try Self.fused(compiled) != nil)
    }

    /// Random logs of connects and stale and current states and pings: the same findings with
    /// the fused form read and with every expectation evaluated in full and checked against it.
    @Test(arguments: 0..<30)
    func fusingChangesNoFinding(seed: Int) throws {
        var random = SplitMix64(seed: UInt64(seed) &+ 0x57A1E)
        let rule = try #require(
            RuleLoader.builtin().rules.first { $0.id == "ws.stale-event-no-effect" })
        let names = ["ws.connect", "ws.state", "ws.ping", "ws.ping", "ws.open"]
        let gens = [
            "", ",\"gen\":1", ",\"gen\":2", ",\"gen\":3", ",\"gen\":null",
            ",\"gen\":18446744073709551615", ",\"gen\":\"2\"", ",\"gen\":2.5"
        ]
        var lines: [String] = []
        for i in 0..<(10 + random.below(80)) {
            let ev = names[random.below(names.count)]
            lines.append("{\"t\":\(i),\"ev\":\"\(ev)\"\(gens[random.below(gens.count)])}")
        }
        let log = lines.joined(separator: "\n") + "\n"
        func findings(_ crossCheck: Bool) -> [String] {
            let result = HistoryCrossCheck.$isOn.withValue(crossCheck) {
                RuleRuns.audit([rule], files: [("a.jsonl", log)]).results[0]
            }
            return (result.violations + result.inconclusive).map { "\($0.line ?? 0) \($0.message)" }
        }
        #expect(findings(false) == findings(true), "seed \(seed)")
    }
}

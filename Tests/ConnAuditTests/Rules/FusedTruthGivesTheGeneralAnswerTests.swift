import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// An `every` expectation of time comparisons and null tests of running aggregates' events
/// (``FusedTruth``) gives the truth the compiled expression gives, for every time (fractions,
/// 16-digit uptimes, numbers past 2^52, NaN), amount (whole, fractional, huge, null, a boolean,
/// a text) and aggregate held or not; and where it cannot read a part in place, it says so.
@Suite struct FusedTruthGivesTheGeneralAnswerTests {
    private static let lets = """
        let:
          open: "first({ev: x.open})"
          prev: "last({ev: x.ping})"
          answer: "first({ev: x.pong}, since: {ev: x.ping})"
        """

    private static func rule(_ expect: String, amountI: String, amountT: String) throws
        -> CompiledRule
    {
        let rules = try RuleRuns.rules(
            [
                """
                id: t.fused
                title: fused
                every: { ev: x.ping }
                expect: "\(expect)"
                """
            ], file: "rules/every.yaml",
            header: Self.lets + "\n  I: \"\(amountI)\"\n  T: \"\(amountT)\"")
        return CompiledRule(rule: try #require(rules.first), index: 0, overrides: [:])
    }

    private static func event(_ ev: String, t: Double, seq: Int) -> Event {
        TimeBoundsGiveTheGeneralAnswerTests.event(ev, t: t, seq: seq)
    }

    /// Times where a decimal sum, an integer sum and a double comparison could part.
    private static let times: [Double] = [
        0, -0.0, 1, 100, 110, 1000.5, 0.1, 0.2, 0.30000000000000004, 693745044.0586978,
        693745144.0586978, 4503599627370495, 4503599627370496, 4503599627370497,
        9007199254740994, 9e15, 1e300, -1e300, .nan, .infinity
    ]

    private static let amounts: [String] = [
        "0", "1", "100", "-1", "0.1", "1000.5", "4503599627370496", "9223372036854775807",
        "null", "true", "'x'"
    ]

    /// Expectations of the fused shape: the heartbeat's, and each kind of part on its own.
    static let shapes: [String] = [
        "open != null and (if prev == null then t >= open.t + I else if answer != null and "
            + "answer.t < prev.t + T then t >= answer.t + I else true)",
        "t >= open.t",
        "open.t + I <= t or prev == null",
        "not (prev != null and t - T < prev.t)",
        "if answer == null then null else answer.t > prev.t - 1000.5",
        "t < answer.t + 4503599627370496 or 5",
        "answer.t >= t and (open == null or t > open.t - I)",
        "false or prev.t + T >= open.t",
        "null or (1 and (null or (t >= open.t + I)))"
    ]

    /// Every shape, amount and aggregate state, for each trigger time: where the fused form
    /// reads the expectation in place, its truth is the compiled expression's; it reads in place
    /// but where an amount is no scalar, and never while answers are cross-checked.
    @Test(arguments: shapes.indices)
    func theFusedTruthIsTheCompiledExpressionsTruth(shape: Int) throws {
        var random = SplitMix64(seed: UInt64(shape) &+ 0x5EED)
        for amount in Self.amounts {
            let other = Self.amounts[random.below(Self.amounts.count)]
            let compiled = try Self.rule(Self.shapes[shape], amountI: amount, amountT: other)
            let every = try #require(compiled.every)
            guard case .expression(let expr) = every.expect else {
                Issue.record("no expression")
                return
            }
            let fused = try #require(FusedTruth(expr, table: compiled.lets), "\(shape)")
            for crossCheck in [false, true] {
                HistoryCrossCheck.$isOn.withValue(crossCheck) {
                    for _ in 0..<12 {
                        check(
                            compiled, fused, &random, crossCheck: crossCheck,
                            scalarAmounts: amount != "'x'" && other != "'x'")
                    }
                }
            }
        }
    }

    /// A runner whose aggregates hold a random choice of events at random times, judged for a
    /// ping at each time.
    private func check(
        _ compiled: CompiledRule, _ fused: FusedTruth, _ random: inout SplitMix64,
        crossCheck: Bool, scalarAmounts: Bool
    ) {
        let runner = BasicRunner(compiled, files: ["a.jsonl"])
        let scope = ContextScope(context: TimelineContext(source: nil), stream: nil, gen: 1)
        let sink = FindingSink(files: ["a.jsonl"])
        var seq = 0
        for ev in ["x.open", "x.ping", "x.pong", "x.ping", "x.pong"] where random.below(3) > 0 {
            let t = Self.times[random.below(Self.times.count)]
            runner.observe(Self.event(ev, t: t, seq: seq), context: scope, sink: sink)
            seq += 1
        }
        for t in Self.times {
            let e = Self.event("x.ping", t: t, seq: seq)
            let ctx = runner.context(e)
            let general = compiled.every!.expectRun.holds(ctx, e)
            let answer = fused.answer(ctx, e)
            if crossCheck {
                #expect(answer == .unread)
            } else if answer != .unread {
                #expect(answer.truth == general, "\(compiled.rule.yaml) t=\(t)")
            } else {
                // Unread only where a let it needs holds no scalar.
                #expect(!scalarAmounts, "\(compiled.rule.yaml) t=\(t)")
            }
        }
    }

    /// The shapes it takes and those it leaves: a field other than `t` moved by an amount, an
    /// amount that is an aggregate's answer, arithmetic on both sides, a bare let compared.
    /// (Comparisons of fields without arithmetic are taken: `FusedScalarComparisonsGive…`.)
    @Test func onlyTimesNullTestsAndTheirLogicAreFused() throws {
        let taken = Self.shapes.map { _ in true }
        let left = [
            "t >= open.k + I", "open.t + 1 < t + 2", "t >= open.t + prev", "t * 2 > open.t",
            "I != null", "t >= open.t + I * 2"
        ]
        for (texts, fuses) in [(Self.shapes, taken), (left, left.map { _ in false })] {
            for (text, expected) in zip(texts, fuses) {
                let compiled = try Self.rule(text, amountI: "1", amountT: "2")
                guard case .expression(let expr) = try #require(compiled.every).expect else {
                    Issue.record("no expression")
                    return
                }
                #expect((FusedTruth(expr, table: compiled.lets) != nil) == expected, "\(text)")
            }
        }
    }

    /// The built-in pack's heartbeat rule is read in place.
    @Test func thePingIntervalRuleIsFused() throws {
        let rule = try #require(
            RuleLoader.builtin().rules.first { $0.id == "ws.ping-after-interval" })
        let compiled = CompiledRule(rule: rule, index: 0, overrides: [:])
        guard case .expression(let expr) = try #require(compiled.every).expect else {
            Issue.record("no expression")
            return
        }
        #expect(FusedTruth(expr, table: compiled.lets) != nil)
    }

    /// Random heartbeat logs with whole and fractional times and intervals: the same findings
    /// with the fused form read and with every expectation evaluated in full (the cross-check
    /// sends every read the general way).
    @Test(arguments: 0..<40)
    func fusingChangesNoFinding(seed: Int) throws {
        var random = SplitMix64(seed: UInt64(seed) &+ 0xF05ED)
        let rule = try #require(
            RuleLoader.builtin().rules.first { $0.id == "ws.ping-after-interval" })
        let names = ["ws.ping", "ws.ping", "ws.pong", "ws.pong", "ws.open", "ws.other"]
        let interval = ["", ",\"interval_ms\":100", ",\"interval_ms\":0.5", ",\"timeout_ms\":3"]
        var t = [0.0, 693745044.0586978, 4503599627370490][random.below(3)]
        var lines = ["{\"t\":\(t),\"ev\":\"ws.connect\",\"gen\":1\(interval[random.below(4)])}"]
        for _ in 0..<(20 + random.below(150)) {
            t += [0, 0.1, 0.5, 1, 3, 100, 101, 1000][random.below(8)]
            lines.append("{\"t\":\(t),\"ev\":\"\(names[random.below(names.count)])\",\"gen\":1}")
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

    /// A right-nested chain of undecided constants repeats its right part at each level without
    /// adding a test: the parts laid out are counted too, so a deep chain is left to the compiled
    /// expression at once, where laying it out would take time doubling with its depth.
    @Test func aDeepChainOfUndecidedPartsIsLeftUnfused() throws {
        for (depth, fuses) in [(4, true), (40, false), (90, false)] {
            let text =
                String(repeating: "null or (", count: depth) + "t >= open.t"
                + String(repeating: ")", count: depth)
            let compiled = try Self.rule(text, amountI: "1", amountT: "2")
            guard case .expression(let expr) = try #require(compiled.every).expect else {
                Issue.record("no expression")
                return
            }
            #expect((FusedTruth(expr, table: compiled.lets) != nil) == fuses, "depth \(depth)")
        }
    }
}

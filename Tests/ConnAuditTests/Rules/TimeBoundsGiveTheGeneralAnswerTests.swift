import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// A `where:` of the form `t OP p.t + L` is decided from the captured time and the amount read in
/// place (``TimeBound``): the answer the compiled expression gives, for every time, amount and
/// capture, and the same findings as evaluating every `where:` in full.
@Suite struct TimeBoundsGiveTheGeneralAnswerTests {
    private static func rule(_ body: String, lets: String = "D: \"params.T + 1\"") throws
        -> CompiledRule
    {
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
        let text =
            "params: { T: 3 }\nlet:\n  \(lets)\nrules:\n  - "
            + lines.joined(separator: "\n    ") + "\n"
        let rule = try #require(try RuleLoader.load(files: [("rules/seq.yaml", text)]).rules.first)
        return CompiledRule(rule: rule, index: 0, overrides: [:])
    }

    /// An event of `ev` at `t`, the `seq`th of generation 1 (`FusedTruthGivesTheGeneralAnswerTests`
    /// makes its events alike).
    static func event(_ ev: String, t: Double, seq: Int) -> Event {
        let e = Event(
            t: t, ev: ev, gen: 1, file: 0, line: seq + 1, fields: [], evID: EvNames.id(ev))
        e.seq = seq
        return e
    }

    /// Times where a decimal sum, an integer sum and a double comparison could part: fractions,
    /// 16-digit uptimes, numbers past 2^52 and 2^53, negative zero, NaN (a null time).
    private static let times: [Double] = [
        0, -0.0, 1, 3, 4, 7, 128.11, 1128.11, 1131.11, 0.1, 0.2, 0.30000000000000004, 0.3,
        693745144.0586978, 693746144.0586978, 693746148.0586978, 4503599627370495,
        4503599627370496, 4503599627370497, 9007199254740991, 9007199254740992, 9e15, 1e300,
        -1e300, -4503599627370497, .nan, .infinity
    ]

    /// Amounts: whole and fractional numbers, past 2^52, null, a boolean and a text (no scalar).
    private static let amounts: [String] = [
        "0", "1", "4", "1000", "-1", "0.1", "1000.5", "4503599627370496", "-4503599627370496",
        "9223372036854775807", "null", "true", "'x'"
    ]

    /// Every shape of bound against the compiled `where:`, for each pair of times and each
    /// amount, written as a constant and as a let; a capture left unbound is not decided.
    @Test(arguments: ["<", "<=", ">", ">="])
    func aBoundIsTheCompiledExpressionsAnswer(op: String) throws {
        for amount in Self.amounts {
            for (form, lets) in [("D", "D: \"\(amount)\""), (amount, "D: \"0\"")] {
                for sum in ["p.t + \(form)", "p.t - \(form)"] {
                    for text in ["t \(op) \(sum)", "\(sum) \(op) t"] {
                        try check(text, lets: lets, constant: form == "D" ? nil : amount)
                    }
                }
            }
        }
    }

    /// `constant`: the amount when it is written in the `where:` (nil: it is the let `D`).
    private func check(_ text: String, lets: String, constant: String?) throws {
        let compiled = try Self.rule(
            """
            id: t.b
            title: bound
            each: { ev: x.ping, as: p }
            followed_by: { ev: x.close }
            unless: { ev: x.pong, where: "\(text)" }
            """, lets: lets)
        let term = try #require(compiled.sequenceFacts.responseUnless?.terms.first)
        guard let bound = TimeBound(try #require(term.whereExpr), ownCapture: term.capture) else {
            // A constant that is no scalar, or a negative one (a negation, not a number), is no
            // amount: the `where:` is left to the evaluator.
            #expect(constant == "'x'" || constant?.hasPrefix("-") == true, "\(text)")
            return
        }
        let runner = SequenceRunner(compiled, files: ["a.jsonl"])
        let scope = ContextScope(context: TimelineContext(source: nil), stream: nil, gen: 1)
        let sink = FindingSink(files: ["a.jsonl"])
        // An obligation's context: its let scope evaluated in full, the ping captured.
        let ping = Self.event("x.ping", t: 0, seq: 0)
        runner.observe(ping, context: scope, sink: sink)
        let box = try #require(term.whereRef)
        for pt in Self.times {
            for t in Self.times {
                let p = Self.event("x.ping", t: pt, seq: 1)
                let e = Self.event("x.pong", t: t, seq: 2)
                var ctx = runner.context(p, captures: ["p": p], frozen: true)
                ctx.event = e
                let general = box._withUnsafeGuaranteedRef { $0.compiled.holds(ctx, e) }
                guard let amount = bound.amount(ctx) else {
                    // An amount that is no scalar is left to the evaluator.
                    #expect(lets.contains("'x'"), "\(text) \(lets)")
                    continue
                }
                let fused = try #require(bound.compare(e, ctx.captures, amount: amount))
                #expect(fused.truth == general, "\(text) \(lets) p.t=\(pt) t=\(t)")
                // Unbound, the capture is left to the evaluator.
                #expect(bound.compare(e, Captures(), amount: amount) == nil)
            }
        }
    }

    /// The shapes found and not found: a term's own capture, a field's time, a product, a let
    /// of another shape, and the left part of an `and`.
    @Test func onlyATimeMovedByAnAmountIsABound() throws {
        let compiled = try Self.rule(
            """
            id: t.s
            title: shapes
            each: { ev: x.ping, as: p }
            followed_by: { ev: x.close, where: "t >= p.t + D" }
            unless:
              - { ev: x.pong, as: q, where: "t < q.t + D" }
              - { ev: x.pong, where: "k < p.t + D" }
              - { ev: x.pong, where: "t < p.t * D" }
              - { ev: x.pong, where: "t < p.k + D" }
              - { ev: x.pong, where: "t < p.t + D and k == 1" }
              - { ev: x.pong, where: "k == 1 and t < p.t + D" }
              - { ev: x.pong, where: "p.t + 2 > t" }
            """)
        let facts = compiled.sequenceFacts.timeBounds
        #expect(facts.followedBy?.terms.map(\.decides) == [true])
        #expect(facts.followedBy?.terms.first?.whole == true)
        let unless = try #require(facts.unless?.terms)
        #expect(unless.map(\.decides) == [false, false, false, false, true, false, true])
        #expect(unless[4].whole == false)
        #expect(unless[6].whole && !unless[6].timeFirst)
    }

    /// Random logs through a heartbeat's rules, with fractional and whole times: the same
    /// findings with the bounds decided in place and with every `where:` evaluated in full.
    @Test(arguments: 0..<60)
    func boundsChangeNoFinding(seed: Int) throws {
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
            forbid:
              - { ev: x.ping, as: p }
              - { ev: x.pong, as: q, where: "t >= p.t + D", without: { ev: [x.pong, x.close] } }
              - { ev: x.ping, without: { ev: [x.close, x.ping] } }
            message: "{q.t} {p.t}"
            """,
            """
            forbid:
              - { ev: x.ping, as: p }
              - { ev: x.pong, where: "p.t + 1.5 > t", without: { ev: x.err } }
            message: "{p.t}"
            """
        ]
        var random = SplitMix64(seed: UInt64(seed) &+ 0x71B)
        let names = ["x.ping", "x.ping", "x.pong", "x.pong", "x.close", "x.err", "x.other"]
        var t = 0.0
        var log: [(String, Double)] = []
        for _ in 0..<(20 + random.below(200)) {
            t += [0, 0.1, 0.5, 1, 2, 3, 4][random.below(7)]
            log.append((names[random.below(names.count)], t))
        }
        for (n, shape) in shapes.enumerated() {
            let compiled = try Self.rule("id: t.s\(n)\ntitle: s\(n)\n" + shape)
            let a = Self.findings(compiled, log) { _ in }
            let b = Self.findings(compiled, log) {
                $0.stepsByTime = 0
                $0.usesTimeBounds = false
            }
            #expect(a == b, "shape \(n), seed \(seed)")
        }
    }

    private static func findings(
        _ compiled: CompiledRule, _ log: [(String, Double)], setUp: (SequenceRunner) -> Void
    ) -> [String] {
        let runner = SequenceRunner(compiled, files: ["a.jsonl"])
        setUp(runner)
        let sink = FindingSink(files: ["a.jsonl"])
        let scope = ContextScope(context: TimelineContext(source: nil), stream: nil, gen: 1)
        for (i, (ev, t)) in log.enumerated() {
            runner.observe(event(ev, t: t, seq: i), context: scope, sink: sink)
        }
        runner.finish(context: scope, first: nil, lastT: log.last?.1, sink: sink)
        return (sink.violations.values.flatMap { $0 } + sink.inconclusive.values.flatMap { $0 })
            .map { "\($0.line ?? 0) \($0.message)" }.sorted()
    }
}

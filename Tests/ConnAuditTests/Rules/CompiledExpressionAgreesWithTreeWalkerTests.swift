import Testing

@testable import ConnAudit

/// A compiled expression (``CompiledExpression``) gives what the tree walker gives for the same
/// tree, with the same event and context: on random expressions over every operator and
/// function, and on every expression of the built-in pack, with captures bound and unbound.
@Suite struct CompiledExpressionAgreesWithTreeWalkerTests {
    /// The deterministic generator of `CapturesBindingOrderTests` (the test must not depend on
    /// the run).
    typealias SplitMix = CapturesBindingOrderTests.SplitMix

    static func event(_ ev: String, t: Double, gen: UInt64?, line: Int, fields: [Event.Field] = [])
        -> Event
    {
        let e = Event(
            t: t, ev: ev, gen: gen, file: 0, line: line, fields: fields, evID: EvNames.id(ev))
        e.seq = line
        return e
    }

    /// Events to evaluate on: one with many kinds of fields, one with none, one with a fraction.
    static let events: [Event] = [
        event(
            "ws.close", t: 1000, gen: 2, line: 7,
            fields: [
                .init("reason", .string("pong_timeout")),
                .init("code", .int(1000)),
                .init("delay_ms", .double(12.5)),
                .init("empty", .string("")),
                .init("none", .null),
                .init("ok", .bool(true)),
                .init("id", .string("42")),
                .init("tags", .array([.string("a"), .string("b")])),
                .init("obj", .object([.init("k", .int(1))])),
                .init("big", .bigInt("12345678901234567890"))
            ]),
        event("ws.ping", t: 128.11, gen: nil, line: 3),
        event(
            "sse.event", t: 1128.11, gen: 18_446_744_073_709_551_615, line: 9,
            fields: [.init("id", .int(42)), .init("reason", .null), .init("ok", .bool(false))])
    ]

    /// Captured as `c` (and `p`, `e`, `k`, `q` in the pack's expressions), or not bound at all.
    static let captured = event(
        "ws.connect", t: 500, gen: 2, line: 2,
        fields: [.init("timeout_ms", .int(1000)), .init("id", .string("42"))])

    struct FixedHistory: HistoryProvider {
        var events: [Event]
        func candidates(for call: HistoryCall, context: EvalContext) -> HistoryCandidates {
            HistoryCandidates(events: events[...])
        }
    }

    static func contexts(for e: Event) -> [EvalContext] {
        let history = FixedHistory(events: [captured, events[1]])
        var bound = EvalContext(
            event: e, params: ["timeout_ms": .int(1000), "tick_slack_ms": .int(250)],
            history: history, files: ["logs/a.jsonl"])
        for name in ["c", "p", "e", "k", "q", "g", "o", "s"] { bound.captures[name] = captured }
        let unbound = EvalContext(
            event: e, params: ["timeout_ms": .int(1000)], history: history,
            files: ["logs/a.jsonl"])
        return [bound, unbound]
    }

    static func agree(_ expr: Expr, _ source: String) {
        let compiled = CompiledExpression(expr)
        for e in events {
            // Each evaluation in contexts of its own: a named history result it binds must not
            // be seen by the other.
            for (walking, running) in zip(contexts(for: e), contexts(for: e)) {
                let walked = Outcome(Evaluator.evaluate(expr, walking, e))
                let run = Outcome(compiled.run(running, e))
                #expect(run == walked, "\(source) on \(e.ev) at line \(e.line)")
            }
        }
    }

    /// A random expression of at most `depth` levels, as rule text.
    static func expression(_ r: inout SplitMix, depth: Int) -> String {
        if depth == 0 || r.next(4) == 0 {
            return r.pick([
                "0", "1", "-3", "1000", "9223372036854775807", "0.5", "128.11", "1e3", "'a'",
                "'pong_timeout'", "''", "'42'", "null", "true", "false", "t", "gen", "reason",
                "code", "delay_ms", "empty", "none", "ok", "id", "missing", "tags", "obj", "big",
                "c.t", "c.gen", "c.id", "c.timeout_ms", "c.missing", "d.t", "params.timeout_ms",
                "params.nope", "[1, 'a']", "{k: 2}", "obj['k']", "tags[0]", "$seq", "$line",
                "$file"
            ])
        }
        let a = expression(&r, depth: depth - 1)
        let b = expression(&r, depth: depth - 1)
        switch r.next(9) {
        case 0: return "not (\(a))"
        case 1: return "-(\(a))"
        case 2:
            let op = r.pick(["+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "??"])
            return "(\(a)) \(op) (\(b))"
        case 3: return "(\(a)) \(r.pick(["and", "or"])) (\(b))"
        case 4: return "(\(a)) \(r.pick(["in", "not in"])) [\(b), 1, 'a', null]"
        case 5: return "if \(a) then \(b) else \(expression(&r, depth: depth - 1))"
        case 6:
            let f = r.pick(["text", "type", "len", "abs", "str", "json", "is_int"])
            return "\(f)(\(a))"
        case 7:
            let f = r.pick(["min", "max", "pow"])
            switch r.next(3) {
            case 0 where f != "pow": return "\(f)(\(a), \(b), 1)"
            case 1 where f != "pow": return "\(f)([\(a), \(b)])"
            default: return "\(f)(\(a), \(b))"
            }
        default: return "matches(\(a), '^(p|4)')"
        }
    }

    @Test func randomExpressionsGiveTheTreeWalkersAnswer() throws {
        var r = SplitMix(state: 20_261_205)
        var parsed = 0
        for _ in 0..<3000 {
            let source = Self.expression(&r, depth: 4)
            guard let expr = try? IndexKeyAgreesWithTreeWalkerTests.parse(source) else { continue }
            parsed += 1
            Self.agree(expr, source)
        }
        #expect(parsed > 2500, "the generator writes expressions the parser reads")
    }

    @Test func everyExpressionOfTheBuiltInPackGivesTheTreeWalkersAnswer() {
        var count = 0
        for rule in RuleLoader.builtin(fixtures: false).rules {
            var exprs = rule.check.expressions + rule.lets.map(\.expr)
            for s in rule.check.selectors { exprs += NameWalker.whereExpressions(of: s) }
            for e in exprs {
                count += 1
                Self.agree(e, "\(rule.id): \(e)")
            }
        }
        #expect(count > 50, "the pack's expressions were found")
    }
}

extension CapturesBindingOrderTests.SplitMix {
    mutating func pick(_ options: [String]) -> String { options[next(options.count)] }
}

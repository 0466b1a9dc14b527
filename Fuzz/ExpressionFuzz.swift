/// libFuzzer target `expr`: one expression string through the parser, then the evaluator.
///
/// Built by `script/fuzz expr` into the `ConnAudit` module itself; never part of `swift build`.
/// The input is decoded as UTF-8 and parsed with
/// ``ExpressionParser/parse(_:depth:compileSelector:)``, with history selectors compiled the way
/// the rule loader compiles them (their text as YAML, then ``FileLoader/selector(_:context:)``).
/// What parses is evaluated against a fixed event with captures, params, lets (one of them
/// circular) and a fixed history, so history functions, `where:` clauses, regexes and arithmetic
/// all run. An error is rendered as the loader would.
///
/// `Tests/ConnAuditTests/Robustness/FuzzRegressionTests.swift` feeds the committed corpus and every crash
/// found through the same steps; keep the two in step.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    ExpressionFuzz.run(UnsafeBufferPointer(start: data, count: size))
    return 0
}

enum ExpressionFuzz {
    static func run(_ bytes: UnsafeBufferPointer<UInt8>) {
        let source = String(decoding: bytes, as: UTF8.self)
        let expr: Expr
        do {
            expr = try ExpressionParser.parse(source, compileSelector: compileSelector)
        } catch {
            precondition(error.offset >= 0, "an error offset before the expression")
            _ = error.message
            return
        }
        _ = Evaluator.evaluate(expr, context())
    }

    /// A history selector compiled as the rule loader does: its text as YAML, then the loader's
    /// selector rules.
    static func compileSelector(_ text: String, _ offset: Int, _ depth: Int = 0)
        throws(ExpressionError) -> Selector
    {
        try FileLoader.compileSelector(text, offset, depth)
    }

    // MARK: - The fixed event

    static func event(
        _ ev: String, t: Double, gen: UInt64?, line: Int, seq: Int, fields: [Event.Field] = []
    ) -> Event {
        let e = Event(
            t: t, ev: ev, gen: gen, file: 0, line: line, fields: fields, evID: EvNames.id(ev))
        e.seq = seq
        return e
    }

    /// The event expressions are evaluated against (line 7 of logs/a.jsonl).
    static let current = event(
        "ws.close", t: 1000, gen: 2, line: 7, seq: 5,
        fields: [
            .init("reason", .string("pong_timeout")),
            .init("code", .int(1000)),
            .init("delay_ms", .double(12.5)),
            .init("big", .int(Int64.max)),
            .init("small", .int(Int64.min)),
            .init("inf", .double(.infinity)),
            .init("empty", .string("")),
            .init("none", .null),
            .init("flag", .bool(true)),
            .init("tags", .array([.string("a"), .int(1), .null])),
            .init("obj", .object([.init("k", .int(1)), .init("k", .string("last"))])),
            .init("url", .string("wss://example.test/ws?x=1"))
        ])

    /// Captured as `c`.
    static let connect = event(
        "ws.connect", t: 500, gen: 2, line: 3, seq: 2, fields: [.init("interval_ms", .int(100))])

    /// What history functions see: the events before `current`.
    static let earlier = [
        connect,
        event("ws.ping", t: 100, gen: 2, line: 4, seq: 3),
        event("ws.ping", t: 300, gen: 1, line: 5, seq: 4, fields: [.init("id", .string("9"))]),
        event("ws.pong", t: 350, gen: 2, line: 6, seq: 4, fields: [.init("id", .int(9))]),
        event(
            "sse.open", t: 360, gen: nil, line: 8, seq: 6,
            fields: [.init("last_event_id", .string("41"))])
    ]

    struct FixedHistory: HistoryProvider {
        var events: [Event]
        func candidates(for call: HistoryCall, context: EvalContext) -> HistoryCandidates {
            HistoryCandidates(events: events[...], incomplete: call.kind == .next)
        }
    }

    /// A fresh context per input (a let scope remembers what it evaluated).
    static func context() -> EvalContext {
        var ctx = EvalContext(
            event: current,
            params: ["timeout_ms": .int(1000), "label": .string("x"), "ratio": .double(0.5)],
            history: FixedHistory(events: earlier), files: ["logs/a.jsonl"])
        ctx.captures["c"] = connect
        ctx.lets["L"] = .value(.int(5))
        // R reads itself; S reads R; T is plain.
        let scope = LetScope([
            (name: "R", expr: .binary(.add, .name("R", at: 0), .literal(.int(1)), at: 0)),
            (name: "S", expr: .binary(.multiply, .name("R", at: 0), .name("code", at: 0), at: 0)),
            (name: "T", expr: .member(.name("c", at: 0), "interval_ms", id: -1, at: 0))
        ])
        ctx.letScope = scope
        scope.context = ctx
        return ctx
    }
}

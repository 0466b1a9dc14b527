import Testing

@testable import ConnAudit

// MARK: - Helpers

/// Compiles a history function's selector the way the rule loader does.
private func compileSelector(_ text: String, _ offset: Int, _ depth: Int = 0)
    throws(ExpressionError) -> Selector
{
    try FileLoader.compileSelector(text, offset, depth)
}

private func parse(_ source: String) throws(ExpressionError) -> Expr {
    try ExpressionParser.parse(source, compileSelector: compileSelector)
}

/// What an expression came to, comparable in a table.
enum Outcome: Equatable, Sendable, CustomStringConvertible {
    case value(Value)
    case undecided
    /// An event, known by its line.
    case event(line: Int)

    static func int(_ i: Int64) -> Outcome { .value(.int(i)) }
    static func double(_ d: Double) -> Outcome { .value(.double(d)) }
    static func string(_ s: String) -> Outcome { .value(.string(s)) }
    static func bool(_ b: Bool) -> Outcome { .value(.bool(b)) }
    static let null = Outcome.value(.null)
    static let yes = Outcome.bool(true)
    static let no = Outcome.bool(false)

    init(_ e: Eval) {
        switch e {
        case .value(let v): self = .value(v)
        case .undecided: self = .undecided
        case .event(let event): self = .event(line: event.line)
        }
    }

    var description: String {
        switch self {
        case .value(let v):
            switch v {
            case .int(let i): return "int \(i)"
            case .double(let d): return "double \(d)"
            default: return v.rendered(bare: false)
            }
        case .undecided: return "undecided"
        case .event(let line): return "event at line \(line)"
        }
    }
}

private func event(
    _ ev: String, t: Double, gen: UInt64?, line: Int, seq: Int, fields: [Event.Field] = []
) -> Event {
    // The name is registered now: selectors compiled before or after this event match it alike
    // (run alone, this suite would otherwise make its events before any name is known).
    let e = Event(t: t, ev: ev, gen: gen, file: 0, line: line, fields: fields, evID: EvNames.id(ev))
    e.seq = seq
    return e
}

/// The event expressions are evaluated against (line 7 of logs/a.jsonl).
private let current = event(
    "ws.close", t: 1000, gen: 2, line: 7, seq: 5,
    fields: [
        .init("reason", .string("pong_timeout")),
        .init("status", .string("satisfied")),
        .init("code", .int(1000)),
        .init("delay_ms", .double(12.5)),
        .init("empty", .string("")),
        .init("none", .null),
        .init("tags", .array([.string("a"), .string("b")])),
        .init("obj", .object([.init("k", .int(1))])),
        .init("big", .bigInt("12345678901234567890")),
        .init("big2", .bigInt("12345678901234567891")),
        .init("nano", .int(9_007_199_254_740_993))
    ])

/// Captured as `c`.
private let connect = event("ws.connect", t: 500, gen: 2, line: 3, seq: 2)

/// What history functions see: the events before `current`.
private let earlier = [
    connect,
    event("ws.ping", t: 100, gen: 2, line: 4, seq: 3),
    event("ws.ping", t: 300, gen: 1, line: 5, seq: 4),
    event("ws.pong", t: 350, gen: 2, line: 6, seq: 4)
]

private struct FixedHistory: HistoryProvider {
    var events: [Event]
    func candidates(for call: HistoryCall, context: EvalContext) -> HistoryCandidates {
        HistoryCandidates(events: events[...])
    }
}

private func context() -> EvalContext {
    var ctx = EvalContext(
        event: current, params: ["timeout_ms": .int(1000), "label": .string("x")],
        history: FixedHistory(events: earlier), files: ["logs/a.jsonl"])
    ctx.captures["c"] = connect
    return ctx
}

private func evaluate(_ source: String) throws -> Outcome {
    Outcome(Evaluator.evaluate(try parse(source), context()))
}

// MARK: - Tables

private let arithmetic: [(String, Outcome)] = [
    ("1 + 2 * 3", .int(7)),
    ("(1 + 2) * 3", .int(9)),
    ("10 - 4 - 3", .int(3)),
    ("2 * 3 % 4", .int(2)),
    ("-3 + 1", .int(-2)),
    ("2 * -3", .int(-6)),
    ("- -4", .int(4)),
    ("7 % 3", .int(1)),
    ("code % 7", .int(6)),
    ("7 / 2", .double(3.5)),
    ("6 / 2", .double(3)),
    ("1 + 2.5", .double(3.5)),
    ("1.5 + 1.5", .double(3)),
    ("2.5 * 2", .double(5)),
    ("7.5 % 2", .double(1.5)),
    ("1e3 + 1", .double(1001)),
    ("t", .int(1000)),
    ("t + 0.5", .double(1000.5)),
    ("delay_ms * 2", .double(25)),
    ("9223372036854775807 + 1", .double(9_223_372_036_854_775_808)),
    ("'ab' + 'cd'", .string("abcd")),
    ("'a' + 1", .undecided),
    ("1 / 0", .undecided),
    ("1 % 0", .undecided),
    ("1.5 / 0", .undecided),
    ("true + 1", .undecided)
]

private let comparisons: [(String, Outcome)] = [
    ("1 < 2", .yes),
    ("2 <= 2", .yes),
    ("3 > 4", .no),
    ("3 >= 3", .yes),
    ("1 == 1.0", .yes),
    ("1 != 2", .yes),
    ("gen == 2", .yes),
    ("1 + 1 == 2 and 3 > 2", .yes),
    ("not 1 == 2", .yes),
    ("'a' < 'b'", .yes),
    ("'b' >= 'a'", .yes),
    ("'10' < '9'", .yes),
    ("'abc' == 'abc'", .yes),
    ("'a' == 'A'", .no),
    ("reason == 'pong_timeout'", .yes),
    ("reason == \"pong_timeout\"", .yes),
    ("1 == '1'", .no),
    ("'a' < 1", .undecided),
    ("true == true", .yes),
    ("true < false", .undecided)
]

private let missingData: [(String, Outcome)] = [
    ("missing", .null),
    ("none", .null),
    ("null", .null),
    ("missing == null", .yes),
    ("missing != null", .no),
    ("none == null", .yes),
    ("null == null", .yes),
    ("reason != null", .yes),
    ("reason == null", .no),
    ("empty == ''", .yes),
    ("empty != null", .yes),
    ("missing == 0", .no),
    ("missing == ''", .no),
    ("missing < 1", .undecided),
    ("missing >= missing", .undecided),
    ("missing + 1", .undecided),
    ("-missing", .undecided),
    ("abs(missing)", .undecided),
    ("min(1, missing)", .undecided),
    ("text(missing)", .undecided),
    ("len(missing)", .undecided),
    ("missing.x", .null),
    ("reason.x", .undecided),
    ("(missing < 1) == true", .undecided),
    ("not missing", .undecided),
    ("1 and true", .undecided),
    ("missing ?? 5", .int(5)),
    ("none ?? 'd'", .string("d")),
    ("(missing < 1) ?? 'd'", .string("d")),
    ("reason ?? 'd'", .string("pong_timeout")),
    ("false ?? 1", .no),
    ("0 ?? 1", .int(0)),
    ("empty ?? 'x'", .string("")),
    ("missing ?? none ?? 3", .int(3)),
    ("missing ?? 1 + 2", .int(3)),
    ("1 + missing ?? 2", .int(2)),
    ("c.missing ?? 'n'", .string("n"))
]

/// Kleene's three-valued `and`, `or`, `not` over true, false and undecided (`missing < 1`).
private let kleene: [(String, Outcome)] = {
    let operands: [(String, Bool?)] = [("true", true), ("false", false), ("(missing < 1)", nil)]
    func outcome(_ b: Bool?) -> Outcome { b.map { .bool($0) } ?? .undecided }
    var out: [(String, Outcome)] = []
    for (a, x) in operands {
        out.append(("not \(a)", outcome(x.map { !$0 })))
        for (b, y) in operands {
            let and: Bool? =
                x == false || y == false ? false : (x == true && y == true ? true : nil)
            let or: Bool? = x == true || y == true ? true : (x == false && y == false ? false : nil)
            out.append(("\(a) and \(b)", outcome(and)))
            out.append(("\(a) or \(b)", outcome(or)))
        }
    }
    return out
}()

private let membership: [(String, Outcome)] = [
    ("2 in [1, 2, 3]", .yes),
    ("2.0 in [1, 2]", .yes),
    ("'x' in ['a']", .no),
    ("4 not in [1, 2]", .yes),
    ("2 not in [1, 2]", .no),
    ("reason in ['pong_timeout', 'inactive']", .yes),
    ("reason not in ['pong_timeout', 'inactive']", .no),
    ("'a' in tags", .yes),
    ("missing in [null]", .yes),
    ("missing in [1]", .no),
    ("1 in 5", .undecided),
    ("1 in missing", .undecided),
    ("(missing < 1) in [true]", .undecided),
    ("not 2 in [1]", .yes)
]

private let conditionals: [(String, Outcome)] = [
    ("if gen == 2 then 'two' else 'other'", .string("two")),
    ("if gen == 3 then 'two' else 'other'", .string("other")),
    ("if missing == null then 'absent' else 'present'", .string("absent")),
    ("if missing < 1 then 1 else 2", .undecided),
    ("if true then 1 else 1 / 0", .int(1)),
    ("if false then 1 else if true then 2 else 3", .int(2)),
    ("1 + (if gen > 1 then 10 else 20)", .int(11))
]

private let functions: [(String, Outcome)] = [
    ("min(3, 1, 2)", .int(1)),
    ("max(3, 1.5)", .int(3)),
    ("max(1, 2.5)", .double(2.5)),
    ("min([4, 2])", .int(2)),
    ("min(7)", .int(7)),
    ("max(tags)", .undecided),
    ("min('a', 'b')", .undecided),
    ("abs(-4)", .int(4)),
    ("abs(-2.5)", .double(2.5)),
    ("abs(gen - 5)", .int(3)),
    ("pow(2, 10)", .int(1024)),
    ("pow(4, 0.5)", .double(2)),
    ("pow(2, -1)", .double(0.5)),
    ("pow(10, 400)", .undecided),
    ("text(42)", .string("42")),
    ("text('a')", .string("a")),
    ("text(gen)", .string("2")),
    ("text(1.5)", .string("1.5")),
    ("text(2.50)", .string("2.5")),
    ("text(1.5e3)", .string("1500.0")),
    // a literal in a rule is a double: too large to tell apart
    ("text(12345678901234567890)", .undecided),
    // From a log, an integer beyond 64 bits keeps its digits (SSE ids compare as their decimal
    // text).
    ("text(big)", .string("12345678901234567890")),
    ("text(big) == '12345678901234567890'", .yes),
    ("big == big2", .no),  // as doubles they would be equal
    ("big == big", .yes),
    ("type(big)", .string("int")),
    ("is_int(big)", .yes),
    ("big > 1", .yes),
    ("str(big)", .string("12345678901234567890")),
    ("text(1e20)", .undecided),
    ("text(true)", .undecided),
    ("text(gen) + '/' + text(code)", .string("2/1000")),
    ("is_int(gen)", .yes),
    ("is_int(delay_ms)", .no),
    ("is_int(1.0)", .no),
    ("is_int('1')", .no),
    ("is_int(missing)", .no),
    ("is_int(missing < 1)", .undecided),
    ("type(gen)", .string("int")),
    ("type(delay_ms)", .string("number")),
    ("type(reason)", .string("string")),
    ("type(missing)", .string("null")),
    ("type(tags)", .string("array")),
    ("type(obj)", .string("object")),
    ("type(true)", .string("bool")),
    ("type(c)", .string("event")),
    ("type(missing < 1)", .undecided),
    ("str('150')", .string("150")),
    ("json('150')", .string("\"150\"")),
    ("str(1.0)", .string("1")),
    ("json(1.0)", .string("1.0")),
    ("json(gen)", .string("2")),
    ("json(delay_ms)", .string("12.5")),
    ("json(missing)", .string("null")),
    ("json(tags)", .string("[\"a\",\"b\"]")),
    ("json(missing < 1)", .undecided),
    (#"json('a"b\\c')"#, .string(#""a\"b\\c""#)),
    ("len('abc')", .int(3)),
    ("len('')", .int(0)),
    ("len(tags)", .int(2)),
    ("len(obj)", .int(1)),
    ("len(gen)", .undecided)
]

private let lookups: [(String, Outcome)] = [
    ("{satisfied: \"available\"}[status] ?? \"unknown\"", .string("available")),
    ("{satisfied: 'available'}[reason] ?? 'unknown'", .string("unknown")),
    ("{satisfied: 'available'}[missing] ?? 'unknown'", .string("unknown")),
    ("{'1000': 'normal'}[code]", .string("normal")),
    ("{a: 1, a: 2}['a']", .int(2)),
    ("{a: 1}.a", .int(1)),
    ("obj.k", .int(1)),
    ("obj['k']", .int(1)),
    ("tags[0]", .string("a")),
    ("tags[1]", .string("b")),
    ("tags[2]", .null),
    ("[1, 2, 3][1]", .int(2)),
    ("tags['x']", .undecided)
]

private let names: [(String, Outcome)] = [
    ("ev", .string("ws.close")),
    ("params.timeout_ms", .int(1000)),
    ("params.timeout_ms + 50", .int(1050)),
    ("params.label", .string("x")),
    ("params.nope", .null),
    ("c", .event(line: 3)),
    ("c.gen", .int(2)),
    ("c.t", .int(500)),
    ("c.ev", .string("ws.connect")),
    ("t - c.t", .int(500)),
    ("gen == c.gen", .yes),
    ("c == c", .yes),
    ("c.missing", .null),
    ("c.$line", .int(3)),
    ("c.$seq", .int(2)),
    ("$line", .int(7)),
    ("$seq", .int(5)),
    ("$file", .string("logs/a.jsonl")),
    ("'it\\'s'", .string("it's"))
]

private let history: [(String, Outcome)] = [
    ("count({ev: ws.ping})", .int(2)),
    ("count({ev: \"ws.*\"})", .int(4)),
    ("count({ev: ws.ping, gen: 1})", .int(1)),
    ("count({ev: ws.ping, where: 'gen == c.gen'})", .int(1)),
    ("count([{ev: ws.ping}, {ev: ws.pong}])", .int(3)),
    ("first({ev: ws.ping}).t", .int(100)),
    ("last({ev: ws.ping}).t", .int(300)),
    ("last({ev: [ws.ping, ws.pong]}).$line", .int(6)),
    ("first({ev: ws.ping})", .event(line: 4)),
    ("first({ev: ws.nope})", .null),
    ("first({ev: ws.nope}).t", .null),
    ("first({ev: ws.nope}).t ?? -1", .int(-1)),
    ("first({ev: ws.ping}) == null", .no),
    ("t - last({ev: ws.ping}).t", .int(700))
]

/// Integers from 2^53 up (a `gen` from a nanosecond clock): neighbours are different numbers,
/// though as doubles they round alike.
private let bigIntegers: [(String, Outcome)] = [
    ("9007199254740993 == 9007199254740992", .no),
    ("9007199254740993 != 9007199254740992", .yes),
    ("9007199254740993 > 9007199254740992", .yes),
    ("9007199254740992 < 9007199254740993", .yes),
    ("9007199254740993 <= 9007199254740992", .no),
    ("9223372036854775807 > 9223372036854775806", .yes),
    ("nano == 9007199254740993", .yes),
    ("nano == 9007199254740992", .no),
    ("nano in [9007199254740992, 1]", .no),
    ("max(9007199254740992, 9007199254740993)", .int(9_007_199_254_740_993)),
    ("min(9007199254740993, 9007199254740992)", .int(9_007_199_254_740_992)),
    ("max([9007199254740992, 9007199254740993, 9007199254740992])", .int(9_007_199_254_740_993)),
    ("min([9007199254740993, 9007199254740992])", .int(9_007_199_254_740_992)),
    // An integer against a double still compares by value (1 == 1.0).
    ("1 == 1.0", .yes),
    ("2 > 1.5", .yes)
]

/// Gens past Int64 (a UInt64 a client drew or hashed) read as `.bigInt`: they order exactly against
/// each other and against every other JSON integer, through operators, functions and selectors.
private let bigGenCurrent = event(
    "ws.connect", t: 50, gen: 9_223_372_036_854_775_809, line: 9, seq: 4,
    fields: [
        .init("top", .bigInt("18446744073709551615")),
        .init("low", .bigInt("-9223372036854775809")),
        .init("lower", .bigInt("-9223372036854775810")),
        .init("imax", .int(Int64.max)),
        .init("imin", .int(Int64.min)),
        .init("d63", .double(9.223372036854775808e18))
    ])

private let bigGenEarlier = [
    event("ws.connect", t: 10, gen: 9_223_372_036_854_775_808, line: 2, seq: 1),
    event("ws.connect", t: 20, gen: 18_446_744_073_709_551_614, line: 3, seq: 2),
    event("ws.connect", t: 30, gen: 9_223_372_036_854_775_807, line: 4, seq: 3)
]

private func evaluateBigGens(_ source: String) throws -> Outcome {
    var ctx = EvalContext(
        event: bigGenCurrent, params: [:], history: FixedHistory(events: bigGenEarlier),
        files: ["logs/a.jsonl"])
    ctx.captures["c"] = bigGenEarlier[0]
    return Outcome(Evaluator.evaluate(try parse(source), ctx))
}

private let bigGens: [(String, Outcome)] = [
    ("gen", .value(.bigInt("9223372036854775809"))),
    ("gen > c.gen", .yes),  // 2^63 + 1 > 2^63: as doubles they are equal
    ("gen < c.gen", .no),
    ("gen >= c.gen", .yes),
    ("c.gen <= gen", .yes),
    ("gen == c.gen", .no),
    ("gen >= gen", .yes),
    ("gen > gen", .no),
    ("top > gen", .yes),
    ("gen > imax", .yes),
    ("imax < gen", .yes),
    ("gen > 9223372036854775807", .yes),
    ("gen > -1", .yes),
    ("low < imin", .yes),
    ("imin > low", .yes),
    ("lower < low", .yes),
    ("low > lower", .yes),
    ("low < gen", .yes),
    // Against a number written with a fraction or exponent: by value, as doubles.
    ("gen <= d63 and gen >= d63", .yes),
    ("max(gen, c.gen)", .value(.bigInt("9223372036854775809"))),
    ("min(gen, c.gen)", .value(.bigInt("9223372036854775808"))),
    ("max([imax, top, gen])", .value(.bigInt("18446744073709551615"))),
    ("min([imin, low, lower])", .value(.bigInt("-9223372036854775810"))),
    ("maxof({ev: ws.connect}, gen)", .value(.bigInt("18446744073709551614"))),
    ("minof({ev: ws.connect}, gen)", .int(Int64.max)),
    ("gen > (maxof({ev: ws.connect}, gen) ?? -1)", .no),
    ("count({ev: ws.connect, gen: {gt: 9223372036854775807}})", .int(2)),
    ("count({ev: ws.connect, gen: {lte: 9223372036854775807}})", .int(1)),
    ("count({ev: ws.connect, where: 'gen > c.gen'})", .int(1)),
    ("count({ev: ws.connect, where: 'gen >= c.gen'})", .int(2))
]

// MARK: - Tests

@Suite struct ExpressionTests {
    @Test(arguments: arithmetic)
    func arithmeticAndPrecedence(_ source: String, _ expected: Outcome) throws {
        #expect(try evaluate(source) == expected)
    }

    @Test(arguments: comparisons)
    func comparisonsOfNumbersAndStrings(_ source: String, _ expected: Outcome) throws {
        #expect(try evaluate(source) == expected)
    }

    @Test(arguments: missingData)
    func missingDataIsNullOrUndecided(_ source: String, _ expected: Outcome) throws {
        #expect(try evaluate(source) == expected)
    }

    @Test(arguments: kleene)
    func threeValuedLogic(_ source: String, _ expected: Outcome) throws {
        #expect(try evaluate(source) == expected)
    }

    @Test(arguments: membership)
    func inAndNotIn(_ source: String, _ expected: Outcome) throws {
        #expect(try evaluate(source) == expected)
    }

    @Test(arguments: conditionals)
    func ifThenElse(_ source: String, _ expected: Outcome) throws {
        #expect(try evaluate(source) == expected)
    }

    @Test(arguments: functions)
    func valueFunctions(_ source: String, _ expected: Outcome) throws {
        #expect(try evaluate(source) == expected)
    }

    @Test(arguments: lookups)
    func mapAndListLookups(_ source: String, _ expected: Outcome) throws {
        #expect(try evaluate(source) == expected)
    }

    @Test(arguments: names)
    func paramsCapturesAndBuiltInFields(_ source: String, _ expected: Outcome) throws {
        #expect(try evaluate(source) == expected)
    }

    @Test(arguments: bigIntegers)
    func integersCompareExactlyBeyondDoubles(_ source: String, _ expected: Outcome) throws {
        #expect(try evaluate(source) == expected)
    }

    @Test(arguments: bigGens)
    func gensPastInt64OrderExactly(_ source: String, _ expected: Outcome) throws {
        #expect(try evaluateBigGens(source) == expected)
    }

    @Test(arguments: history)
    func historyFunctions(_ source: String, _ expected: Outcome) throws {
        #expect(try evaluate(source) == expected)
    }

    @Test func historyWithoutAProviderIsUndecided() throws {
        let ctx = EvalContext(event: current, params: [:], history: nil, files: [])
        #expect(Outcome(Evaluator.evaluate(try parse("count({ev: ws.ping})"), ctx)) == .undecided)
    }

    @Test func letBindingsShadowFieldsAndCaptures() throws {
        var ctx = context()
        ctx.lets["reason"] = .value(.string("bound"))
        ctx.lets["T"] = .value(.int(250))
        #expect(Outcome(Evaluator.evaluate(try parse("reason"), ctx)) == .string("bound"))
        #expect(Outcome(Evaluator.evaluate(try parse("c.t + T"), ctx)) == .int(750))
    }

    // MARK: Errors

    /// Bad expressions, the byte offset of the offending token, and what the error says.
    @Test(arguments: [
        ("a ==", 4, "unexpected end of expression"),
        ("a = b", 2, "'=' is not an operator; use '==' to compare"),
        ("foo(1)", 0, "unknown function 'foo'"),
        ("(1", 2, "expected ')' but found end of expression"),
        ("a && b", 2, "use 'and', 'or', 'not' instead of '&'"),
        ("a || b", 2, "use 'and', 'or', 'not' instead of '|'"),
        ("!a", 0, "use 'and', 'or', 'not' instead of '!'"),
        ("1 2", 2, "unexpected number 2 after the expression"),
        ("gen > 1 )", 8, "unexpected ')' after the expression"),
        ("min()", 0, "min() takes 1 to 16 argument(s), not 0"),
        ("abs(1, 2)", 0, "abs() takes 1 argument(s), not 2"),
        ("'abc", 0, "unterminated string"),
        ("a.", 2, "expected a field name after '.'"),
        ("if a then b", 11, "expected 'else'"),
        ("if a b", 5, "expected 'then'"),
        ("and", 0, "unexpected 'and'"),
        ("a # b", 2, "unexpected character '#'"),
        ("{a 1}", 3, "expected ':'"),
        ("[1, 2", 5, "expected ']'"),
        ("count(ev)", 6, "count() takes a selector such as {ev: ws.ping}"),
        ("first({ev: ws.ping)", 6, "unclosed '{' in the selector"),
        ("count({ev: ws.ping}, since x)", 27, "expected ':' but found 'x'"),
        ("count({ev: ws.ping}, until: x)", 21, "expected 'since:'"),
        ("count({ev: ws.ping, bogus: {gt: 1, x: 2}})", 35, "unknown test 'x' for field 'bogus'")
    ])
    func errorPointsAtTheOffendingToken(_ source: String, _ offset: Int, _ message: String) {
        do {
            let e = try parse(source)
            Issue.record("parsed as \(e)")
        } catch {
            #expect(error.offset == offset, "\(error.message)")
            #expect(error.message.contains(message), "message was: \(error.message)")
        }
    }

    @Test(arguments: [
        String(repeating: "(", count: 150) + "1" + String(repeating: ")", count: 150),
        String(repeating: "-", count: 150) + "1",
        String(repeating: "not ", count: 150) + "true"
    ])
    func deepNestingIsAnErrorNotACrash(_ source: String) {
        do {
            _ = try parse(source)
            Issue.record("parsed")
        } catch {
            #expect(error.message.contains("nested deeper than"), "\(error.message)")
        }
    }

    // MARK: Selectors

    /// Field tests of a selector, against the same event (with `c` captured).
    @Test(arguments: [
        ("{ev: ws.close}", true),
        ("{ev: ws.open}", false),
        ("{ev: \"ws.*\"}", true),
        ("{ev: \"ws.c?ose\"}", true),
        ("{ev: [ws.open, ws.close]}", true),
        ("[{ev: ws.open}, {code: 1000}]", true),
        ("{ev: ws.close, code: 999}", false),
        ("{code: 1000.0}", true),
        ("{gen: \"2\"}", false),
        ("{gen: 2}", true),
        ("{reason: {exists: true}}", true),
        ("{missing: {exists: false}}", true),
        ("{none: {exists: false}}", true),
        ("{code: {gte: 1000, lt: 2000}}", true),
        ("{code: {gt: 1000}}", false),
        ("{missing: {gt: 1}}", false),
        ("{missing: {lte: 1}}", false),
        ("{reason: {in: [pong_timeout, inactive]}}", true),
        ("{reason: {not_in: [pong_timeout]}}", false),
        ("{reason: {eq: pong_timeout}}", true),
        ("{reason: {ne: pong_timeout}}", false),
        ("{where: \"gen == c.gen\"}", true),
        ("{where: \"t >= c.t + params.timeout_ms\"}", false),
        ("{where: \"missing > 1\"}", false),
        ("{not: {ev: ws.close}}", false),
        ("{ev: ws.close, not: {reason: user}}", true),
        // Integers from 2^53 up compare exactly, not as doubles that round alike.
        ("{nano: 9007199254740992}", false),
        ("{nano: 9007199254740993}", true),
        ("{nano: {gt: 9007199254740992}}", true),
        ("{nano: {lte: 9007199254740992}}", false),
        ("{nano: {not_in: [9007199254740992]}}", true)
    ])
    func selectorMatches(_ text: String, _ expected: Bool) throws {
        let selector = try compileSelector(text, 0)
        #expect((Evaluator.matches(selector, current, context()) != nil) == expected)
    }
}

import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// A term's `where:` of history calls each looked up by one field of its own candidate
/// (``CountedWhere``) gives the truth the compiled `where:` gives with the candidate bound, for
/// keys of every kind and histories with none, one or several events of each key; and it gives
/// none where the general way must answer. Each ``Kind`` of key is tried alike.
@Suite struct InPlaceWhereGivesTheGeneralAnswerTests {
    /// How a call of the `where:` looks its key up.
    enum Kind: Sendable, CustomTestStringConvertible {
        /// `text(id) == text(e.id)`, counted in counted indexes: ids that are short and long
        /// texts, non-ASCII, numbers, booleans, null, missing, and two ids of two types.
        case counted
        /// `gen == g.gen`, searched in a keyed index: keys of every kind that `==` compares
        /// loosely (integers and the doubles equal to them, integers past 2^53 and the doubles
        /// they round to, -0.0, texts, booleans, null, missing, two conns of two types).
        case keyed

        var testDescription: String { self == .counted ? "counted" : "keyed" }

        /// Ids: short texts, one of 16 bytes or more, non-ASCII, numbers, a boolean, null, two ids
        /// of two types in one event (either order); none for no id at all.
        static let ids: [[Value]] = [
            [.string("1")], [.string("2")], [.string("01")], [.string("")], [.string("caf\u{e9}")],
            [.string("a-long-event-id-of-many-bytes")], [.int(1)], [.int(2)], [.double(1.5)],
            [.bool(true)], [.null], [], [.string("1"), .int(2)], [.int(2), .string("1")]
        ]

        /// Gens: none, small, past 2^53 (where `==` compares with a double), the largest.
        static let gens: [UInt64?] = [nil, 1, 2, 1 << 53, (1 << 53) + 1, UInt64.max]

        /// Conns: integers and the doubles equal to them, -0.0, past 2^53, texts, a boolean, null,
        /// two conns of two types in one event; none for no conn at all.
        static let conns: [[Value]] = [
            [.int(1)], [.double(1.0)], [.int(0)], [.double(-0.0)], [.int(2)], [.double(1.5)],
            [.int((1 << 53) + 1)], [.double(0x1p53)], [.string("1")], [.string("caf\u{e9}")],
            [.bool(true)], [.null], [], [.string("2"), .int(1)]
        ]

        static func event(_ ev: String, gen: UInt64?, _ fields: [Event.Field], seq: Int)
            -> Event
        {
            let e = Event(
                t: Double(seq), ev: ev, gen: gen, file: 0, line: seq + 1, fields: fields,
                evID: EvNames.id(ev))
            e.seq = seq
            return e
        }

        /// The rule whose first step's `where:` is `where_`, after the rule's `lets` (YAML).
        func rule(_ where_: String, lets: String) -> (path: String, text: String) {
            switch self {
            case .counted:
                return (
                    "rules/c.yaml",
                    """
                    rules:
                      - id: t.counted-where
                        title: counted where
                        for: source\(lets)
                        each: { ev: sse.event, as: e, where: "\(where_)" }
                        followed_by: { ev: sse.processed, ok: true, where: "text(id) == text(e.id)" }
                        at_end: fail
                    """
                )
            case .keyed:
                return (
                    "rules/k.yaml",
                    """
                    rules:
                      - id: t.keyed-where
                        title: keyed where
                        for: source\(lets)
                        each: { ev: ws.connect, as: g, where: "\(where_)" }
                        followed_by: { ev: ws.close, where: "gen == g.gen" }
                        at_end: fail
                    """
                )
            }
        }

        /// The name the first step captures its candidate as.
        var capture: String { self == .counted ? "e" : "g" }

        /// Where a random history starts.
        var seed: UInt64 { self == .counted ? 71 : 28401 }

        /// How many candidates the form answers, at least, over a shape's two runs.
        var answers: Int { self == .counted ? 100 : 200 }

        /// An event of a random history.
        func history(_ random: inout SplitMix64, seq: Int) -> Event {
            switch self {
            case .counted:
                let ev = ["sse.event", "sse.processed", "sse.commit"][random.below(3)]
                let id = Self.ids[random.below(Self.ids.count)]
                let ok = [true, false, nil][random.below(3)]
                var fields = id.map { Event.Field("id", $0) }
                if let ok { fields.append(.init("ok", .bool(ok))) }
                return Self.event(ev, gen: nil, fields, seq: seq)
            case .keyed:
                let ev = ["ws.connect", "ws.open", "ws.close", "ws.closed"][random.below(4)]
                let gen = Self.gens[random.below(Self.gens.count)]
                let conn = Self.conns[random.below(Self.conns.count)]
                return Self.event(ev, gen: gen, conn.map { .init("conn", $0) }, seq: seq)
            }
        }

        /// The candidates tried after the event at `seq`: one of every key.
        func candidates(seq: Int) -> [Event] {
            switch self {
            case .counted:
                return Self.ids.map { id in
                    Self.event("sse.event", gen: nil, id.map { .init("id", $0) }, seq: seq + 1)
                }
            case .keyed:
                return Self.gens.flatMap { gen in
                    Self.conns.map { conn in
                        Self.event(
                            "ws.connect", gen: gen, conn.map { .init("conn", $0) }, seq: seq + 1)
                    }
                }
            }
        }

        /// Whether the form must answer for `candidate`: the counted form answers every short
        /// ASCII text id.
        func mustAnswer(_ candidate: Event) -> Bool {
            guard self == .counted, candidate.fields.count == 1,
                case .string(let s) = candidate.fields[0].value
            else { return false }
            return s.utf8.count < 16 && s.utf8.allSatisfy { $0 < 128 }
        }

        /// A random log of the kind's events, `seed` choosing it.
        func log(seed: UInt64) -> (path: String, text: String) {
            self == .counted
                ? ("c.jsonl", CountedIndexTests.log(seed: seed))
                : ("k.jsonl", InPlaceWhereGivesTheGeneralAnswerTests.keyedLog(seed: seed))
        }
    }

    /// A `where:` tried on a rule of its ``Kind``, after the rule's `lets` (YAML, may be empty).
    struct Shape: Sendable, CustomTestStringConvertible {
        let kind: Kind
        /// Which of its kind's shapes it is: where its random history starts.
        let number: Int
        let text: String
        var lets = ""

        var testDescription: String { "\(kind) \(number): \(lets) \(text)" }

        /// The rule's first step compiled.
        func compiled() throws -> CompiledRule {
            let (path, text) = kind.rule(text, lets: lets)
            let rule = try #require(try RuleLoader.load(files: [(path, text)]).rules.first)
            return CompiledRule(rule: rule, index: 0, overrides: [:])
        }
    }

    private static func rows(_ kind: Kind, _ texts: [String]) -> [Shape] {
        texts.enumerated().map { Shape(kind: kind, number: $0, text: $1) }
    }

    /// `where:`s of the in-place shape: sse.no-lost-events' first step and the ws generations'
    /// first steps, each comparison, the constant on either side, and the capture's field on
    /// either side.
    static let shapes: [Shape] =
        rows(
            .counted,
            [
                "count({ev: sse.event, where: 'text(id) == text(e.id)'}) == 0 and count({ev: sse.processed, ok: true, where: 'text(id) == text(e.id)'}) == 0",
                "count({ev: sse.event, where: 'text(e.id) == text(id)'}) >= 2",
                "1 < count({ev: sse.processed, where: 'text(id) == text(e.id)'}) and count({ev: sse.commit, where: 'text(id) == text(e.id)'}) != 0",
                "count({ev: sse.commit, where: 'text(id) == text(e.id)'}) > 0 and 3 >= count({ev: sse.event, where: 'text(id) == text(e.id)'})",
                "count({ev: sse.event, where: 'text(id) == text(e.id)'}) < 1 and count({ev: sse.processed, ok: false, where: 'text(id) == text(e.id)'}) <= 1",
                "0 == count({ev: sse.event, where: 'text(id) == text(e.id)'}) and 0 == count({ev: sse.commit, where: 'text(e.id) == text(id)'})"
            ])
        + rows(
            .keyed,
            [
                "count({ev: [ws.close, ws.closed, ws.connect_failed], where: 'gen == g.gen'}) == 0 and count({ev: ws.connect, where: 'gen == g.gen'}) == 0",
                "count({ev: ws.open, where: 'g.gen == gen'}) > 0 and count({ev: [ws.close, ws.closed], where: 'gen == g.gen'}) == 0",
                "count({ev: ws.open, where: 'conn == g.conn'}) >= 1",
                "0 == count({ev: ws.open, where: 'conn == g.conn'}) and count({ev: [ws.close, ws.open], where: 'conn == g.conn'}) <= 1",
                "count({ev: ws.closed, where: 'conn == g.conn'}) < 2 and count({ev: ws.open, where: 'conn == g.conn'}) != 1"
            ])

    /// `where:`s of other shapes: a `$seq` bound, two fields, a second conjunct, `or`, a count
    /// of a list, a mix of a keyed and a counted call; and one of the in-place shape in a rule
    /// with a let named as the capture.
    static let others: [Shape] =
        rows(
            .counted,
            [
                "count({ev: sse.event, where: 'text(id) == text(e.id) and $seq < e.$seq'}) == 0",
                "count({ev: sse.event, where: 'text(id) == text(e.id)'}) == 0 and count({ev: sse.commit, where: 'text(id) == text(e.other)'}) == 0",
                "count({ev: sse.event, where: 'text(id) == text(e.id)'}) == 0 or count({ev: sse.commit, where: 'text(id) == text(e.id)'}) == 0",
                "count({ev: sse.event, where: 'text(id) == text(e.id)'}) == 0 and id != null"
            ])
        + rows(
            .keyed,
            [
                "count({ev: ws.open, where: 'gen == g.gen'}) == 0 and count({ev: ws.close, where: 'conn == g.conn'}) == 0",
                "count({ev: ws.open, where: 'gen == g.gen and conn == 1'}) == 0",
                "count({ev: ws.open, where: 'gen == g.gen and $seq < g.$seq'}) == 0",
                "count({ev: ws.open, where: 'gen == g.gen'}) == 0 or count({ev: ws.close, where: 'gen == g.gen'}) == 0",
                "count({ev: ws.open, where: 'gen == g.gen'}) == 0 and count({ev: ws.close, where: 'text(conn) == text(g.conn)'}) == 0"
            ])
        + [
            Shape(
                kind: .counted, number: 4,
                text: "count({ev: sse.event, where: 'text(id) == text(e.id)'}) == 0",
                lets: "\n    let: { e: 'first({ev: sse.commit})' }"),
            Shape(
                kind: .keyed, number: 5, text: "count({ev: ws.open, where: 'conn == g.conn'}) == 0",
                lets: "\n    let: { g: 'first({ev: ws.open})' }")
        ]

    /// A runner of the rule given a random history, and every key tried as a candidate after
    /// each event: where the form answers, it is the compiled `where:`'s truth (asked first,
    /// which makes the indexes); it answers often, and every short ASCII text id; and while
    /// the answers are cross-checked, it is checked against the general way instead.
    @Test(arguments: shapes)
    func theInPlaceTruthIsTheCompiledTruth(_ shape: Shape) throws {
        let compiled = try shape.compiled()
        let term = compiled.steps[0].selector.terms[0]
        let form = try #require(term.countedWhereRef?.takeUnretainedValue())
        let box = try #require(term.whereRef?.takeUnretainedValue())
        let kind = shape.kind
        var random = SplitMix64(seed: UInt64(shape.number) &+ kind.seed)
        var answered = 0
        var checked = 0
        for crossCheck in [false, true] {
            HistoryCrossCheck.$isOn.withValue(crossCheck) {
                let runner = SequenceRunner(compiled, files: ["a.jsonl"])
                let sink = FindingSink(files: ["a.jsonl"])
                let scope = ContextScope(
                    context: TimelineContext(source: nil), stream: nil, gen: nil)
                for seq in 0..<60 {
                    runner.observe(kind.history(&random, seq: seq), context: scope, sink: sink)
                    for c in kind.candidates(seq: seq) {
                        let ctx = runner.context(c)
                        let general = ctx.binding(kind.capture, to: c) {
                            box.compiled.holds($0, c) == true
                        }
                        let fast = form.holds(c, ctx)
                        let compared = form.check(general, c, ctx)
                        if runner.crossCheck != nil {
                            // The general way answers, and the form is checked against it.
                            #expect(fast == nil)
                            if let compared {
                                checked += 1
                                #expect(compared == general)
                            }
                            continue
                        }
                        #expect(compared == nil)
                        let key = "gen \(String(describing: c.gen)) \(c.fields.map(\.value))"
                        if kind.mustAnswer(c) { #expect(fast != nil, "\(key)") }
                        if let fast {
                            answered += 1
                            #expect(fast == general, "seq \(seq) \(key)")
                        }
                    }
                }
            }
        }
        #expect(checked > 0)
        #expect(answered > kind.answers)
    }

    /// A `where:` of another shape has no in-place form: the general way answers it.
    @Test(arguments: others)
    func otherShapesHaveNoInPlaceForm(_ shape: Shape) throws {
        #expect(try shape.compiled().steps[0].selector.terms[0].countedWhereRef == nil)
    }

    /// A random ws log: events of a few gens and conns of every kind, two conns of two types
    /// in one line among them.
    static func keyedLog(seed: UInt64, events: Int = 200) -> String {
        var rng = SplitMix64(seed: seed)
        let gens = ["", #","gen":1"#, #","gen":2"#, #","gen":9007199254740993"#]
        let conns = [
            "", #","conn":1"#, #","conn":1.0"#, #","conn":"1""#, #","conn":null"#,
            #","conn":"1","conn":2"#
        ]
        let evs = ["ws.connect", "ws.open", "ws.close", "ws.closed", "ws.connect_failed"]
        var lines: [String] = []
        for t in 0..<events {
            let ev = evs[rng.below(evs.count)]
            let gen = gens[rng.below(gens.count)]
            let conn = conns[rng.below(conns.count)]
            lines.append(#"{"t":\#(t * 10),"ev":"\#(ev)"\#(gen)\#(conn)}"#)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The rule judges alike whichever way its `where:` is answered: with the in-place form,
    /// and with the cross-check on (every answer then checked against the general way's and a
    /// scan).
    @Test(arguments: shapes)
    func theRuleJudgesAlikeEitherWay(_ shape: Shape) throws {
        let rule = try shape.compiled().rule
        for seed: UInt64 in [1, 2, 3, 5, 8] {
            let (path, log) = shape.kind.log(seed: seed)
            let fast = HistoryCrossCheck.$isOn.withValue(false) {
                RuleRuns.audit([rule], log, path: path).results[0]
            }
            let checked = HistoryCrossCheck.$isOn.withValue(true) {
                RuleRuns.audit([rule], log, path: path).results[0]
            }
            #expect(
                (fast.violations + fast.inconclusive).map(\.message)
                    == (checked.violations + checked.inconclusive).map(\.message), "seed \(seed)")
            #expect(fast.status == checked.status)
        }
    }
}

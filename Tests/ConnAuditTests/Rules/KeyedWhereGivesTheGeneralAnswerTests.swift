import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// A term's `where:` of counts searched in keyed indexes by a field of its own candidate
/// (``CountedWhere``, keyed: `gen == g.gen`) gives the truth the compiled `where:` gives with
/// the candidate bound, for keys of every kind that `==` compares loosely (integers and the
/// doubles equal to them, integers past 2^53 and the doubles they round to, -0.0, texts,
/// booleans, null, missing) and histories with none, one or several events of each key; and it
/// gives none where the general way must answer.
@Suite struct KeyedWhereGivesTheGeneralAnswerTests {
    /// `where:`s of the keyed shape: the ws generations' first steps, and each comparison.
    static let shapes: [String] = [
        "count({ev: [ws.close, ws.closed, ws.connect_failed], where: 'gen == g.gen'}) == 0 and count({ev: ws.connect, where: 'gen == g.gen'}) == 0",
        "count({ev: ws.open, where: 'g.gen == gen'}) > 0 and count({ev: [ws.close, ws.closed], where: 'gen == g.gen'}) == 0",
        "count({ev: ws.open, where: 'conn == g.conn'}) >= 1",
        "0 == count({ev: ws.open, where: 'conn == g.conn'}) and count({ev: [ws.close, ws.open], where: 'conn == g.conn'}) <= 1",
        "count({ev: ws.closed, where: 'conn == g.conn'}) < 2 and count({ev: ws.open, where: 'conn == g.conn'}) != 1"
    ]

    /// `where:`s of other shapes: two fields, a second conjunct, a `$seq` bound, `or`, a mix
    /// of a keyed and a counted call.
    static let others: [String] = [
        "count({ev: ws.open, where: 'gen == g.gen'}) == 0 and count({ev: ws.close, where: 'conn == g.conn'}) == 0",
        "count({ev: ws.open, where: 'gen == g.gen and conn == 1'}) == 0",
        "count({ev: ws.open, where: 'gen == g.gen and $seq < g.$seq'}) == 0",
        "count({ev: ws.open, where: 'gen == g.gen'}) == 0 or count({ev: ws.close, where: 'gen == g.gen'}) == 0",
        "count({ev: ws.open, where: 'gen == g.gen'}) == 0 and count({ev: ws.close, where: 'text(conn) == text(g.conn)'}) == 0"
    ]

    /// Gens: none, small, past 2^53 (where `==` compares with a double), the largest.
    private static let gens: [UInt64?] = [nil, 1, 2, 1 << 53, (1 << 53) + 1, UInt64.max]

    /// Conns: integers and the doubles equal to them, -0.0, past 2^53, texts, a boolean, null;
    /// nil for no conn at all.
    private static let conns: [Value?] = [
        .int(1), .double(1.0), .int(0), .double(-0.0), .int(2), .double(1.5),
        .int((1 << 53) + 1), .double(0x1p53), .string("1"), .string("caf\u{e9}"), .bool(true),
        .null, nil
    ]

    private static func step(_ where_: String) throws -> CompiledRule {
        let text = """
            rules:
              - id: t.keyed-where
                title: keyed where
                for: source
                each: { ev: ws.connect, as: g, where: "\(where_)" }
                followed_by: { ev: ws.close, where: "gen == g.gen" }
                at_end: fail
            """
        let rule = try #require(try RuleLoader.load(files: [("rules/k.yaml", text)]).rules.first)
        return CompiledRule(rule: rule, index: 0, overrides: [:])
    }

    private static func event(_ ev: String, gen: UInt64?, conn: Value?, seq: Int) -> Event {
        var fields: [Event.Field] = []
        if let conn { fields.append(.init("conn", conn)) }
        let e = Event(
            t: Double(seq), ev: ev, gen: gen, file: 0, line: seq + 1, fields: fields,
            evID: EvNames.id(ev))
        e.seq = seq
        return e
    }

    /// A runner of the rule given a random history, and every key tried as a candidate after
    /// each event: where the keyed form answers, it is the compiled `where:`'s truth (asked
    /// first, which makes the indexes); it answers often, and while the answers are
    /// cross-checked, it is checked against the general way instead.
    @Test(arguments: shapes.indices)
    func theKeyedTruthIsTheCompiledTruth(shape: Int) throws {
        let compiled = try Self.step(Self.shapes[shape])
        let term = compiled.steps[0].selector.terms[0]
        let keyed = try #require(term.countedWhereRef?.takeUnretainedValue(), "\(shape)")
        let box = try #require(term.whereRef?.takeUnretainedValue())
        var random = SplitMix64(seed: UInt64(shape) &+ 28401)
        var answered = 0
        var checked = 0
        for crossCheck in [false, true] {
            HistoryCrossCheck.$isOn.withValue(crossCheck) {
                let runner = SequenceRunner(compiled, files: ["a.jsonl"])
                let sink = FindingSink(files: ["a.jsonl"])
                let scope = ContextScope(
                    context: TimelineContext(source: nil), stream: nil, gen: nil)
                for seq in 0..<60 {
                    let ev = ["ws.connect", "ws.open", "ws.close", "ws.closed"][random.below(4)]
                    let gen = Self.gens[random.below(Self.gens.count)]
                    let conn = Self.conns[random.below(Self.conns.count)]
                    runner.observe(
                        Self.event(ev, gen: gen, conn: conn, seq: seq), context: scope, sink: sink)
                    for gen in Self.gens {
                        for conn in Self.conns {
                            let c = Self.event("ws.connect", gen: gen, conn: conn, seq: seq + 1)
                            let ctx = runner.context(c)
                            let general = ctx.binding("g", to: c) {
                                box.compiled.holds($0, c) == true
                            }
                            let fast = keyed.holds(c, ctx)
                            let compared = keyed.check(general, c, ctx)
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
                            if let fast {
                                answered += 1
                                #expect(
                                    fast == general,
                                    "shape \(shape) seq \(seq) gen \(String(describing: gen)) conn \(String(describing: conn))"
                                )
                            }
                        }
                    }
                }
            }
        }
        #expect(checked > 0)
        #expect(answered > 200)
    }

    /// A `where:` of another shape has no keyed form: the general way answers it.
    @Test(arguments: others)
    func otherShapesHaveNoKeyedForm(_ where_: String) throws {
        let compiled = try Self.step(where_)
        #expect(compiled.steps[0].selector.terms[0].countedWhereRef == nil)
    }

    /// A random ws log: events of a few gens and conns of every kind.
    static func log(seed: UInt64, events: Int = 200) -> String {
        var rng = SplitMix64(seed: seed)
        let gens = ["", #","gen":1"#, #","gen":2"#, #","gen":9007199254740993"#]
        let conns = ["", #","conn":1"#, #","conn":1.0"#, #","conn":"1""#, #","conn":null"#]
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

    /// The rule judges alike whichever way its `where:` is answered: with the keyed form, and
    /// with the cross-check on (every answer then checked against the general way's and a scan).
    @Test(arguments: shapes.indices)
    func theRuleJudgesAlikeEitherWay(shape: Int) throws {
        let compiled = try Self.step(Self.shapes[shape])
        for seed: UInt64 in [1, 2, 3, 5, 8] {
            let log = Self.log(seed: seed)
            let rule = compiled.rule
            let fast = HistoryCrossCheck.$isOn.withValue(false) {
                RuleRuns.audit([rule], log, path: "k.jsonl").results[0]
            }
            let checked = HistoryCrossCheck.$isOn.withValue(true) {
                RuleRuns.audit([rule], log, path: "k.jsonl").results[0]
            }
            #expect(
                (fast.violations + fast.inconclusive).map(\.message)
                    == (checked.violations + checked.inconclusive).map(\.message), "seed \(seed)")
            #expect(fast.status == checked.status)
        }
    }
}

import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// History counts answered from seqs (``CountedIndex``): which calls are, that their answers are
/// the ones the events give, and that a rule whose every call on a list is one keeps none of the
/// list's events (a long SSE session's memory).
@Suite struct CountedIndexTests {
    private static func rules(_ bodies: [String]) throws -> [Rule] {
        try RuleRuns.rules(bodies, file: "rules/counted.yaml")
    }

    private static func audit(_ rules: [Rule], _ log: String, jobs: Int = 1) -> AuditReport {
        RuleRuns.audit(rules, log, path: "c.jsonl", jobs: jobs)
    }

    private static func fingerprint(_ findings: [Finding]) -> [String] {
        findings.map {
            "\($0.line.map(String.init) ?? "-") src=\($0.source?.description ?? "-") \($0.message)"
        }
    }

    /// An SSE log whose ids are of every kind `text(…)` tells apart or not: numbers and their
    /// text, fractions, integers beyond 64 bits and beyond a double's 53 bits, canonically equal
    /// strings of different bytes, null, booleans, missing ids; `ok` true, false or missing; two
    /// sources.
    static func log(seed: UInt64, events: Int = 400) -> String {
        var rng = SplitMix64(seed: seed)
        let ids = [
            #"1"#, #""1""#, "1.0", #""01""#, "2", #""2""#, "18446744073709551617",
            #""18446744073709551617""#,
            "1.5", #""1.5""#, "null", #""caf\u00e9""#, #""cafe\u0301""#, "9007199254740993",
            "9007199254740992.0",
            "true", #""""#
        ]
        let pool = (0..<(3 + rng.below(6))).map { _ in ids[rng.below(ids.count)] }
        var t = 0
        var lines: [String] = []
        for _ in 0..<events {
            t += [0, 1, 5, 30][rng.below(4)]
            let src = rng.chance(75) ? "" : #""src":"d2","#
            let id = rng.chance(93) ? #","id":\#(pool[rng.below(pool.count)])"# : ""
            switch rng.below(100) {
            case 0..<40: lines.append(#"{"t":\#(t),\#(src)"ev":"sse.event"\#(id)}"#)
            case 40..<75:
                let ok = [#","ok":true"#, #","ok":true"#, #","ok":false"#, ""][rng.below(4)]
                lines.append(#"{"t":\#(t),\#(src)"ev":"sse.processed"\#(id)\#(ok)}"#)
            default: lines.append(#"{"t":\#(t),\#(src)"ev":"sse.commit"\#(id)}"#)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// (counted variant, the same rule whose calls are answered from events — `or false` hides
    /// the equality from the index — and the trigger's ev).
    static let pairs: [(String, String)] = [
        (
            // a count, and its existence forms
            "for: source\nevery: { ev: sse.commit, as: c }\nexpect: \"count({ev: sse.processed, ok: true, where: 'text(id) == text(c.id)'}) == 1\"",
            "for: source\nevery: { ev: sse.commit, as: c }\nexpect: \"count({ev: sse.processed, ok: true, where: 'text(id) == text(c.id) or false'}) == 1\""
        ),
        (
            "for: source\nevery: { ev: sse.commit, as: c }\nexpect: \"count({ev: sse.event, where: 'text(c.id) == text(id)'}) > 0 or count({ev: sse.processed, where: 'text(id) == text(c.id)'}) == 0\"",
            "for: source\nevery: { ev: sse.commit, as: c }\nexpect: \"count({ev: sse.event, where: 'text(c.id) == text(id) or false'}) > 0 or count({ev: sse.processed, where: 'text(id) == text(c.id) or false'}) == 0\""
        ),
        (
            // bounds of every kind, written on either side, in a sequence
            "for: source\nforbid:\n  - { ev: sse.event, as: e }\n  - { ev: sse.commit, as: k, where: \"count({ev: sse.event, where: 'text(id) == text(k.id) and e.$seq <= $seq and $seq < k.$seq'}) >= 2 and count({ev: sse.processed, where: 'text(id) == text(e.id) and $seq > e.$seq'}) == 0\" }",
            "for: source\nforbid:\n  - { ev: sse.event, as: e }\n  - { ev: sse.commit, as: k, where: \"count({ev: sse.event, where: '(text(id) == text(k.id) or false) and e.$seq <= $seq and $seq < k.$seq'}) >= 2 and count({ev: sse.processed, where: '(text(id) == text(e.id) or false) and $seq > e.$seq'}) == 0\" }"
        ),
        (
            "for: source\neach: { ev: sse.event, as: e }\nfollowed_by: { ev: sse.processed, ok: true, where: \"text(id) == text(e.id) and count({ev: sse.commit, where: 'text(id) == text(e.id) and $seq >= e.$seq'}) == 0\" }\nwithin_ms: 40",
            "for: source\neach: { ev: sse.event, as: e }\nfollowed_by: { ev: sse.processed, ok: true, where: \"text(id) == text(e.id) and count({ev: sse.commit, where: '(text(id) == text(e.id) or false) and $seq >= e.$seq'}) == 0\" }\nwithin_ms: 40"
        ),
        (
            // bounds that are not numbers (an id, a missing field): nothing orders against them
            "for: source\nevery: { ev: sse.commit, as: c }\nexpect: \"count({ev: sse.event, where: 'text(id) == text(c.id) and $seq < c.id'}) + count({ev: sse.event, where: 'text(id) == text(c.id) and $seq <= c.nothing'}) == 0\"",
            "for: source\nevery: { ev: sse.commit, as: c }\nexpect: \"count({ev: sse.event, where: '(text(id) == text(c.id) or false) and $seq < c.id'}) + count({ev: sse.event, where: '(text(id) == text(c.id) or false) and $seq <= c.nothing'}) == 0\""
        ),
        (
            // an outer side that is not a string: a text is never equal to it
            "for: source\nevery: { ev: sse.commit, as: c }\nexpect: \"count({ev: sse.event, where: 'text(id) == c.id'}) == 0\"",
            "for: source\nevery: { ev: sse.commit, as: c }\nexpect: \"count({ev: sse.event, where: 'text(id) == c.id or false'}) == 0\""
        ),
        (
            // one list, two indexes (other tests), and one index for two calls (the same tests)
            "for: source\nevery: { ev: sse.commit, as: c }\nexpect: \"count({ev: sse.processed, ok: true, where: 'text(id) == text(c.id)'}) >= count({ev: sse.processed, ok: false, where: 'text(id) == text(c.id)'}) and count({ev: sse.processed, ok: true, where: 'text(c.id) == text(id)'}) < 3\"",
            "for: source\nevery: { ev: sse.commit, as: c }\nexpect: \"count({ev: sse.processed, ok: true, where: 'text(id) == text(c.id) or false'}) >= count({ev: sse.processed, ok: false, where: 'text(id) == text(c.id) or false'}) and count({ev: sse.processed, ok: true, where: 'text(c.id) == text(id) or false'}) < 3\""
        )
    ]

    private static func pair(_ index: Int) throws -> (Rule, Rule) {
        let (a, b) = pairs[index]
        let loaded = try rules(["id: t.counted\ntitle: T\n" + a, "id: t.events\ntitle: T\n" + b])
        return (loaded[0], loaded[1])
    }

    @Test(arguments: 0..<pairs.count)
    func countsAgreeWithTheEvents(_ index: Int) throws {
        let (a, b) = try Self.pair(index)
        let counted = CompiledRule(rule: a, index: 0, overrides: [:])
        let events = CompiledRule(rule: b, index: 0, overrides: [:])
        // The first variant's lists keep no events; the second's all do.
        #expect(!counted.countedLists.isEmpty && counted.countedLists.allSatisfy { $0 })
        #expect(!events.countedLists.contains(true))
        var failing = 0
        for seed: UInt64 in [1, 2, 3, 5, 8, 13, 21, 34] {
            let log = Self.log(seed: seed)
            for jobs in [1, 2] {
                let ra = Self.audit([a], log, jobs: jobs).results[0]
                let rb = Self.audit([b], log, jobs: jobs).results[0]
                #expect(ra.status == rb.status, "seed \(seed)")
                #expect(
                    Self.fingerprint(ra.violations) == Self.fingerprint(rb.violations),
                    "seed \(seed)")
                #expect(
                    Self.fingerprint(ra.inconclusive) == Self.fingerprint(rb.inconclusive),
                    "seed \(seed)")
                if jobs == 1, !ra.violations.isEmpty { failing += 1 }
            }
        }
        // The logs make each rule fail somewhere (or the comparison would prove little).
        #expect(failing >= 3)
    }

    @Test func theBuiltinSSERulesKeepCountsNotEvents() throws {
        let pack = RuleLoader.builtin()
        for id in ["sse.no-lost-events", "sse.commit-after-processing"] {
            let rule = try #require(pack.rules.first { $0.id == id })
            let compiled = CompiledRule(rule: rule, index: 0, overrides: [:])
            #expect(compiled.countedLists.count >= 1, "\(id)")
            #expect(compiled.countedLists.allSatisfy { $0 }, "\(id)")
        }
    }

    @Test func callsOfOtherShapesAreAnsweredFromEvents() throws {
        let loaded = try Self.rules([
            // a `first` whose event is read, not only compared with null
            "id: t.first\ntitle: T\nfor: source\nevery: { ev: sse.commit, as: c }\nexpect: \"first({ev: sse.event, where: 'text(id) == text(c.id)'}).t >= 0\"",
            // a key that is not a text(…): ids of different types are equal by value
            "id: t.raw\ntitle: T\nfor: source\nevery: { ev: sse.commit, as: c }\nexpect: \"count({ev: sse.event, where: 'id == c.id'}) == 0\"",
            // another condition beside the key
            "id: t.other\ntitle: T\nfor: source\nevery: { ev: sse.commit, as: c }\nexpect: \"count({ev: sse.event, where: 'text(id) == text(c.id) and t > c.t - 10'}) == 0\"",
            // one call on the list is counted, the other is not: the list keeps its events
            "id: t.mixed\ntitle: T\nfor: source\nevery: { ev: sse.commit, as: c }\nexpect: \"count({ev: sse.event, where: 'text(id) == text(c.id)'}) == 0 or last({ev: sse.event, where: 't < c.t'}).t > 0\""
        ])
        for rule in loaded {
            let compiled = CompiledRule(rule: rule, index: 0, overrides: [:])
            #expect(!compiled.countedLists.contains(true), "\(rule.id)")
        }
    }

    /// A runner of a counted rule lets each event go once the timeline does: no history list
    /// holds it. The same rule answered from events keeps every one.
    @Test func aCountedRuleKeepsNoEvent() throws {
        // The history cross-check keeps every event: off here, where what is kept is the point.
        try HistoryCrossCheck.$isOn.withValue(false) { try aCountedRuleKeepsNoEventUnchecked() }
    }

    private func aCountedRuleKeepsNoEventUnchecked() throws {
        let (a, b) = try Self.pair(0)
        for (rule, keeps) in [(a, false), (b, true)] {
            let compiled = CompiledRule(rule: rule, index: 0, overrides: [:])
            let runner = BasicRunner(compiled, files: ["c.jsonl"])
            let sink = FindingSink(files: ["c.jsonl"])
            let scope = ContextScope(context: TimelineContext(source: nil), stream: nil, gen: nil)
            weak var firstEvent: Event?
            for i in 0..<300 {
                let ev = ["sse.event", "sse.processed", "sse.commit"][i % 3]
                var fields = [Event.Field("id", .string(String(i / 3)))]
                if ev == "sse.processed" { fields.append(Event.Field("ok", .bool(true))) }
                let e = Event(
                    t: Double(i), ev: ev, file: 0, line: i + 1, fields: fields, evID: EvNames.id(ev)
                )
                e.seq = i
                if i == 1 { firstEvent = e }
                runner.observe(e, context: scope, sink: sink)
            }
            // Every commit followed the processing of its id: no violation either way.
            #expect(sink.violations.isEmpty)
            let kept = compiled.historyLists.indices.map { runner.history(list: $0).count }
            #expect(
                keeps ? kept.reduce(0, +) == 100 : kept.allSatisfy { $0 == 0 },
                "\(rule.id): \(kept)")
            #expect((firstEvent != nil) == keeps, "\(rule.id)")
        }
    }

    /// A history result (`first({…, as: z})`) is bound only once its call has run; before, its
    /// name reads the candidate's field. A count that reads one is answered from events.
    @Test func aCountReadingAHistoryResultIsAnsweredFromEvents() throws {
        let loaded = try Self.rules([
            """
            id: t.result
            title: T
            for: source
            every: { ev: sse.commit, as: c }
            expect: "count({ev: sse.event, where: 'text(id) == text(z.id)'}) == 0 and first({ev: sse.processed, as: z}) != null"
            """
        ])
        #expect(
            !CompiledRule(rule: loaded[0], index: 0, overrides: [:]).countedLists.contains(true))
    }

    /// A capture used before the step that binds it is an error of the rule: a count's outer side
    /// always finds its captures bound.
    @Test func aCaptureUsedBeforeItIsBoundIsRejected() {
        #expect(throws: (any Error).self) {
            try Self.rules([
                """
                id: t.unbound
                title: T
                for: source
                forbid:
                  - { ev: sse.commit, where: "count({ev: sse.event, where: 'text(id) == text(k.id)'}) == 0" }
                  - { ev: sse.event, as: k }
                """
            ])
        }
    }

    /// `count … by:` counts in a ``KeyCounts`` table: the same counts as the `[Value: Int]` it
    /// replaced, keys in the order they came, each as it came first (canonically equal texts are
    /// one key, as `==` has it: "café" two ways, the Kelvin sign and "K", the Greek question mark
    /// and ";").
    @Test func countsByKeyAgreeWithADictionary() {
        var rng = SplitMix64(seed: 77)
        let keys: [Value] = [
            .string("caf\u{E9}"), .string("cafe\u{301}"), .string("1"), .int(1), .double(1),
            .bigInt("18446744073709551617"),
            .null, .bool(true), .string(String(repeating: "x", count: 40)),
            .array([.int(1), .string("a")]), .string(""), .string("\u{212A}"), .string("K"),
            .string(";"), .string("\u{37E}"), .string("id-528694"), .string("a text past 15 bytes")
        ]
        var table = KeyCounts()
        var dictionary: [Value: Int] = [:]
        var order: [Value] = []
        for _ in 0..<2_000 {
            let key = keys[rng.below(keys.count)]
            let n = table.increment(key)
            dictionary[key, default: 0] += 1
            if dictionary[key] == 1 { order.append(key) }
            #expect(n == dictionary[key])
        }
        #expect(table.counts.map(\.key) == order)
        // Each key as it came first, byte for byte (`==` on texts is canonical equivalence).
        func bytes(_ v: Value) -> [UInt8] { Array(String(describing: v).utf8) }
        #expect(table.counts.map { bytes($0.key) } == order.map(bytes))
        #expect(table.counts.allSatisfy { dictionary[$0.key] == $0.count })
        #expect(table.count == dictionary.count)
        // The two spellings of "café", of "K" and of ";" are one key each.
        #expect(dictionary.count == keys.count - 3)
    }

    /// A key keeps the spelling it came with first, byte for byte, though its NFC form ("K")
    /// is counted in the short keys' table.
    @Test func aKeyKeepsTheSpellingItCameWithFirst() {
        var table = KeyCounts()
        #expect(table.increment(.string("\u{212A}")) == 1)
        #expect(table.increment(.string("K")) == 2)
        #expect(table.increment(.string("id-1")) == 1)
        let counts = table.counts
        #expect(counts.map(\.count) == [2, 1])
        guard case .string(let first) = counts.first?.key else {
            Issue.record("the first key is not a text")
            return
        }
        #expect(Array(first.utf8) == Array("\u{212A}".utf8))
    }

    /// Rules where a capture the count reads is not bound where it is evaluated — a term of an
    /// any-of trigger, a `forbid`'s `without:` before its step, a message judged at the end, a
    /// capture of another call's selector — and one whose outer side reads a bare `params` (the
    /// current event's field): the counts answer what the events answer (the capture is null).
    static let unbound: [(rule: String, log: String, violations: Int)] = [
        (
            "every: [{ ev: A, as: x }, { ev: B, as: y }]\nexpect: \"count({ev: P, where: 'text(id) == text(y.id)'}) == 0\"",
            #"{"t":0,"ev":"P","id":"1"}"# + "\n" + #"{"t":1,"ev":"A","id":"1"}"# + "\n"
                + #"{"t":2,"ev":"B","id":"1"}"#, 1
        ),
        (
            "forbid:\n  - { ev: A, as: p }\n  - { ev: B, as: q }\n  - { ev: C }\nwithout: { ev: W, where: \"count({ev: K, where: 'text(id) == text(q.id)'}) == 0\" }",
            #"{"t":0,"ev":"A"}"# + "\n" + #"{"t":1,"ev":"W"}"# + "\n"
                + #"{"t":2,"ev":"B","id":"y"}"# + "\n" + #"{"t":3,"ev":"C"}"#, 0
        ),
        (
            "count: { ev: T, as: c }\nmin: 2\nmessage: \"{count({ev: P, where: 'text(id) == text(c.id) and $seq < c.$seq'})} earlier P\"",
            #"{"t":0,"ev":"P","id":"x"}"# + "\n" + #"{"t":1,"ev":"T","id":"x"}"#, 1
        ),
        (
            "every: { ev: ta, as: c }\nexpect: \"count({ev: b}, since: {ev: s, as: z}) >= 0 and count({ev: b, where: 'text(id) == text(z.id) and $seq < c.$seq'}) == 0\"",
            #"{"t":0,"ev":"b","id":"x"}"# + "\n" + #"{"t":1,"ev":"ta","id":"x"}"#, 0
        ),
        (
            "every: { ev: T, as: c }\nexpect: \"count({ev: P, where: \\\"text(id) == params['k'] and $seq < c.$seq\\\"}) == 0\"",
            #"{"t":0,"ev":"P","id":"x"}"# + "\n" + #"{"t":1,"ev":"T","params":{"k":"x"}}"#, 0
        )
    ]

    @Test(arguments: 0..<unbound.count)
    func aCaptureNotBoundWhereTheCountRunsIsNull(_ index: Int) throws {
        let (body, log, expected) = Self.unbound[index]
        // The same rule with the equality hidden from the index: answered from events.
        let hidden = body.replacing("'text(id) ==", with: "'false or text(id) ==")
            .replacing("\\\"text(id) ==", with: "\\\"false or text(id) ==")
        #expect(hidden != body)
        let loaded = try Self.rules([
            "id: t.counted\ntitle: T\nfor: source\n" + body,
            "id: t.events\ntitle: T\nfor: source\n" + hidden
        ])
        #expect(
            !CompiledRule(rule: loaded[1], index: 0, overrides: [:]).countedLists.contains(true))
        let report = Self.audit(loaded, log + "\n")
        #expect(
            Self.fingerprint(report.results[0].violations)
                == Self.fingerprint(report.results[1].violations))
        #expect(report.results[0].violations.count == expected)
    }

    /// An unbound capture is null, whatever field of its name a counted event has: counted by
    /// key, such an event is answered as a scan answers it.
    @Test func anUnboundCaptureIsNullWhateverFieldsTheCountedEventsHave() throws {
        let expect = "expect: \"count({ev: P, where: 'text(id) == text(y.id)'}) == 0\""
        let body =
            "title: T\nfor: source\nevery: [{ ev: A, as: x }, { ev: B, as: y }]\n" + expect
            + "\nundecided: inconclusive"
        let loaded = try Self.rules([
            "id: t.counted\n" + body,
            "id: t.events\n" + body.replacing("'text(id) ==", with: "'false or text(id) ==")
        ])
        #expect(
            CompiledRule(rule: loaded[0], index: 0, overrides: [:]).countedLists.allSatisfy { $0 })
        let plain = #"{"t":0,"ev":"P","id":"1"}"# + "\n" + #"{"t":1,"ev":"A","id":"1"}"# + "\n"
        // y unbound at A is null, not this P's own y (whose id is "1", as its own id): nothing
        // counts, and A passes.
        let named =
            #"{"t":0,"ev":"P","id":"1","y":{"id":"1"}}"# + "\n" + #"{"t":1,"ev":"A","id":"1"}"#
            + "\n"
        // At A nothing counts; at B, y is B, and the P whose id is "2" counts.
        let other =
            #"{"t":0,"ev":"P","id":"1","y":{"id":"2"}}"# + "\n" + #"{"t":0,"ev":"P","id":"2"}"#
            + "\n"
            + #"{"t":1,"ev":"A","id":"1"}"# + "\n" + #"{"t":2,"ev":"B","id":"2"}"# + "\n"
        for (log, failing) in [(plain, [Int]()), (named, []), (other, [4])] {
            let report = Self.audit(loaded, log)
            #expect(report.results[0].violations.map(\.line) == failing, "\(log)")
            #expect(report.results[1].violations.map(\.line) == failing, "\(log)")
            #expect(report.results[0].status == report.results[1].status)
        }
    }

    /// Counts that share one index may read different captures: at a trigger where one is bound
    /// and the other is not, the count reading the unbound one is zero (its outer side is null),
    /// whatever fields named like either the counted events have.
    @Test func countsReadingABoundAndAnUnboundCaptureShareAnIndex() throws {
        let expect =
            "expect: \"count({ev: P, where: 'text(id) == text(x.id)'}) == 0 and count({ev: P, where: 'text(id) == text(y.id)'}) < 9\""
        let body =
            "title: T\nfor: source\nevery: [{ ev: A, as: x }, { ev: B, as: y }]\n" + expect
            + "\nundecided: inconclusive"
        let loaded = try Self.rules([
            "id: t.counted\n" + body,
            "id: t.events\n" + body.replacing("'text(id) ==", with: "'false or text(id) ==")
        ])
        #expect(
            CompiledRule(rule: loaded[0], index: 0, overrides: [:]).countedLists.allSatisfy { $0 })
        #expect(
            !CompiledRule(rule: loaded[1], index: 0, overrides: [:]).countedLists.contains(true))
        // At B, y is bound and x is not: x is null.
        let namedLikeBound =
            #"{"t":0,"ev":"P","id":"1","y":0}"# + "\n" + #"{"t":1,"ev":"B","id":"2"}"# + "\n"
        let report = Self.audit(loaded, namedLikeBound)
        #expect(report.results[0].status == .pass)
        #expect(report.results[1].status == .pass)
        // A P with a field x: the unbound x is still null, for the index as for a scan.
        for x in ["0", #"{"id":"1"}"#, #"{"id":"2"}"#] {
            let namedLikeUnbound =
                #"{"t":0,"ev":"P","id":"1","x":\#(x)}"# + "\n" + #"{"t":1,"ev":"B","id":"2"}"#
                + "\n"
            let both = Self.audit(loaded, namedLikeUnbound)
            #expect(both.results[0].status == both.results[1].status, "x: \(x)")
            #expect(
                both.results[0].violations.map(\.line) == both.results[1].violations.map(\.line),
                "x: \(x)")
        }
        let counts = Self.audit(
            loaded,
            #"{"t":0,"ev":"P","id":"1","x":{"id":"1"}}"# + "\n" + #"{"t":1,"ev":"B","id":"2"}"#
                + "\n")
        #expect(counts.results[0].status == .pass)
        #expect(counts.results[0].violations.isEmpty)
    }
}

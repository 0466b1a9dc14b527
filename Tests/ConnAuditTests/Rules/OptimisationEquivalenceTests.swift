import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// The same rule written so that a history call is static (answered from a running aggregate)
/// and so that it is correlated (answered from history lists, or through the equality index),
/// must give identical results.
extension CheckKindTests {
    @Suite struct OptimisationEquivalence {
        /// ~500 ws events over several generations and two sources, with ties in `t`, events
        /// without `gen`, and connects that sometimes carry `timeout_ms`.
        static func wsLog(seed: UInt64, events: Int = 500) -> String {
            var rng = SplitMix64(seed: seed)
            var t = 0
            var lines: [String] = []
            for _ in 0..<events {
                if !rng.chance(20) { t += rng.below(40) }
                let gen = 1 + rng.below(6)
                let src = rng.chance(80) ? "" : #""src":"b","#
                let roll = rng.below(100)
                let line: String
                switch roll {
                case 0..<10:
                    let timeout = rng.chance(50) ? #","timeout_ms":\#(10 + rng.below(60))"# : ""
                    line = #"{"t":\#(t),\#(src)"ev":"ws.connect","gen":\#(gen)\#(timeout)}"#
                case 10..<45:
                    line = #"{"t":\#(t),\#(src)"ev":"ws.ping","gen":\#(gen),"id":\#(rng.below(5))}"#
                case 45..<80:
                    line = #"{"t":\#(t),\#(src)"ev":"ws.pong","gen":\#(gen),"id":\#(rng.below(5))}"#
                case 80..<88:
                    line = #"{"t":\#(t),\#(src)"ev":"ws.close","gen":\#(gen),"reason":"user"}"#
                case 88..<94: line = #"{"t":\#(t),\#(src)"ev":"app.tick"}"#
                default: line = #"{"t":\#(t),\#(src)"ev":"ws.ping"}"#
                }
                lines.append(line)
            }
            return lines.joined(separator: "\n")
        }

        /// ~500 SSE events (no gen), ids as strings or integers, sometimes missing.
        static func sseLog(seed: UInt64, events: Int = 500) -> String {
            var rng = SplitMix64(seed: seed)
            var t = 0
            var lines: [String] = []
            for _ in 0..<events {
                if !rng.chance(25) { t += rng.below(30) }
                let src = rng.chance(70) ? "" : #""src":"s2","#
                let n = rng.below(12)
                let id: String
                switch rng.below(10) {
                case 0: id = ""
                case 1..<5: id = #","id":\#(n)"#
                default: id = #","id":"\#(n)""#
                }
                let line: String
                switch rng.below(100) {
                case 0..<40: line = #"{"t":\#(t),\#(src)"ev":"sse.event"\#(id)}"#
                case 40..<80:
                    line = #"{"t":\#(t),\#(src)"ev":"sse.processed"\#(id),"ok":\#(rng.chance(80))}"#
                default: line = #"{"t":\#(t),\#(src)"ev":"sse.commit"\#(id)}"#
                }
                lines.append(line)
            }
            return lines.joined(separator: "\n")
        }

        /// (static variant, correlated variant): the rule bodies after `id`/`title`.
        static let wsPairs: [(String, String)] = [
            (
                "every: { ev: ws.pong, as: c }\nexpect: \"(t - first({ev: ws.ping}, since: {ev: ws.pong}).t < 50) ?? true\"",
                "every: { ev: ws.pong, as: c }\nexpect: \"(t - first({ev: ws.ping, where: 'c.t >= 0'}, since: {ev: ws.pong}).t < 50) ?? true\""
            ),
            (
                // a static selector with its own capture in its where
                "every: { ev: ws.pong, as: c }\nexpect: \"last({ev: ws.ping, as: z, where: 'z.id >= 2'}).id == id\"",
                "every: { ev: ws.pong, as: c }\nexpect: \"last({ev: ws.ping, as: z, where: 'z.id >= 2 and c.t >= 0'}).id == id\""
            ),
            (
                // a glob: the history keeps every event
                "every: { ev: ws.close, as: c }\nexpect: \"count({ev: 'ws.p*'}) < 25\"",
                "every: { ev: ws.close, as: c }\nexpect: \"count({ev: 'ws.p*', where: 'c.t >= 0'}) < 25\""
            ),
            (
                // nested: the inner call static (aggregate) or correlated; the outer one correlated
                // in both
                "every: { ev: ws.close, as: c }\nexpect: >\n  count({ev: ws.ping, where: \"c.t - t < 300 and count({ev: ws.pong}) > 3\"}) < 2",
                "every: { ev: ws.close, as: c }\nexpect: >\n  count({ev: ws.ping, where: \"c.t - t < 300 and count({ev: ws.pong, where: 'c.t >= 0'}) > 3\"}) < 2"
            ),
            (
                "every: { ev: ws.pong, as: c }\nexpect: \"t - last({ev: ws.ping}).t <= 30\"",
                "every: { ev: ws.pong, as: c }\nexpect: \"t - last({ev: ws.ping, where: 'c.t >= 0'}).t <= 30\""
            ),
            (
                "every: { ev: ws.ping, as: c }\nexpect: \"t - first({ev: ws.connect}).t < 400\"",
                "every: { ev: ws.ping, as: c }\nexpect: \"t - first({ev: ws.connect, where: 'c.t >= 0'}).t < 400\""
            ),
            (
                "every: { ev: ws.ping, as: c }\nexpect: \"count({ev: ws.ping}, since: {ev: ws.pong}) < 2\"",
                "every: { ev: ws.ping, as: c }\nexpect: \"count({ev: ws.ping, where: 'c.t >= 0'}, since: {ev: ws.pong}) < 2\""
            ),
            (
                "every: { ev: ws.ping, as: c }\nexpect: \"count({ev: ws.ping}, since: {ev: ws.pong}) < 2\"",
                "every: { ev: ws.ping, as: c }\nexpect: \"count({ev: ws.ping}, since: {ev: ws.pong, where: 'c.t >= 0'}) < 2\""
            ),
            (
                "for: source\nevery: { ev: ws.pong, as: c }\nexpect: \"t - last({ev: ws.ping}).t <= 30\"",
                "for: source\nevery: { ev: ws.pong, as: c }\nexpect: \"t - last({ev: ws.ping, where: 'c.t >= 0'}).t <= 30\""
            ),
            (
                "each: { ev: ws.ping, as: c }\nfollowed_by: { ev: ws.pong }\nwithin_ms: \"last({ev: ws.connect}).timeout_ms ?? 40\"",
                "each: { ev: ws.ping, as: c }\nfollowed_by: { ev: ws.pong }\nwithin_ms: \"last({ev: ws.connect, where: 'c.t >= 0'}).timeout_ms ?? 40\""
            ),
            (
                "each: { ev: ws.ping, as: c }\nfollowed_by: { ev: ws.pong, where: \"count({ev: ws.ping}) - count({ev: ws.pong}) < 3\" }\nat_end: fail",
                "each: { ev: ws.ping, as: c }\nfollowed_by: { ev: ws.pong, where: \"count({ev: ws.ping, where: 'c.t >= 0'}) - count({ev: ws.pong, where: 'c.t >= 0'}) < 3\" }\nat_end: fail"
            ),
            (
                "forbid:\n  - { ev: ws.ping, as: c }\n  - { ev: ws.ping, where: \"count({ev: ws.pong}, since: {ev: ws.ping}) == 0 and t - c.t < 20\" }",
                "forbid:\n  - { ev: ws.ping, as: c }\n  - { ev: ws.ping, where: \"count({ev: ws.pong, where: 'c.t >= 0'}, since: {ev: ws.ping}) == 0 and t - c.t < 20\" }"
            )
        ]

        /// (indexable variant, unindexable variant, the trigger's ev).
        static let ssePairs: [(String, String, String)] = [
            (
                "for: source\nevery: { ev: sse.commit, as: c }\nexpect: \"count({ev: sse.processed, where: 'text(id) == text(c.id)'}) >= 1\"",
                "for: source\nevery: { ev: sse.commit, as: c }\nexpect: \"count({ev: sse.processed, where: 'text(c.id) == text(id) or false'}) >= 1\"",
                "sse.commit"
            ),
            (
                "for: source\nevery: { ev: sse.processed, as: c }\nexpect: \"count({ev: sse.event, where: 'text(id) == text(c.id) and t >= c.t - 50'}, since: {ev: sse.commit}) == 1\"",
                "for: source\nevery: { ev: sse.processed, as: c }\nexpect: \"count({ev: sse.event, where: '(text(c.id) == text(id) or false) and t >= c.t - 50'}, since: {ev: sse.commit}) == 1\"",
                "sse.processed"
            ),
            (
                "for: source\nevery: { ev: sse.processed, as: c }\nexpect: \"(c.t - last({ev: sse.event, where: 'text(id) == text(c.id)'}).t < 100) ?? false\"",
                "for: source\nevery: { ev: sse.processed, as: c }\nexpect: \"(c.t - last({ev: sse.event, where: 'text(c.id) == text(id) or false'}).t < 100) ?? false\"",
                "sse.processed"
            ),
            (
                // the outer side read from a let
                "for: source\nlet: { K: \"text(id)\" }\nevery: { ev: sse.commit }\nexpect: \"count({ev: sse.processed, ok: true, where: 'text(id) == K'}) >= 1\"",
                "for: source\nlet: { K: \"text(id)\" }\nevery: { ev: sse.commit }\nexpect: \"count({ev: sse.processed, ok: true, where: 'K == text(id) or false'}) >= 1\"",
                "sse.commit"
            ),
            (
                // evaluated at later events (answers), with a $seq conjunct after the capture
                "for: source\neach: { ev: sse.event, as: e }\nfollowed_by: { ev: sse.processed, where: \"count({ev: sse.event, where: 'text(id) == text(e.id) and $seq > e.$seq'}) == 0\" }\nwithin_ms: 100",
                "for: source\neach: { ev: sse.event, as: e }\nfollowed_by: { ev: sse.processed, where: \"count({ev: sse.event, where: '(text(e.id) == text(id) or false) and $seq > e.$seq'}) == 0\" }\nwithin_ms: 100",
                "sse.event"
            ),
            (
                // two calls keying the same list by the same expression (one shared index), each
                // with its own other tests and outer side
                "for: source\nevery: { ev: sse.commit, as: c }\nexpect: \"count({ev: sse.processed, ok: true, where: 'text(id) == text(c.id)'}) >= 1 and count({ev: sse.processed, ok: false, where: 'text(id) == text(c.id)'}) == 0 and count({ev: sse.processed, where: 'text(id) == text(c.id + 0)'}) < 3\"",
                "for: source\nevery: { ev: sse.commit, as: c }\nexpect: \"count({ev: sse.processed, ok: true, where: 'text(id) == text(c.id) or false'}) >= 1 and count({ev: sse.processed, ok: false, where: 'text(id) == text(c.id) or false'}) == 0 and count({ev: sse.processed, where: 'text(id) == text(c.id + 0) or false'}) < 3\"",
                "sse.commit"
            ),
            (
                "for: source\neach: { ev: sse.event, as: e }\nfollowed_by: { ev: sse.processed, ok: true, where: \"text(id) == text(e.id) and count({ev: sse.commit, where: 'text(id) == text(e.id)'}) == 0\" }\nwithin_ms: 200",
                "for: source\neach: { ev: sse.event, as: e }\nfollowed_by: { ev: sse.processed, ok: true, where: \"text(id) == text(e.id) and count({ev: sse.commit, where: 'text(e.id) == text(id) or false'}) == 0\" }\nwithin_ms: 200",
                "sse.event"
            )
        ]

        /// Loads both variants and checks that they really take the two paths.
        private func pair(_ a: String, _ b: String) throws -> (Rule, Rule) {
            let rules = try RuleRuns.rules(
                ["id: t.a\ntitle: T\n" + a, "id: t.b\ntitle: T\n" + b], file: "rules/checks.yaml")
            return (rules[0], rules[1])
        }

        private func compare(_ a: Rule, _ b: Rule, _ log: String, jobs: Int = 1) -> (
            RuleResult, RuleResult
        ) {
            // Each alone, and both in one run (sharing timelines and dispatch).
            let aloneA = RuleRuns.audit([a], files: [("r.jsonl", log)], jobs: jobs).results[0]
            let aloneB = RuleRuns.audit([b], files: [("r.jsonl", log)], jobs: jobs).results[0]
            let both = RuleRuns.audit([a, b], files: [("r.jsonl", log)], jobs: jobs).results
            #expect(fingerprint(aloneA.violations) == fingerprint(both[0].violations))
            #expect(fingerprint(aloneB.violations) == fingerprint(both[1].violations))
            return (aloneA, aloneB)
        }

        @Test(arguments: 0..<OptimisationEquivalence.wsPairs.count)
        func staticAndCorrelatedHistoryAgree(_ index: Int) throws {
            let (a, b) = try pair(Self.wsPairs[index].0, Self.wsPairs[index].1)
            // The first variant's calls are answered from aggregates, the second's (at least one)
            // from lists.
            let staticCompiled = CompiledRule(rule: a, index: 0, overrides: [:])
            let correlatedCompiled = CompiledRule(rule: b, index: 0, overrides: [:])
            #expect(staticCompiled.staticCalls.count > correlatedCompiled.staticCalls.count)
            #expect(!correlatedCompiled.historyLists.isEmpty)

            var interesting = 0
            for seed: UInt64 in [1, 2, 3, 42, 2024] {
                let log = Self.wsLog(seed: seed)
                let (ra, rb) = compare(a, b, log)
                #expect(ra.status == rb.status, "seed \(seed)")
                #expect(fingerprint(ra.violations) == fingerprint(rb.violations), "seed \(seed)")
                #expect(
                    fingerprint(ra.inconclusive) == fingerprint(rb.inconclusive), "seed \(seed)")
                if !ra.violations.isEmpty { interesting += 1 }
            }
            // The logs are not trivially passing (the comparison would prove nothing).
            #expect(interesting >= 3)
        }

        @Test(arguments: 0..<OptimisationEquivalence.ssePairs.count)
        func indexedAndUnindexedEqualityJoinsAgree(_ index: Int) throws {
            let (a, b) = try pair(Self.ssePairs[index].0, Self.ssePairs[index].1)
            let trigger = Self.ssePairs[index].2
            var interesting = 0
            var satisfied = 0
            for seed: UInt64 in [7, 8, 9, 99, 31337] {
                let log = Self.sseLog(seed: seed)
                let (ra, rb) = compare(a, b, log)
                #expect(ra.status == rb.status, "seed \(seed)")
                #expect(fingerprint(ra.violations) == fingerprint(rb.violations), "seed \(seed)")
                #expect(
                    fingerprint(ra.inconclusive) == fingerprint(rb.inconclusive), "seed \(seed)")
                if !ra.violations.isEmpty { interesting += 1 }
                // Triggers that were satisfied: the rule does not fail everywhere either.
                let triggers = log.split(separator: "\n").filter {
                    $0.contains("\"ev\":\"\(trigger)\"")
                }.count
                satisfied += triggers - ra.violations.count - ra.inconclusive.count
            }
            #expect(interesting >= 3)
            #expect(satisfied > 0)
        }

        @Test func theIndexedVariantIsIndexableAndTheOtherIsNot() throws {
            let (a, b) = try pair(Self.ssePairs[0].0, Self.ssePairs[0].1)
            func historySelector(_ r: Rule) throws -> Selector {
                guard case .every(_, .expression(let e), _) = r.check else {
                    Issue.record("not an every rule")
                    return Selector(terms: [])
                }
                var found: Selector?
                NameWalker.walk(e) {
                    if case .history(let call) = $0, found == nil { found = call.selector }
                }
                return try #require(found)
            }
            #expect(KeyedIndex.split(try historySelector(a), outer: ["c"]) != nil)
            #expect(KeyedIndex.split(try historySelector(b), outer: ["c"]) == nil)
        }

        /// `==` compares an integer with a double as doubles: from 2^53 up, 2^53 + 1 equals 2^53.0
        /// and 2^63 - 1 equals 2^63.0. The index must find what the unindexed `where` finds.
        @Test func anIndexFindsLargeIntegersEqualToADoubleAsTheWhereDoes() throws {
            let (a, b) = try pair(
                "for: source\nevery: { ev: q, as: c }\nexpect: \"count({ev: k, where: 'id == c.id'}) == 0\"",
                "for: source\nevery: { ev: q, as: c }\nexpect: \"count({ev: k, where: 'c.id == id or false'}) == 0\""
            )
            #expect(KeyedIndex.normalized(.int(5)) == KeyedIndex.normalized(.double(5)))
            #expect(KeyedIndex.rounding(.int(9_007_199_254_740_993)) == .double(0x1p53))
            #expect(KeyedIndex.rounding(.int(Int64.max)) == .double(0x1p63))
            #expect(KeyedIndex.rounding(.bigInt("18446744073709551615")) == .double(0x1p64))
            #expect(KeyedIndex.rounding(.int(9_007_199_254_740_991)) == nil)
            let ids: [(String, String)] = [
                ("9007199254740993", "9007199254740992.0"),
                ("9223372036854775807", "9.223372036854775808e18"),
                ("9007199254740992.0", "9007199254740993"),
                ("18446744073709551615", "1.8446744073709552e19"),
                ("12", "12.0"), ("12", "13"), ("9007199254740993", "9007199254740995")
            ]
            let log = ids.enumerated().map { n, pair in
                "{\"t\":\(2 * n),\"ev\":\"k\",\"id\":\(pair.0)}\n{\"t\":\(2 * n + 1),\"ev\":\"q\",\"id\":\(pair.1)}\n"
            }.joined()
            let (ra, rb) = compare(a, b, log)
            #expect(fingerprint(ra.violations) == fingerprint(rb.violations))
            // Each q but the last two has an equal k before it (as doubles): five violations.
            #expect(rb.violations.count == 5)
            #expect(ra.violations.count == 5)
        }

        /// Integers that round to one double keep buckets of their own: a `gen` from a nanosecond
        /// clock shares its double with hundreds of others (a review found 2,000 generations near
        /// 2^62 in one bucket: every lookup a scan, 0.9 s -> 10.7 s).
        @Test func integersThatRoundAlikeKeepBucketsOfTheirOwn() throws {
            let key = try ExpressionParser.parse("gen", compileSelector: FileLoader.compileSelector)
            let index = KeyedIndex(list: 0, key: IndexKey(key))
            let shared = EvalShared(
                environment: EvalEnvironment(params: [:], files: []), history: nil)
            let base: UInt64 = 1 << 62
            var events: [Event] = []
            for k in 0..<2_000 {
                let e = Event(t: Double(k), ev: "ws.close", gen: base + UInt64(k))
                e.seq = k
                events.append(e)
                index.add(e, shared: shared)
            }
            let big = Event(t: 2_000, ev: "ws.close", gen: UInt64.max)
            big.seq = 2_000
            index.add(big, shared: shared)
            #expect(index.candidates(for: .int(Int64(base) + 5)).map(\.seq) == [5])
            #expect(index.candidates(for: .bigInt("18446744073709551615")).map(\.seq) == [2_000])
            #expect(index.candidates(for: .int(Int64(base) - 1)).isEmpty)
            // A double key finds every integer `==` calls equal to it, in order.
            let rounded = index.candidates(for: .double(Double(base)))
            #expect(!rounded.isEmpty)
            #expect(
                rounded.allSatisfy { Value.integer($0.gen!).looselyEquals(.double(Double(base))) })
            #expect(
                rounded.count
                    == events.count { Value.integer($0.gen!).looselyEquals(.double(Double(base))) })
            #expect(rounded.map(\.seq) == rounded.map(\.seq).sorted())
            #expect(index.candidates(for: .double(0x1p64)).map(\.seq) == [2_000])
        }

        @Test func onlyTheSameKeyExpressionSharesAnIndex() throws {
            func same(_ a: String, _ b: String) throws -> Bool {
                KeyedIndex.sameKey(
                    try ExpressionParser.parse(a, compileSelector: FileLoader.compileSelector),
                    try ExpressionParser.parse(b, compileSelector: FileLoader.compileSelector))
            }
            #expect(try same("text(id)", "text(id)"))
            #expect(try same("a.b + 1", "a.b + 1"))
            #expect(try !same("text(id)", "text(k)"))
            #expect(try !same("text(id)", "str(id)"))
            #expect(try !same("a.b + 1", "a.b + 1.0"))
            #expect(try !same("a.b + 1", "a.b - 1"))
            #expect(try !same("[id]", "[id]"))  // lists: not compared, so never shared
            // Literals the same bit for bit (a folded param can be -0.0, which `==` calls 0.0).
            #expect(!KeyedIndex.sameKey(.literal(.double(0.0)), .literal(.double(-0.0))))
            #expect(KeyedIndex.sameKey(.literal(.double(-0.0)), .literal(.double(-0.0))))
            #expect(
                !KeyedIndex.sameKey(
                    .literal(.array([.double(0.0)])), .literal(.array([.double(-0.0)]))))
        }

        @Test(arguments: [1, 2])
        func equivalenceHoldsWithParallelJobsAndSourcesSpreadOverFiles(_ jobs: Int) throws {
            // Split one log over two files (alternate lines): sources are merged in pass 2.
            let (a, b) = try pair(Self.ssePairs[0].0, Self.ssePairs[0].1)
            let lines = Self.sseLog(seed: 5).split(separator: "\n")
            let even = lines.enumerated().filter { $0.offset % 2 == 0 }.map { String($0.element) }
                .joined(separator: "\n")
            let odd = lines.enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
                .joined(separator: "\n")
            let files = [("x/1.jsonl", even), ("x/2.jsonl", odd)]
            let ra = RuleRuns.audit([a], files: files, jobs: jobs).results[0]
            let rb = RuleRuns.audit([b], files: files, jobs: jobs).results[0]
            #expect(!ra.violations.isEmpty)
            #expect(fingerprint(ra.violations) == fingerprint(rb.violations))
        }

        // The equality index against plain `==` (without text()): `==` treats null as a value and
        // compares numbers by value, which the index must honour too.

        private static let plainEquality = (
            "for: source\nevery: { ev: sse.commit, as: c }\nexpect: \"count({ev: sse.processed, where: 'id == c.id'}) == 1\"",
            "for: source\nevery: { ev: sse.commit, as: c }\nexpect: \"count({ev: sse.processed, where: 'c.id == id or false'}) == 1\""
        )

        @Test func plainEqualityOfIntegersAndStrings() throws {
            let (a, b) = try pair(Self.plainEquality.0, Self.plainEquality.1)
            let log = """
                {"t":0,"ev":"sse.processed","id":1}
                {"t":1,"ev":"sse.processed","id":"2"}
                {"t":2,"ev":"sse.commit","id":1}
                {"t":3,"ev":"sse.commit","id":"2"}
                {"t":4,"ev":"sse.commit","id":2}
                {"t":5,"ev":"sse.processed","id":1.0}
                {"t":6,"ev":"sse.commit","id":1}
                """
            // "2" is not 2; the second processed 1 (as 1.0) makes two for line 7.
            #expect(CheckKindVerdict(judge(b, log)) == CheckKindVerdict(.fail, [5, 7]))
            #expect(CheckKindVerdict(judge(a, log)) == CheckKindVerdict(.fail, [5, 7]))
        }

        @Test func plainEqualityOfMissingIds() throws {
            let (a, b) = try pair(Self.plainEquality.0, Self.plainEquality.1)
            let log = """
                {"t":0,"ev":"sse.processed"}
                {"t":1,"ev":"sse.commit"}
                """
            // null == null is true: the commit without id has exactly one processed without id.
            #expect(CheckKindVerdict(judge(b, log)) == CheckKindVerdict(.pass, []))
            #expect(CheckKindVerdict(judge(a, log)) == CheckKindVerdict(.pass, []))

        }

        @Test func plainEqualityOfAFractionalOuterValue() throws {
            let (a, b) = try pair(Self.plainEquality.0, Self.plainEquality.1)
            let log = """
                {"t":0,"ev":"sse.processed","id":1}
                {"t":1,"ev":"sse.commit","id":1.0}
                """
            // 1 == 1.0 is true.
            #expect(CheckKindVerdict(judge(b, log)) == CheckKindVerdict(.pass, []))
            #expect(CheckKindVerdict(judge(a, log)) == CheckKindVerdict(.pass, []))

        }

        @Test func aNestedCaptureIsNotStatic() throws {
            // Static vs correlated where the only outer name is a capture bound by an enclosing
            // history selector (`q`): both should be correlated.
            let rules = try RuleRuns.rules(
                [
                    """
                    id: t.a
                    title: Pings are answered before the close
                    every: { ev: ws.close, as: c }
                    expect: >
                      count({ev: ws.ping, as: q, where: "count({ev: ws.pong, where: 't > q.t'}) == 0"}) == 0
                    """,
                    """
                    id: t.b
                    title: Pings are answered before the close
                    every: { ev: ws.close, as: c }
                    expect: >
                      count({ev: ws.ping, as: q, where: "count({ev: ws.pong, where: 't > q.t and c.t >= 0'}) == 0"}) == 0
                    """
                ], file: "rules/checks.yaml")
            let log = """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":1,"ev":"ws.pong","gen":1}
                {"t":2,"ev":"ws.close","gen":1}
                {"t":3,"ev":"ws.pong","gen":2}
                {"t":4,"ev":"ws.ping","gen":2}
                {"t":5,"ev":"ws.close","gen":2}
                """
            #expect(CheckKindVerdict(judge(rules[1], log)) == CheckKindVerdict(.fail, [6]))
            #expect(CheckKindVerdict(judge(rules[0], log)) == CheckKindVerdict(.fail, [6]))

        }
    }
}

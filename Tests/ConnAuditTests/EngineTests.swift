import Testing

@testable import ConnAudit
import ConnAuditTestSupport

// MARK: - Helpers

/// Loads one rule written as a YAML list item without the `rules:` wrapper, unindented
/// (`id: …\ntitle: …`).
private func rule(_ body: String) throws -> Rule {
    try #require(try RuleRuns.rules([body], file: "rules/engine.yaml").first)
}

/// One rule over one log: its result.
private func run(_ rule: Rule, _ log: String) -> RuleResult {
    RuleRuns.audit([rule], files: [("a.jsonl", log)]).results[0]
}

private func lines(_ findings: [Finding]) -> [Int] { findings.compactMap(\.line) }

// MARK: - Tests

@Suite struct EngineTests {
    // MARK: every

    private static let closes = """
        {"t":0,"ev":"ws.connect","gen":1}
        {"t":5,"ev":"ws.close","gen":1,"reason":"user"}
        {"t":6,"ev":"ws.close","gen":1}
        {"t":7,"ev":"ws.close","gen":1,"reason":""}
        {"t":8,"ev":"ws.close","gen":1,"reason":null}
        """

    @Test func everyWithAnExpression() throws {
        let r = try rule(
            """
            id: t.reason
            title: Every close has a reason
            every: { ev: ws.close }
            expect: "reason != null and reason != ''"
            """)
        let result = run(r, Self.closes)
        #expect(result.status == .fail)
        #expect(lines(result.violations) == [3, 4, 5])
        #expect(result.violations.allSatisfy { $0.gen == 1 && $0.file == 0 })
        #expect(result.violations.map(\.t) == [6, 7, 8])
        #expect(result.violations.first?.message == "Every close has a reason")
        #expect(result.inconclusive.isEmpty)
    }

    @Test func everyWithASelector() throws {
        let r = try rule(
            """
            id: t.reason
            title: Every close has a known reason
            every: { ev: ws.close }
            expect: { reason: { in: [user, pong_timeout] } }
            """)
        #expect(lines(run(r, Self.closes).violations) == [3, 4, 5])
    }

    @Test func everyOnlyLooksAtMatchingEvents() throws {
        let r = try rule(
            """
            id: t.reason
            title: T
            every: { ev: ws.close, reason: { exists: true } }
            expect: "reason != ''"
            """)
        #expect(lines(run(r, Self.closes).violations) == [4])
    }

    /// `undecided:` decides what an expectation on missing data means.
    @Test(
        arguments: [
            (nil, [2, 3], [Int](), RuleStatus.fail),
            ("fail", [2, 3], [], .fail),
            ("pass", [2], [], .fail),
            ("inconclusive", [2], [3], .fail)
        ] as [(String?, [Int], [Int], RuleStatus)])
    func undecidedPolicy(
        _ policy: String?, _ violations: [Int], _ inconclusive: [Int], _ status: RuleStatus
    ) throws {
        let r = try rule(
            """
            id: t.fast
            title: Pongs are fast
            every: { ev: ws.pong }
            expect: "delay_ms < 100"
            """ + (policy.map { "\nundecided: \($0)" } ?? ""))
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.pong","gen":1,"delay_ms":50}
            {"t":1,"ev":"ws.pong","gen":1,"delay_ms":150}
            {"t":2,"ev":"ws.pong","gen":1}
            """)
        #expect(lines(result.violations) == violations)
        #expect(lines(result.inconclusive) == inconclusive)
        #expect(result.status == status)
    }

    @Test func onlyUndecidedCasesMakeARuleInconclusive() throws {
        let r = try rule(
            """
            id: t.fast
            title: Pongs are fast
            every: { ev: ws.pong }
            expect: "delay_ms < 100"
            undecided: inconclusive
            """)
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.pong","gen":1,"delay_ms":50}
            {"t":2,"ev":"ws.pong","gen":1}
            """)
        #expect(result.status == .inconclusive)
        #expect(result.violations.isEmpty)
        #expect(lines(result.inconclusive) == [2])
        #expect(result.inconclusive.first?.message == "Pongs are fast (undecided: data is missing)")
    }

    // MARK: never

    @Test func neverReportsEachMatchingEvent() throws {
        let r = try rule(
            """
            id: t.noping
            title: No pings
            never: { ev: ws.ping }
            """)
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.connect","gen":1}
            {"t":1,"ev":"ws.ping","gen":1}
            {"t":2,"ev":"ws.pong","gen":1}
            {"t":3,"ev":"ws.ping","gen":1}
            """)
        #expect(lines(result.violations) == [2, 4])
    }

    private static let pingsAroundOpenAndClose = """
        {"t":0,"ev":"ws.connect","gen":1}
        {"t":1,"ev":"ws.ping","gen":1}
        {"t":2,"ev":"ws.open","gen":1}
        {"t":3,"ev":"ws.ping","gen":1}
        {"t":4,"ev":"ws.close","gen":1,"reason":"user"}
        {"t":5,"ev":"ws.ping","gen":1}
        {"t":6,"ev":"ws.close","gen":1,"reason":"user"}
        {"t":7,"ev":"ws.ping","gen":1}
        """

    @Test(arguments: [
        ("after: { ev: ws.close }", [6, 8]),
        ("before: { ev: ws.open }", [2]),
        ("after: { ev: ws.open }\nbefore: { ev: ws.close }", [4]),
        ("after: { ev: ws.nothing }", []),
        // Dwyer's "before R": a trace in which R never comes is not judged.
        ("before: { ev: ws.nothing }", []),
        ("after: { ev: ws.open }\nbefore: { ev: ws.nothing }", [])
    ])
    func neverWithAfterAndBefore(_ scope: String, _ expected: [Int]) throws {
        let r = try rule(
            """
            id: t.noping
            title: No pings here
            never: { ev: ws.ping }
            """ + "\n" + scope)
        #expect(lines(run(r, Self.pingsAroundOpenAndClose).violations) == expected)
    }

    @Test func neverAfterRestartsInEachGeneration() throws {
        let r = try rule(
            """
            id: t.noping
            title: No ping after close
            never: { ev: ws.ping }
            after: { ev: ws.close }
            """)
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.close","gen":1,"reason":"user"}
            {"t":1,"ev":"ws.ping","gen":2}
            {"t":2,"ev":"ws.ping","gen":1}
            """)
        #expect(lines(result.violations) == [3])
        #expect(result.violations.first?.gen == 1)
    }

    // MARK: count

    @Test(arguments: [(0, [2, 3, 4]), (1, [3, 4]), (2, [4]), (3, [])])
    func countMaxReportsEachExcessEvent(_ max: Int, _ expected: [Int]) throws {
        let r = try rule(
            """
            id: t.single
            title: One close
            count: { ev: ws.close }
            max: \(max)
            """)
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.connect","gen":1}
            {"t":1,"ev":"ws.close","gen":1,"reason":"a"}
            {"t":2,"ev":"ws.close","gen":1,"reason":"b"}
            {"t":3,"ev":"ws.close","gen":1,"reason":"c"}
            """)
        #expect(lines(result.violations) == expected)
        #expect(result.status == (expected.isEmpty ? .pass : .fail))
    }

    @Test func countMinReportsATimelineWithTooFew() throws {
        let r = try rule(
            """
            id: t.pong
            title: Every generation has a pong
            count: { ev: ws.pong }
            min: 1
            """)
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.connect","gen":1}
            {"t":1,"ev":"ws.pong","gen":1}
            {"t":2,"ev":"ws.connect","gen":2}
            {"t":3,"ev":"ws.ping","gen":2}
            """)
        #expect(result.status == .fail)
        #expect(result.violations.count == 1)
        let v = try #require(result.violations.first)
        #expect(v.message.contains("0 matching events, at least 1 required"))
        #expect(v.gen == 2)
        #expect(v.line == 3)

    }

    @Test func countMinWithSomeMatches() throws {
        let r = try rule(
            """
            id: t.pongs
            title: Two pongs
            count: { ev: ws.pong }
            min: 2
            max: 3
            """)
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.connect","gen":1}
            {"t":1,"ev":"ws.pong","gen":1}
            {"t":2,"ev":"ws.connect","gen":2}
            {"t":3,"ev":"ws.pong","gen":2}
            {"t":4,"ev":"ws.pong","gen":2}
            """)
        #expect(result.violations.count == 1)
        #expect(result.violations.first?.gen == 1)
        #expect(
            result.violations.first?.message.contains("1 matching event, at least 2 required")
                == true)
    }

    // MARK: Scopes

    private static let twoGenerations = """
        {"t":0,"ev":"ws.connect","gen":1}
        {"t":1,"ev":"ws.close","gen":1,"reason":"user"}
        {"t":2,"ev":"ws.connect","gen":2}
        {"t":3,"ev":"ws.close","gen":2,"reason":"user"}
        {"t":4,"ev":"ws.close","gen":2,"reason":"user"}
        """

    /// The same rule judged per generation and per source gives different counts.
    @Test(arguments: [("generation", [5]), ("source", [4, 5])])
    func scopeDecidesWhatIsCountedTogether(_ scope: String, _ expected: [Int]) throws {
        let r = try rule(
            """
            id: t.single
            title: One close
            for: \(scope)
            count: { ev: ws.close }
            max: 1
            """)
        #expect(lines(run(r, Self.twoGenerations).violations) == expected)
    }

    @Test func corpusScopeSeesEveryEvent() throws {
        let r = try rule(
            """
            id: t.single
            title: One close in the whole corpus
            for: corpus
            count: { ev: ws.close }
            max: 1
            """)
        let result = run(r, Self.twoGenerations)
        #expect(lines(result.violations) == [4, 5])

    }

    @Test func corpusScopeSeesTheReadersFindingsInFileOrder() throws {
        let r = try rule(
            """
            id: t.bad
            title: No bad lines
            for: corpus
            never: { ev: $malformed }
            message: "line is bad: {reason}"
            """)
        let report = RuleRuns.audit(
            [r],
            files: [
                ("b.jsonl", "{\"t\":0,\"ev\":\"ws.connect\",\"gen\":1}\nnope\n"),
                ("a.jsonl", "[1]\n{\"t\":0,\"ev\":\"ws.connect\",\"gen\":1}\n{\"ev\":\"x.y\"}\n")
            ])
        let v = report.results[0].violations
        #expect(v.map(\.file) == [0, 1, 1])
        #expect(lines(v) == [2, 1, 3])
        #expect(
            v.allSatisfy {
                $0.message.hasPrefix("line is bad: ") && $0.message.count > "line is bad: ".count
            })
    }

    @Test func sourcesAreJudgedApart() throws {
        let r = try rule(
            """
            id: t.single
            title: One close per source
            for: source
            count: { ev: ws.close }
            max: 1
            """)
        let result = run(
            r,
            """
            {"t":0,"src":"a","ev":"ws.close","gen":1}
            {"t":0,"src":"b","ev":"ws.close","gen":1}
            {"t":1,"src":"a","session":"s2","ev":"ws.close","gen":1}
            {"t":2,"src":"b","ev":"ws.close","gen":2}
            """)
        #expect(lines(result.violations) == [4])
        #expect(result.violations.first?.source?.src == "b")
    }

    @Test func eventsWithoutGenReachOnlyTheSourceTimeline() throws {
        let log = """
            {"t":0,"ev":"ws.close"}
            {"t":1,"ev":"ws.close"}
            """
        let perGeneration = try rule("id: t.g\ntitle: T\ncount: { ev: ws.close }\nmax: 1")
        let perSource = try rule("id: t.s\ntitle: T\nfor: source\ncount: { ev: ws.close }\nmax: 1")
        let report = RuleRuns.audit([perGeneration, perSource], files: [("a.jsonl", log)])
        #expect(report.results[0].violations.isEmpty)
        #expect(lines(report.results[1].violations) == [2])
    }

    @Test func aSourceSpreadOverTwoFilesIsMergedByTime() throws {
        let r = try rule(
            """
            id: t.connected
            title: Closes come after a connect
            for: source
            every: { ev: ws.close }
            expect: "count({ev: ws.connect}) >= 1 and t - last({ev: ws.connect}).t == 5"
            """)
        let report = RuleRuns.audit(
            [r],
            files: [
                (
                    "logs/2.jsonl",
                    "{\"t\":5,\"src\":\"d\",\"ev\":\"ws.close\",\"gen\":1,\"reason\":\"user\"}\n"
                ),
                ("logs/1.jsonl", "{\"t\":0,\"src\":\"d\",\"ev\":\"ws.connect\",\"gen\":1}\n")
            ])
        #expect(report.results[0].status == .pass)
        #expect(report.inputs.sources == 1)
    }

    // MARK: Captures and history

    @Test func capturesAreVisibleInTheWhereOfAHistoryFunction() throws {
        let r = try rule(
            """
            id: t.answered
            title: Each pong answers exactly one ping
            for: source
            every: { ev: ws.pong, as: p }
            expect: "count({ev: ws.ping, where: 'id == p.id'}) == 1"
            """)
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.ping","gen":1,"id":1}
            {"t":1,"ev":"ws.pong","gen":1,"id":1}
            {"t":2,"ev":"ws.pong","gen":1,"id":2}
            {"t":3,"ev":"ws.ping","gen":1,"id":3}
            {"t":4,"ev":"ws.ping","gen":1,"id":3}
            {"t":5,"ev":"ws.pong","gen":1,"id":3}
            """)
        #expect(lines(result.violations) == [3, 6])
    }

    @Test func countSinceASelector() throws {
        let r = try rule(
            """
            id: t.one-outstanding
            title: At most one ping without a pong
            every: { ev: ws.ping }
            expect: "count({ev: ws.ping}, since: {ev: ws.pong}) == 0"
            """)
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.ping","gen":1}
            {"t":1,"ev":"ws.pong","gen":1}
            {"t":2,"ev":"ws.ping","gen":1}
            {"t":3,"ev":"ws.ping","gen":1}
            {"t":4,"ev":"ws.pong","gen":1}
            {"t":5,"ev":"ws.ping","gen":1}
            {"t":6,"ev":"ws.ping","gen":1}
            """)
        #expect(lines(result.violations) == [4, 7])
    }

    @Test func countSinceACapture() throws {
        // A ping is answered when a pong follows it: `since: q` looks only after the captured ping.
        let r = try rule(
            """
            id: t.answered-before-close
            title: Every ping is answered before the close
            every: { ev: ws.close }
            expect: "count({ev: ws.ping, as: q, where: 'count({ev: ws.pong}, since: q) == 0'}) == 0"
            """)
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.connect","gen":1}
            {"t":1,"ev":"ws.ping","gen":1}
            {"t":2,"ev":"ws.pong","gen":1}
            {"t":3,"ev":"ws.ping","gen":1}
            {"t":4,"ev":"ws.close","gen":1,"reason":"pong_timeout"}
            {"t":5,"ev":"ws.connect","gen":2}
            {"t":6,"ev":"ws.ping","gen":2}
            {"t":7,"ev":"ws.pong","gen":2}
            {"t":8,"ev":"ws.close","gen":2,"reason":"user"}
            """)
        #expect(lines(result.violations) == [5])
    }

    @Test func indexedLookupKeyedByAStaticLet() throws {
        // `gen == S.gen` is answered from an equality index: `gen` is the candidate's side and
        // `S.gen` (a let over a running aggregate) the outer side, whatever S was when the index
        // was built. The second check must find the gen 2 item.
        let r = try rule(
            """
            id: t.item-of-latest-start
            title: An item of the latest start exists
            for: source
            let: { S: "last({ev: a.start})" }
            every: { ev: a.check }
            expect: "count({ev: a.item, where: 'gen == S.gen and ok == true'}) == 1"
            """)
        let result = run(
            r,
            """
            {"t":0,"ev":"a.start","gen":1}
            {"t":1,"ev":"a.item","gen":1,"ok":true}
            {"t":2,"ev":"a.check","gen":1}
            {"t":3,"ev":"a.start","gen":2}
            {"t":4,"ev":"a.item","gen":2,"ok":true}
            {"t":5,"ev":"a.check","gen":1}
            {"t":6,"ev":"a.start","gen":3}
            {"t":7,"ev":"a.check","gen":3}
            """)
        #expect(lines(result.violations) == [8])
    }

    // MARK: Rewrites that only make evaluation cheaper

    /// A generation where the second ping goes unanswered past its deadline (T = 100): pong_timeout
    /// closes at lines 6 (justified) and, in generation 2, line 11 (premature: the ping was
    /// answered).
    private static let heartbeats = """
        {"t":0,"ev":"ws.connect","gen":1}
        {"t":10,"ev":"ws.ping","gen":1}
        {"t":20,"ev":"ws.pong","gen":1}
        {"t":30,"ev":"ws.ping","gen":1}
        {"t":200,"ev":"ws.pong","gen":1}
        {"t":210,"ev":"ws.close","gen":1,"reason":"pong_timeout"}
        {"t":300,"ev":"ws.connect","gen":2}
        {"t":310,"ev":"ws.ping","gen":2}
        {"t":320,"ev":"ws.pong","gen":2}
        {"t":330,"ev":"ws.ping","gen":2}
        {"t":340,"ev":"ws.close","gen":2,"reason":"pong_timeout"}
        """

    private func closeRule(_ expect: String) throws -> Rule {
        try rule(
            """
            id: t.premature
            title: A pong_timeout close follows an unanswered ping
            for: generation
            every: { ev: ws.close, reason: pong_timeout, as: c }
            expect: >
              \(expect)
            """)
    }

    @Test(
        "count(S) compared with 0 or 1 means the same as first(S) against null, and a $seq bound the same as none",
        arguments: [
            (
                "count({ev: ws.ping, as: q, where: \"c.t >= q.t + 100 and count({ev: ws.pong, where: 't < q.t + 100 and $seq > q.$seq'}) == 0\"}) > 0",
                "count({ev: ws.ping, as: q, where: \"c.t >= q.t + 100 and count({ev: ws.pong, where: 't < q.t + 100 and $seq + 0 > q.$seq'}) + 0 == 0\"}) + 0 > 0"
            ),
            (
                "count({ev: ws.ping, as: q, where: \"c.t >= q.t + 100 and count({ev: ws.pong, where: 't < q.t + 100 and q.$seq < $seq'}) < 1\"}) >= 1",
                "count({ev: ws.ping, as: q, where: \"c.t >= q.t + 100 and count({ev: ws.pong, where: 't < q.t + 100 and q.$seq < $seq + 0'}) + 0 < 1\"}) + 0 >= 1"
            ),
            (
                "count({ev: ws.ping, as: q, where: \"c.t >= q.t + 100 and count({ev: ws.pong, where: 't < q.t + 100 and $seq >= q.$seq + 1'}) <= 0\"}) != 0",
                "count({ev: ws.ping, as: q, where: \"c.t >= q.t + 100 and count({ev: ws.pong, where: 't < q.t + 100 and $seq + 0 >= q.$seq + 1'}) + 0 <= 0\"}) + 0 != 0"
            )
        ])
    func existenceAndSeqBoundRewrites(fast: String, plain: String) throws {
        let a = run(try closeRule(fast), Self.heartbeats)
        let b = run(try closeRule(plain), Self.heartbeats)
        #expect(lines(a.violations) == [11])
        #expect(lines(a.violations) == lines(b.violations))
        #expect(a.inconclusive.count == b.inconclusive.count)
    }

    @Test func countAgainstZeroIsCompiledToAnExistenceTest() throws {
        let r = NameResolution.resolve(
            try closeRule(
                "count({ev: ws.ping}) > 0 and count({ev: ws.pong}) == 0 and count({ev: ws.ping}) > 1"
            ))
        guard case .every(_, .expression(let x), _) = r.check else {
            Issue.record("not an every rule"); return
        }
        var kinds: [HistoryCall.Kind] = []
        NameWalker.walk(x) { if case .history(let call) = $0 { kinds.append(call.kind) } }
        // The first two only ask whether a match exists; `> 1` still counts.
        #expect(kinds == [.first, .first, .count])
    }

    @Test func controlCharactersFromTheLogAreEscapedInMessages() throws {
        let r = try rule(
            """
            id: t.state
            title: States are shown
            for: source
            every: { ev: a }
            expect: "false"
            message: "state={state} first={first({ev: a})}"
            """)
        let log = #"{"t":0,"ev":"a","state":"x\u0001\u0000\n::error file=x,line=1::FORGED\u2028"}"#
        let message = try #require(run(r, log).violations.first?.message)
        #expect(message == #"state=x\u{1}\u{0}\n::error file=x,line=1::FORGED\u{2028} first=null"#)
        #expect(!message.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x2028 })
    }

    @Test func aHistoryResultNameIsNotAFieldOfAnIndexedCandidate() throws {
        // `z` is bound by the first call's `as:`: the second call's `where` reads only outer names,
        // so it is searched, not answered from an index keyed by a field `z` no event has.
        let r = try rule(
            """
            id: t.results
            title: Two c per matching b
            for: source
            every: { ev: a, as: e }
            expect: "first({ev: b, as: z, where: 'id == e.id'}) != null and count({ev: c, where: 'z.id == e.id'}) == 2"
            """)
        let log = """
            {"t":0,"ev":"b","id":1}
            {"t":1,"ev":"c"}
            {"t":2,"ev":"c"}
            {"t":3,"ev":"a","id":1}
            {"t":4,"ev":"a","id":2}
            """
        #expect(lines(run(r, log).violations) == [5])
    }

    @Test func obligationsKeepTheStaticLetsOfTheirOwnTrigger() throws {
        // Obligations opened while no aggregate changed share one frozen scope; one opened after
        // the config arrived has its own T.
        let r = try rule(
            """
            id: t.answer
            title: Pings are answered within T
            for: generation
            let: { T: "first({ev: ws.config}).timeout_ms ?? 100" }
            each: { ev: ws.ping, as: p }
            followed_by: { ev: ws.pong }
            within_ms: "T"
            message: "ping at {p.t} unanswered within T={T}"
            """)
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.ping","gen":1}
            {"t":1,"ev":"ws.ping","gen":1}
            {"t":10,"ev":"ws.config","gen":1,"timeout_ms":500}
            {"t":20,"ev":"ws.ping","gen":1}
            {"t":21,"ev":"ws.ping","gen":1}
            {"t":300,"ev":"ws.pong","gen":1}
            """)
        #expect(lines(result.violations) == [1, 2])
        #expect(result.violations.map(\.message).allSatisfy { $0.contains("T=100") })
    }

    @Test func paramsAreReadWhenTheRuleIsCompiledUnlessTheRuleBindsTheName() throws {
        func reads(_ compiled: CompiledRule) -> [Expr] {
            guard case .every(_, .expression(let x), _) = compiled.rule.check else { return [] }
            guard case .binary(_, _, let right, _) = x else { return [x] }
            return [right]
        }
        let plain = try rule(
            """
            id: t.limit
            title: Values stay under the limit
            for: source
            params: { limit: 3 }
            every: { ev: a.b }
            expect: "v < params.limit"
            """)
        // The value as the rule runs with it: the command line over the rule's default.
        let compiled = CompiledRule(rule: plain, index: 0, overrides: ["limit": .int(5)])
        guard case .literal(.int(5))? = reads(compiled).first else {
            Issue.record("params.limit was not read at compile time: \(reads(compiled))"); return
        }
        let log = """
            {"t":0,"ev":"a.b","v":4}
            {"t":1,"ev":"a.b","v":5}
            """
        #expect(
            lines(
                RuleRuns.audit([plain], files: [("a.jsonl", log)], overrides: ["limit": .int(5)])
                    .results[0].violations) == [2])
        #expect(lines(run(plain, log).violations) == [1, 2])
        // A let named `params` is what `params.limit` reads, at every evaluation.
        let shadowed = try rule(
            """
            id: t.limit
            title: Values stay under the limit
            for: source
            params: { limit: 3 }
            let: { params: "first({ev: a.limits})" }
            every: { ev: a.b }
            expect: "v < params.limit"
            """)
        guard case .member? = reads(CompiledRule(rule: shadowed, index: 0, overrides: [:])).first
        else {
            Issue.record("a let named params was folded away"); return
        }
        let withLimits = """
            {"t":0,"ev":"a.limits","limit":10}
            {"t":1,"ev":"a.b","v":4}
            {"t":2,"ev":"a.b","v":11}
            """
        #expect(lines(run(shadowed, withLimits).violations) == [3])
    }

    @Test func aWhereReadingItsOwnCaptureIsNotAnsweredFromAnIndex() throws {
        // `x` is the candidate while the where runs; an index built without it would file every
        // item under null and find none.
        let r = try rule(
            """
            id: t.item-per-check
            title: Each check has exactly one item of its id
            for: source
            every: { ev: a.check, as: c }
            expect: "count({ev: a.item, as: x, where: 'x.id == c.id'}) == 1"
            """)
        let result = run(
            r,
            """
            {"t":0,"ev":"a.item","id":"5"}
            {"t":1,"ev":"a.item","id":"6"}
            {"t":2,"ev":"a.check","id":"5"}
            {"t":3,"ev":"a.check","id":"7"}
            """)
        #expect(lines(result.violations) == [4])
    }

    @Test func sinceTheTriggerItselfLeavesNothingBehind() throws {
        let log = """
            {"t":0,"ev":"ws.ping","gen":1}
            {"t":1,"ev":"ws.close","gen":1,"reason":"user"}
            """
        let cut = try rule(
            """
            id: t.cut
            title: T
            every: { ev: ws.close, as: x }
            expect: "count({ev: ws.ping}, since: x) == 0"
            """)
        let uncut = try rule(
            """
            id: t.uncut
            title: T
            every: { ev: ws.close, as: x }
            expect: "count({ev: ws.ping}) == 0"
            """)
        #expect(run(cut, log).status == .pass)
        #expect(lines(run(uncut, log).violations) == [2])
    }

    @Test func firstAndLastLookBack() throws {
        let r = try rule(
            """
            id: t.quick-close
            title: A close comes within 100 ms of its connect
            every: { ev: ws.close }
            expect: "t - first({ev: ws.connect}).t <= 100"
            message: "close {t - last({ev: ws.ping}).t} ms after the last ping ({last({ev: ws.ping})})"
            """)
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.connect","gen":1}
            {"t":50,"ev":"ws.ping","gen":1}
            {"t":90,"ev":"ws.close","gen":1,"reason":"user"}
            {"t":100,"ev":"ws.connect","gen":2}
            {"t":150,"ev":"ws.ping","gen":2}
            {"t":300,"ev":"ws.close","gen":2,"reason":"user"}
            {"t":400,"ev":"ws.close","gen":3,"reason":"user"}
            """)
        // gen 3 has no connect: the expectation is undecided, which fails by default.
        #expect(lines(result.violations) == [6, 7])
        #expect(
            result.violations.first?.message
                == "close 150 ms after the last ping (ws.ping at a.jsonl:5)")
        #expect(result.violations.last?.message == "close ? ms after the last ping (null)")
    }

    @Test func letBindingsAreEvaluatedPerTrigger() throws {
        let r = try rule(
            """
            id: t.deadline
            title: Pongs come before the deadline
            params: { timeout_ms: 100 }
            let: { T: "first({ev: ws.connect}).timeout_ms ?? params.timeout_ms" }
            every: { ev: ws.pong }
            expect: "t - last({ev: ws.ping}).t <= T"
            message: "pong after {t - last({ev: ws.ping}).t} ms, limit {T}"
            """)
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.connect","gen":1,"timeout_ms":500}
            {"t":10,"ev":"ws.ping","gen":1}
            {"t":310,"ev":"ws.pong","gen":1}
            {"t":1000,"ev":"ws.connect","gen":2}
            {"t":1010,"ev":"ws.ping","gen":2}
            {"t":1310,"ev":"ws.pong","gen":2}
            """)
        #expect(lines(result.violations) == [6])
        #expect(result.violations.first?.message == "pong after 300 ms, limit 100")
    }

    // MARK: Messages

    @Test(arguments: [
        (
            "gen {gen}: reason {reason ?? 'none'} {{literal}} at line {$line}",
            "gen 1: reason none {literal} at line 2"
        ),
        ("{ev} t={t} code={code}", "ws.close t=5 code=1006"),
        ("text {missing + 1} here", "text ? here"),
        ("{params.limit} and {c.gen}", "3 and 1"),
        ("{if code == 1006 then 'abnormal' else 'normal'}", "abnormal"),
        ("plain text", "plain text")
    ])
    func messageTemplates(_ template: String, _ expected: String) throws {
        let r = try rule(
            """
            id: t.msg
            title: Title
            params: { limit: 3 }
            every: { ev: ws.close, as: c }
            expect: "reason != null"
            message: "\(template)"
            """)
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.connect","gen":1}
            {"t":5,"ev":"ws.close","gen":1,"code":1006}
            """)
        #expect(result.violations.first?.message == expected)
    }

    @Test(arguments: [
        ("a", 256, "a"),
        (String(repeating: "a", count: 256), 256, String(repeating: "a", count: 256)),
        (
            String(repeating: "a", count: 257), 256,
            String(repeating: "a", count: 256) + "… (257 bytes)"
        ),
        // Whole scalars only: 2-byte é fills 256 bytes exactly, 3-byte € stops at 255, a 4-byte
        // emoji at 4 bytes of a 5-byte limit.
        (
            String(repeating: "é", count: 200), 256,
            String(repeating: "é", count: 128) + "… (400 bytes)"
        ),
        (
            String(repeating: "€", count: 100), 256,
            String(repeating: "€", count: 85) + "… (300 bytes)"
        ),
        ("😀😀", 5, "😀… (8 bytes)"),
        ("😀😀", 3, "… (8 bytes)")
    ])
    func longTextsAreClippedAtWholeScalars(_ text: String, _ limit: Int, _ expected: String) {
        #expect(text.clipped(bytes: limit) == expected)
    }

    /// A value of a line (up to 1 MiB) is shown clipped in messages and context lines: a finding
    /// does not repeat it whole (three commits of a 500 KB id made a 6 MB JSON report of 1.5 MB).
    @Test func longValuesAreClippedInMessagesAndContext() throws {
        let r = try rule(
            """
            id: t.reason
            title: Closes say why briefly
            every: { ev: ws.close }
            expect: "len(reason) < 100"
            message: "reason {reason} at {$line}"
            """)
        let reason = String(repeating: "x", count: 300) + "é" + String(repeating: "y", count: 5_000)
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.connect","gen":1}
            {"t":5,"ev":"ws.close","gen":1,"reason":"\(reason)"}
            """)
        let v = try #require(result.violations.first)
        #expect(v.message == "reason " + String(repeating: "x", count: 256) + "… (5302 bytes) at 2")
        let anchor = try #require(v.context.first { $0.isAnchor })
        // The value's own text is clipped, then quoted: the same length as in the message.
        #expect(
            anchor.text == "t=5 ws.close gen=1 reason=\"" + String(repeating: "x", count: 256)
                + "\"… (5302 bytes)")
    }

    /// A value is clipped before it is escaped for a context line: an escape is never cut in two
    /// (`\` alone at the end of a clipped JSON text).
    @Test func aClippedContextValueKeepsItsEscapesWhole() throws {
        // A rule that reads `reason` (the reader keeps only the fields the loaded rules read).
        let r = try rule(
            "id: t.close\ntitle: No closes with reasons\nnever: { ev: ws.close, reason: { exists: true } }"
        )
        let reason =
            String(repeating: "x", count: 255) + "\u{1B}" + String(repeating: "y", count: 10)
        let log =
            #"{"t":5,"ev":"ws.close","gen":1,"reason":"\#(String(repeating: "x", count: 255))\u001b\#(String(repeating: "y", count: 10))"}"#
        let v = try #require(run(r, log).violations.first)
        #expect(reason.utf8.count == 266)
        let anchor = try #require(v.context.first { $0.isAnchor })
        #expect(
            anchor.text == "t=5 ws.close gen=1 reason=\"" + String(repeating: "x", count: 255)
                + "\\u001b\"… (266 bytes)")
    }

    /// The reader's own findings hold values it bounded itself, and a message shows them whole: a
    /// secret's key path longer than a clip keeps its last key, the one that holds the secret, so
    /// two secrets under one long key read apart.
    @Test func aLongSecretPathIsNotClippedInItsMessage() throws {
        let pack = RuleLoader.builtin(only: "10-log.yaml")
        let secrets = try #require(pack.rules.first { $0.id == "log.no-secrets" })
        let key = String(repeating: "k", count: 300)
        let result = run(secrets, #"{"t":1,"ev":"ws.open","\#(key)":{"cookie":"a","secret":"b"}}"#)
        let messages = result.violations.map(\.message)
        #expect(messages.count == 2)
        #expect(messages.allSatisfy { !$0.contains("bytes)") && $0.contains(key) })
        #expect(messages.contains { $0.contains(".cookie") })
        #expect(messages.contains { $0.contains(".secret") })
    }

    @Test func aViolationShowsItsContext() throws {
        let r = try rule("id: t.noping\ntitle: No pings\nnever: { ev: ws.ping }")
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.connect","gen":1}
            {"t":1,"ev":"ws.open","gen":1}
            {"t":2,"ev":"ws.ping","gen":1}
            {"t":3,"ev":"ws.message","gen":1}
            {"t":4,"ev":"ws.close","gen":1,"reason":"user"}
            {"t":5,"ev":"ws.closed","gen":1}
            """)
        let v = try #require(result.violations.first)
        #expect(v.context.map(\.line) == [1, 2, 3, 4, 5])
        #expect(v.context.map(\.isAnchor) == [false, false, true, false, false])
        #expect(v.context[2].text == "t=2 ws.ping gen=1")
        #expect(v.context[4].text.hasPrefix("t=4 ws.close gen=1"))
    }

    /// Two generations' pings after both connects: generation 2 on every third line (5, 8, …),
    /// generation 1 on the others (3, 4, 6, 7, …); each at `t` = its line × `tPerLine`.
    static func interleavedPings(lines n: Int, tPerLine: Int) -> String {
        var lines = [#"{"t":0,"ev":"ws.connect","gen":1}"#, #"{"t":0,"ev":"ws.connect","gen":2}"#]
        for i in 3...n {
            lines.append(#"{"t":\#(i * tPerLine),"ev":"ws.ping","gen":\#(generation(ofLine: i))}"#)
        }
        return lines.joined(separator: "\n")
    }

    static func generation(ofLine line: Int) -> Int { line <= 2 ? line : (line % 3 == 2 ? 2 : 1) }

    /// Each finding of ``interleavedPings(lines:tPerLine:)`` shows its own generation's window:
    /// the two events before it, itself marked, the two after.
    static func expectOwnWindows(_ findings: [Finding], lines n: Int, tPerLine: Int) throws {
        for v in findings {
            let line = try #require(v.line)
            let own = (1...n).filter { generation(ofLine: $0) == generation(ofLine: line) }
            let at = try #require(own.firstIndex(of: line))
            let window = Array(own[max(0, at - 2)...min(own.count - 1, at + 2)])
            #expect(v.context.map(\.line) == window, "line \(line)")
            #expect(v.context.map(\.isAnchor) == window.map { $0 == line })
            for c in v.context where c.line > 2 {
                #expect(
                    c.text == "t=\(c.line * tPerLine) ws.ping gen=\(generation(ofLine: c.line))")
            }
        }
    }

    /// Findings close together share their neighbours' texts (each event is rendered once):
    /// each still shows its own window of its own generation, whichever generations interleave.
    @Test func findingsCloseTogetherEachShowTheirOwnNeighbours() throws {
        let r = try rule("id: t.noping\ntitle: No pings\nnever: { ev: ws.ping }")
        let result = run(r, Self.interleavedPings(lines: 60, tPerLine: 1))
        #expect(result.violations.count == 58)
        try Self.expectOwnWindows(result.violations, lines: 60, tPerLine: 1)
    }

    /// A finding made after its anchor (a deadline passed at a later event) shows the anchor's
    /// window too: the anchor then sits in the source's ring, its text shared with the findings
    /// made earlier, and its later neighbours arrive after the finding.
    @Test func aDeadlineFindingShowsItsAnchorsWindow() throws {
        let r = try rule(
            """
            id: t.answer
            title: Pings are answered within 25 ms
            for: generation
            each: { ev: ws.ping, as: p }
            followed_by: { ev: ws.pong }
            within_ms: 25
            """)
        // Pings 10 ms apart that nobody answers: each deadline passes at a later line (the last
        // three are still open at the end).
        let result = run(r, Self.interleavedPings(lines: 40, tPerLine: 10))
        #expect(result.violations.count == 35)
        try Self.expectOwnWindows(result.violations, lines: 40, tPerLine: 10)
    }

    /// A deadline that passes after many events of another stream of the same source (an SSE
    /// reader beside the WebSocket, as on a device) still shows the ping's own window while the
    /// ping is among the source's latest ``TimelineContext/ring`` events, and the ping alone once
    /// it has left them. With a ring of 16, 40 such events left the ping alone.
    @Test(arguments: [(40, true), (TimelineContext.ring + 10, false)])
    func aDeadlineDecidedAfterOtherStreamsShowsThePingsWindow(_ others: Int, _ shown: Bool) throws {
        let r = try rule(
            """
            id: t.answer
            title: Pings are answered within a second
            for: generation
            each: { ev: ws.ping, as: p }
            followed_by: { ev: ws.pong }
            within_ms: 1000
            """)
        var lines = [
            #"{"t":0,"ev":"ws.connect","gen":1}"#, #"{"t":1,"ev":"ws.open","gen":1}"#,
            #"{"t":2,"ev":"ws.ping","gen":1}"#, #"{"t":3,"ev":"ws.message","gen":1}"#,
            #"{"t":4,"ev":"ws.message","gen":1}"#
        ]
        for i in 0..<others { lines.append(#"{"t":\#(10 + i),"ev":"sse.event","id":"\#(i)"}"#) }
        lines.append(#"{"t":2000,"ev":"app.tick"}"#)
        let result = run(r, lines.joined(separator: "\n"))
        let v = try #require(result.violations.first)
        #expect(result.violations.count == 1)
        #expect(v.line == 3)
        let window = shown ? [1, 2, 3, 4, 5] : [3]
        #expect(v.context.map(\.line) == window)
        #expect(v.context.map(\.isAnchor) == window.map { $0 == 3 })
        #expect(v.context.first { $0.isAnchor }?.text == "t=2 ws.ping gen=1")
    }

    /// A finding still waiting for its later neighbours when its source ends (the source's last
    /// events broke a rule) does not keep the source's context — its ring of events — alive: the
    /// wait held the scope, which held the context, which held the wait (`script/fuzz audit`).
    @Test func aFindingStillWaitingDoesNotKeepItsContextAlive() {
        weak var weakContext: TimelineContext?
        do {
            let context = TimelineContext(source: nil)
            weakContext = context
            let sink = FindingSink(files: [])
            sink.violations[0] = [Finding(message: "m")]
            context.awaitAfter(
                violation: true, rule: 0, index: 0,
                scope: ContextScope(context: context, stream: "ws", gen: 1))
            for t in 0..<2 {
                context.record(Event(t: Double(t), ev: "ws.ping", gen: 1), sink: sink)
            }
            // One neighbour came; the finding waits for the second, which never comes.
            #expect(sink.violations[0]?.first?.context.count == 1)
        }
        #expect(weakContext == nil)
    }

    // MARK: Order

    @Test(arguments: [1, 2])
    func violationsAreSortedByFileThenLine(_ jobs: Int) throws {
        let r = try rule("id: t.noping\ntitle: No pings\nnever: { ev: ws.ping }")
        let report = RuleRuns.audit(
            [r],
            files: [
                (
                    "x.jsonl",
                    """
                    {"t":0,"ev":"ws.ping","gen":2}
                    {"t":1,"src":"b","ev":"ws.ping","gen":1}
                    {"t":2,"ev":"ws.ping","gen":1}
                    {"t":3,"src":"a","ev":"ws.ping","gen":2}
                    """
                ),
                (
                    "w.jsonl",
                    """
                    {"t":0,"ev":"ws.connect","gen":1}
                    {"t":0,"ev":"ws.ping","gen":1}
                    """
                )
            ], jobs: jobs)
        let v = report.results[0].violations
        #expect(v.map(\.file) == [0, 0, 0, 0, 1])
        #expect(lines(v) == [1, 2, 3, 4, 2])
    }

    // MARK: Params

    private static let pongs = """
        {"t":0,"ev":"ws.pong","gen":1,"delay_ms":50}
        {"t":1,"ev":"ws.pong","gen":1,"delay_ms":150}
        {"t":2,"ev":"ws.pong","gen":1,"delay_ms":250}
        """

    private func limitRules() throws -> [Rule] {
        try RuleRuns.rules(
            [
                """
                id: t.slow
                title: Slow pongs
                every: { ev: ws.pong }
                expect: "delay_ms <= params.limit_ms"
                """,
                """
                id: t.other
                title: Other
                params: { limit_ms: 100 }
                every: { ev: ws.pong }
                expect: "delay_ms <= params.limit_ms"
                """
            ], file: "rules/engine.yaml", header: "params: { limit_ms: 100 }")
    }

    @Test(
        arguments: [
            ([:], [2, 3], [2, 3]),
            (["limit_ms": .int(200)], [3], [3]),
            (["limit_ms": .double(150.5)], [3], [3]),
            (["t.slow.limit_ms": .int(200)], [3], [2, 3]),
            (["t.other.limit_ms": .int(300)], [2, 3], []),
            (["nope": .int(1), "t.none.limit_ms": .int(1)], [2, 3], [2, 3])
        ] as [([String: Value], [Int], [Int])])
    func paramOverrides(_ overrides: [String: Value], _ slow: [Int], _ other: [Int]) throws {
        let report = RuleRuns.audit(
            try limitRules(), files: [("a.jsonl", Self.pongs)], overrides: overrides)
        #expect(lines(report.results[0].violations) == slow)
        #expect(lines(report.results[1].violations) == other)
    }

    @Test func aRuleSpecificOverrideBeatsAGeneralOne() throws {
        // Ten params, each given both as NAME and as RULE_ID.NAME: the specific one must win for
        // all.
        var params: [String] = []
        var expect: [String] = []
        var overrides: [String: Value] = [:]
        for i in 0..<10 {
            params.append("p\(i): 0")
            expect.append("params.p\(i) == 2")
            overrides["p\(i)"] = .int(1)
            overrides["t.prec.p\(i)"] = .int(2)
        }
        let r = try rule(
            """
            id: t.prec
            title: Overrides
            params: { \(params.joined(separator: ", ")) }
            every: { ev: ws.pong }
            expect: "\(expect.joined(separator: " and "))"
            """)
        let report = RuleRuns.audit([r], files: [("a.jsonl", Self.pongs)], overrides: overrides)
        #expect(report.results[0].status == .pass)

    }

    // MARK: Fixtures

    @Test func aFixtureRunsItsRuleAlone() throws {
        let r = try rule(
            """
            id: t.noping
            title: No pings
            never: { ev: ws.ping }
            tests:
              - name: right
                log: |
                  {"t":0,"ev":"ws.ping","gen":1}
                  {"t":1,"ev":"ws.ping","gen":1}
                expect: fail
                violations: 2
              - name: wrong count
                log: |
                  {"t":0,"ev":"ws.ping","gen":1}
                expect: fail
                violations: 2
              - name: wrong status
                log: |
                  {"t":0,"ev":"ws.pong","gen":1}
                expect: fail
            """)
        let outcomes = FixtureRunner.run(RuleSet(rules: [r]))
        #expect(outcomes.map(\.passed) == [true, false, false])
        #expect(outcomes.map(\.status) == [.fail, .fail, .pass])
        #expect(outcomes.map(\.violations) == [2, 1, 0])
        #expect(outcomes[0].messages == ["line 1: No pings", "line 2: No pings"])
    }

    /// A fixture's `params:` run its rule as `--param` would, over the file's and the rule's own.
    @Test func aFixtureMaySetTheRulesParams() throws {
        let r = try rule(
            """
            id: t.pings
            title: At most n pings
            params: { n: 1 }
            count: { ev: ws.ping }
            max: params.n
            tests:
              - name: the rule's own
                log: |
                  {"t":0,"ev":"ws.ping","gen":1}
                  {"t":1,"ev":"ws.ping","gen":1}
                expect: fail
                violations: 1
              - name: set by the fixture
                params: { n: 2 }
                log: |
                  {"t":0,"ev":"ws.ping","gen":1}
                  {"t":1,"ev":"ws.ping","gen":1}
                expect: pass
            """)
        #expect(r.tests.map(\.params) == [[:], ["n": .int(2)]])
        let outcomes = FixtureRunner.run(RuleSet(rules: [r]))
        #expect(outcomes.map(\.passed) == [true, true])
        #expect(outcomes.map(\.status) == [.fail, .pass])
    }

    @Test(arguments: RuleLoader.builtin().rules.map(\.id))
    func builtinRuleFixturesPass(_ id: String) throws {
        let rule = try #require(RuleLoader.builtin().rules.first { $0.id == id })
        #expect(rule.tests.contains { $0.expect == .pass }, "\(id) has no passing fixture")
        #expect(rule.tests.contains { $0.expect == .fail }, "\(id) has no failing fixture")
        for fixture in rule.tests {
            let outcome = FixtureRunner.run(rule, fixture)
            let wanted = fixture.expect.rawValue + (fixture.violations.map { " with \($0)" } ?? "")
            #expect(
                outcome.passed,
                """
                \(id) fixture '\(fixture.name)': expected \(wanted), \
                got \(outcome.status.rawValue) with \(outcome.violations): \(outcome.messages)
                """)
        }
    }

    /// Messages show a value's JSON where its type is the point: `1.0` is not the integer 1 and
    /// `"150"` is not the number 150, and a monitor that never started is not "monitor gen".
    @Test(arguments: [
        (
            "reconnect.backoff-range", #"{"t":0,"ev":"ws.reconnect","attempt":1.0,"delay_ms":150}"#,
            #"line 1: ws.reconnect needs an integer attempt >= 1, not 1.0"#
        ),
        (
            "reconnect.backoff-range", #"{"t":0,"ev":"ws.reconnect","attempt":1,"delay_ms":"150"}"#,
            #"line 1: ws.reconnect needs a numeric delay_ms, not "150""#
        ),
        (
            "sse.resume-from-commit",
            #"{"t":0,"ev":"sse.commit","id":2}\#n{"t":1,"ev":"sse.connect","last_event_id":2.0}"#,
            "line 2: sse.connect sends Last-Event-ID 2.0 but the latest commit is 2"
        ),
        (
            "sse.resume-from-commit",
            #"{"t":0,"ev":"sse.commit","id":"a7"}\#n{"t":1,"ev":"sse.connect","last_event_id":"a6"}"#,
            "line 2: sse.connect sends Last-Event-ID a6 but the latest commit is a7"
        ),
        (
            "path.starts-unknown", #"{"t":0,"ev":"path.state","state":"available"}"#,
            "line 1: path.state available before the first path.update of the source"
        ),
        // Integer times with every digit, also where a double rounds them (2^63 - 2 reads 2^63).
        (
            "log.time-monotonic",
            #"{"t":9223372036854775807,"ev":"x.y"}\#n{"t":9223372036854775806,"ev":"x.y"}"#,
            "line 2: t went back from 9223372036854775807 to 9223372036854775806 for this source"
        ),
        (
            "log.time-monotonic",
            #"{"t":9007199254740993,"ev":"x.y"}\#n{"t":9007199254740992,"ev":"x.y"}"#,
            "line 2: t went back from 9007199254740993 to 9007199254740992 for this source"
        ),
        (
            "log.time-monotonic", #"{"t":50,"ev":"x.y"}\#n{"t":20.5,"ev":"x.y"}"#,
            "line 2: t went back from 50 to 20.5 for this source"
        )
    ])
    func defaultMessagesShowTheValuesType(_ id: String, _ log: String, _ message: String) throws {
        var rule = try #require(RuleLoader.builtin().rules.first { $0.id == id })
        rule.tests = []
        let fixture = try #require(
            RuleLoader.builtin().rules.first { $0.id == id }?.tests.first { $0.expect == .fail })
        var probe = fixture
        probe.log = log + "\n"
        let outcome = FixtureRunner.run(rule, probe)
        #expect(outcome.messages == [message])
    }

    @Test func theWholeBuiltinPackPassesItsFixtures() {
        let outcomes = FixtureRunner.run(RuleLoader.builtin())
        #expect(!outcomes.isEmpty)
        #expect(outcomes.filter { !$0.passed }.map { "\($0.rule.id) '\($0.fixture.name)'" } == [])
    }
}

// MARK: - Messages made again

@Suite struct MessageReuseTests {
    /// A runner gives its last message again when every hole evaluates alike: the same bytes of
    /// text, the same bits of a number, the same event. Anything else is made anew.
    @Test("a message is given again only when its holes are the same bytes, bits or event")
    func messagesFollowTheirHoles() throws {
        let r = try rule(
            """
            id: t.holes
            title: Holes
            severity: error
            for: source
            every: { ev: x.m }
            expect: "false"
            message: "{v} | {w} | {last({ev: x.n})}"
            """)
        let nfc = "caf\u{E9}", nfd = "cafe\u{301}"
        let log = [
            #"{"t":1,"ev":"x.m","v":"\#(nfc)","w":1}"#,
            #"{"t":2,"ev":"x.m","v":"\#(nfc)","w":1}"#,
            #"{"t":3,"ev":"x.m","v":"\#(nfd)","w":1}"#,
            #"{"t":4,"ev":"x.m","v":"\#(nfd)","w":1.5}"#,
            #"{"t":5,"ev":"x.m","v":"\#(nfd)","w":1.25}"#,
            #"{"t":6,"ev":"x.n"}"#,
            #"{"t":7,"ev":"x.m","v":"\#(nfd)","w":1.25}"#,
            #"{"t":8,"ev":"x.n"}"#,
            #"{"t":9,"ev":"x.m","v":"\#(nfd)","w":1.25}"#,
            #"{"t":10,"ev":"x.m","v":null,"w":"1.25"}"#
        ].joined(separator: "\n")
        let messages = run(r, log).violations.map { Array($0.message.utf8) }
        let expected = [
            "\(nfc) | 1 | null", "\(nfc) | 1 | null", "\(nfd) | 1 | null", "\(nfd) | 1.5 | null",
            "\(nfd) | 1.25 | null",
            "\(nfd) | 1.25 | x.n at a.jsonl:6", "\(nfd) | 1.25 | x.n at a.jsonl:8",
            "null | 1.25 | x.n at a.jsonl:8"
        ].map { Array($0.utf8) }
        #expect(messages == expected)
        #expect(messages[1] != messages[2], "canonically equal texts are still their own bytes")
    }
}

import Testing

@testable import ConnAudit

extension EngineTests {
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

    // A closure, not `\.id`: a key path in the arguments of a test declared in an extension does
    // not compile (the macro makes it a stored property of the extension).
    @Test(arguments: RuleLoader.builtin().rules.map { $0.id })
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

import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A `within_ms` that reads only lets and params is evaluated once per frozen let scope: the
/// obligations opened under one scope share its value, and a new scope (an aggregate a let reads
/// changed) evaluates it again.
@Suite struct WithinReadingOnlyLetsTests {
    private static func compile(_ text: String) throws -> CompiledRule {
        let rule = try #require(
            try RuleLoader.load(files: [("rules/within.yaml", text)]).rules.first)
        return CompiledRule(rule: rule, index: 0, overrides: [:])
    }

    private static func expr(_ text: String) throws -> Expr {
        try ExpressionParser.parse(text, compileSelector: FileLoader.compileSelector)
    }

    @Test(arguments: [
        ("T + params.tick_slack_ms", true),
        ("if T > 0 then T else 1000", true),
        ("min(T, params.cap_ms) * 2", true),
        ("p.t + T", false),
        ("t + 1", false),
        ("count({ev: ws.pong}) * 10", false)
    ])
    func anExpressionReadsOnlyLetsWhenItReadsNoEventCaptureOrHistory(
        text: String, letsOnly: Bool
    ) throws {
        let expr = try Self.expr(text)
        #expect(LetsOnlyExpression.holds(expr, lets: ["T"], captures: ["p"]) == letsOnly)
    }

    @Test func paramsHiddenByACaptureAreNotParams() throws {
        let expr = try Self.expr("params.x + 1")
        #expect(LetsOnlyExpression.holds(expr, lets: [], captures: []))
        #expect(!LetsOnlyExpression.holds(expr, lets: [], captures: ["params"]))
    }

    private static let rule = """
        params: { slack: 5 }
        rules:
          - id: t.within
            title: within
            let:
              T: "first({ev: ws.connect}).timeout_ms ?? 1000"
            each: { ev: ws.ping, as: p }
            followed_by: { ev: ws.close }
            within_ms: "T + params.slack"
        """

    @Test func aWithinOfLetsAndParamsIsMemoisedAndFollowsItsLets() throws {
        let compiled = try Self.compile(Self.rule)
        let runner = SequenceRunner(compiled, files: ["a.jsonl"])
        #expect(runner.withinReadsLetsOnly)
        let clock = SourceClock()
        runner.clock = clock
        let sink = FindingSink(files: ["a.jsonl"])
        let scope = ContextScope(context: TimelineContext(source: nil), stream: nil, gen: 1)
        var seq = 0
        func feed(_ ev: String, _ t: Double, _ fields: [Event.Field] = []) {
            let e = Event(
                t: t, ev: ev, gen: 1, file: 0, line: seq + 1, fields: fields, evID: EvNames.id(ev))
            e.seq = seq
            seq += 1
            runner.observe(e, context: scope, sink: sink)
            clock.advance(to: t, seq: e.seq, sink: sink)
        }
        feed("ws.ping", 0)
        feed("ws.ping", 10)
        #expect(runner.withinMemo == 1_005)
        // The connect changes what T reads: the next obligation's deadline is 20 + 55.
        feed("ws.connect", 15, [Event.Field("timeout_ms", .int(50))])
        feed("ws.ping", 20)
        #expect(runner.withinMemo == 55)
        feed("app.tick", 75)
        #expect(sink.violations[0] == nil)
        feed("app.tick", 76)
        #expect(sink.violations[0]?.count == 1)
        feed("app.tick", 1_016)
        #expect(sink.violations[0]?.count == 3)
    }
}

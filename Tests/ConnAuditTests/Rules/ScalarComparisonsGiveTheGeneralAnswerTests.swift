import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// An expression over numbers, fields, lets, captures' fields and aggregates' fields runs as a
/// scalar (``Scalar``, `Scalar.swift`; compiled in `CompiledExpression+Scalar.swift`). It must
/// give the general answer for every pair of operand kinds (integers near overflow, fractions,
/// big integers, null, texts, booleans, events), and an operand that is no scalar must not make
/// a let evaluate twice.
@Suite struct ScalarComparisonsGiveTheGeneralAnswerTests {
    typealias Resolved = ResolvedNamesGiveTheTreeWalkersAnswerTests

    static let operands = [
        "0", "1", "-3", "9223372036854775807", "-9223372036854775807", "0.5", "128.11", "1e3",
        "null", "true", "'a'", "t", "gen", "code", "delay_ms", "reason", "ok", "big", "$seq",
        "$file", "a", "b", "w", "w.t", "w.timeout_ms", "w.id", "c.t", "c.id", "c", "b + 1000",
        "w.t - t"
    ]

    static let operators = [
        "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "??", "and", "or"
    ]

    @Test func everyPairOfOperandKindsGivesTheTreeWalkersAnswer() throws {
        let rule = try Resolved.rule()
        let resolver = NameResolution.resolver(for: rule)
        let lets = rule.lets.map { (name: $0.name, expr: resolver.expr($0.expr)) }
        var checked = 0
        for op in Self.operators {
            for l in Self.operands {
                for r in Self.operands where (l.count + r.count + op.count) % 3 == checked % 3 {
                    let source =
                        checked % 4 == 0
                        ? "if \(l) \(op) (\(r)) then -(\(l)) else not (\(r))"
                        : "\(l) \(op) (\(r))"
                    let expr = try IndexKeyAgreesWithTreeWalkerTests.parse(source)
                    Resolved.agree(resolver.expr(expr), source, lets: lets)
                    checked += 1
                }
            }
        }
        #expect(checked > 1000)
    }

    /// Counts the history calls it answers.
    final class CountingHistory: HistoryProvider {
        var searches = 0
        let events: [Event]
        init(events: [Event]) { self.events = events }
        func candidates(for call: HistoryCall, context: EvalContext) -> HistoryCandidates {
            searches += 1
            return HistoryCandidates(events: events[...])
        }
    }

    /// `w` is a history call evaluated in a scope of lets: compared with a text (no scalar), the
    /// comparison is evaluated again the general way, which reads `w` from its scope.
    @Test func aLetComparedWithNoScalarIsEvaluatedOnce() throws {
        try Self.expectOneSearch(["w.t < reason", "w.t + 1 >= reason", "w.t == c", "w.t + t != 'a'"]
        )
    }

    /// Runs each of `sources`, compiled, in a scope of the test rule's lets with `c` captured, and
    /// expects the history call behind `w` searched once.
    static func expectOneSearch(
        _ sources: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let rule = try Resolved.rule()
        let resolver = NameResolution.resolver(for: rule)
        let lets = rule.lets.map { (name: $0.name, expr: resolver.expr($0.expr)) }
        let agree = CompiledExpressionAgreesWithTreeWalkerTests.self
        for source in sources {
            let history = CountingHistory(events: [agree.captured])
            let e = agree.events[0]
            var ctx = EvalContext(event: e, params: [:], history: history, files: [])
            ctx.captures["c"] = agree.captured
            let scope = LetScope(table: LetTable(lets))
            ctx.letScope = scope
            scope.context = ctx
            let expr = resolver.expr(try IndexKeyAgreesWithTreeWalkerTests.parse(source))
            _ = CompiledExpression(expr).run(ctx, e)
            #expect(
                history.searches == 1, "\(source): \(history.searches) searches",
                sourceLocation: sourceLocation)
        }
    }

    /// `first(SEL).field` and `last(SEL).field` of running aggregates, and lets' fields, compared
    /// as scalars: read where the aggregate holds the event (null while it holds none). The
    /// cross-check sends every read the general way, so the rule runs with it off and on.
    private static let aggregateRule = """
        id: t.scalar
        title: Aggregates' fields compared as scalars
        for: source
        let:
          p: "last({ev: x.a})"
        every: { ev: x.tick }
        expect: >
          (last({ev: x.a}).v ?? -1) == want_l
          and (first({ev: x.a}, since: {ev: x.reset}).v ?? -1) == want_f
          and (first({ev: x.a}).v ?? -1) + 1 == want_o + 1
          and (p.v ?? -1) >= want_l and (last({ev: x.a}).w ?? 0) != 'seen'
        message: "last {last({ev: x.a}).v} first {first({ev: x.a}, since: {ev: x.reset}).v}"
        """

    private static let aggregateLog = """
        {"t":0,"ev":"x.tick","want_l":-1,"want_f":-1,"want_o":-1}
        {"t":1,"ev":"x.a","v":5}
        {"t":2,"ev":"x.tick","want_l":5,"want_f":5,"want_o":5}
        {"t":4,"ev":"x.reset"}
        {"t":5,"ev":"x.tick","want_l":5,"want_f":-1,"want_o":5}
        {"t":7,"ev":"x.a","v":3,"w":"seen"}
        {"t":8,"ev":"x.tick","want_l":3,"want_f":3,"want_o":5}
        {"t":9,"ev":"x.a","v":8.5}
        {"t":11,"ev":"x.tick","want_l":8.5,"want_f":3,"want_o":5}
        {"t":12,"ev":"x.tick","want_l":0,"want_f":3,"want_o":5}
        """

    @Test(arguments: [false, true])
    func aggregatesFieldsComparedAsScalarsGiveTheWholeAnswer(crossCheck: Bool) throws {
        let rule = try RuleRuns.rules([Self.aggregateRule], file: "rules/checks.yaml")[0]
        let result = HistoryCrossCheck.$isOn.withValue(crossCheck) {
            RuleRuns.audit([rule], files: [("a.jsonl", Self.aggregateLog)]).results[0]
        }
        // The tick after the text `w` fails on it; the last one on its want_l.
        #expect(result.violations.map(\.line) == [7, 10])
        #expect(result.violations.map(\.message) == ["last 3 first 3", "last 8.5 first 3"])
        #expect(result.inconclusive.isEmpty)
    }
}

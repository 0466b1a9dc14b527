import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// Where a part of `and`, `or`, `??` or `if` gives a text, the node is evaluated the general way,
/// and its other parts that are operators each scalar first (`CompiledExpression.node(_:scalar:)`):
/// `id == p.id and t < p.t + T` with text ids compares the times as scalars. Both paths must
/// give the tree walker's answer, and a let read after a text must still be evaluated once.
@Suite struct ScalarPartsBesideTextsGiveTheGeneralAnswerTests {
    typealias Resolved = ResolvedNamesGiveTheTreeWalkersAnswerTests

    /// Texts (`id`, `reason`, `c.id`, `w.id`) beside numbers, lets and captures' times.
    static let sources = [
        "id == c.id and t < c.t + b", "t < c.t + b and id == c.id", "c.id != id or t >= c.t + b",
        "not (reason == 'x') and a > t", "if id == c.id then t - c.t else -1",
        "(reason < id) == (t > c.t)", "id == c.id and w.t < t + a", "w.id == id or w == null",
        "x and id == c.id", "(id == c.id) != (reason == 'pong_timeout')",
        "if reason then 1 else 2", "-(id) == null", "not reason", "not (w.id == c.id and b > 0)",
        "reason + id == 'pong_timeout42' and t > 0", "(id ?? 1) == c.id or b < 0",
        "if id == c.id and t > 0 then reason else b", "t - id < 0 or id >= reason",
        "b + b > t and a - a == 0 and id != c.id"
    ]

    @Test func textsBesideScalarPartsGiveTheTreeWalkersAnswer() throws {
        let rule = try Resolved.rule()
        let resolver = NameResolution.resolver(for: rule)
        let lets = rule.lets.map { (name: $0.name, expr: resolver.expr($0.expr)) }
        for source in Self.sources {
            let expr = try IndexKeyAgreesWithTreeWalkerTests.parse(source)
            Resolved.agree(resolver.expr(expr), source, lets: lets)
        }
    }

    /// `w` is a history call kept in a scope of lets: read after a text that sends its node the
    /// general way, it is searched once.
    @Test func aLetReadAfterATextIsEvaluatedOnce() throws {
        let sources = [
            "id == c.id and w.t < t", "reason == 'x' or w.t > t", "if id == c.id then w.t else 0",
            "not (id == w.id) and w.t < t", "w.id == id and w.t + 1 > t"
        ]
        try ScalarComparisonsGiveTheGeneralAnswerTests.expectOneSearch(sources)
    }

    /// An obligation answered by the pong of its ping's id, in time: ids are texts, numbers or
    /// missing. However the `where:` orders its parts, the same obligations are answered.
    private static func rule(where condition: String) throws -> Rule {
        let body = """
            id: t.ids
            title: Pongs answer the ping of their id in time
            for: source
            let:
              T: "params.timeout_ms"
            each: { ev: x.ping, as: p }
            followed_by: { ev: x.pong, where: "\(condition)" }
            within_ms: 1000
            """
        return try RuleRuns.rules(
            [body], file: "rules/ids.yaml", header: "params: { timeout_ms: 100 }")[0]
    }

    private static let log = """
        {"t":0,"ev":"x.ping","id":"a"}
        {"t":10,"ev":"x.ping","id":"b"}
        {"t":50,"ev":"x.pong","id":"b"}
        {"t":150,"ev":"x.pong","id":"a"}
        {"t":200,"ev":"x.ping","id":7}
        {"t":250,"ev":"x.pong","id":7}
        {"t":300,"ev":"x.ping","id":"c"}
        {"t":310,"ev":"x.pong","id":"d"}
        {"t":320,"ev":"x.pong","id":"c"}
        {"t":400,"ev":"x.ping"}
        {"t":410,"ev":"x.pong"}
        {"t":500,"ev":"x.ping","id":"e"}
        {"t":510,"ev":"x.pong","id":5}
        {"t":5000,"ev":"x.tick"}
        """

    @Test(arguments: [
        "id == p.id and t < p.t + T", "t < p.t + T and id == p.id",
        "not (id != p.id or t >= p.t + T)", "if id == p.id then t < p.t + T else false"
    ])
    func textIDsBesideATimeComparisonAnswerTheSameObligations(condition: String) throws {
        let rule = try Self.rule(where: condition)
        let result = RuleRuns.audit([rule], files: [("a.jsonl", Self.log)]).results[0]
        // The ping of `a` is answered too late, and no pong has the id `e`.
        #expect(result.violations.map(\.line) == [1, 12], "\(condition)")
        #expect(result.inconclusive.isEmpty, "\(condition)")
    }
}

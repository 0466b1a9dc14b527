import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// Static history calls asked alike (``StaticCall/answersAlike(kind:selector:since:value:)``)
/// share one running aggregate; calls that differ in what moves the aggregate, in when it is set
/// back, or in when their answers change keep one each. `OptimisationEquivalence` compares
/// aggregates' answers with the same calls answered from history lists.
@Suite struct StaticCallsAskedAlikeShareOneAggregateTests {
    /// A rule whose `every` expects `expect`, compiled.
    static func compiled(_ expect: String) throws -> CompiledRule {
        let rule = try RuleRuns.rules(
            ["id: t.a\ntitle: T\nevery: { ev: ws.close, as: c }\nexpect: \"\(expect)\""],
            file: "rules/checks.yaml")[0]
        return CompiledRule(rule: rule, index: 0, overrides: [:])
    }

    @Test(arguments: [
        ("count({ev: ws.ping}) > 0 and last({ev: ws.ping}) != null", 1),
        ("count({ev: [ws.ping, ws.pong]}) > 0 and last({ev: [ws.pong, ws.ping]}) != null", 1),
        (
            "count({ev: ws.ping}, since: {ev: ws.open}) > 0"
                + " and last({ev: ws.ping}, since: {ev: ws.open}) != null", 1
        ),
        ("first({ev: ws.ping}) != null and first({ev: ws.ping}).t > 0", 1),
        ("count({ev: ws.ping}) == 2 and first({ev: ws.ping}).t > 0", 1),
        ("first({ev: ws.ping}).t > 0 and last({ev: ws.ping}).t > 0", 1),
        ("count({ev: ws.ping}) > 0 and last({ev: ws.pong}) != null", 2),
        ("count({ev: ws.ping}) > 0 and last({ev: ws.ping}, since: {ev: ws.open}) != null", 2),
        (
            "count({ev: ws.ping}, since: {ev: ws.open}) > 0"
                + " and last({ev: ws.ping}, since: {ev: ws.close}) != null", 2
        ),
        ("count({ev: ws.ping}) > 0 and last({ev: ws.ping, id: 1}) != null", 2),
        ("count({ev: ws.ping, id: 1}) > 0 and last({ev: ws.ping, id: 1}) != null", 2),
        ("count({ev: ws.ping}) == 2 and maxof({ev: ws.ping}, t) > 0", 2)
    ])
    func callsShareAnAggregateOnlyWhenAskedAlike(_ expect: String, _ aggregates: Int) throws {
        let rule = try Self.compiled(expect)
        #expect(rule.staticCalls.count == aggregates, "\(expect)")
        // A shared aggregate with a `last` or `count` among its calls moves on every match.
        if aggregates == 1, expect.contains("last") || expect.contains("count") {
            #expect(rule.staticCalls[0].kind != .first, "\(expect)")
        }
    }

    /// Two opens, each with its pings and a close: a count, a first and a last since the latest
    /// open each move on it.
    static let pingsAcrossTwoOpens = """
        {"t":0,"ev":"ws.connect","gen":1}
        {"t":1,"ev":"ws.open","gen":1}
        {"t":2,"ev":"ws.ping","gen":1,"id":1}
        {"t":3,"ev":"ws.ping","gen":1,"id":2}
        {"t":4,"ev":"ws.close","gen":1,"reason":"a"}
        {"t":5,"ev":"ws.open","gen":1}
        {"t":6,"ev":"ws.ping","gen":1,"id":3}
        {"t":7,"ev":"ws.close","gen":1,"reason":"b"}
        """

    /// The reasons of the closes of ``pingsAcrossTwoOpens`` at which `expect` fails, for a rule
    /// whose `every` expects it at each close.
    static func failingCloses(_ expect: String) throws -> [String] {
        let rule =
            "id: t.a\ntitle: T\nevery: { ev: ws.close, as: c }\nexpect: \"\(expect)\""
            + "\nmessage: \"{reason}\""
        let loaded = try #require(try RuleRuns.rules([rule], file: "rules/checks.yaml").first)
        let run = RuleRuns.audit([loaded], files: [("a.jsonl", pingsAcrossTwoOpens)])
        return run.results[0].violations.map(\.message)
    }

    /// Every call of a shared aggregate answers as its own would: the count, the first and the
    /// last ping since the latest open, on a log where each moves.
    @Test func aSharedAggregateAnswersEachKindOfCall() throws {
        for (expect, failing) in [
            ("count({ev: ws.ping}, since: {ev: ws.open}) == 2", ["b"]),
            ("last({ev: ws.ping}, since: {ev: ws.open}).id == 2", ["b"]),
            (
                "count({ev: ws.ping}, since: {ev: ws.open}) == 1"
                    + " and last({ev: ws.ping}, since: {ev: ws.open}).id == 3", ["a"]
            ),
            (
                "first({ev: ws.ping}, since: {ev: ws.open}).id == 1"
                    + " and last({ev: ws.ping}, since: {ev: ws.open}).id == 2", ["b"]
            )
        ] {
            #expect(try Self.failingCloses(expect) == failing, "\(expect)")
        }
    }
}

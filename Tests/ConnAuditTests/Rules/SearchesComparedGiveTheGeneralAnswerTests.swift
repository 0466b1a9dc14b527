import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A history call compared with a constant (`count(SEL) >= 2`, `first(SEL) != null`, which name
/// resolution makes of `count(SEL) > 0`) runs as a scalar node
/// (`CompiledExpression+Searches.swift`). It must give the general answer on either side of
/// every comparison and inside every operator, and its search must run once per evaluation: a
/// parent that could still give no scalar after it has run keeps its general form.
@Suite struct SearchesComparedGiveTheGeneralAnswerTests {
    typealias Resolved = ResolvedNamesGiveTheTreeWalkersAnswerTests

    static let selectors = ["{ev: ws.connect}", "{ev: ws.close}", "{ev: x.none}"]
    static let comparisons = ["==", "!=", "<", "<=", ">", ">="]
    static let numbers = ["0", "1", "2", "-1"]

    /// Each comparison both ways round, alone and as a part of `and`, `or`, `not`, `if`, `??`
    /// and a comparison, beside scalars, texts and events.
    @Test func everyComparisonGivesTheTreeWalkersAnswer() throws {
        let rule = try Resolved.rule()
        let resolver = NameResolution.resolver(for: rule)
        let lets = rule.lets.map { (name: $0.name, expr: resolver.expr($0.expr)) }
        var parts: [String] = []
        for s in Self.selectors {
            for op in Self.comparisons {
                for k in Self.numbers {
                    parts += ["count(\(s)) \(op) \(k)", "\(k) \(op) count(\(s))"]
                }
            }
            for call in ["first", "last", "next"] {
                parts += ["\(call)(\(s)) == null", "null != \(call)(\(s))"]
            }
        }
        var checked = 0
        for part in parts {
            for source in [
                part, "\(part) and code == 1000", "reason == 'x' or \(part)", "not (\(part))",
                "if \(part) then reason else t", "if ok then \(part) else c", "(\(part)) ?? reason",
                "(\(part)) == ok", "(\(part)) != reason", "c != null and \(part)"
            ] {
                let expr = try IndexKeyAgreesWithTreeWalkerTests.parse(source)
                Resolved.agree(resolver.expr(expr), source, lets: lets)
                checked += 1
            }
        }
        #expect(checked == 1620)
    }

    /// A call compared as a scalar inside a node whose scalar run could still give no scalar (a
    /// text beside it, a branch that is a text, an event): searched once all the same.
    @Test func aComparedCallIsSearchedOncePerEvaluation() throws {
        try ScalarComparisonsGiveTheGeneralAnswerTests.expectOneSearch(
            [
                "count({ev: ws.connect}) > 1", "count({ev: ws.connect}) == 1 and reason == 'x'",
                "reason == 'x' or 0 < count({ev: ws.connect})",
                "if count({ev: ws.connect}) > 1 then reason else t",
                "if count({ev: ws.connect}) >= 1 then c else 1",
                "if first({ev: ws.connect}) != null then reason else t",
                "(count({ev: ws.connect}) > 1) == reason", "(count({ev: ws.connect}) > 2) ?? c",
                "(last({ev: ws.connect}) == null) != reason",
                "not (count({ev: ws.connect}) >= 1) or reason != 'x'",
                "if ok then count({ev: ws.connect}) > 1 else reason"
            ])
    }

    /// The comparison and the `and`, `or` and `not` over it have a scalar form: their truth is
    /// read without an ``Eval``.
    @Test func comparisonsAndTheirLogicRunAsScalars() throws {
        let rule = try Resolved.rule()
        let resolver = NameResolution.resolver(for: rule)
        for source in [
            "count({ev: ws.connect}) > 1", "0 == count({ev: ws.close})",
            "count({ev: ws.connect}) == 0 and count({ev: ws.close}) == 0",
            "ev == 'ws.close' or count({ev: ws.connect}) > 0",
            "not (first({ev: ws.connect}) == null) and code != null"
        ] {
            let expr = resolver.expr(try IndexKeyAgreesWithTreeWalkerTests.parse(source))
            #expect(CompiledExpression(expr).hasTruth, "\(source) has a scalar form")
        }
        // A test that searched, followed by a branch that may be no scalar: general form only.
        let branching = try IndexKeyAgreesWithTreeWalkerTests.parse(
            "if count({ev: ws.connect}) > 0 then reason == 'x' else ok")
        #expect(!CompiledExpression(resolver.expr(branching)).hasTruth)
    }
}

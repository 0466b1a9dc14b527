import Testing

@testable import ConnAudit

/// Name resolution keeps a tree that has nothing to resolve (``NameResolution/Resolver``): its
/// `resolved` answers nil for it, and a tree it changes comes back changed.
@Suite struct NameResolutionReuseTests {
    /// A resolver for a rule whose lets are `lets` and whose captures are `captures`.
    private static func resolver(lets: [String] = [], captures: [String] = [])
        -> NameResolution
        .Resolver
    {
        let bound = lets + captures + ["params"]
        var slots: [String: Int32] = [:]
        for (i, n) in lets.enumerated() { slots[n] = Int32(i) }
        return .init(
            bound: bound, layout: LetLayouts.id(lets), letSlots: slots,
            captures: captures.filter { !lets.contains($0) }.sorted(), params: nil)
    }

    private static func parse(_ text: String) throws -> Expr {
        try ExpressionParser.parse(text, compileSelector: FileLoader.compileSelector)
    }

    @Test(arguments: [
        "1 + 2 * 3", "'a' in ['a', 'b']", "first({ev: ws.ping}) != null",
        "count({ev: [ws.close, ws.closed], gen: 1})", "{'k': [1, -2]}['k']",
        "if true then 1 else 2", "len('abc') > 2 and not false",
        "maxof({ev: ws.ping}, 1) ?? 0"
    ])
    func aTreeWithoutNamesComesBackAsItIs(text: String) throws {
        #expect(Self.resolver().resolved(try Self.parse(text)) == nil)
    }

    @Test(arguments: [
        "reason", "1 + t", "x.gen", "first({ev: ws.ping, where: 'gen > 1'})",
        "count({ev: ws.ping}, since: {ev: ws.pong, where: 'n > 0'})",
        "first({ev: ws.close, reason: pong_timeout})",
        "maxof({ev: ws.ping}, t) ?? 0", "[1, [2, reason]]", "{'k': gen}", "matches(reason, 'a+')",
        "count({ev: ws.ping}) > 0"
    ])
    func aTreeWithANameToResolveComesBackChanged(text: String) throws {
        let e = try Self.parse(text)
        let r = Self.resolver(lets: ["x"])
        let out = try #require(r.resolved(e))
        // And once resolved, there is nothing left to resolve.
        #expect(r.resolved(out) == nil)
    }

    @Test func aSelectorKeepsItsIdsWhenItsWhereChanges() throws {
        let s = try FileLoader.compileSelector(
            "[{ev: ws.ping, where: 'gen > 1'}, {ev: ws.pong}]", 0)
        let r = Self.resolver()
        let out = try #require(r.resolved(s))
        #expect(out.ids == s.ids && out.ids != nil)
        #expect(out.terms.count == 2)
        guard case .binary(_, .field("gen", _), _, _)? = out.terms[0].whereExpr else {
            Issue.record(
                "gen is not read as a field: \(String(describing: out.terms[0].whereExpr))")
            return
        }
        #expect(r.resolved(out) == nil)
        let plain = try FileLoader.compileSelector("{ev: ws.ping, not: {ev: ws.pong}}", 0)
        #expect(r.resolved(plain) == nil)
    }

    /// Every tree of a resolved rule of the pack is resolved already: resolving it again gives
    /// each back as it is.
    @Test func theResolvedPackHasNothingLeftToResolve() {
        for rule in RuleLoader.builtin(fixtures: false).rules {
            let once = NameResolution.resolve(rule, params: rule.params)
            let r = NameResolution.resolver(for: once, params: once.params)
            for (name, e) in once.lets {
                #expect(r.resolved(e) == nil, "\(rule.id): let \(name)")
            }
            for e in once.check.expressions { #expect(r.resolved(e) == nil, "\(rule.id)") }
            for s in once.check.selectors { #expect(r.resolved(s) == nil, "\(rule.id)") }
            for case .expr(let e) in once.message?.parts ?? [] {
                #expect(r.resolved(e) == nil, "\(rule.id): message")
            }
        }
    }
}

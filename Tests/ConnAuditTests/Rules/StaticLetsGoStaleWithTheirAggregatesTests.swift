import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A static let keeps its value until an aggregate it depends on changes its answer: the runner
/// reports each change (``StaticLetCache/changed(aggregate:)``), which marks exactly the lets
/// that depend on that aggregate, directly or through other lets, stale (``LetTable/dependents``).
@Suite struct StaticLetsGoStaleWithTheirAggregatesTests {
    private static let rule = """
        id: t.fresh
        title: Lets follow their aggregates
        for: source
        let:
          n: "count({ev: x.a})"
          l: "last({ev: x.a}).v ?? 0"
          f: "first({ev: x.a}, since: {ev: x.reset}).v ?? 0"
          b: "first({ev: x.b}).v ?? 0"
          lb: "l + b"
        every: { ev: x.tick }
        expect: "n == want_n and l == want_l and f == want_f and b == want_b and lb == want_l + want_b"
        """

    private func compiled() throws -> CompiledRule {
        let rule = try RuleRuns.rules([Self.rule], file: "rules/checks.yaml")[0]
        return CompiledRule(rule: rule, index: 0, overrides: [:])
    }

    @Test func aChangeStalesExactlyTheLetsThatDependOnTheAggregate() throws {
        let table = try compiled().lets
        func slot(_ name: String) throws -> Int { try #require(table.slot(of: name)) }
        let b = try table.dependsOn[slot("b")]
        try #require(b.count == 1)
        let cache = StaticLetCache(table: table)
        for name in table.names { cache.store(try slot(name), .value(.int(1))) }
        cache.changed(aggregate: b[0])
        // `b` and `lb` (which reads `b`) are stale; `n`, `l` and `f` are not.
        for name in ["n", "l", "f"] { #expect(cache.lookup(try slot(name)) != nil, "\(name)") }
        for name in ["b", "lb"] { #expect(cache.lookup(try slot(name)) == nil, "\(name)") }
        let before = cache.changes
        cache.changedAll()
        #expect(cache.changes > before)
        for name in table.names { #expect(cache.lookup(try slot(name)) == nil, "\(name)") }
    }

    @Test func everyReadSeesTheAggregatesAsTheyAreAtItsEvent() throws {
        let rule = try RuleRuns.rules([Self.rule], file: "rules/checks.yaml")[0]
        let log = """
            {"t":0,"ev":"x.tick","want_n":0,"want_l":0,"want_f":0,"want_b":0}
            {"t":1,"ev":"x.a","v":5}
            {"t":2,"ev":"x.tick","want_n":1,"want_l":5,"want_f":5,"want_b":0}
            {"t":3,"ev":"x.tick","want_n":1,"want_l":5,"want_f":5,"want_b":0}
            {"t":4,"ev":"x.reset"}
            {"t":5,"ev":"x.tick","want_n":1,"want_l":5,"want_f":0,"want_b":0}
            {"t":6,"ev":"x.b","v":7}
            {"t":7,"ev":"x.a","v":6}
            {"t":8,"ev":"x.tick","want_n":2,"want_l":6,"want_f":6,"want_b":7}
            {"t":9,"ev":"x.a","v":8}
            {"t":10,"ev":"x.b","v":9}
            {"t":11,"ev":"x.tick","want_n":3,"want_l":8,"want_f":6,"want_b":7}
            """
        let result = RuleRuns.audit([rule], files: [("a.jsonl", log)]).results[0]
        #expect(result.violations.isEmpty, "\(result.violations.map(\.message))")
        #expect(result.inconclusive.isEmpty)
    }

    /// A let that is one running aggregate's call and nothing else is read from the aggregate
    /// (``LetTable/direct``); the answer is the call's, with the same cross-check in debug builds.
    @Test func aLetThatIsOneAggregateIsReadFromIt() throws {
        let body = """
            id: t.direct
            title: Lets read their aggregates
            for: source
            let:
              p: "last({ev: x.a})"
              q: "first({ev: x.a}, since: {ev: x.reset})"
              n: "count({ev: x.a})"
              lv: "last({ev: x.a}).v"
              any: "count({ev: x.a}) > 0"
            every: { ev: x.tick }
            expect: >
              n == want_n and (p.v ?? 0) == want_l and (q.v ?? 0) == want_f
              and (lv ?? 0) == want_l and any == (want_n > 0)
            """
        let rule = try RuleRuns.rules([body], file: "rules/checks.yaml")[0]
        let table = CompiledRule(rule: rule, index: 0, overrides: [:]).lets
        let direct = table.names.filter { table.direct[table.slot(of: $0)!] != nil }
        #expect(Set(direct) == ["p", "q", "n"])
        // Every let is static: the rule's lets are read through ``StaticLets``.
        #expect(!table.isStatic.contains(false))
        let log = """
            {"t":0,"ev":"x.tick","want_n":0,"want_l":0,"want_f":0}
            {"t":1,"ev":"x.a","v":5}
            {"t":2,"ev":"x.tick","want_n":1,"want_l":5,"want_f":5}
            {"t":4,"ev":"x.reset"}
            {"t":5,"ev":"x.tick","want_n":1,"want_l":5,"want_f":0}
            {"t":7,"ev":"x.a","v":3}
            {"t":8,"ev":"x.tick","want_n":2,"want_l":3,"want_f":3}
            {"t":9,"ev":"x.a","v":8}
            {"t":11,"ev":"x.tick","want_n":3,"want_l":8,"want_f":3}
            """
        let result = RuleRuns.audit([rule], files: [("a.jsonl", log)]).results[0]
        #expect(result.violations.isEmpty, "\(result.violations.map(\.message))")
        #expect(result.inconclusive.isEmpty)
    }
}

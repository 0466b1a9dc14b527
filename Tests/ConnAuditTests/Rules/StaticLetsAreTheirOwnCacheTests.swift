import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A runner whose lets are all static keeps one object for the lets and their cache; with some
/// lets not static, the cache alone; with none static, neither. The lets' values still go stale
/// with their aggregates (`StaticLetsGoStaleWithTheirAggregatesTests`).
@Suite struct StaticLetsAreTheirOwnCacheTests: SingleRuleRunning {
    private func runner(lets: String) throws -> BasicRunner {
        let r = try rule(
            """
            id: t.cache
            title: T
            let: \(lets)
            every: { ev: ws.close, as: c }
            expect: "n != null and m != null"
            """)
        return BasicRunner(CompiledRule(rule: r, index: 0, overrides: [:]), files: [])
    }

    @Test func allStaticLetsAreTheirCache() throws {
        let all = try runner(lets: "{ n: \"count({ev: ws.ping})\", m: \"n + 1\" }")
        #expect(all.letCache is StaticLets)
        let some = try runner(lets: "{ n: \"count({ev: ws.ping})\", m: \"c.id\" }")
        #expect(some.letCache != nil && !(some.letCache is StaticLets))
        let none = try runner(lets: "{ n: \"c.id\", m: \"c.id\" }")
        #expect(none.letCache == nil)
    }
}

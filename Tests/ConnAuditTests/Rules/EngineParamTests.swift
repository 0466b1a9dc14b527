import Testing

@testable import ConnAudit
import ConnAuditTestSupport

extension EngineTests {
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
}

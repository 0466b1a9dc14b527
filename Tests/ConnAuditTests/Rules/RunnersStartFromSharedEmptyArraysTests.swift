import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// Runners of one compiled rule start from its empty history lists, and from its let table's
/// undecided let values, without a copy each; a runner copies one when it first writes it. What
/// one runner records (lists and running aggregates) never shows in another's, nor in what the
/// next starts from.
@Suite struct RunnersStartFromSharedEmptyArraysTests: SingleRuleRunning {
    private static let body = """
        id: t.shared
        title: Each close follows a ping and answers the pings so far
        for: generation
        let: { n: "count({ev: ws.ping})" }
        every: { ev: ws.close, as: c }
        expect: "n > 0 and last({ev: ws.ping, where: \\"id == c.id\\"}) != null"
        message: "{n} pings"
        """

    @Test func aRunnerWritesItsOwnCopyAndTheNextStartsEmpty() throws {
        let compiled = CompiledRule(rule: try rule(Self.body), index: 0, overrides: [:])
        #expect(!compiled.historyLists.isEmpty && !compiled.staticCalls.isEmpty)
        let first = BasicRunner(compiled, files: [])
        var seq = 0
        RunnerFeed.feed(first, ["ws.ping", "ws.ping", "ws.close"], seq: &seq)
        #expect(first.lists.contains { !$0.isEmpty })
        #expect(first.aggregateState?.contains { $0.count == 2 } == true)
        let second = BasicRunner(compiled, files: [])
        #expect(second.lists.allSatisfy { $0.isEmpty })
        #expect(second.aggregateState == nil)
        #expect(compiled.emptyLists.allSatisfy { $0.isEmpty })
    }

    /// Two generations of one stream: the second's runner sees no ping of the first's, and its
    /// let is evaluated afresh (a value cached by the first's runner would say 2).
    @Test func generationsKeepTheirOwnHistoryAggregatesAndLets() throws {
        let log = """
            {"t":1,"ev":"ws.ping","stream":"s","gen":1,"id":1}
            {"t":2,"ev":"ws.ping","stream":"s","gen":1,"id":2}
            {"t":3,"ev":"ws.close","stream":"s","gen":1,"id":1}
            {"t":4,"ev":"ws.ping","stream":"s","gen":2,"id":3}
            {"t":5,"ev":"ws.close","stream":"s","gen":2,"id":1}
            {"t":6,"ev":"ws.close","stream":"s","gen":3,"id":3}
            """
        let result = run(try rule(Self.body), log)
        #expect(result.violations.map(\.message) == ["1 pings", "0 pings"])
        #expect(lines(result.violations) == [5, 6])
    }
}

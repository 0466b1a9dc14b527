import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A `classify` runner stops moving a running aggregate once every check that reads it (through
/// its `where:` or a let) has its flag set: no such check is made again. An aggregate that a check
/// still undecided reads keeps moving, so that check is judged on every event before it.
@Suite struct ClassifyQuietAggregatesTests {
    static let rule = """
        id: t.outcomes
        title: Outcomes are covered
        for: corpus
        let:
          pings: "count({ev: ws.ping})"
        classify:
          per: generation
          stream: ws
          labels:
            answered: { has: { ev: ws.pong, where: "pings > 0" } }
            busy: { has: { ev: ws.close, where: "pings > 2" } }
            opened: { has: { ev: ws.open, where: "count({ev: ws.message}) == 0" } }
        """

    private static func runner(_ text: String = rule) throws -> ClassifyRunner {
        let rule = try #require(try RuleRuns.rules([text], file: "t.yaml").first)
        return ClassifyRunner(CompiledRule(rule: rule, index: 0, overrides: [:]), files: ["t"])
    }

    @Test func anAggregateGoesQuietOnlyOnceEveryCheckReadingItIsDecided() throws {
        let runner = try Self.runner()
        var seq = 0
        RunnerFeed.feed(runner, ["ws.ping", "ws.pong"], seq: &seq)
        // `answered` is decided, `busy` (which reads the same count) is not: the count moves on.
        #expect(RunnerFeed.labels(runner)["answered"] == true)
        #expect(runner.quietAggregates == 0)
        RunnerFeed.feed(runner, ["ws.ping", "ws.close", "ws.ping", "ws.close"], seq: &seq)
        #expect(RunnerFeed.labels(runner) == ["answered": true, "busy": true, "opened": false])
        // Both readers of the ping count are decided; the message count is still read.
        let compiled = runner.compiled
        let pings = try #require(
            compiled.staticCalls.firstIndex { $0.selector.ids == [EvNames.id("ws.ping")] })
        let messages = try #require(
            compiled.staticCalls.firstIndex { $0.selector.ids == [EvNames.id("ws.message")] })
        #expect(runner.quietAggregates & (1 << UInt64(pings)) != 0)
        #expect(runner.quietAggregates & (1 << UInt64(messages)) == 0)
        RunnerFeed.feed(runner, ["ws.message", "ws.open"], seq: &seq)
        #expect(RunnerFeed.labels(runner)["opened"] == false)
    }

    @Test func aRestoredRunnerLeavesTheSameAggregatesQuiet() throws {
        let original = try Self.runner()
        var seq = 0
        RunnerFeed.feed(
            original, ["ws.ping", "ws.pong", "ws.ping", "ws.ping", "ws.close"], seq: &seq)
        let restored = try Self.runner()
        restored.aggregateState = original.aggregateState
        restored.restore(original.flags)
        #expect(restored.quietAggregates == original.quietAggregates)
        #expect(original.quietAggregates != 0)
        RunnerFeed.feed(original, ["ws.open"], seq: &seq)
        var other = seq - 1
        RunnerFeed.feed(restored, ["ws.open"], seq: &other)
        #expect(RunnerFeed.labels(restored) == RunnerFeed.labels(original))
    }

    /// Moving an aggregate may run a regex search, which spends the runner's regex budget (and
    /// its exhaustion is a finding) whether or not a label reads the answer.
    @Test func aRuleThatSearchesWithARegexKeepsEveryAggregateMoving() throws {
        // The test rule, its ping count searching each ping's text.
        let text = Self.rule.replacingOccurrences(
            of: #""count({ev: ws.ping})""#,
            with: #""count({ev: ws.ping, where: 'matches(text(ev), \"ping\")'})""#)
        #expect(text != Self.rule)
        let runner = try Self.runner(text)
        #expect(runner.compiled.usesRegex)
        var seq = 0
        RunnerFeed.feed(runner, ["ws.ping", "ws.pong", "ws.ping", "ws.ping", "ws.close"], seq: &seq)
        #expect(RunnerFeed.labels(runner)["answered"] == true)
        #expect(RunnerFeed.labels(runner)["busy"] == true)
        #expect(runner.quietAggregates == 0)
    }
}

import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A `classify` runner passes over an event whose checks all have their flags set, by one word
/// of its shape's (``ClassifyShape/mask(for:)``) and one of its own set flags: those must be the
/// flags its labels are judged by, as it runs and after its flags are restored for a rebuilt
/// generation, so that no check is passed over before its flag is set.
@Suite struct ClassifyDecidedChecksTests {
    static func rule(late: Bool) -> String {
        """
        id: t.outcomes
        title: Outcomes are covered
        for: corpus
        classify:
          per: generation
          stream: ws
          labels:
            normal: { has: { ev: ws.pong } }
            failed: { has: { ev: ws.connect_failed }, lacks: { ev: ws.open } }
            silent: { lacks: { ev: ws.message } }
        """
            + (late
                ? "\n    late: { has: { ev: ws.pong, where: \"count({ev: ws.ping}) > 1\" } }" : "")
    }

    private static func runner(late: Bool = false) throws -> ClassifyRunner {
        let rule = try #require(try RuleRuns.rules([rule(late: late)], file: "t.yaml").first)
        return ClassifyRunner(CompiledRule(rule: rule, index: 0, overrides: [:]), files: ["t"])
    }

    @Test func aCheckIsPassedOverOnlyOnceItsFlagIsSet() throws {
        let runner = try Self.runner(late: true)
        var seq = 0
        // The first pong sets `normal` but not `late` (one ping): the second pong, whose
        // `normal` check is decided, must still be judged for `late`.
        RunnerFeed.feed(runner, ["ws.ping", "ws.pong", "ws.ping", "ws.pong", "ws.pong"], seq: &seq)
        #expect(
            RunnerFeed.labels(runner) == [
                "normal": true, "failed": false, "silent": true, "late": true
            ])
    }

    @Test(arguments: [
        ["ws.pong"], ["ws.open", "ws.message"], ["ws.connect_failed"], [], ["ws.ping", "ws.pong"]
    ])
    func aRunnerRestoredFromFlagsJudgesLaterEventsAsTheOriginal(before: [String]) throws {
        let later = ["ws.ping", "ws.pong", "ws.open", "ws.connect_failed", "ws.message", "ws.pong"]
        var seq = 0, otherSeq = 0
        let original = try Self.runner()
        RunnerFeed.feed(original, before, seq: &seq)
        // A runner that saw other events, then takes the original's flags (the rule reads no
        // history: its flags are its whole state).
        let restored = try Self.runner()
        RunnerFeed.feed(
            restored, ["ws.pong", "ws.ping", "ws.pong", "ws.message", "ws.open"], seq: &otherSeq)
        restored.restore(original.flags)
        #expect(RunnerFeed.labels(restored) == RunnerFeed.labels(original))
        for k in later.indices {
            RunnerFeed.feed(original, [later[k]], seq: &seq)
            RunnerFeed.feed(restored, [later[k]], seq: &otherSeq)
            #expect(
                RunnerFeed.labels(restored) == RunnerFeed.labels(original), "after \(later[...k])")
        }
    }
}

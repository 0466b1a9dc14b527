import ConnAuditTestSupport
import ConnSoak
import Testing

extension SoakOnRealSockets {
    /// SSE (seed 003): committing the cursor when the event is parsed, before it is handled.
    @Suite("conn-soak's commit-before-processing bug")
    struct CommitBeforeProcessingBugTests {
        @Test(arguments: [false, true])
        func commitBeforeProcessingIsCaughtByItsRuleAlone(planted: Bool) throws {
            let run = try SoakRun(
                duration: 3,
                ["--clients", "3", "--sse-clients", "2"]
                    + (planted ? ["--bug", "commit-before-processing"] : []))
            #expect(
                run.failing == (planted ? [PlantedBug.commitBeforeProcessing.rule] : []),
                "\(run.report)")
        }
    }
}

import ConnAuditTestSupport
import ConnSoak
import Testing

extension SoakOnRealSockets {
    /// Each of the seeds' bugs, planted in conn-soak and run on real sockets, is caught by its rule
    /// of the default pack and by no other; the same run without the bug passes.
    @Suite("conn-soak's planted bugs")
    struct PlantedBugTests {
        @Test(arguments: [false, true])
        func closeWithoutReasonIsCaughtByItsRuleAlone(planted: Bool) throws {
            let run = try SoakRun(
                duration: 3,
                ["--clients", "3", "--seed", "3"]
                    + (planted ? ["--bug", "close-without-reason"] : []))
            #expect(
                run.failing == (planted ? [PlantedBug.closeWithoutReason.rule] : []),
                "\(run.report)")
        }

        /// One client meets, in turn, a normal connection, a delayed pong, an immediate close and
        /// refusals; with a limit of 3 attempts the fourth failure in a row ends the reconnects,
        /// unless the bug lets one more through.
        static let refusals = """
            websocket:
              - action: pong
              - {action: pong, delay_ms: 2000}
              - {action: close, code: 1001}
              - action: refuse
              - action: refuse
              - action: refuse

            """

        @Test(arguments: [false, true])
        func attemptLimitOffByOneIsCaughtByItsRuleAlone(planted: Bool) throws {
            let run = try SoakRun(
                scenario: Self.refusals, duration: 6,
                ["--clients", "1", "--max-attempts", "3"]
                    + (planted ? ["--bug", "attempt-limit-off-by-one"] : []),
                auditArguments: ["--param", "max_attempts=3"])
            #expect(
                run.failing == (planted ? [PlantedBug.attemptLimitOffByOne.rule] : []),
                "\(run.report)")
            #expect(try run.outcomes().values.allSatisfy { $0 > 0 }, "\(run.report)")
        }
    }
}

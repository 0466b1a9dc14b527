import ConnAuditTestSupport
import ConnSoak
import Testing

/// Each of the seeds' bugs, planted in conn-soak and run on real sockets, is caught by its rule
/// of the default pack and by no other; the same run without the bug passes.
@Suite("conn-soak's planted bugs")
struct PlantedBugTests {
    @Test func closeWithoutReasonIsCaughtByItsRuleAlone() throws {
        let run = try SoakRun(
            duration: 3, ["--clients", "3", "--seed", "3", "--bug", "close-without-reason"])
        #expect(run.failing == [PlantedBug.closeWithoutReason.rule], "\(run.report)")
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
            run.failing == (planted ? [PlantedBug.attemptLimitOffByOne.rule] : []), "\(run.report)")
        #expect(try run.outcomes().values.allSatisfy { $0 > 0 }, "\(run.report)")
    }
}

/// The stale pong on real sockets: the first connection's pong comes 1310 ms after its ping,
/// past the 1 s timeout, and the peer answers the client's close only 600 ms later, so the pong
/// arrives on the closing connection while the next one (silent) waits for its own. With a
/// 50 ms interval and a reconnect delay of 100 to 200 ms, it lands 60 to 160 ms after the new
/// ping: inside the tick slack, so the only trace of the bug is a second ping without a pong.
@Suite("conn-soak's stale-pong bug")
struct StalePongBugTests {
    static let scenario = """
        websocket:
          - {action: pong, delay_ms: 1310, close_delay_ms: 600}
          - action: silent
          - action: pong
          - {action: close, code: 1001}
          - action: refuse

        """

    @Test(arguments: [false, true])
    func stalePongIsCaughtByItsRuleAlone(planted: Bool) throws {
        let run = try SoakRun(
            scenario: Self.scenario, duration: 5,
            ["--clients", "1", "--interval-ms", "50"] + (planted ? ["--bug", "stale-pong"] : []))
        #expect(run.failing == (planted ? [PlantedBug.stalePong.rule] : []), "\(run.report)")
        #expect(try run.outcomes().values.allSatisfy { $0 > 0 }, "\(run.report)")
        // The old pong really came after the new connection: the run shows the bug, not luck.
        let lines = try #require(run.logs["soak-1.jsonl"])
        let connect2 = lines.firstIndex { $0.contains(#""ev":"ws.connect","gen":2"#) }
        let stalePong = lines.firstIndex { $0.contains(#""ev":"ws.pong","gen":1"#) }
        #expect(connect2 != nil && stalePong != nil && stalePong! > connect2!, "\(lines)")
    }
}

/// SSE (seed 003): committing the cursor when the event is parsed, before it is handled.
@Suite("conn-soak's commit-before-processing bug")
struct CommitBeforeProcessingBugTests {
    @Test func commitBeforeProcessingIsCaughtByItsRuleAlone() throws {
        let run = try SoakRun(
            duration: 3,
            ["--clients", "3", "--sse-clients", "2", "--bug", "commit-before-processing"])
        #expect(run.failing == [PlantedBug.commitBeforeProcessing.rule], "\(run.report)")
    }
}

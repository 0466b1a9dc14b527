import ConnAuditTestSupport
import ConnSoak
import Testing

extension SoakOnRealSockets {
    /// The stale pong on real sockets. The first connection's pong comes 1500 ms after its ping,
    /// past the 1 s timeout, and the peer answers the client's close only 900 ms later, so the pong
    /// arrives on the closing connection. By then the next connection has pinged, and its own pong
    /// takes 700 ms: inside the timeout, so nothing but the bug reacts to the stale pong. With a
    /// 50 ms interval and a reconnect delay of 100 to 200 ms, the stale pong lands some 200 to
    /// 350 ms after the new ping (276 ms measured), in a window of about 650 ms; with the bug
    /// it counts, and the next ping goes out while the real pong is still owed.
    @Suite("conn-soak's stale-pong bug")
    struct StalePongBugTests {
        static let scenario = """
            websocket:
              - {action: pong, delay_ms: 1500, close_delay_ms: 900}
              - {action: pong, delay_ms: 700}
              - action: pong
              - {action: close, code: 1001}
              - action: refuse

            """

        /// Where the first connection's pong landed in the second connection's heartbeat.
        struct Timing: CustomStringConvertible {
            /// Times of the second connection's pings, in log order.
            var pings: [(index: Int, t: Int)] = []
            /// Time of the first connection's pong.
            var stalePong: (index: Int, t: Int)?

            init(_ lines: [String]) throws {
                for (index, line) in lines.enumerated() {
                    let event = try jsonObject(line)
                    guard let t = event["t"] as? Int, let gen = event["gen"] as? Int else {
                        continue
                    }
                    switch (event["ev"] as? String, gen) {
                    case ("ws.ping", 2): pings.append((index, t))
                    case ("ws.pong", 1): stalePong = stalePong ?? (index, t)
                    default: break
                    }
                }
            }

            /// The stale pong came after the second connection's first ping and before its next:
            /// the run tests the bug, not luck.
            var landedInTheWindow: Bool {
                guard let pong = stalePong, let first = pings.first else { return false }
                return pong.index > first.index && (pings.count < 2 || pong.index < pings[1].index)
            }

            var description: String {
                let pong = stalePong.map { "\($0.t) ms" } ?? "none"
                return "gen 2 pings at \(pings.map(\.t)) ms, gen 1 pong at \(pong)"
            }
        }

        /// A loaded machine can move the pong out of its window; such a run says nothing about the
        /// bug, so it is run again (at most three times in all) and only a run in the window
        /// is judged.
        @Test(arguments: [false, true])
        func stalePongIsCaughtByItsRuleAlone(planted: Bool) throws {
            var missed: [String] = []
            for _ in 1...3 {
                let run = try SoakRun(
                    scenario: Self.scenario, duration: 5,
                    ["--clients", "1", "--interval-ms", "50"]
                        + (planted ? ["--bug", "stale-pong"] : []))
                let timing = try Timing(try #require(run.logs["soak-1.jsonl"]))
                guard timing.landedInTheWindow else {
                    missed.append("\(timing)")
                    continue
                }
                #expect(
                    run.failing == (planted ? [PlantedBug.stalePong.rule] : []), "\(run.report)")
                #expect(try run.outcomes().values.allSatisfy { $0 > 0 }, "\(run.report)")
                return
            }
            Issue.record("the stale pong missed its window in all three runs: \(missed)")
        }
    }
}

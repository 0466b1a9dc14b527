import ConnAuditTestSupport
import Testing

extension SoakOnRealSockets {
    /// The loop the seeds end with, on real sockets: conn-soak against conn-peer's default mix, and
    /// conn-audit on the clients' logs.
    @Suite("conn-soak against conn-peer")
    struct SoakAgainstPeerTests {
        /// Four WebSocket and two SSE clients for four seconds: every rule passes, all four
        /// outcomes are seen, and the SSE clients resumed past a redelivered event.
        @Test func defaultMixPassesWithAllFourOutcomes() throws {
            let run = try SoakRun(
                duration: 4, ["--clients", "4", "--sse-clients", "2", "--seed", "7"])
            #expect(run.failing == [], "\(run.report)")
            let outcomes = try run.outcomes()
            for label in ["normal", "delayed", "immediate_close", "connect_failure"] {
                #expect((outcomes[label] ?? 0) > 0, "no \(label) outcome: \(outcomes)")
            }
            #expect(try jsonObject(run.report)["verdict"] as? String == "pass")
            // The default mix redelivers the last event on every second request (counted over
            // all clients): each SSE client resumed, and the redelivered events were skipped.
            var skipped = 0
            for n in 1...2 {
                let lines = try #require(run.logs["soak-sse-\(n).jsonl"])
                #expect(lines.contains { $0.contains(#""ev":"sse.connect","last_event_id":"#) })
                skipped += lines.filter { $0.contains(#""ev":"sse.skipped""#) }.count
            }
            #expect(skipped > 0)
        }

        /// Messages between the pongs (one of them in three fragments): the receive loop logs
        /// each and keeps reading, so the pongs after them still count.
        static let messages = """
            websocket:
              - action: pong
                messages:
                  - {after_ms: 30, text: "tick"}
                  - {after_ms: 120, text: "a longer message", fragments: 3}

            """

        @Test func receiveLoopKeepsReadingAfterMessages() throws {
            // One scenario gives one outcome: judged as a gate, coverage is not asked for.
            let run = try SoakRun(
                scenario: Self.messages, duration: 2, ["--clients", "1", "--interval-ms", "50"],
                auditArguments: ["--use", "gate"])
            #expect(run.failing == [], "\(run.report)")
            let lines = try #require(run.logs["soak-1.jsonl"])
            let first = try lines.map { try jsonObject($0) }
                .filter { $0["gen"] as? Int == 1 }.compactMap { $0["ev"] as? String }
            #expect(first.filter { $0 == "ws.message" }.count == 2, "\(lines)")
            let last = try #require(first.lastIndex(of: "ws.message"), "\(lines)")
            #expect(first[(last + 1)...].contains("ws.pong"), "\(lines)")
            #expect(!first.contains("ws.recv_error"), "\(lines)")
        }
    }
}

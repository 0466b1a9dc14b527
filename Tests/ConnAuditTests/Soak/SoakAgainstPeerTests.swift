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
    }
}

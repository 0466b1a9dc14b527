import ConnAuditTestSupport
import Testing

/// The loop the seeds end with, on real sockets: conn-soak against conn-peer's default mix, and
/// conn-audit on the clients' logs.
@Suite("conn-soak against conn-peer")
struct SoakAgainstPeerTests {
    /// Four clients for four seconds: every rule passes, and all four outcomes are seen.
    @Test func defaultMixPassesWithAllFourOutcomes() throws {
        let run = try SoakRun(duration: 4, ["--clients", "4", "--seed", "7"])
        #expect(run.failing == [], "\(run.report)")
        let outcomes = try run.outcomes()
        for label in ["normal", "delayed", "immediate_close", "connect_failure"] {
            #expect((outcomes[label] ?? 0) > 0, "no \(label) outcome: \(outcomes)")
        }
        #expect(try jsonObject(run.report)["verdict"] as? String == "pass")
    }
}

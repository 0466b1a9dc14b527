import ConnAuditTestSupport
import ConnPeer
import Testing

@testable import ConnSoak

extension SoakOnRealSockets {
    /// A ping whose write fails with a fatal error (seed 002) ends the connection; the planted bug
    /// sends it again on the same connection instead.
    ///
    /// On loopback a peer cannot make the client's ping fail: the client polls its socket
    /// between writes, so a close or a reset from the peer shows as the end of the receive loop
    /// before the next ping is written. The write hook stands in for the kernel: the first ping
    /// fails with EPIPE and sends nothing; every later write goes out on the real socket.
    @Suite("conn-soak's fatal-ping-retried bug")
    struct FatalPingRetriedBugTests {
        @Test(arguments: [false, true])
        func fatalPingRetriedIsCaughtByItsRuleAlone(planted: Bool) throws {
            let fault = FirstPingFails(with: "POSIXError.EPIPE")
            let run = try SoakClientRun(
                scenario: "websocket:\n  - action: pong\n", durationMs: 2000
            ) { options in
                options.sendFault = fault.fault
                options.bug = planted ? .fatalPingRetried : nil
            }
            let start = ["ws.connect", "ws.state", "ws.open", "ws.state", "ws.ping"]
            let failed = "ws.ping_error POSIXError.EPIPE"
            // Without the bug the connection ends at once, before the reconnect; with it the
            // same connection pings again, and that ping's pong comes.
            let expected =
                planted
                ? start + [failed, "ws.ping", "ws.pong"]
                : start + [failed, "ws.closed", "ws.state", "ws.reconnect"]
            #expect(Array(run.names(gen: 1).prefix(expected.count)) == expected, "\(run.text)")
            #expect(
                run.failing == (planted ? [PlantedBug.fatalPingRetried.rule] : []),
                "\(run.report)")
        }
    }
}

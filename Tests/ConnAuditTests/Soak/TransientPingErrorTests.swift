import ConnAuditTestSupport
import ConnPeer
import Foundation
import Testing

@testable import ConnSoak

extension SoakOnRealSockets {
    /// A ping whose write fails with an error that is not fatal (seed 002): the write takes no
    /// longer than the ping's deadline, the deadline closes the connection in time, and the
    /// connection is gone before the reconnect, so both rules that judge it pass.
    @Suite("conn-soak after a transient ping error")
    struct TransientPingErrorTests {
        @Test func deadlineClosesInTimeAndTheErrorIsSettled() throws {
            let fault = FirstPingFails(with: "POSIXError.ETIMEDOUT", blocks: true)
            let run = try SoakClientRun(
                scenario: "websocket:\n  - action: pong\n", durationMs: 3000
            ) { $0.sendFault = fault.fault }
            #expect(
                run.names(gen: 1).prefix(8) == [
                    "ws.connect", "ws.state", "ws.open", "ws.state", "ws.ping",
                    "ws.ping_error POSIXError.ETIMEDOUT", "ws.close pong_timeout", "ws.state"
                ], "\(run.text)")
            // The connection is gone (1006, no closing handshake) before the reconnect.
            let closed = run.events.firstIndex { $0["ev"] as? String == "ws.closed" }
            let reconnect = run.events.firstIndex { $0["ev"] as? String == "ws.reconnect" }
            #expect(closed != nil && reconnect != nil && closed! < reconnect!, "\(run.text)")
            #expect(run.events[closed ?? 0]["code"] as? Int == 1006, "\(run.text)")

            #expect(run.statuses["reconnect.fatal-errors-only"] == "pass", "\(run.report)")
            #expect(run.statuses["ws.timeout-closes"] == "pass", "\(run.report)")
            #expect(run.failing.isEmpty, "\(run.report)")
        }
    }
}

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
        /// Counts the client's pings; the first one's write blocks for all the time it is
        /// given and then fails, as a write to a full socket does.
        final class FirstPingTimesOut {
            var pings = 0

            func fault(_ frame: Frame, _ timeoutMs: Int) -> String? {
                guard frame.opcode == .ping else { return nil }
                pings += 1
                guard pings == 1 else { return nil }
                usleep(UInt32(timeoutMs) * 1000)
                return "POSIXError.ETIMEDOUT"
            }
        }

        @Test func deadlineClosesInTimeAndTheErrorIsSettled() throws {
            let (port, stopped) = try SoakRun.startPeer(
                scenario: "websocket:\n  - action: pong\n", duration: 3)
            let dir = try makeTemporaryDirectory()
            defer { removeTemporaryDirectory(dir) }
            let fault = FirstPingTimesOut()
            var options = SoakClient.Options(
                address: try PeerAddress.parse("127.0.0.1:\(port)"), durationMs: 3000)
            options.sendFault = fault.fault
            let log = try SoakLog(path: dir + "/soak-1.jsonl", src: "soak-1", session: "s")
            SoakClient(options: options, log: log).run()
            _ = stopped.wait(timeout: .now() + .seconds(10))

            let text = try String(contentsOfFile: dir + "/soak-1.jsonl", encoding: .utf8)
            let events = try text.split(separator: "\n").map { try jsonObject(String($0)) }
            let firstGen = events.filter {
                $0["gen"] as? Int == 1 || $0["ev"] as? String == "ws.reconnect"
            }
            let names = firstGen.prefix(8).map { event in
                [event["ev"] as? String, event["reason"] as? String, event["error"] as? String]
                    .compactMap { $0 }.joined(separator: " ")
            }
            #expect(
                names == [
                    "ws.connect", "ws.state", "ws.open", "ws.state", "ws.ping",
                    "ws.ping_error POSIXError.ETIMEDOUT", "ws.close pong_timeout", "ws.state"
                ], "\(text)")
            // The connection is gone (1006, no closing handshake) before the reconnect.
            let closed = events.firstIndex { $0["ev"] as? String == "ws.closed" }
            let reconnect = events.firstIndex { $0["ev"] as? String == "ws.reconnect" }
            #expect(closed != nil && reconnect != nil && closed! < reconnect!, "\(text)")
            #expect(events[closed ?? 0]["code"] as? Int == 1006, "\(text)")

            let audit = CommandLineRun(["check", dir, "--format", "json", "--use", "gate"])
            let statuses = try ruleStatuses(audit.out)
            #expect(statuses["reconnect.fatal-errors-only"] == "pass", "\(audit.out)")
            #expect(statuses["ws.timeout-closes"] == "pass", "\(audit.out)")
            let failing = statuses.filter { $0.value != "pass" && $0.value != "not_applicable" }
            #expect(failing.isEmpty, "\(audit.out)")
        }
    }
}

import ConnAuditTestSupport
import ConnPeer
import Testing

/// `close_delay_ms`: the peer answers the client's close frame late, and a pong that falls due
/// meanwhile still goes, before the answer.
@Suite("conn-peer answers a close late")
struct PeerSlowCloseTests {
    @Test func aPongDueBeforeTheAnswerStillGoes() throws {
        var peer = try PeerProcess(
            scenario: "websocket:\n  - {action: pong, delay_ms: 300, close_delay_ms: 600}\n",
            ["--max-connections", "1"])
        defer { peer.remove() }
        let client = try RawClient(port: peer.port)
        _ = try #require(client.upgrade())
        let clock = MonotonicClock()
        client.send(Frame(opcode: .ping, payload: [1]))
        client.send(Frame.close(code: 1000))
        #expect(try client.next() == .frame(Frame(opcode: .pong, payload: [1])))
        #expect(clock.elapsedMs() >= 290)
        #expect(try client.next() == .frame(Frame.close(code: 1000)))
        #expect(clock.elapsedMs() >= 590)
        #expect(try client.next() == .end)
        let (status, log) = try peer.finish()
        #expect(status == 0)
        let events = peerEvents(log)
        let closed = try #require(events.firstIndex(of: "peer.closed@1"))
        let pong = try #require(events.firstIndex(of: "peer.pong@1"))
        #expect(closed < pong, "\(events)")
    }

    @Test(arguments: [
        (
            "websocket:\n  - {action: close, close_delay_ms: 100}\n",
            "'close_delay_ms' does not apply to action 'close'"
        ),
        (
            "websocket:\n  - {action: pong, close_delay_ms: 5001}\n",
            "'close_delay_ms' must be between 0 and 5000"
        )
    ])
    func theDelayIsCheckedWhereItIsRead(text: String, message: String) {
        do {
            _ = try ScenarioLoader.load(text, path: "s.yaml")
            Issue.record("no error for \(text)")
        } catch {
            #expect("\(error)".contains(message), "\(error)")
        }
    }
}

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

    /// A pong due the very moment the answer is (both due 300 ms after one read) goes first:
    /// nothing may follow the close frame.
    @Test func aPongDueWithTheAnswerGoesFirst() throws {
        var peer = try PeerProcess(
            scenario: "websocket:\n  - {action: pong, delay_ms: 300, close_delay_ms: 300}\n",
            ["--max-connections", "1"])
        defer { peer.remove() }
        let client = try RawClient(port: peer.port)
        _ = try #require(client.upgrade())
        // Ping and close in one write, so the peer reads them together.
        let key: [UInt8] = [9, 8, 7, 6]
        client.socket.write(
            Frame(opcode: .ping, payload: [2]).encoded(maskKey: key)
                + Frame.close(code: 1000).encoded(maskKey: key))
        #expect(try client.next() == .frame(Frame(opcode: .pong, payload: [2])))
        #expect(try client.next() == .frame(Frame.close(code: 1000)))
        #expect(try client.next() == .end)
        #expect(try peer.finish().code == 0)
    }

    /// The answer is not cut short: not by an idle timeout shorter than the delay, and not by
    /// the peer's stop, which sends the answer (the client's code) at once, not a close of its own.
    @Test func theAnswerOutlastsTheIdleTimeoutAndGoesAtTheStop() throws {
        var idle = try PeerProcess(
            scenario: "idle_timeout_ms: 100\nwebsocket:\n  - {action: pong, close_delay_ms: 400}\n",
            ["--max-connections", "1"])
        defer { idle.remove() }
        let client = try RawClient(port: idle.port)
        _ = try #require(client.upgrade())
        let clock = MonotonicClock()
        client.send(Frame.close(code: 1000))
        #expect(try client.next() == .frame(Frame.close(code: 1000)))
        #expect(clock.elapsedMs() >= 390)
        #expect(try idle.finish().code == 0)

        var stopping = try PeerProcess(
            scenario: "websocket:\n  - {action: pong, close_delay_ms: 5000}\n", ["--duration", "1"])
        defer { stopping.remove() }
        let other = try RawClient(port: stopping.port)
        _ = try #require(other.upgrade())
        other.send(Frame.close(code: 1000))
        #expect(try other.next(timeoutMs: 4_000) == .frame(Frame.close(code: 1000)))
        #expect(try other.next() == .end)
        #expect(try stopping.finish().code == 0)
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
        let error = scenarioError(text)
        #expect(error?.contains(message) == true, "\(error ?? "no error")")
    }
}

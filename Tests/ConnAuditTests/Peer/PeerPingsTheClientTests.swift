import ConnAuditTestSupport
import ConnPeer
import Testing

/// `ping_every_ms`: the peer pings the client on a schedule, whether or not the pongs come, logs
/// each pong it gets, and stops pinging once the client's close came.
@Suite("conn-peer pings the client")
struct PeerPingsTheClientTests {
    @Test func pingsComeOnScheduleAndPongsAreLogged() throws {
        var peer = try PeerProcess(
            scenario: "websocket:\n  - {action: silent, ping_every_ms: 100}\n",
            ["--max-connections", "1"])
        defer { peer.remove() }
        let client = try RawClient(port: peer.port)
        _ = try #require(client.upgrade())
        let clock = MonotonicClock()
        let ping = Frame(opcode: .ping, payload: Array("conn-peer".utf8))
        // The first is answered, the second not; the third comes all the same.
        #expect(try client.next() == .frame(ping))
        #expect(clock.elapsedMs() >= 90)
        client.send(Frame(opcode: .pong, payload: ping.payload))
        #expect(try client.next() == .frame(ping))
        #expect(try client.next() == .frame(ping))
        #expect(clock.elapsedMs() >= 290)
        #expect(try client.close() == .frame(Frame.close(code: 1000)))
        #expect(try client.next() == .end)
        let (status, log) = try peer.finish()
        #expect(status == 0)
        let events = peerEvents(log)
        #expect(events.filter { $0 == "peer.ping_sent@1" }.count >= 3, "\(events)")
        #expect(events.filter { $0 == "peer.pong_received@1" }.count == 1, "\(events)")
        // No ping after the client's close.
        let closed = try #require(events.firstIndex(of: "peer.closed@1"))
        #expect(!events[closed...].contains("peer.ping_sent@1"), "\(events)")
    }

    @Test(arguments: [
        (
            "websocket:\n  - {action: close, ping_every_ms: 100}\n",
            "'ping_every_ms' does not apply to action 'close'"
        ),
        (
            "websocket:\n  - {action: pong, ping_every_ms: 9}\n",
            "'ping_every_ms' must be between 10 and 60000"
        )
    ])
    func theIntervalIsCheckedWhereItIsRead(text: String, message: String) {
        let error = scenarioError(text)
        #expect(error?.contains(message) == true, "\(error ?? "no error")")
    }
}

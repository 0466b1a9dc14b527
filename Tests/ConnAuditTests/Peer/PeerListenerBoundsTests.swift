import ConnAuditTestSupport
import ConnPeer
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The listener's waits are bounded and it stops listening when the peer takes no more
/// connections, so no client is left waiting in its backlog.
@Suite("conn-peer listener bounds")
struct PeerListenerBoundsTests {
    /// A negative timeout (the duration already over) waits not at all, where poll would wait for
    /// ever.
    @Test func aNegativeTimeoutDoesNotWait() throws {
        let listener = try Listener(ListenAddress.parse("127.0.0.1:0"))
        let clock = MonotonicClock()
        guard case .none = listener.accept(timeoutMs: -5) else {
            Issue.record("a connection came from nowhere")
            return
        }
        #expect(clock.elapsedMs() < 500)
        listener.close()
        guard case .none = listener.accept(timeoutMs: 10) else {
            Issue.record("a closed listener gave a connection")
            return
        }
    }

    /// Once --max-connections connections came, the next client is refused at once while the
    /// last session still runs.
    @Test func afterMaxConnectionsLaterClientsAreRefused() throws {
        var peer = try PeerProcess(["--max-connections", "1"])
        defer { peer.remove() }
        let first = try RawClient(port: peer.port)
        _ = try #require(first.upgrade())
        let clock = MonotonicClock()
        let (fd, error) = RawClient.connect(port: peer.port)
        if fd >= 0 { close(fd) }
        #expect(fd < 0 && error == ECONNREFUSED, "errno \(error)")
        #expect(clock.elapsedMs() < 1_000)
        first.send(Frame(opcode: .ping, payload: [1]))
        #expect(try first.next() == .frame(Frame(opcode: .pong, payload: [1])))
        _ = try first.close()
        let (status, log) = try peer.finish()
        #expect(status == 0)
        #expect(peerEvents(log).filter { $0.hasPrefix("peer.accept") }.count == 1)
        #expect(log.contains("\"reason\":\"max-connections\""))
    }

    /// Out of descriptors, a queued connection keeps the listener ready: the peer logs it and
    /// pauses instead of spinning on accept.
    @Test func runningOutOfDescriptorsPausesTheAcceptLoop() throws {
        var peer = try PeerProcess(
            ["--duration", "2"], shell: "ulimit -n 16 && exec \"$@\"")
        defer { peer.remove() }
        var clients: [Int32] = []
        defer { for fd in clients { close(fd) } }
        for _ in 0..<20 {
            let (fd, error) = RawClient.connect(port: peer.port)
            try #require(fd >= 0, "errno \(error)")
            clients.append(fd)
        }
        let (status, log) = try peer.finish()
        #expect(status == 0)
        let refusals = log.split(separator: "\n").filter {
            $0.contains("\"peer.refuse\"") && $0.contains("\"reason\":\"fds\"")
        }
        // About one every 50 ms over the 2 s run; a busy loop would log thousands.
        #expect(refusals.count >= 5 && refusals.count <= 60, "\(refusals.count) refusals")
    }

    /// The request head has its own 5 s, whatever the scenario's idle timeout: a head that comes
    /// slowly is served.
    @Test func aSlowRequestHeadOutlastsAShortIdleTimeout() throws {
        var peer = try PeerProcess(
            scenario: "idle_timeout_ms: 200\nwebsocket: [{action: pong}]\n",
            ["--max-connections", "1"])
        defer { peer.remove() }
        let client = try RawClient(port: peer.port)
        let request =
            [
                "GET / HTTP/1.1", "Host: 127.0.0.1", "Upgrade: websocket", "Connection: Upgrade",
                "Sec-WebSocket-Key: \(RawClient.key)", "Sec-WebSocket-Version: 13"
            ].joined(separator: "\r\n") + "\r\n\r\n"
        client.send(String(request.prefix(20)))
        usleep(600_000)
        client.send(String(request.dropFirst(20)))
        let head = try #require(client.responseHead())
        #expect(head.hasPrefix("HTTP/1.1 101 "), "\(head)")
        _ = try client.close()
        #expect(try peer.finish().code == 0)
    }
}

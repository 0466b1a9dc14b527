import ConnAuditTestSupport
import Foundation
import Testing

/// An independent client, PyPI's `websockets` (script/test installs it), completes the handshake
/// and keeps its own ping/pong keepalive against conn-peer: the peer speaks RFC 6455 as others
/// read it, not only as its own codec does.
@Suite("Python websockets client against conn-peer")
struct PythonWebSocketsClientTests {
    /// On IPv4 loopback and on IPv6's (`--listen [::1]:0`).
    @Test(arguments: ["127.0.0.1", "[::1]"])
    func handshakeAndKeepaliveHold(host: String) throws {
        var peer = try PeerProcess(["--listen", host + ":0", "--max-connections", "1"])
        defer { peer.remove() }
        let (client, text) = try ToolRun.run([
            "timeout", "20", "python3", Repository.path("Tests/Scripts/websockets-keepalive.py"),
            String(peer.port), host
        ])
        try #require(
            client == 0,
            "the websockets client failed (script/test installs websockets): \(text)")
        #expect(text == "pong\nkeepalive held\nclosed 1000\n")
        let (status, log) = try peer.finish()
        #expect(status == 0)
        // The explicit ping and the keepalive's own, each answered.
        let events = peerEvents(log)
        #expect(events.filter { $0 == "peer.pong@1" }.count >= 3, "\(events)")
        #expect(events.contains("peer.closed@1"))
    }
}

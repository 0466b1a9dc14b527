import ConnAuditTestSupport
import ConnPeer
import Foundation
import Testing

/// conn-peer answers as RFC 6455 asks where a client may lean on it: a version it does not
/// speak, and frames sent in the same write as the opening handshake.
@Suite("conn-peer follows RFC 6455")
struct PeerWebSocketRFCTests {
    static func handshake(version: String = "13") -> String {
        [
            "GET /ws HTTP/1.1", "Host: 127.0.0.1", "Upgrade: websocket", "Connection: Upgrade",
            "Sec-WebSocket-Key: \(RawClient.key)", "Sec-WebSocket-Version: \(version)"
        ].joined(separator: "\r\n") + "\r\n\r\n"
    }

    /// Section 4.2.2: 426 Upgrade Required with the version the peer speaks.
    @Test func anotherVersionIsAnswered426() throws {
        var peer = try PeerProcess(["--max-connections", "1"])
        defer { peer.remove() }
        let client = try RawClient(port: peer.port)
        client.send(Self.handshake(version: "8"))
        let answer = client.readToEnd()
        #expect(answer.hasPrefix("HTTP/1.1 426 Upgrade Required\r\n"), "\(answer)")
        #expect(answer.contains("\r\nSec-WebSocket-Version: 13\r\n"), "\(answer)")
        let (status, log) = try peer.finish()
        #expect(status == 0)
        #expect(peerEvents(log).contains("peer.bad_request@1"))
    }

    /// A ping in the same write as the handshake is in the bytes read with its head: it is
    /// answered before the peer waits for more.
    @Test func aPingSentWithTheHandshakeIsAnswered() throws {
        var peer = try PeerProcess(["--max-connections", "1"])
        defer { peer.remove() }
        let client = try RawClient(port: peer.port)
        let ping = Frame(opcode: .ping, payload: Array("early".utf8))
        client.socket.write(
            Array(Self.handshake().utf8) + ping.encoded(maskKey: [9, 8, 7, 6]))
        let head = try #require(client.responseHead())
        #expect(head.hasPrefix("HTTP/1.1 101 "))
        #expect(
            try client.next(timeoutMs: 1_000)
                == .frame(Frame(opcode: .pong, payload: Array("early".utf8))))
        _ = try client.close()
        #expect(try peer.finish().code == 0)
    }
}

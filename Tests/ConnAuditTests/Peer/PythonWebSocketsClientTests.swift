import ConnAuditTestSupport
import Foundation
import Testing

/// An independent client, PyPI's `websockets` (script/test installs it), completes the handshake
/// and keeps its own ping/pong keepalive against conn-peer: the peer speaks RFC 6455 as others
/// read it, not only as its own codec does.
@Suite("Python websockets client against conn-peer")
struct PythonWebSocketsClientTests {
    @Test func handshakeAndKeepaliveHold() throws {
        var peer = try PeerProcess(["--max-connections", "1"])
        defer { peer.remove() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "timeout", "20", "python3", Repository.path("Tests/Scripts/websockets-keepalive.py"),
            String(peer.port)
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        try #require(
            process.terminationStatus == 0,
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

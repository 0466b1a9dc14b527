import ConnAuditTestSupport
import ConnPeer
import Foundation
import Testing

/// conn-peer's log keeps what a token may ride in out: of a request path it writes only the first
/// segment, short and without dots, and conn-audit's log.no-secrets finds nothing in it.
@Suite("conn-peer log privacy")
struct PeerLogPrivacyTests {
    static let jwt = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJzZWNyZXQtdXNlciJ9.c2lnbmF0dXJl"

    @Test func aTokenInThePathStaysOutOfTheLog() throws {
        var peer = try PeerProcess(
            scenario: "websocket: [{action: pong}]\n", ["--max-connections", "3"])
        defer { peer.remove() }
        for path in ["/ws/\(Self.jwt)", "/\(Self.jwt)", "/stream/abc?token=\(Self.jwt)"] {
            let client = try RawClient(port: peer.port)
            _ = try #require(client.upgrade(path: path))
            _ = try client.close()
        }
        let (status, log) = try peer.finish()
        #expect(status == 0)
        #expect(!log.contains("eyJzdWIi") && !log.contains("c2lnbmF0dXJl"), "\(log)")
        for logged in [
            "\"path\":\"/ws\"", "\"path\":\"/eyJhbGciOiJub25lIn0\"", "\"path\":\"/stream\""
        ] {
            #expect(log.contains(logged), "\(logged) in \(log)")
        }
        #expect(log.contains("\"path_bytes\":\(Self.jwt.utf8.count + 4)"))
        // conn-audit judges the peer's log: no secret found in it.
        let audit = try Subprocess.run([peer.logPath], scratch: peer.dir, timeout: 20)
        #expect(audit.code == 0, "\(audit.out)")
        let passed = audit.out.split(separator: "\n").first { $0.hasPrefix("PASS ") } ?? ""
        #expect(passed.contains("log.no-secrets"), "\(audit.out)")
    }
}

import ConnAuditTestSupport
import ConnPeer
import Foundation
import Testing

/// conn-peer's command line: it listens on loopback only, reports a bad scenario at its place,
/// and stops by itself when its duration is over.
@Suite("conn-peer command line")
struct PeerCommandLineTests {
    @Test(arguments: ["0.0.0.0:0", "10.0.0.1:8080", "[::]:0", "example.com:80"])
    func aNonLoopbackAddressIsRefused(address: String) throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let run = try Subprocess.run(
            ["--listen", address], scratch: dir, timeout: 10, program: "conn-peer")
        #expect(run.code == 2)
        #expect(run.err.hasPrefix("conn-peer: error: "), "\(run.err)")
        #expect(run.out.isEmpty)
    }

    /// IPv6's one loopback address, `::1`, in brackets; no other IPv6 address, a mapped IPv4
    /// loopback among them.
    @Test func theIPv6LoopbackIsTheOnlyIPv6Address() throws {
        let address = try ListenAddress.parse("[::1]:8080")
        #expect(address.host == .ipv6Loopback && address.port == 8080)
        #expect(try ListenAddress.parse("[0:0::1]:0").description == "[::1]:0")
        for text in [
            "[::]:0", "[::2]:0", "[fe80::1]:80", "[::ffff:127.0.0.1]:80", "::1:80", "[x]:1"
        ] {
            #expect(throws: AddressError.self, "\(text)") { try ListenAddress.parse(text) }
        }
    }

    @Test func aBadScenarioIsAnErrorAtItsPlace() throws {
        let dir = try makeTemporaryDirectory(["s.yaml": "websocket:\n  - action: pongs\n"])
        defer { removeTemporaryDirectory(dir) }
        let run = try Subprocess.run(
            ["--scenario", dir + "/s.yaml"], scratch: dir, timeout: 10, program: "conn-peer")
        #expect(run.code == 2)
        #expect(
            run.err.hasPrefix(dir + "/s.yaml:2:13: error: 'action' must be one of: "), "\(run.err)")
        #expect(run.err.contains("  - action: pongs\n            ^"), "\(run.err)")
    }

    @Test func helpIsForPeople() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let run = try Subprocess.run(["--help"], scratch: dir, timeout: 10, program: "conn-peer")
        #expect(run.code == 0)
        for text in ["Usage: conn-peer", "--scenario FILE", "--max-connections", "Examples:"] {
            #expect(run.out.contains(text))
        }
        let bad = try Subprocess.run(
            ["--lisen", "x"], scratch: dir, timeout: 10, program: "conn-peer")
        #expect(bad.code == 2 && bad.err.contains("unknown argument '--lisen'"))
    }

    /// A mistyped option's value may be a secret: the message names the option only.
    @Test func anOptionsValueIsNotEchoed() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        for (bad, message) in [
            (["--token=s3cr3t-value"], "unknown argument '--token'"),
            (["--duration=s3cr3t"], "--duration must be a whole number from 1 to 86400"),
            (["--max-connections", "s3cr3t"], "--max-connections must be a whole number")
        ] {
            let run = try Subprocess.run(bad, scratch: dir, timeout: 10, program: "conn-peer")
            #expect(run.code == 2)
            #expect(run.err.contains(message), "\(run.err)")
            #expect(!run.err.contains("s3cr3t"), "\(run.err)")
        }
    }

    /// At the end of its duration the peer closes what is open with 1001 and exits 0.
    @Test func itStopsByItselfWhenItsDurationIsOver() throws {
        var peer = try PeerProcess(["--duration", "3"])
        defer { peer.remove() }
        let client = try RawClient(port: peer.port)
        _ = try #require(client.upgrade())
        let read = try client.next(timeoutMs: 6_000)
        guard case .frame(let close) = read else {
            Issue.record("no close frame: \(read)")
            return
        }
        #expect(close.opcode == .close && Array(close.payload.prefix(2)) == [0x03, 0xE9])
        #expect(String(decoding: close.payload.dropFirst(2), as: UTF8.self) == "peer stopping")
        client.send(Frame.close(code: 1001))
        let (status, log) = try peer.finish()
        #expect(status == 0)
        #expect(peerEvents(log).suffix(3) == ["peer.closed@1", "peer.end@1", "peer.stop"])
        #expect(log.contains("\"reason\":\"duration\""))
    }
}

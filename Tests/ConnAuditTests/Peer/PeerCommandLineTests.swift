import ConnAuditTestSupport
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

    @Test func itStopsByItselfWhenItsDurationIsOver() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let run = try Subprocess.run(
            ["--listen", "127.0.0.1:0", "--duration", "1", "--log", dir + "/peer.jsonl"],
            scratch: dir,
            timeout: 10, program: "conn-peer")
        #expect(run.code == 0)
        #expect(run.out.hasPrefix("listening 127.0.0.1:"))
        let log = try String(contentsOfFile: dir + "/peer.jsonl", encoding: .utf8)
        #expect(peerEvents(log) == ["peer.start", "peer.stop"])
        #expect(log.contains("\"reason\":\"duration\""))
    }
}

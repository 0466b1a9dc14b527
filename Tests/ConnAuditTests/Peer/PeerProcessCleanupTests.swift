import ConnAuditTestSupport
import ConnPeer
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A test's conn-peer child is killed and reaped when the test is done, and one already reaped is
/// left alone: its pid may belong to another test's child by then.
@Suite("conn-peer child cleanup")
struct PeerProcessCleanupTests {
    @Test func aRunningPeerIsKilledAndReaped() throws {
        var peer = try PeerProcess()
        let pid = peer.pid
        peer.remove()
        // Reaped: no zombie is left under that pid.
        #expect(kill(pid, 0) == -1 && errno == ESRCH)
        #expect(try peer.status() == 128 + SIGKILL)
    }

    @Test func aPeerThatEndedIsNotSignalledAgain() throws {
        var peer = try PeerProcess(["--duration", "1"])
        #expect(try peer.finish().code == 0)
        peer.remove()
        #expect(try peer.status() == 0)
    }
}

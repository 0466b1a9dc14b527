import ConnAuditTestSupport
import ConnPeer
import Foundation
import Testing

/// conn-peer as a child process, driven by a raw socket client: each connection of a scenario
/// plays its entry, the peer stops by itself after --max-connections, and conn-audit reads its log
/// without a malformed line.
@Suite("conn-peer plays WebSocket scenarios")
struct PeerPlaysWebSocketScenarioTests {
    static let scenario = """
        websocket:
          - action: pong
            messages:
              - {after_ms: 0, text: "hello"}
              - {after_ms: 0, text: "in three parts", fragments: 3}
          - {action: pong, delay_ms: 300}
          - action: silent
          - {action: close, code: 4000, reason: "scripted"}
          - action: refuse
          - {action: drop, after_ms: 50}

        """

    static func text(_ read: RawClient.Read) -> String? {
        guard case .frame(let frame) = read else { return nil }
        return String(decoding: frame.payload, as: UTF8.self)
    }

    static func closeCode(_ read: RawClient.Read) -> UInt16? {
        guard case .frame(let frame) = read, frame.opcode == .close, frame.payload.count >= 2 else {
            return nil
        }
        return UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1])
    }

    @Test func eachConnectionPlaysItsEntry() throws {
        var peer = try PeerProcess(scenario: Self.scenario, ["--max-connections", "7"])
        defer { peer.remove() }

        // 1: the accept key, two scripted messages (one in three frames), a pong at once.
        let c1 = try RawClient(port: peer.port)
        let head = try #require(c1.upgrade())
        #expect(head.hasPrefix("HTTP/1.1 101 "))
        #expect(head.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"))
        #expect(Self.text(try c1.next()) == "hello")
        var parts: [Frame] = []
        for _ in 0..<3 {
            if case .frame(let frame) = try c1.next() { parts.append(frame) }
        }
        #expect(parts.map(\.opcode) == [.text, .continuation, .continuation])
        #expect(parts.map(\.fin) == [false, false, true])
        #expect(String(decoding: parts.flatMap(\.payload), as: UTF8.self) == "in three parts")
        c1.send(Frame(opcode: .ping, payload: Array("p1".utf8)))
        #expect(
            try c1.next(timeoutMs: 1_000) == .frame(Frame(opcode: .pong, payload: Array("p1".utf8)))
        )
        #expect(Self.closeCode(try c1.close(code: 1000)) == 1000)
        #expect(try c1.next() == .end)

        // 2: the pong comes, but 300 ms late.
        let c2 = try RawClient(port: peer.port)
        _ = try #require(c2.upgrade())
        let sent = MonotonicClock()
        c2.send(Frame(opcode: .ping, payload: [7]))
        #expect(try c2.next(timeoutMs: 150) == .timeout)
        #expect(try c2.next(timeoutMs: 2_000) == .frame(Frame(opcode: .pong, payload: [7])))
        #expect(sent.elapsedMs() >= 290)
        _ = try c2.close()

        // 3: no pong at all.
        let c3 = try RawClient(port: peer.port)
        _ = try #require(c3.upgrade())
        c3.send(Frame(opcode: .ping, payload: [8]))
        #expect(try c3.next(timeoutMs: 400) == .timeout)
        _ = try c3.close()

        // 4: a close with the scripted code and reason right after the handshake.
        let c4 = try RawClient(port: peer.port)
        _ = try #require(c4.upgrade())
        let close = try c4.next()
        #expect(Self.closeCode(close) == 4000)
        #expect(Self.text(close)?.hasSuffix("scripted") == true)
        c4.send(Frame.close(code: 4000))
        #expect(try c4.next() == .end)

        // 5: the connection is closed before any answer: the client's connect fails.
        let c5 = try RawClient(port: peer.port)
        #expect(c5.upgrade() == nil)

        // 6: the start of a frame, then the end of the connection.
        let c6 = try RawClient(port: peer.port)
        _ = try #require(c6.upgrade())
        #expect(try c6.next() == .end)
        #expect(c6.decoder.pendingBytes == 10)

        // 7 (the first entry again): an unmasked frame is a protocol error, closed with 1002.
        let c7 = try RawClient(port: peer.port)
        _ = try #require(c7.upgrade())
        c7.send(Frame(opcode: .text, payload: Array("body-of-7".utf8)), masked: false)
        var code: UInt16?
        for _ in 0..<5 where code == nil { code = Self.closeCode(try c7.next()) }
        #expect(code == 1002)
        c7.send(Frame.close(code: 1002))

        let (status, log) = try peer.finish()
        #expect(status == 0)
        let events = peerEvents(log)
        for expected in [
            "peer.pong@1", "peer.send@1", "peer.closed@1", "peer.pong@2", "peer.ping_unanswered@3",
            "peer.close@4", "peer.refuse@5", "peer.drop@6", "peer.protocol_error@7"
        ] {
            #expect(events.contains(expected), "\(expected) in \(events)")
        }
        #expect(events.last == "peer.stop")
        #expect(
            !log.contains("body-of-7") && !log.contains("hello"),
            "message bodies stay out of the log")

        // conn-audit reads the peer's side: every line an event, no rule broken.
        let audit = try Subprocess.run([peer.logPath], scratch: peer.dir, timeout: 20)
        #expect(audit.code == 0, "\(audit.out)")
        #expect(audit.out.contains(" 0 malformed"), "\(audit.out)")
    }

    /// Without a scenario, four connections in a row meet the four outcomes a heartbeat client
    /// must handle.
    @Test func theDefaultMixGivesTheFourOutcomes() throws {
        var peer = try PeerProcess(["--max-connections", "4"])
        defer { peer.remove() }
        let normal = try RawClient(port: peer.port)
        _ = try #require(normal.upgrade())
        normal.send(Frame(opcode: .ping, payload: [1]))
        #expect(try normal.next(timeoutMs: 1_000) == .frame(Frame(opcode: .pong, payload: [1])))
        _ = try normal.close()

        let delayed = try RawClient(port: peer.port)
        _ = try #require(delayed.upgrade())
        let sent = MonotonicClock()
        delayed.send(Frame(opcode: .ping, payload: [2]))
        #expect(try delayed.next(timeoutMs: 5_000) == .frame(Frame(opcode: .pong, payload: [2])))
        #expect(sent.elapsedMs() >= 1_900, "the pong came after \(sent.elapsedMs()) ms")
        _ = try delayed.close()

        let closed = try RawClient(port: peer.port)
        _ = try #require(closed.upgrade())
        #expect(Self.closeCode(try closed.next()) == 1001)
        closed.send(Frame.close(code: 1001))

        let refused = try RawClient(port: peer.port)
        #expect(refused.upgrade() == nil)

        let (status, log) = try peer.finish()
        #expect(status == 0)
        #expect(peerEvents(log).filter { $0.hasPrefix("peer.request@") }.count == 4)
    }

    @Test func aSilentConnectionIsClosedAfterTheIdleTimeout() throws {
        var peer = try PeerProcess(
            scenario: "idle_timeout_ms: 500\nwebsocket: [{action: pong}]\n",
            ["--max-connections", "1"])
        defer { peer.remove() }
        let client = try RawClient(port: peer.port)
        _ = try #require(client.upgrade())
        let clock = MonotonicClock()
        let close = try client.next(timeoutMs: 2_000)
        #expect(Self.closeCode(close) == 1001)
        #expect(Self.text(close)?.hasSuffix("idle") == true)
        #expect(clock.elapsedMs() >= 400 && clock.elapsedMs() < 2_000, "\(clock.elapsedMs()) ms")
        client.send(Frame.close(code: 1001))
        #expect(try peer.finish().code == 0)
    }
}

import ConnAuditTestSupport
import ConnPeer
import Foundation
import Testing

@testable import ConnSoak

extension SoakOnRealSockets {
    /// A server that breaks RFC 6455 (a masked frame, which section 5.1 forbids a server): the
    /// client fails the connection as section 7.1.7 says. It sends a close with the
    /// violation's code, drops the socket without waiting, and logs the error once.
    @Suite("conn-soak on a protocol violation")
    struct ProtocolViolationTests {
        /// What the one-connection server read after its bad frame.
        final class Seen: @unchecked Sendable {
            var frames: [Frame] = []
            var ended = false
        }

        /// Accepts one connection, completes its handshake, sends a masked text frame, and
        /// records what the client sends until it ends the connection (at most 3 s).
        static func serveOnce(_ listener: Listener, _ seen: Seen) {
            guard case .connection(let socket) = listener.accept(timeoutMs: 5_000) else { return }
            listener.close()
            var head: [UInt8] = []
            while HTTPRequest.endOfHead(in: head) == nil, head.count < 8192 {
                guard case .data(let bytes) = socket.read(timeoutMs: 2_000) else { return }
                head += bytes
            }
            let text = String(decoding: head, as: UTF8.self)
            guard
                let line = text.split(separator: "\r\n").first(where: {
                    $0.lowercased().hasPrefix("sec-websocket-key:")
                })
            else { return }
            let key = line.dropFirst("sec-websocket-key:".count).trimmingCharacters(
                in: .whitespaces)
            socket.write(WebSocketHandshake.response(key: key))
            socket.write(
                Frame(opcode: .text, payload: Array("a".utf8)).encoded(maskKey: [1, 2, 3, 4]))
            var decoder = FrameDecoder(requireMask: true)
            let clock = MonotonicClock()
            while clock.elapsedMs() < 3_000 {
                switch socket.read(timeoutMs: 100) {
                case .data(let bytes): decoder.append(bytes)
                case .timeout: continue
                case .end, .failed:
                    seen.ended = true
                    return
                }
                while let frame = try? decoder.next() { seen.frames.append(frame) }
            }
        }

        @Test func maskedServerFrameFailsTheConnection() throws {
            let listener = try Listener(try ListenAddress.parse("127.0.0.1:0"))
            let seen = Seen()
            let served = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                Self.serveOnce(listener, seen)
                served.signal()
            }
            let dir = try makeTemporaryDirectory()
            defer { removeTemporaryDirectory(dir) }
            var options = SoakClient.Options(
                address: try PeerAddress.parse("127.0.0.1:\(listener.port)"), durationMs: 1500)
            options.maxAttempts = 1
            let log = try SoakLog(path: dir + "/soak-1.jsonl", src: "soak-1", session: "s")
            SoakClient(options: options, log: log).run()
            _ = served.wait(timeout: .now() + .seconds(10))

            let text = try String(contentsOfFile: dir + "/soak-1.jsonl", encoding: .utf8)
            let events = try text.split(separator: "\n").map { try jsonObject(String($0)) }
            let first = events.filter { $0["gen"] as? Int == 1 }.map { event in
                [
                    event["ev"] as? String, event["error"] as? String,
                    (event["code"] as? Int).map { "\($0)" }
                ]
                .compactMap { $0 }.joined(separator: " ")
            }
            #expect(
                first == [
                    "ws.connect", "ws.state", "ws.open", "ws.state",
                    "ws.recv_error URLError.badServerResponse", "ws.closed 1006", "ws.state"
                ], "\(text)")
            // The server got a close with the violation's code (1002), then the end.
            let close = try #require(seen.frames.first, "no frame from the client: \(text)")
            #expect(close.opcode == .close)
            #expect(Array(close.payload.prefix(2)) == [0x03, 0xEA], "\(close.payload)")
            #expect(seen.frames.count == 1)
            #expect(seen.ended)
        }
    }
}

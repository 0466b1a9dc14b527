import ConnAuditTestSupport
import ConnPeer
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `conn-peer` as a child process on a port the system picked, logging to a scratch directory.
///
/// Every run is bounded: `--duration 20`, and ``finish()`` kills a peer that has not stopped by
/// itself within 10 s (and fails the test).
struct PeerProcess {
    private var child: Subprocess
    let port: UInt16
    let dir: String
    var logPath: String { dir + "/peer.jsonl" }

    /// With `shell`, `/bin/sh -c` runs that command line first (`"$@"` is conn-peer and its
    /// arguments), to set a resource limit.
    init(scenario: String? = nil, _ arguments: [String] = [], shell: String? = nil) throws {
        dir = try makeTemporaryDirectory(scenario.map { ["scenario.yaml": $0] } ?? [:])
        var all = ["--listen", "127.0.0.1:0", "--log", dir + "/peer.jsonl", "--duration", "20"]
        if scenario != nil { all += ["--scenario", dir + "/scenario.yaml"] }
        var child = try Subprocess(
            all + arguments, scratch: dir, shell: shell, program: "conn-peer")
        let clock = MonotonicClock()
        var port: UInt16?
        while port == nil && clock.elapsedMs() < 5_000 {
            let out = child.output
            if out.hasSuffix("\n"), let colon = out.lastIndex(of: ":") {
                port = UInt16(out[out.index(after: colon)...].dropLast())
            }
            if port == nil { usleep(5_000) }
        }
        guard let port else {
            let errors = child.errors
            child.terminate()
            removeTemporaryDirectory(dir)
            throw SubprocessError(description: "conn-peer did not say where it listens: \(errors)")
        }
        self.child = child
        self.port = port
    }

    /// Waits for the peer to stop by itself (its --max-connections reached): its exit status and
    /// its log.
    mutating func finish() throws -> (code: Int32, log: String) {
        let code = try child.wait(timeout: 10)
        return (code, (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "")
    }

    /// Kills and reaps the peer if it still runs (never a pid already reaped) and removes its
    /// directory.
    mutating func remove() {
        child.terminate()
        removeTemporaryDirectory(dir)
    }

    /// The peer's exit status once it ended (waiting at most 10 s).
    mutating func status() throws -> Int32 { try child.wait(timeout: 10) }

    var pid: pid_t { child.pid }
}

/// A WebSocket or HTTP client on a raw TCP socket, with every read bounded in time: it sends
/// exactly the bytes a test asks for, good or bad.
final class RawClient {
    enum Read: Equatable {
        case frame(Frame)
        case timeout
        case end
    }

    let socket: Socket
    private(set) var decoder = FrameDecoder(requireMask: false)
    static let key = "dGhlIHNhbXBsZSBub25jZQ=="

    init(port: UInt16) throws {
        let (fd, error) = Self.connect(port: port)
        try #require(fd >= 0, "connect: errno \(error)")
        socket = Socket(fd: fd)
    }

    /// A socket connected to `port` on loopback, or -1 and the errno of the failure.
    static func connect(port: UInt16) -> (fd: Int32, errno: Int32) {
        // Children spawned by other tests must not inherit the connection.
        let fd = Glibc.socket(
            AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return (-1, errno) }
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = port.bigEndian
        sin.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let connected = withUnsafePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let error = errno
            Glibc.close(fd)
            return (-1, error)
        }
        return (fd, 0)
    }

    func send(_ text: String) { socket.write(Array(text.utf8)) }

    /// Sends a frame masked as a client must (or unmasked, to break the rule).
    func send(_ frame: Frame, masked: Bool = true) {
        socket.write(frame.encoded(maskKey: masked ? [0x11, 0x22, 0x33, 0x44] : nil))
    }

    /// Sends an opening handshake for `path` with `headers`; the response head, or nil when the
    /// connection ended (or stayed silent for 2 s) without one.
    func upgrade(path: String = "/", headers: [String] = []) -> String? {
        let lines =
            [
                "GET \(path) HTTP/1.1", "Host: 127.0.0.1", "Upgrade: websocket",
                "Connection: Upgrade",
                "Sec-WebSocket-Key: \(Self.key)", "Sec-WebSocket-Version: 13"
            ] + headers
        send(lines.joined(separator: "\r\n") + "\r\n\r\n")
        return responseHead()
    }

    /// Reads until the end of a response head; bytes after it go to the frame decoder.
    func responseHead(timeoutMs: Int = 2_000) -> String? {
        var bytes: [UInt8] = []
        let clock = MonotonicClock()
        while clock.elapsedMs() < timeoutMs {
            if let end = HTTPRequest.endOfHead(in: bytes) {
                decoder.append(bytes[end...])
                return String(decoding: bytes[..<end], as: UTF8.self)
            }
            guard case .data(let more) = socket.read(timeoutMs: timeoutMs - clock.elapsedMs())
            else {
                return nil
            }
            bytes += more
        }
        return nil
    }

    /// The next frame from the server within `timeoutMs`.
    func next(timeoutMs: Int = 2_000) throws -> Read {
        let clock = MonotonicClock()
        while true {
            if let frame = try decoder.next() { return .frame(frame) }
            let left = timeoutMs - clock.elapsedMs()
            if left <= 0 { return .timeout }
            switch socket.read(timeoutMs: left) {
            case .data(let bytes): decoder.append(bytes)
            case .timeout: return .timeout
            case .end, .failed: return .end
            }
        }
    }

    /// Everything the server sends until it closes (at most `timeoutMs`).
    func readToEnd(timeoutMs: Int = 3_000) -> String {
        var bytes: [UInt8] = []
        let clock = MonotonicClock()
        while clock.elapsedMs() < timeoutMs {
            guard case .data(let more) = socket.read(timeoutMs: timeoutMs - clock.elapsedMs())
            else { break }
            bytes += more
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Sends a close frame and reads the server's answer.
    func close(code: UInt16 = 1000) throws -> Read {
        send(Frame.close(code: code))
        return try next()
    }
}

/// The `ev` of each line of a peer log, with its `gen` when it has one (`peer.pong@3`).
func peerEvents(_ log: String) -> [String] {
    log.split(separator: "\n").compactMap { line -> String? in
        guard let data = line.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let ev = object["ev"] as? String
        else { return nil }
        if let gen = object["gen"] as? Int { return "\(ev)@\(gen)" }
        return ev
    }
}

/// The error a scenario file holding `text` gets, as it is printed (`s.yaml:LINE:COLUMN: error:
/// …`); nil when it reads without one.
func scenarioError(_ text: String) -> String? {
    do {
        _ = try ScenarioLoader.load(text, path: "s.yaml")
        return nil
    } catch {
        return "\(error)"
    }
}

import ConnPeer

#if canImport(Glibc)
    import Glibc
#endif

/// One WebSocket connection of a soak client: its generation, socket and frame state.
///
/// Frames the client sends are masked with keys from the client's seeded generator (RFC 6455
/// asks for unpredictable keys against caching proxies; on loopback there are none, and a seed
/// makes a run repeatable). Every read and write is bounded in time.
final class Transport {
    /// The generation captured when the connection was created; every event it delivers
    /// carries it.
    let gen: Int
    let socket: Socket
    private var decoder = FrameDecoder(requireMask: false, forbidMask: true)
    private var assembler = MessageAssembler()
    private var random: SplitMix64
    /// Set once the client sent its close frame: when it stops waiting for the server's.
    var closeDeadline: Int?
    /// Set when a ping failed with an error that is not fatal: the connection waits for its
    /// deadline, and then ends at once, without a closing handshake.
    var pingFailed = false

    /// What one read gave.
    enum Received {
        case incoming([Incoming])
        /// The server ended the connection without a close frame.
        case end
        case failed(error: String)
        case violation(ProtocolViolation)
    }

    private init(gen: Int, socket: Socket, random: SplitMix64, leftover: [UInt8]) {
        self.gen = gen
        self.socket = socket
        self.random = random
        decoder.append(leftover)
    }

    /// Connects and completes the opening handshake within `timeoutMs`; the connection, or the
    /// failure as connlog's `error` spells it.
    static func open(
        gen: Int, address: PeerAddress, timeoutMs: Int, random: inout SplitMix64
    ) -> Result<Transport, ConnectError> {
        let clock = MonotonicClock()
        let socket: Socket
        switch address.connect(timeoutMs: timeoutMs) {
        case .failure(let error): return .failure(error)
        case .success(let connected): socket = connected
        }
        let key = Base64.encode(random.bytes(16))
        guard socket.write(ClientHandshake.request(address: address, path: "/soak", key: key))
        else {
            return .failure(ConnectError(errno: EPIPE))
        }
        var bytes: [UInt8] = []
        while true {
            if let end = HTTPRequest.endOfHead(in: bytes) {
                if ClientHandshake.problem(head: Array(bytes[..<end]), key: key) != nil {
                    return .failure(ConnectError(urlError: "badServerResponse"))
                }
                let seed = random.next()
                return .success(
                    Transport(
                        gen: gen, socket: socket, random: SplitMix64(seed: seed),
                        leftover: Array(bytes[end...])))
            }
            let left = timeoutMs - clock.elapsedMs()
            guard left > 0, bytes.count <= HTTPRequest.maxHeadBytes else {
                return .failure(ConnectError(urlError: "timedOut"))
            }
            switch socket.read(max: 4096, timeoutMs: left) {
            case .data(let more): bytes += more
            case .timeout: continue
            // The server closed before its answer: the connection was lost, not refused.
            case .end: return .failure(ConnectError(urlError: "networkConnectionLost"))
            case .failed(let code): return .failure(ConnectError(errno: code))
            }
        }
    }

    /// What came without waiting: frames already buffered, then one read that does not block.
    func receive(read: Bool) -> Received {
        if read {
            switch socket.read(timeoutMs: 0) {
            case .data(let bytes): decoder.append(bytes)
            case .timeout: break
            case .end:
                if let buffered = try? frames(), !buffered.isEmpty { return .incoming(buffered) }
                return .end
            case .failed(let code): return .failed(error: PosixName.spelled(code))
            }
        }
        do {
            return .incoming(try frames())
        } catch {
            return .violation(error)
        }
    }

    private func frames() throws(ProtocolViolation) -> [Incoming] {
        var out: [Incoming] = []
        while let frame = try decoder.next() {
            if let incoming = try assembler.accept(frame) { out.append(incoming) }
        }
        return out
    }

    /// Sends `frame` masked, waiting at most `timeoutMs` for room; the error as connlog spells
    /// it when the write failed.
    func send(_ frame: Frame, timeoutMs: Int = Socket.writeTimeoutMs) -> String? {
        if socket.write(frame.encoded(maskKey: random.bytes(4)), timeoutMs: timeoutMs) {
            return nil
        }
        let code = errno
        // A write that found no room for Socket.writeTimeoutMs fails without an errno of its own.
        return code == EPIPE || code == ECONNRESET
            ? PosixName.spelled(code) : PosixName.spelled(ETIMEDOUT)
    }
}

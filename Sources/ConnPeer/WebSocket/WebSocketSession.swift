/// One WebSocket connection after its handshake, played as its ``WebSocketPlan`` says.
///
/// A single loop waits for whichever comes first: bytes from the client, a pong or message that
/// falls due, the plan's close or drop, the idle timeout, or the peer's end. Every wait is a
/// bounded poll, so the loop ends by the idle timeout at the latest.
struct WebSocketSession {
    let connection: Connection
    let plan: WebSocketPlan
    /// Bytes that came with the handshake, after its head.
    var leftover: [UInt8]

    /// How long the peer waits for the client's answer to its close frame.
    static let closeWaitMs = 1_000
    /// The most pongs waiting for their delay at once.
    static let maxPendingPongs = 1_000

    private var decoder = FrameDecoder()
    private var assembler = MessageAssembler()

    init(connection: Connection, plan: WebSocketPlan, leftover: [UInt8]) {
        self.connection = connection
        self.plan = plan
        self.leftover = leftover
    }

    mutating func run() {
        let log = connection.log
        let gen = connection.gen
        let clock = MonotonicClock()
        var pongs: [(due: Int, payload: [UInt8])] = []
        var messages = plan.messages.sorted { $0.afterMs < $1.afterMs }[...]
        var lastHeard = 0
        // When to answer the client's close frame, and its code, once it came.
        var closeAnswer: (at: Int, code: UInt16?)?
        decoder.append(leftover)
        let endAt: Int? = plan.action == .close || plan.action == .drop ? plan.afterMs : nil
        var nextPing: Int? = plan.pingEveryMs > 0 ? plan.pingEveryMs : nil

        while true {
            // Frames first: those that came with the handshake are there before any read.
            do {
                while let frame = try decoder.next() {
                    guard let incoming = try assembler.accept(frame) else { continue }
                    switch incoming {
                    case .ping(let payload):
                        log.write("peer.ping", gen: gen, ["bytes": .int(payload.count)])
                        // Late pongs wait in a bounded queue: a flood of pings gets no more.
                        if plan.action == .silent || pongs.count >= Self.maxPendingPongs {
                            log.write("peer.ping_unanswered", gen: gen)
                        } else {
                            pongs.append((clock.elapsedMs() + plan.delayMs, payload))
                        }
                    case .pong(let payload):
                        log.write("peer.pong_received", gen: gen, ["bytes": .int(payload.count)])
                    case .text(let text):
                        log.write(
                            "peer.message", gen: gen,
                            ["kind": .string("text"), "bytes": .int(text.utf8.count)])
                    case .binary(let bytes):
                        log.write(
                            "peer.message", gen: gen,
                            ["kind": .string("binary"), "bytes": .int(bytes.count)])
                    case .close(let code, _):
                        guard closeAnswer == nil else { continue }
                        var fields: KeyValuePairs<String, LogValue> = [:]
                        if let code { fields = ["code": .int(Int(code))] }
                        log.write("peer.closed", gen: gen, fields)
                        if plan.closeDelayMs > 0 {
                            closeAnswer = (clock.elapsedMs() + plan.closeDelayMs, code)
                            continue
                        }
                        // Echo the code (RFC 6455 section 5.5.1), then close the TCP connection.
                        guard send(Frame.close(code: code)) else { return }
                        return end("client closed")
                    }
                }
            } catch {
                // The bad frame stays at the head of the decoder: start afresh for the close.
                decoder = FrameDecoder()
                log.write(
                    "peer.protocol_error", gen: gen,
                    ["code": .int(Int(error.code)), "reason": .string(error.reason)])
                return closeFromPeer(code: error.code, reason: error.reason)
            }
            let now = clock.elapsedMs()
            if connection.isStopping() {
                // The client's close already came: answer it now rather than start another.
                if let (_, code) = closeAnswer {
                    guard send(Frame.close(code: code)) else { return }
                    return end("client closed")
                }
                return closeFromPeer(code: CloseCode.goingAway, reason: "peer stopping")
            }
            while let pong = pongs.first, pong.due <= now {
                pongs.removeFirst()
                guard send(Frame(opcode: .pong, payload: pong.payload)) else { return }
                log.write("peer.pong", gen: gen, ["delay_ms": .int(plan.delayMs)])
            }
            while let message = messages.first, message.afterMs <= now {
                messages.removeFirst()
                let frames = message.frames
                for frame in frames { guard send(frame) else { return } }
                log.write(
                    "peer.send", gen: gen,
                    ["bytes": .int(message.text.utf8.count), "frames": .int(frames.count)])
            }
            // No ping once the client's close came: the connection is ending.
            if let at = nextPing, now >= at, closeAnswer == nil {
                guard send(Frame(opcode: .ping, payload: Array("conn-peer".utf8))) else { return }
                log.write("peer.ping_sent", gen: gen)
                nextPing = now + plan.pingEveryMs
            }
            // The answer to the client's close goes after the pongs and messages due by now:
            // nothing may follow it (RFC 6455 section 5.5.1).
            if let (at, code) = closeAnswer, now >= at {
                guard send(Frame.close(code: code)) else { return }
                return end("client closed")
            }
            if let endAt, now >= endAt {
                if plan.action == .close {
                    return closeFromPeer(code: plan.closeCode, reason: plan.closeReason)
                }
                return drop()
            }
            // While the client's close waits for its answer the connection is not idle: the
            // answer is due, and closeAnswer bounds the wait.
            let idleAt = closeAnswer?.at ?? lastHeard + connection.idleTimeoutMs
            if now >= idleAt { return closeFromPeer(code: CloseCode.goingAway, reason: "idle") }

            // Wait no longer than the next thing due, and at most 50 ms to notice the peer's end.
            var wake = min(idleAt, now + 50)
            if let due = pongs.first?.due { wake = min(wake, due) }
            if let due = messages.first?.afterMs { wake = min(wake, due) }
            if let endAt { wake = min(wake, endAt) }
            if let at = nextPing, closeAnswer == nil { wake = min(wake, at) }
            if let (at, _) = closeAnswer { wake = min(wake, at) }
            switch connection.socket.read(timeoutMs: wake - now) {
            case .timeout: continue
            case .end:
                return end("client went away without a close frame")
            case .failed(let code):
                return end("read failed: errno \(code)")
            case .data(let bytes):
                lastHeard = clock.elapsedMs()
                decoder.append(bytes)
            }
        }
    }

    private func send(_ frame: Frame) -> Bool {
        if connection.socket.write(frame.encoded()) { return true }
        end("write failed")
        return false
    }

    /// Sends a close frame, waits briefly for the client's, and closes the connection.
    private mutating func closeFromPeer(code: UInt16, reason: String) {
        let log = connection.log
        log.write(
            "peer.close", gen: connection.gen, ["code": .int(Int(code)), "reason": .string(reason)])
        guard connection.socket.write(Frame.close(code: code, reason: reason).encoded()) else {
            return end("write failed")
        }
        let clock = MonotonicClock()
        while clock.elapsedMs() < Self.closeWaitMs {
            guard
                case .data(let bytes) = connection.socket.read(
                    timeoutMs: Self.closeWaitMs - clock.elapsedMs())
            else { break }
            decoder.append(bytes)
            // Whatever the client sends before its close frame is read and dropped.
            while let frame = try? decoder.next() {
                if frame.opcode == .close {
                    let code =
                        frame.payload.count >= 2
                        ? Int(UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1])) : nil
                    log.write(
                        "peer.closed", gen: connection.gen, code.map { ["code": .int($0)] } ?? [:])
                    return end("closed")
                }
            }
        }
        end("closed without the client's close frame")
    }

    /// Sends the start of a frame that announces more bytes than follow, and cuts the connection.
    private func drop() {
        let frame = Frame(opcode: .text, payload: Array(repeating: UInt8(ascii: "x"), count: 64))
        let bytes = frame.encoded()
        connection.socket.write(Array(bytes.prefix(10)))
        connection.log.write(
            "peer.drop", gen: connection.gen,
            ["sent_bytes": .int(10), "frame_bytes": .int(bytes.count)])
        end("dropped mid-frame")
    }

    private func end(_ reason: String) {
        connection.log.write("peer.end", gen: connection.gen, ["reason": .string(reason)])
        connection.socket.close()
    }
}

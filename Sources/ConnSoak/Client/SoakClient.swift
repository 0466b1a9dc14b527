import ConnPeer

#if canImport(Glibc)
    import Glibc
#endif

/// One soak client: connects again and again, keeps each connection's heartbeat, reconnects with
/// backoff, and logs every step as connlog.
///
/// A single thread runs one loop: it connects when a reconnect falls due, lets the heartbeat
/// tick, ends a healthy session after `sessionMs`, and waits in poll for the current
/// connection and those it closed (which stay readable until the server's close frame comes, or
/// `closeWaitMs`). Every wait is bounded, and the loop ends at `durationMs`, after which the last
/// closes get at most `closeWaitMs`.
final class SoakClient {
    struct Options {
        var address: PeerAddress
        var durationMs: Int
        var intervalMs = 100
        var timeoutMs = 1000
        /// How long a healthy connection lives before the client ends it (reason `user`).
        var sessionMs = 500
        var maxAttempts = 10
        var seed: UInt64 = 1
        var bug: PlantedBug?
        /// For tests: asked before each write with the frame and the time the write may take;
        /// an error it returns stands for the write's own, and nothing is sent.
        var sendFault: ((Frame, _ timeoutMs: Int) -> String?)?
    }

    /// How long a connection and its opening handshake may take.
    static let connectTimeoutMs = 2_000
    /// How long a closed connection waits for the server's close frame.
    static let closeWaitMs = 1_000
    /// The longest single wait in poll, so the loop looks at its clock often.
    static let maxWaitMs = 20

    private let options: Options
    private let log: SoakLog
    private let clock = MonotonicClock()
    private var model: Heartbeat
    private var backoff: Backoff
    private var random: SplitMix64
    private var current: Transport?
    private var openedAt = 0
    private var healthy = false
    private var draining: [Transport] = []
    private var reconnectAt: Int? = 0

    init(options: Options, log: SoakLog) {
        self.options = options
        self.log = log
        model = Heartbeat(interval: options.intervalMs, timeout: options.timeoutMs)
        model.checksPongGeneration = options.bug != .stalePong
        backoff = Backoff(maxAttempts: options.maxAttempts, seed: options.seed)
        backoff.offByOne = options.bug == .attemptLimitOffByOne
        random = SplitMix64(seed: options.seed ^ 0x5EED)
    }

    private var now: Int { clock.elapsedMs() }

    func run() {
        while now < options.durationMs {
            if current == nil, let at = reconnectAt, now >= at {
                reconnectAt = nil
                connect()
                continue
            }
            // Out of attempts and nothing left to close: this client is done.
            if current == nil && reconnectAt == nil && draining.isEmpty { return }
            tick()
            endHealthySession()
            expireDrains()
            wait(until: options.durationMs)
        }
        // The end: a deadline that just passed closes as it should, then every connection ends.
        tick()
        if let transport = current { close(transport, reason: "user", reconnect: false) }
        while !draining.isEmpty {
            expireDrains()
            wait(until: Int.max)
        }
    }

    // MARK: - Connecting

    private func connect() {
        let gen = model.connect()
        let t = now
        log.write(
            t: t, "ws.connect", gen: gen,
            ["interval_ms": .int(options.intervalMs), "timeout_ms": .int(options.timeoutMs)])
        log.write(t: t, "ws.state", gen: gen, ["state": .string("connecting")])
        switch Transport.open(
            gen: gen, address: options.address, timeoutMs: Self.connectTimeoutMs, random: &random)
        {
        case .failure(let error):
            let t = now
            log.write(t: t, "ws.connect_failed", gen: gen, ["error": .string(error.connlog)])
            model.ended(gen)
            log.write(t: t, "ws.state", gen: gen, ["state": .string("disconnected")])
            scheduleReconnect(t)
        case .success(let transport):
            let t = now
            log.write(t: t, "ws.open", gen: gen)
            model.opened(gen, now: t)
            log.write(t: t, "ws.state", gen: gen, ["state": .string("connected")])
            current = transport
            openedAt = t
            healthy = false
            // Frames that came with the handshake's answer (a close at once) are already here.
            handle(transport, read: false)
        }
    }

    private func scheduleReconnect(_ t: Int) {
        guard let (attempt, delay) = backoff.next() else { return }
        log.write(t: t, "ws.reconnect", ["attempt": .int(attempt), "delay_ms": .int(delay)])
        reconnectAt = t + delay
    }

    // MARK: - Timers

    private func tick() {
        guard let transport = current else { return }
        let t = now
        switch model.tick(now: t) {
        case .ping(let gen) where gen == transport.gen:
            ping(
                transport, at: t, deadline: t + options.timeoutMs,
                retries: options.bug == .fatalPingRetried ? 1 : 0)
        case .close(let gen) where gen == transport.gen:
            close(transport, reason: "pong_timeout", reconnect: true, at: t)
        default: break
        }
    }

    /// Sends the ping of `transport`'s heartbeat. The write may take until the ping's deadline,
    /// not longer, so a write that finds no room cannot hold the loop past the time it must
    /// close the connection. A fatal write error ends the connection (seed 002); a transient one
    /// leaves it to the deadline. `retries` is 0 but for the planted bug `fatal-ping-retried`,
    /// which sends the ping again at once after a fatal error, as if the error would pass.
    private func ping(_ transport: Transport, at t: Int, deadline: Int, retries: Int) {
        let gen = transport.gen
        log.write(t: t, "ws.ping", gen: gen)
        let frame = Frame(opcode: .ping, payload: Array("hb".utf8))
        guard let error = send(frame, on: transport, timeoutMs: max(1, deadline - now)) else {
            return
        }
        log.write(t: now, "ws.ping_error", gen: gen, ["error": .string(error)])
        guard Backoff.isFatal(pingError: error) else {
            transport.pingFailed = true
            return
        }
        guard retries > 0 else { return lost(transport, code: 1006) }
        ping(transport, at: now, deadline: deadline, retries: retries - 1)
    }

    /// A session that worked ends after `sessionMs`, between pings, so no ping is left waiting.
    private func endHealthySession() {
        guard let transport = current, healthy, !model.awaitingPong,
            now >= openedAt + options.sessionMs
        else { return }
        close(transport, reason: "user", reconnect: true, planted: true)
    }

    private func expireDrains() {
        let t = now
        draining.removeAll { transport in
            guard let deadline = transport.closeDeadline, t >= deadline else { return false }
            log.write(t: t, "ws.closed", gen: transport.gen, ["code": .int(1006)])
            transport.socket.close()
            return true
        }
    }

    // MARK: - Ending a connection

    /// The client ends the current connection: logs why, sends a close frame, and keeps reading
    /// it until the server's close frame or `closeWaitMs`. `planted` marks the close the bug
    /// `close-without-reason` strips: the end of a healthy session.
    private func close(
        _ transport: Transport, reason: String, reconnect: Bool, at time: Int? = nil,
        planted: Bool = false
    ) {
        let t = time ?? now
        let gen = transport.gen
        let userClose = reason == "user"
        if planted && options.bug == .closeWithoutReason {
            log.write(t: t, "ws.close", gen: gen)
        } else {
            log.write(t: t, "ws.close", gen: gen, ["reason": .string(reason)])
        }
        model.ended(gen)
        log.write(t: t, "ws.state", gen: gen, ["state": .string("disconnected")])
        current = nil
        // After a failed ping the connection is not trusted with a closing handshake: it ends
        // at once, so the log shows it gone (which settles the error) before the reconnect.
        if !transport.pingFailed,
            send(.close(code: userClose ? 1000 : 1001, reason: reason), on: transport) == nil
        {
            transport.closeDeadline = t + Self.closeWaitMs
            draining.append(transport)
        } else {
            log.write(t: now, "ws.closed", gen: gen, ["code": .int(1006)])
            transport.socket.close()
        }
        if reconnect { scheduleReconnect(now) }
    }

    /// The current connection ended under the client (the server closed it, or it broke).
    private func lost(_ transport: Transport, code: Int) {
        let t = now
        log.write(t: t, "ws.closed", gen: transport.gen, ["code": .int(code)])
        model.ended(transport.gen)
        log.write(t: t, "ws.state", gen: transport.gen, ["state": .string("disconnected")])
        transport.socket.close()
        current = nil
        scheduleReconnect(t)
    }

    // MARK: - Reading

    private func wait(until end: Int) {
        let t = now
        var wake = min(end, t + Self.maxWaitMs)
        if let due = model.nextDue { wake = min(wake, due) }
        if let at = reconnectAt { wake = min(wake, at) }
        for transport in draining { wake = min(wake, transport.closeDeadline ?? wake) }
        let transports = (current.map { [$0] } ?? []) + draining
        var fds = transports.map { pollfd(fd: $0.socket.fd, events: Int16(POLLIN), revents: 0) }
        let ready = poll(&fds, nfds_t(fds.count), Int32(max(0, wake - t)))
        guard ready > 0 else { return }
        for (transport, fd) in zip(transports, fds) where fd.revents != 0 {
            handle(transport, read: true)
        }
    }

    private func handle(_ transport: Transport, read: Bool) {
        let isCurrent = current === transport
        switch transport.receive(read: read) {
        case .incoming(let events):
            for event in events {
                // The transport may have ended on an earlier event of this read.
                guard current === transport || draining.contains(where: { $0 === transport })
                else { return }
                deliver(event, from: transport)
            }
        case .end:
            if isCurrent { return lost(transport, code: 1006) }
            finishDrain(transport, code: 1006)
        case .failed(let error):
            let t = now
            log.write(t: t, "ws.recv_error", gen: transport.gen, ["error": .string(error)])
            if isCurrent { return lost(transport, code: 1006) }
            finishDrain(transport, code: 1006)
        case .violation(let violation):
            log.write(
                t: now, "ws.recv_error", gen: transport.gen,
                ["error": .string("URLError.badServerResponse")])
            // RFC 6455 section 7.1.7: fail the connection. A close with the violation's code
            // (unless one was sent already), then the socket goes without waiting for an answer,
            // so the bad frame is never read again.
            guard isCurrent else { return finishDrain(transport, code: 1006) }
            _ = send(.close(code: violation.code), on: transport)
            lost(transport, code: 1006)
        }
    }

    private func deliver(_ event: Incoming, from transport: Transport) {
        let t = now
        let gen = transport.gen
        switch event {
        case .pong:
            log.write(t: t, "ws.pong", gen: gen)
            model.pong(gen, now: t)
            // A pong of the open connection: it works, and the attempts start over.
            if current === transport {
                healthy = true
                backoff.reset()
            }
        case .ping(let payload):
            _ = send(Frame(opcode: .pong, payload: payload), on: transport)
        case .text, .binary:
            log.write(t: t, "ws.message", gen: gen)
        case .close(let code, _):
            // The server began the close: echo it. On a connection the client closed, this is
            // the server's answer, and the close is complete.
            guard current === transport else {
                return finishDrain(transport, code: Int(code ?? 1005))
            }
            _ = send(.close(code: code), on: transport)
            lost(transport, code: Int(code ?? 1005))
        }
    }

    private func send(
        _ frame: Frame, on transport: Transport, timeoutMs: Int = Socket.writeTimeoutMs
    ) -> String? {
        if let fault = options.sendFault, let error = fault(frame, timeoutMs) { return error }
        return transport.send(frame, timeoutMs: timeoutMs)
    }

    private func finishDrain(_ transport: Transport, code: Int) {
        log.write(t: now, "ws.closed", gen: transport.gen, ["code": .int(code)])
        transport.socket.close()
        draining.removeAll { $0 === transport }
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The accept loop: takes connections, routes each to a WebSocket or SSE session on its own
/// thread, and stops by itself.
///
/// Bounded in count and time: it stops accepting after `maxConnections` connections or when
/// `durationS` is over; at most `maxConcurrent` connections are served at once (others are closed
/// and logged); every session ends by the idle timeout, and at the duration's end all are told
/// to close and given `graceMs` to do so.
public final class PeerServer: @unchecked Sendable {
    public struct Options: Sendable {
        public var scenario: Scenario
        public var maxConnections: Int
        public var durationS: Int
        public var idleTimeoutMs: Int
        public var maxConcurrent = 64
        /// Long enough for a session told to stop to finish its close: a write that may wait
        /// for room, then the wait for the client's close frame.
        public var graceMs = Socket.writeTimeoutMs + WebSocketSession.closeWaitMs + 500

        public init(scenario: Scenario, maxConnections: Int, durationS: Int, idleTimeoutMs: Int) {
            self.scenario = scenario
            self.maxConnections = maxConnections
            self.durationS = durationS
            self.idleTimeoutMs = idleTimeoutMs
        }
    }

    /// How long a client has to send its whole request head, whatever the idle timeout.
    public static let headTimeoutMs = 5_000

    private let listener: Listener
    private let options: Options
    private let log: PeerLog
    private let lock = NSLock()
    private var active = 0
    private var websocketCount = 0
    private var sseCount = 0
    private var stopping = false

    public init(listener: Listener, options: Options, log: PeerLog) {
        self.listener = listener
        self.options = options
        self.log = log
    }

    /// Serves until a bound is reached; returns why it stopped (`duration` or `max-connections`).
    public func run() -> String {
        let clock = MonotonicClock()
        let durationMs = options.durationS * 1000
        var accepted = 0
        var reason = "duration"
        while true {
            let left = durationMs - clock.elapsedMs()
            if left <= 0 { break }
            if accepted >= options.maxConnections {
                reason = "max-connections"
                break
            }
            let socket: Socket
            switch listener.accept(timeoutMs: min(50, left)) {
            case .none: continue
            case .noDescriptors:
                // The connection stays queued and poll reports it at once: pause, or spin.
                log.write("peer.refuse", ["reason": .string("fds")])
                usleep(50_000)
                continue
            case .connection(let client): socket = client
            }
            accepted += 1
            let gen = accepted
            log.write("peer.accept", gen: gen)
            // The last connection allowed: the listener closes before it is answered, so a client
            // that comes after that answer is refused, however late this loop runs again.
            if accepted >= options.maxConnections { listener.close() }
            let admitted = locked { () -> Bool in
                guard active < options.maxConcurrent else { return false }
                active += 1
                return true
            }
            guard admitted else {
                log.write("peer.refuse", gen: gen, ["reason": .string("busy")])
                socket.close()
                continue
            }
            Thread.detachNewThread { [self] in
                serve(socket, gen: gen)
                locked { active -= 1 }
            }
        }
        // Clients that come later are refused at once rather than left waiting in the backlog.
        listener.close()
        // After the last connection, sessions run to their own end within the duration; at the
        // duration's end every one is told to close.
        while locked({ active }) > 0 && clock.elapsedMs() < durationMs { usleep(20_000) }
        locked { stopping = true }
        let grace = MonotonicClock()
        while locked({ active }) > 0 && grace.elapsedMs() < options.graceMs { usleep(20_000) }
        log.write("peer.stop", ["reason": .string(reason), "connections": .int(accepted)])
        return reason
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    // MARK: - One connection

    private func serve(_ socket: Socket, gen: Int) {
        let connection = Connection(
            socket: socket, gen: gen, log: log,
            idleTimeoutMs: options.scenario.idleTimeoutMs ?? options.idleTimeoutMs,
            isStopping: { [self] in locked { stopping } })
        guard let (request, leftover) = readHead(connection) else { return }
        let isUpgrade = WebSocketHandshake.isUpgrade(request)
        let proto = isUpgrade ? "ws" : "sse"
        let n = locked { () -> Int in
            if isUpgrade {
                websocketCount += 1
                return websocketCount
            }
            sseCount += 1
            return sseCount
        }
        let action =
            isUpgrade
            ? options.scenario.websocketPlan(n).action.rawValue
            : options.scenario.ssePlan(n).action.rawValue
        log.write(
            "peer.request", gen: gen,
            [
                "proto": .string(proto), "path": .string(Self.loggedPath(request.path)),
                "path_bytes": .int(request.path.utf8.count), "n": .int(n),
                "action": .string(action)
            ])
        if isUpgrade {
            let plan = options.scenario.websocketPlan(n)
            if plan.action == .refuse { return refuse(connection) }
            let key: String
            do {
                key = try WebSocketHandshake.validate(request)
            } catch {
                return badRequest(
                    connection, error.description,
                    answer: WebSocketHandshake.errorResponse(for: error))
            }
            guard socket.write(WebSocketHandshake.response(key: key)) else {
                return end(connection, "write failed")
            }
            log.write("peer.open", gen: gen, ["proto": .string("ws")])
            var session = WebSocketSession(connection: connection, plan: plan, leftover: leftover)
            session.run()
        } else {
            guard request.method == "GET" else {
                return badRequest(connection, "an SSE stream is a GET request")
            }
            let plan = options.scenario.ssePlan(n)
            if plan.action == .refuse { return refuse(connection) }
            SSESession(connection: connection, plan: plan, request: request).run()
        }
    }

    /// What the log shows of a request path: its first segment, cut at 32 bytes and before any
    /// `.`. A token often rides in a later segment (`/ws/eyJ...`), and a JWT has dots, so
    /// neither reaches the log; the length is logged beside it.
    static func loggedPath(_ path: String) -> String {
        let bytes = Array(path.utf8)
        var end = bytes.first == UInt8(ascii: "/") ? 1 : 0
        while end < bytes.count && end < 32 && bytes[end] != UInt8(ascii: "/")
            && bytes[end] != UInt8(ascii: ".")
        {
            end += 1
        }
        return String(decoding: bytes[..<end], as: UTF8.self)
    }

    /// The request head and any bytes after it; nil (connection ended) when it never came whole.
    private func readHead(_ connection: Connection) -> (HTTPRequest, [UInt8])? {
        let clock = MonotonicClock()
        var bytes: [UInt8] = []
        while true {
            if let end = HTTPRequest.endOfHead(in: bytes) {
                do {
                    let request = try HTTPRequest.parse(Array(bytes[..<end]))
                    return (request, Array(bytes[end...]))
                } catch {
                    badRequest(connection, error.description)
                    return nil
                }
            }
            if bytes.count > HTTPRequest.maxHeadBytes {
                badRequest(connection, "request head over \(HTTPRequest.maxHeadBytes) bytes")
                return nil
            }
            let left = Self.headTimeoutMs - clock.elapsedMs()
            if left <= 0 || connection.isStopping() {
                end(connection, "no request head in time")
                return nil
            }
            switch connection.socket.read(max: 4096, timeoutMs: min(left, 50)) {
            case .timeout: continue
            case .data(let more): bytes += more
            case .end:
                end(connection, "client went away before its request")
                return nil
            case .failed(let code):
                end(connection, "read failed: errno \(code)")
                return nil
            }
        }
    }

    /// Closes the socket without an answer: the client's connection attempt fails.
    private func refuse(_ connection: Connection) {
        log.write("peer.refuse", gen: connection.gen, ["reason": .string("scenario")])
        connection.socket.close()
    }

    /// Answers with `answer` (400 Bad Request with `why` when none is given) and ends.
    private func badRequest(_ connection: Connection, _ why: String, answer: [UInt8]? = nil) {
        log.write("peer.bad_request", gen: connection.gen, ["reason": .string(why)])
        connection.socket.write(
            answer ?? WebSocketHandshake.errorResponse(status: "400 Bad Request", message: why))
        end(connection, "bad request")
    }

    private func end(_ connection: Connection, _ reason: String) {
        log.write("peer.end", gen: connection.gen, ["reason": .string(reason)])
        connection.socket.close()
    }
}

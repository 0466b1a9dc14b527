import ConnPeer

#if canImport(Glibc)
    import Glibc
#endif

/// One SSE soak client (seed 003): reads `text/event-stream`, handles each complete event once,
/// commits the cursor only after the handling succeeded, and resumes with `Last-Event-ID` set to
/// the committed cursor.
///
/// An event counts only when its blank line came: a stream cut in the middle of one drops the
/// part. A redelivered id (one already handled) is logged `sse.skipped` and not handled again.
/// Every wait is bounded, and the loop ends at `durationMs`.
final class SSEClient {
    struct Options {
        var address: PeerAddress
        var durationMs: Int
        var bug: PlantedBug?
    }

    /// The wait before a reconnect until the stream names one with `retry:`.
    static let defaultRetryMs = 100
    /// A retry the stream asks for is kept within these bounds.
    static let retryRange = 10...5_000
    static let connectTimeoutMs = 2_000

    private let options: Options
    private let log: SoakLog
    private let clock = MonotonicClock()
    private var committed: String?
    private var handled: Set<String> = []
    private var retryMs = SSEClient.defaultRetryMs

    init(options: Options, log: SoakLog) {
        self.options = options
        self.log = log
    }

    private var now: Int { clock.elapsedMs() }

    func run() {
        while now < options.durationMs {
            let reason = stream()
            log.write(t: now, "sse.disconnect", ["reason": .string(reason)])
            let resumeAt = now + retryMs
            while now < min(resumeAt, options.durationMs) {
                usleep(UInt32(max(1, min(resumeAt, options.durationMs) - now)) * 1000)
            }
        }
    }

    /// One request, read to its end; why it ended.
    private func stream() -> String {
        if let committed {
            log.write(t: now, "sse.connect", ["last_event_id": .string(committed)])
        } else {
            log.write(t: now, "sse.connect")
        }
        let socket: Socket
        switch options.address.connect(timeoutMs: Self.connectTimeoutMs) {
        case .failure(let error): return "connect_failed " + error.connlog
        case .success(let connected): socket = connected
        }
        defer { socket.close() }
        var request = "GET /events HTTP/1.1\r\nHost: \(options.address)\r\n"
        request += "Accept: text/event-stream\r\nCache-Control: no-cache\r\n"
        if let committed { request += "Last-Event-ID: \(committed)\r\n" }
        guard socket.write(Array((request + "\r\n").utf8)) else { return "write_failed" }
        var bytes: [UInt8] = []
        var parser: EventStreamParser?
        while now < options.durationMs {
            if parser == nil, let end = HTTPRequest.endOfHead(in: bytes) {
                let head = String(decoding: bytes[..<end], as: UTF8.self).lowercased()
                guard head.hasPrefix("http/1.1 200"), head.contains("text/event-stream") else {
                    return "bad_response"
                }
                parser = EventStreamParser()
                bytes = Array(bytes[end...])
            }
            if var current = parser {
                for event in current.feed(bytes) { handle(event) }
                if current.overflowed { return "line_too_long" }
                parser = current
                bytes = []
            } else if bytes.count > HTTPRequest.maxHeadBytes {
                return "bad_response"
            }
            switch socket.read(timeoutMs: min(50, max(1, options.durationMs - now))) {
            case .data(let more): bytes += more
            case .timeout: continue
            case .end: return "ended"
            case .failed(let code): return "failed " + PosixName.spelled(code)
            }
        }
        return "soak_end"
    }

    private func handle(_ event: EventStreamParser.Event) {
        if let retry = event.retryMs {
            retryMs = min(max(retry, Self.retryRange.lowerBound), Self.retryRange.upperBound)
        }
        // An event without data is not dispatched (the SSE spec, and seed 003's reader).
        guard let id = event.id, !event.data.isEmpty else { return }
        log.write(t: now, "sse.event", ["id": .string(id)])
        if handled.contains(id) {
            log.write(t: now, "sse.skipped", ["id": .string(id), "reason": .string("redelivered")])
            return
        }
        if options.bug == .commitBeforeProcessing { commit(id) }
        handled.insert(id)
        log.write(t: now, "sse.processed", ["id": .string(id), "ok": .bool(true)])
        if options.bug != .commitBeforeProcessing { commit(id) }
    }

    private func commit(_ id: String) {
        committed = id
        log.write(t: now, "sse.commit", ["id": .string(id)])
    }
}

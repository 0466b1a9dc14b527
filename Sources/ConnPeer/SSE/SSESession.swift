/// One SSE response (`text/event-stream`), played as its ``SSEPlan`` says.
///
/// Events carry numeric ids: event `k` is `id: k` and `data: event k`. The first id depends on
/// the client's `Last-Event-ID` and the plan's `resume`, which is how a scenario redelivers events
/// the client may not have committed, or resets the ids as a restarted server would.
struct SSESession {
    let connection: Connection
    let plan: SSEPlan
    let request: HTTPRequest

    /// The client's Last-Event-ID as a number: 0 when absent or not a decimal id.
    static func lastEventID(_ request: HTTPRequest) -> Int {
        guard let text = request.header("last-event-id"), !text.isEmpty, text.utf8.count <= 18,
            text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return 0 }
        return Int(text) ?? 0
    }

    /// The text of event `id`, with its terminating blank line.
    static func event(_ id: Int) -> String { "id: \(id)\ndata: event \(id)\n\n" }

    func run() {
        let log = connection.log
        let gen = connection.gen
        let last = Self.lastEventID(request)
        var head =
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
            + "Connection: close\r\n\r\n"
        if let retry = plan.retryMs { head += "retry: \(retry)\n\n" }
        guard connection.socket.write(Array(head.utf8)) else { return end("write failed") }
        let first = plan.firstID(after: last)
        log.write(
            "peer.open", gen: gen,
            [
                "proto": .string("sse"), "first_id": .string(String(first)),
                "resume": .string(plan.resume.rawValue)
            ])
        for id in first..<(first + plan.events) {
            if id > first, !wait(plan.intervalMs) { return }
            guard connection.socket.write(Array(Self.event(id).utf8)) else {
                return end("write failed")
            }
            log.write("peer.sse_event", gen: gen, ["id": .string(String(id))])
        }
        switch (plan.action, plan.end) {
        case (.drop, _):
            // The next event cut short: its id and part of its data, no blank line.
            let cut = Array(Self.event(first + plan.events).utf8.dropLast(6))
            connection.socket.write(cut)
            log.write("peer.drop", gen: gen, ["sent_bytes": .int(cut.count)])
            end("dropped mid-event")
        case (_, .hold):
            if wait(connection.idleTimeoutMs) { end("idle") }
        case (_, .close):
            end("events sent")
        }
    }

    /// Waits `ms`, watching the socket: false (and the connection ended) when the client left or
    /// the peer is stopping.
    private func wait(_ ms: Int) -> Bool {
        let clock = MonotonicClock()
        while true {
            let left = ms - clock.elapsedMs()
            if left <= 0 { return true }
            if connection.isStopping() {
                end("peer stopping")
                return false
            }
            switch connection.socket.read(timeoutMs: min(left, 50)) {
            case .timeout, .data: continue
            case .end, .failed:
                end("client went away")
                return false
            }
        }
    }

    private func end(_ reason: String) {
        connection.log.write("peer.end", gen: connection.gen, ["reason": .string(reason)])
        connection.socket.close()
    }
}

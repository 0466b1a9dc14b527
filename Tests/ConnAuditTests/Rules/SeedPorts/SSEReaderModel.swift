// Seed 003: a Server-Sent Events reader that resumes with Last-Event-ID and loses nothing.

// MARK: - The seed's fixture server

/// A port of the seed's `sse_fixture.py`: events with increasing integer ids, served after the
/// request's Last-Event-ID (`id <= last` is skipped; no header means 0).
///
/// The seed's `cut=1` ends the response normally after one event; the other behaviours are the
/// faults the seed says to inject separately: a connection reset inside an event (after its `id:`
/// line), and a server that delivers at least once (it sends the Last-Event-ID event again).
struct SSEFixtureServer: Sendable {
    enum Behaviour: Sendable {
        /// Every event after Last-Event-ID, then the response ends.
        case complete
        /// The seed's `cut`: `events` events, then the response ends normally.
        case cutAfter(events: Int)
        /// `afterEvents` events, then the `id:` line of the next, then the connection resets.
        case cutInsideEvent(afterEvents: Int)
        /// Like `complete`, but the event named by Last-Event-ID is sent again first.
        case redeliversLast

        var sendsLastAgain: Bool {
            if case .redeliversLast = self { return true }
            return false
        }
    }

    enum Ending: Equatable, Sendable {
        case endOfStream
        case connectionReset
    }

    /// The seed's three events and two more, so a reader can fail in the middle and go on.
    static let seed = SSEFixtureServer(events: [
        (1, "queued"), (2, "building"), (3, "testing"), (4, "finished"), (5, "deployed")
    ])

    let events: [(id: Int, data: String)]

    /// The response body's lines (without line ends) and how it ends.
    func respond(lastEventID: String?, _ behaviour: Behaviour) -> (lines: [String], ending: Ending)
    {
        let last = lastEventID.map { Int($0) ?? 0 } ?? 0
        var lines: [String] = []
        var sent = 0
        for (id, data) in events {
            if id < last || (id == last && !behaviour.sendsLastAgain) { continue }
            switch behaviour {
            case .cutAfter(let n) where sent == n:
                return (lines, .endOfStream)
            case .cutInsideEvent(let n) where sent == n:
                return (lines + ["id: \(id)"], .connectionReset)
            default:
                break
            }
            lines += ["id: \(id)", "data: \(data)", ""]
            sent += 1
        }
        return (lines, .endOfStream)
    }
}

// MARK: - The reader

/// A reader built the way seed 003 says: an event counts only once its blank line arrived; it is
/// processed first and the cursor committed after; a reconnect sends the committed cursor as
/// Last-Event-ID; an id already processed is recognised (the business store keeps ids) and skipped;
/// a failed event keeps the cursor where it was and ends the stream, so the server sends it again;
/// cancelling also cancels the reconnect timer.
///
/// The parser is the seed's `readEvents(after:url:)` loop over lines, fed from the fixture server
/// instead of `URLSession.bytes`.
struct SSEReaderModel {
    /// Known bugs the seed warns about.
    enum Mutant: String, CaseIterable, Sendable {
        /// The cursor is committed when the `id:` line is read, before the event is complete and
        /// processed.
        case commitOnIdLine
        /// A failed event is passed over; the stream goes on and later events commit past it.
        case skipFailedEvent
        /// No dedupe: a redelivered event is processed again.
        case processRedelivered
        /// The Last-Event-ID is captured once when reading starts, not taken from the cursor on
        /// each reconnect.
        case staleCursor
        /// `cancel()` stops reading but leaves the reconnect timer running.
        case reconnectAfterCancel
    }

    let mutant: Mutant?
    private(set) var log = ConnlogWriter(src: "sse-reader")
    /// The persisted cursor (the last committed id).
    private(set) var cursor: String?
    /// The business store's processed ids: how a redelivered event is recognised.
    private var processed: Set<String> = []
    /// Ids the handler fails on, the first time only.
    private var failOnce: Set<String>
    private var cursorAtStart: String?
    private var cancelled = false
    /// True while a reconnect is due (the timer is armed, or the app just started reading).
    private(set) var wantsToConnect = false
    private var t = 0

    init(mutant: Mutant? = nil, handlerFailsOnce: Set<String> = []) {
        self.mutant = mutant
        failOnce = handlerFailsOnce
    }

    /// The app starts (or restarts) reading.
    mutating func start() {
        t += 10
        log.write(t, "sse.start")
        cancelled = false
        cursorAtStart = cursor
        wantsToConnect = true
    }

    /// The app cancels reading (the user leaves the screen) while the reader waits to reconnect.
    mutating func cancel() {
        t += 10
        log.write(t, "sse.cancel")
        cancelled = true
        if mutant != .reconnectAfterCancel { wantsToConnect = false }
    }

    /// The reconnect timer fires, if the reader still wants to connect: one request, read to its
    /// end. Returns false when nothing was sent.
    @discardableResult
    mutating func reconnectTimerFires(
        _ server: SSEFixtureServer, _ behaviour: SSEFixtureServer.Behaviour
    ) -> Bool {
        t += 100
        guard wantsToConnect else { return false }
        read(server, behaviour)
        return true
    }

    // MARK: Reading

    private mutating func read(_ server: SSEFixtureServer, _ behaviour: SSEFixtureServer.Behaviour)
    {
        wantsToConnect = false
        let lastID = mutant == .staleCursor ? cursorAtStart : cursor
        t += 1
        if let lastID {
            log.write(t, "sse.connect", ["last_event_id": .string(lastID)])
        } else {
            log.write(t, "sse.connect")
        }
        let response = server.respond(lastEventID: lastID, behaviour)

        // The seed's parser: an event is complete at its blank line; a partial one is dropped.
        var eventID: String?
        var data: [String] = []
        for line in response.lines {
            t += 1
            if line.isEmpty {
                if let id = eventID, !data.isEmpty {
                    guard handle(id: id) else {
                        disconnect("handler_failed")
                        return
                    }
                }
                eventID = nil
                data = []
            } else if line.hasPrefix("id:") {
                let id = trimmed(line.dropFirst(3))
                eventID = id
                if mutant == .commitOnIdLine { commit(id) }
            } else if line.hasPrefix("data:") {
                let value = line.dropFirst(5)
                data.append(String(value.first == " " ? value.dropFirst() : value))
            }
        }
        disconnect(response.ending == .endOfStream ? "end_of_stream" : "connection_reset")
    }

    /// One complete event: returns false when the stream must stop (the handler failed).
    private mutating func handle(id: String) -> Bool {
        log.write(t, "sse.event", ["id": .string(id)])
        if processed.contains(id), mutant != .processRedelivered {
            log.write(t, "sse.skipped", ["id": .string(id), "reason": "duplicate"])
            return true
        }
        t += 5
        let ok = failOnce.remove(id) == nil
        log.write(t, "sse.processed", ["id": .string(id), "ok": .bool(ok)])
        guard ok else { return mutant == .skipFailedEvent }
        processed.insert(id)
        if mutant != .commitOnIdLine { commit(id) }
        return true
    }

    private mutating func commit(_ id: String) {
        cursor = id
        log.write(t, "sse.commit", ["id": .string(id)])
    }

    private mutating func disconnect(_ reason: String) {
        log.write(t, "sse.disconnect", ["reason": .string(reason)])
        if !cancelled { wantsToConnect = true }
    }

    private func trimmed(_ s: Substring) -> String {
        String(
            s.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }
                .reversed())
    }
}

// MARK: - The scenario

extension SSEReaderModel {
    /// The seed's checks in order: the first response cut after one event (commit 1 only after it
    /// was processed); a resume from 1 that breaks inside event 3; a handler failure on 3 (the
    /// cursor stays at 2, the reader resumes from 2); a server that sends the committed event again
    /// (it is skipped); leaving the screen while a reconnect is due (no request until the app
    /// starts reading again); coming back.
    static func seedScenario(_ mutant: Mutant? = nil) -> ConnlogWriter {
        let server = SSEFixtureServer.seed
        var reader = SSEReaderModel(mutant: mutant, handlerFailsOnce: ["3"])
        reader.start()
        reader.reconnectTimerFires(server, .cutAfter(events: 1))  // 1
        // 2, then `id: 3` and a reset
        reader.reconnectTimerFires(server, .cutInsideEvent(afterEvents: 1))
        reader.reconnectTimerFires(server, .complete)  // 3 fails
        reader.reconnectTimerFires(server, .cutAfter(events: 2))  // 3, 4
        reader.reconnectTimerFires(server, .redeliversLast)  // 4 again, 5
        reader.cancel()
        reader.reconnectTimerFires(server, .complete)  // the cancelled timer must not fire
        reader.start()
        reader.reconnectTimerFires(server, .complete)  // nothing new
        return reader.log
    }
}

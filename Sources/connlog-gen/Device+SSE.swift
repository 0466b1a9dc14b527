// The Server-Sent Events reader of a simulated device (seed 003): each event is parsed, processed,
// and only then its id committed as the cursor; a reconnect sends the committed id as
// Last-Event-ID, and events the server sends again are recognised and skipped.

enum SSEPhase {
    case idle, connecting, streaming, down, cancelled
}

struct SSEState {
    var next = never
    var done = false

    // Slots
    var startAt = never
    var connectAt = never
    var eventAt = never
    var processAt = never
    var commitAt = never
    var dropAt = never
    var cancelAt = never

    var phase = SSEPhase.idle
    /// The server: the next id it sends on this stream, and the highest id it has sent.
    var nextId = 0
    var head = 0
    /// The client: committed cursor (and the one before it), highest id processed successfully.
    var lastCommit = -1
    var previousCommit = -1
    var maxProcessed = -1
    var processingId = -1
    var commitId = -1

    // Faults in flight
    var processTwice = false
    var retrying = false
    var committedEarly = false
    var lostGuard = false
    var zombie = false
    var zombieLeft = 0

    mutating func updateNext() {
        next =
            done ? never : min(startAt, connectAt, eventAt, processAt, commitAt, dropAt, cancelAt)
    }
}

private let dropReasons: [StaticString] = ["network", "timeout", "server_closed"]

extension Device {
    func sseStartSession(_ origin: Int) {
        sse.startAt = origin + rng.range(10, 500)
        sse.head = rng.range(1, 1_000_000)
        sse.updateNext()
    }

    func sseStep(_ t: Int) {
        if endRequested && sse.processAt == never && sse.commitAt == never && !sse.lostGuard
            && !sse.zombie
        {
            sse = SSEState()
            sse.done = true
        } else if sse.commitAt == t {
            sseCommit(t)
        } else if sse.processAt == t {
            sseProcess(t)
        } else if sse.eventAt == t {
            sseEvent(t)
        } else if sse.dropAt == t {
            sseDrop(t)
        } else if sse.cancelAt == t {
            sseCancel(t)
        } else if sse.connectAt == t {
            sseConnect(t)
        } else {
            sse.startAt = never
            sseLine(t, "sse.start\"")
            sse.phase = .connecting
            sse.connectAt = t + rng.range(1, 30)
            sse.cancelAt = t + rng.gap(mean: 150_000, min: 5_000, max: 1_800_000)
        }
        sse.updateNext()
    }

    // MARK: - Lines

    private func sseLine(_ t: Int, _ head: StaticString) {
        begin(t, head)
        end(t)
    }

    /// `{"t":…,"ev":"<ev>","id":"<id>"}`: `head` is `ev","id":"`.
    private func sseIdLine(_ t: Int, _ head: StaticString, _ id: Int, _ tail: StaticString = "") {
        begin(t, head)
        sink.put(int: id)
        sink.put("\"")
        sink.put(tail)
        end(t)
    }

    private func sseDisconnectLine(_ t: Int, _ reason: StaticString) {
        begin(t, "sse.disconnect\",\"reason\":\"")
        sink.put(reason)
        sink.put("\"")
        end(t)
    }

    // MARK: - Connecting

    private func sseConnect(_ t: Int) {
        sse.connectAt = never
        var resumeFrom = sse.lastCommit
        var kind: FaultKind?
        if sse.zombie {
            kind = .connectAfterCancel
        } else if sse.previousCommit >= 0 && sse.previousCommit != sse.lastCommit
            && fault(.resumeFromWrongId)
        {
            resumeFrom = sse.previousCommit
            kind = .resumeFromWrongId
        }
        if resumeFrom >= 0 {
            begin(t, "sse.connect\",\"last_event_id\":\"")
            sink.put(int: resumeFrom)
            sink.put("\"")
            end(t)
        } else {
            sseLine(t, "sse.connect\"")
        }
        if let kind { injected(kind) }
        // The server resends from the cursor; some servers include the cursor's own event.
        if resumeFrom >= 0 {
            sse.nextId = rng.chance(0.5) ? resumeFrom : resumeFrom + 1
        } else {
            sse.nextId = sse.head + 1
        }
        sse.phase = .streaming
        sse.eventAt = t + rng.range(10, 300)
        sse.dropAt = sse.zombie ? never : t + rng.gap(mean: 90_000, min: 1_000, max: 1_800_000)
    }

    private func sseDrop(_ t: Int) {
        sse.dropAt = never
        if sse.processAt != never || sse.commitAt != never || sse.lostGuard || sse.zombie {
            sse.dropAt = t + 100
            return
        }
        sseDisconnectLine(t, dropReasons[rng.below(dropReasons.count)])
        sse.phase = .down
        sse.eventAt = never
        sse.connectAt = t + rng.range(200, 8_000)
    }

    private func sseCancel(_ t: Int) {
        sse.cancelAt = never
        if sse.processAt != never || sse.commitAt != never || sse.lostGuard || sse.zombie {
            sse.cancelAt = t + 100
            return
        }
        sseLine(t, "sse.cancel\"")
        if sse.phase == .streaming || sse.phase == .connecting {
            sseDisconnectLine(t, "cancelled")
        }
        sse.phase = .cancelled
        sse.eventAt = never
        sse.dropAt = never
        sse.connectAt = never
        if fault(.connectAfterCancel) {
            // A reconnect timer that survived the cancel: the reader streams a little longer.
            sse.zombie = true
            sse.zombieLeft = rng.range(1, 4)
            sse.connectAt = t + rng.range(100, 3_000)
        } else {
            sse.startAt = t + rng.range(1_000, 60_000)
        }
    }

    // MARK: - Events

    private func sseEvent(_ t: Int) {
        sse.eventAt = never
        let id = sse.nextId
        sse.nextId += 1
        if id > sse.head { sse.head = id }
        sseIdLine(t, "sse.event\",\"id\":\"", id)
        if id <= sse.maxProcessed {
            // Sent again after a resume: recognised and skipped (processed_twice fault: handled
            // again).
            if !sse.zombie && fault(.processedTwice) {
                sse.processTwice = true
                sse.processingId = id
                sse.processAt = t + rng.gap(mean: 12, min: 0, max: 400)
                return
            }
            sseIdLine(t, "sse.skipped\",\"id\":\"", id, ",\"reason\":\"already processed\"")
            sseCommitOrWait(t, id)
            return
        }
        sse.processingId = id
        sse.processAt = t + rng.gap(mean: 12, min: 0, max: 400)
        if !sse.zombie && fault(.commitBeforeProcessing) {
            // The cursor is saved when the id: line is parsed, before the event is handled.
            sseIdLine(t, "sse.commit\",\"id\":\"", id)
            injected(.commitBeforeProcessing)
            sse.previousCommit = sse.lastCommit
            sse.lastCommit = id
            sse.committedEarly = true
        }
    }

    /// An id newer than the saved cursor is committed soon; an older one is not committed again,
    /// and the reader waits for the next event.
    private func sseCommitOrWait(_ t: Int, _ id: Int) {
        if id > sse.lastCommit {
            sse.commitId = id
            sse.commitAt = t + rng.range(0, 3)
        } else {
            sse.eventAt = t + rng.gap(mean: 40, min: 1, max: 2_000)
        }
    }

    private func sseProcess(_ t: Int) {
        sse.processAt = never
        let id = sse.processingId
        if sse.processTwice {
            sse.processTwice = false
            sseIdLine(t, "sse.processed\",\"id\":\"", id, ",\"ok\":true")
            injected(.processedTwice)
            sseCommitOrWait(t, id)
            return
        }
        let ok =
            sse.zombie || sse.lostGuard || sse.committedEarly || sse.retrying || !rng.chance(0.004)
        sse.retrying = false
        if !ok {
            sseIdLine(t, "sse.processed\",\"id\":\"", id, ",\"ok\":false")
            if fault(.lostEvent) {
                // The failed event is passed over; the next one is committed past it.
                injected(.lostEvent)
                sse.lostGuard = true
                sse.eventAt = t + rng.gap(mean: 400, min: 1, max: 30_000)
            } else if sse.lastCommit < 0 {
                // No cursor to resume from yet: handle the event again, a little later.
                sse.retrying = true
                sse.processAt = t + rng.range(50, 1_000)
            } else {
                // Reconnect from the cursor: the server sends the failed event again.
                sseDisconnectLine(t, "retry")
                sse.phase = .down
                sse.eventAt = never
                sse.dropAt = never
                sse.connectAt = t + rng.range(100, 2_000)
            }
            return
        }
        sseIdLine(t, "sse.processed\",\"id\":\"", id, ",\"ok\":true")
        if id > sse.maxProcessed { sse.maxProcessed = id }
        if sse.committedEarly {
            sse.committedEarly = false
            sse.eventAt = t + rng.gap(mean: 400, min: 1, max: 30_000)
        } else if !sse.zombie && !sse.lostGuard && rng.chance(0.01) {
            // The stream breaks after processing, before the commit: the event comes again.
            sseDisconnectLine(t, "network")
            sse.phase = .down
            sse.eventAt = never
            sse.dropAt = never
            sse.connectAt = t + rng.range(200, 8_000)
        } else {
            sse.commitId = id
            sse.commitAt = t + rng.range(0, 3)
        }
    }

    private func sseCommit(_ t: Int) {
        sse.commitAt = never
        sseIdLine(t, "sse.commit\",\"id\":\"", sse.commitId)
        sse.previousCommit = sse.lastCommit
        sse.lastCommit = sse.commitId
        sse.lostGuard = false
        if sse.zombie {
            sse.zombieLeft -= 1
            if sse.zombieLeft <= 0 {
                sseDisconnectLine(t, "cancelled")
                sse.zombie = false
                sse.phase = .cancelled
                sse.startAt = t + rng.range(1_000, 60_000)
                return
            }
        }
        sse.eventAt = t + rng.gap(mean: 400, min: 1, max: 30_000)
    }
}

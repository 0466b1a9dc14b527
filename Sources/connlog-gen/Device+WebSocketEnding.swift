// How a simulated device's WebSocket connections end, and how it reconnects with jittered
// exponential backoff (seed 002).

extension Device {
    // MARK: - How connections end

    func wsIncident(_ t: Int) {
        ws.incidentAt = never
        if ws.awaiting && t + 40 >= ws.deadline {
            // Too close to a deadline: let the heartbeat decide first.
            ws.incidentAt = t + 100
            return
        }
        let gen = ws.gen
        if ws.immediate {
            ws.immediate = false
            if rng.chance(0.5) {
                wsClosedLine(t, gen, code: 1006, reason: "abnormal")
                wsStateLine(t, gen, "disconnected")
                wsEndGen()
            } else {
                wsErrorLine(
                    t, "ws.recv_error\",\"gen\":", gen,
                    receiveErrors[rng.below(receiveErrors.count)])
                wsClientClose(t, "error")
                wsScheduleClosed(t, gen, code: 1006)
            }
            ws.reconnectAt = t + rng.range(0, 10)
            return
        }
        switch rng.pick([20, 15, 15, 15]) {
        case 0:
            // The server closes: the transport's callback ends the generation.
            wsClosedLine(
                t, gen, code: rng.chance(0.5) ? 1001 : 1000,
                reason: rng.chance(0.5) ? "going away" : nil)
            wsStateLine(t, gen, "disconnected")
            wsEndGen()
            ws.reconnectAt = t + rng.range(0, 10)
        case 1:
            wsErrorLine(
                t, "ws.recv_error\",\"gen\":", gen, receiveErrors[rng.below(receiveErrors.count)])
            wsClientClose(t, "error")
            wsScheduleClosed(t, gen, code: 1006)
            ws.reconnectAt = t + rng.range(0, 10)
        case 2:
            // The client replaces the connection (new URL, token refresh): close, then connect
            // anew.
            if !ws.awaiting && fault(.connectWithoutClose) {
                wsEndGen()
                ws.openAt = never
                wsConnect(t, fault: .connectWithoutClose)
                ws.deferred = .replacedLate
                ws.deferredGen = gen
                ws.deferredAt = t + 1
                if ws.failAt <= t + 1 { ws.failAt = t + 2 }
            } else {
                if !ws.awaiting && fault(.closeWithoutReason) {
                    wsCloseLine(t, gen, nil)
                    injected(.closeWithoutReason)
                } else {
                    wsCloseLine(t, gen, "replaced")
                }
                wsEndGen()
                ws.openAt = never
                wsScheduleClosed(t, gen, code: 1000)
                wsConnect(t, fault: nil)
                ws.closedStaleState = fault(.staleStateAfterReplace)
            }
        default:
            // The user leaves the screen; they come back later.
            let faultFree = ws.awaiting
            if !faultFree && fault(.closeWithoutReason) {
                wsCloseLine(t, gen, nil)
                injected(.closeWithoutReason)
            } else {
                wsCloseLine(t, gen, "user")
                if !faultFree && fault(.doubleClose) {
                    ws.deferred = .second
                    ws.deferredGen = gen
                    ws.deferredAt = t + rng.range(0, 50)
                }
            }
            wsStateLine(t, gen, "disconnected")
            wsEndGen()
            wsScheduleClosed(t, gen, code: 1000)
            ws.connectAt = t + rng.range(500, 20_000)
            ws.attempts = 0
        }
    }

    func wsClosedLine(_ t: Int, _ gen: Int, code: Int, reason: StaticString?) {
        begin(t, "ws.closed\",\"gen\":")
        sink.put(int: gen)
        sink.put(",\"code\":")
        sink.put(int: code)
        if let reason { putString(",\"reason\":\"", reason) }
        end(t)
    }

    func wsErrorLine(_ t: Int, _ head: StaticString, _ gen: Int, _ error: StaticString) {
        genLine(t, head, gen, ",\"error\":\"", error)
    }

    func wsClosed(_ t: Int) {
        ws.closedAt = never
        wsClosedLine(t, ws.closedGen, code: ws.closedCode, reason: nil)
        if ws.closedStaleState && ws.closedGen < ws.gen {
            // Fault: the replaced generation's late callback changes what the user sees.
            wsStateLine(t, ws.closedGen, "disconnected")
            injected(.staleStateAfterReplace)
            ws.closedStaleState = false
        }
    }

    func wsDeferred(_ t: Int) {
        ws.deferredAt = never
        let kind = ws.deferred
        ws.deferred = .none
        let gen = ws.deferredGen
        switch kind {
        case .none:
            break
        case let .scene(background):
            if ws.live && ws.gen == gen {
                wsClientClose(t, background ? "background" : "inactive")
                wsScheduleClosed(t, gen, code: 1001)
            }
        case .lateBackground:
            if ws.live && ws.gen == gen {
                wsClientClose(t, "background", faultable: false)
                wsScheduleClosed(t, gen, code: 1001)
            }
        case .second:
            wsCloseLine(t, gen, "user")
            injected(.doubleClose)
        case .replacedLate:
            wsCloseLine(t, gen, "replaced")
            ws.closedAt = t + rng.range(5, 150)
            ws.closedGen = gen
            ws.closedCode = 1000
            ws.closedStaleState = false
        }
    }

    // MARK: - Reconnecting

    /// Schedules the next attempt with jittered exponential backoff (seed 002), or gives up after
    /// ten attempts in a row.
    func wsReconnect(_ t: Int, recordAs: FaultKind?) {
        let faultable = recordAs == nil
        if ws.attempts == 0 && rng.chance(0.03) {
            // A network outage: every attempt fails until it is over.
            ws.outageUntil = t + rng.range(2_000, 150_000)
        }
        ws.attempts += 1
        var kind = recordAs
        if ws.attempts > 10 {
            if ws.attempts == 11 && faultable && fault(.attemptOverLimit) {
                kind = .attemptOverLimit
            } else {
                // Give up; try again from scratch much later.
                ws.attempts = 0
                ws.connectAt = t + rng.range(20_000, 90_000)
                return
            }
        }
        var attempt = ws.attempts
        if faultable && ws.healthy && attempt == 1 && fault(.attemptNotReset) {
            attempt = 2
            ws.attempts = 2
            kind = .attemptNotReset
        }
        let base = min(100 << min(attempt, 20), 10_000)
        var delay = base / 2 + rng.range(0, base / 2)
        if faultable && kind == nil && fault(.backoffOutOfRange) {
            delay =
                rng.chance(0.5) ? base + rng.range(1, base / 2) : base / 2 - rng.range(1, base / 4)
            kind = .backoffOutOfRange
        }
        begin(t, "ws.reconnect\",\"attempt\":")
        sink.put(int: attempt)
        sink.put(",\"delay_ms\":")
        sink.put(int: delay)
        end(t)
        if let kind { injected(kind) }
        ws.healthy = false
        ws.connectAt = t + delay
    }
}

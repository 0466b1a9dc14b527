// The WebSocket client of a simulated device: generations, the heartbeat (seed 000/001), reconnect
// with jittered exponential backoff and fatal-only ping errors (seed 002), and the app lifecycle.

/// What a connection attempt is forced to do (the first session's script, which makes every device
/// show all four outcomes `ws.required-outcomes` asks for).
enum ForcedOutcome {
    case connectFailure
    case immediateClose
    case pongTimeout
}

enum ScenePhase {
    case active, inactive, background
}

/// A close the client owes at a later time.
enum DeferredClose {
    case none
    /// The app left the foreground: close the live generation (reason inactive/background).
    case scene(background: Bool)
    /// Fault: the background close comes after `release_ms`.
    case lateBackground
    /// Fault: a second close of the same generation.
    case second
    /// Fault: the replaced generation is closed after its successor connected.
    case replacedLate
}

enum PingFate {
    case onTime, missing, late, error
}

struct WebSocketState {
    var next = never
    var done = false

    // Slots
    var connectAt = never
    var openAt = never
    var failAt = never
    var pingAt = never
    var pongAt = never
    var pingErrorAt = never
    var timeoutCloseAt = never
    var messageAt = never
    var incidentAt = never
    var closedAt = never
    var reconnectAt = never
    var sceneAt = never
    var deferredAt = never

    // The current generation
    var gen = 0
    var maxGen = 0
    var live = false
    var connected = false
    var awaiting = false
    var pingT = 0
    var deadline = 0
    var openGen = 0
    var immediate = false
    var errorIsFatal = false
    var failError = 0

    // The client
    var attempts = 0
    var healthy = false
    var transientPending = false
    var outageUntil = 0
    var script: [ForcedOutcome] = []
    var forcedTimeoutAfter = -1
    var scene = ScenePhase.active
    var sceneTarget = ScenePhase.active
    var initialScene = true

    // Pending transport callback of an ended generation
    var closedGen = 0
    var closedCode = 1000
    var closedStaleState = false

    var deferred = DeferredClose.none
    var deferredGen = 0

    // Faults in flight
    var judgeUntil = 0
    var extraPing = false
    var lateExtends = false
    var prematureClose = false
    var lateTimeoutClose = false
    var usedGenZero = false
    var pendingPingFault: FaultKind?
    /// The fault that decided the outstanding ping's fate.
    var pingFault: FaultKind?
    /// A heartbeat fault was injected in this generation: at most one per generation, since a
    /// second one could be excused by the first (an earlier unanswered ping justifies any later
    /// timeout close).
    var heartbeatFaulted = false

    mutating func updateNext() {
        next =
            done
            ? never
            : min(
                connectAt, openAt, failAt, pingAt, pongAt, pingErrorAt, timeoutCloseAt, messageAt,
                incidentAt, closedAt, reconnectAt, sceneAt, deferredAt)
    }
}

/// Faults that decide a ping's fate, tried in this order at each ping.
private let pingFaults: [FaultKind] = [
    .doublePing, .latePongExtendsLife, .timeoutCloseLate, .transientErrorReconnect,
    .reconnectWhileOpen
]
private let connectErrors: [StaticString] = [
    "NSURLErrorDomain:-1004", "NSURLErrorDomain:-1001", "NSURLErrorDomain:-1200",
    "NSPOSIXErrorDomain:61"
]
private let fatalPingErrors: [StaticString] = [
    "NSURLErrorDomain:-1005", "NSURLErrorDomain:-1009", "NSPOSIXErrorDomain:54",
    "NSPOSIXErrorDomain:32",
    "URLError.networkConnectionLost", "POSIXError.ECONNRESET", "WebSocketError:3"
]
private let transientPingErrors: [StaticString] = [
    "NSURLErrorDomain:-1001", "NSURLErrorDomain:-1011", "NSPOSIXErrorDomain:60", "URLError.timedOut"
]
let receiveErrors: [StaticString] = [
    "NSPOSIXErrorDomain:54", "NSURLErrorDomain:-1005", "NSPOSIXErrorDomain:57"
]

extension Device {
    // MARK: - Session and step

    func wsStartSession(_ origin: Int, scripted: Bool) {
        ws.sceneAt = origin
        ws.sceneTarget = .active
        ws.initialScene = true
        ws.connectAt = origin + rng.range(1, 60)
        if scripted { ws.script = [.connectFailure, .immediateClose, .pongTimeout] }
        ws.updateNext()
    }

    func wsStep(_ t: Int) {
        if endRequested && wsSafeToEnd(t) {
            wsFinish(t)
        } else if ws.pongAt == t {
            wsPong(t)
        } else if ws.pingErrorAt == t {
            wsPingError(t)
        } else if ws.timeoutCloseAt == t {
            wsTimeoutClose(t)
        } else if ws.deferredAt == t {
            wsDeferred(t)
        } else if ws.incidentAt == t {
            wsIncident(t)
        } else if ws.messageAt == t {
            ws.messageAt = t + rng.gap(mean: 700, min: 1, max: 20_000)
            genLine(t, "ws.message\",\"gen\":", ws.gen)
        } else if ws.pingAt == t {
            wsPing(t)
        } else if ws.closedAt == t {
            wsClosed(t)
        } else if ws.reconnectAt == t {
            ws.reconnectAt = never
            if ws.scene == .active { wsReconnect(t, recordAs: nil) }
        } else if ws.connectAt == t {
            wsConnect(t, fault: nil)
        } else if ws.openAt == t {
            wsOpen(t)
        } else if ws.failAt == t {
            wsFail(t)
        } else {
            wsScene(t)
        }
        ws.updateNext()
    }

    /// Whether the session may end here without leaving a rule's window open.
    func wsSafeToEnd(_ t: Int) -> Bool {
        !ws.awaiting && ws.deferredAt == never && ws.timeoutCloseAt == never && t >= ws.judgeUntil
            && !ws.extraPing && ws.pendingPingFault == nil && ws.script.isEmpty
            && ws.forcedTimeoutAfter < 0
    }

    /// Ends the session: the live generation is closed and the app goes to the background (a last
    /// line at or after every window a fault left open, so no rule is left inconclusive).
    func wsFinish(_ t: Int) {
        if ws.live {
            wsCloseLine(t, ws.gen, "user")
            wsStateLine(t, ws.gen, "disconnected")
        }
        if ws.scene == .active || lastT < ws.judgeUntil {
            sceneLine(t, "background")
        }
        ws = WebSocketState()
        ws.done = true
    }

    // MARK: - Lines

    func wsCloseLine(_ t: Int, _ gen: Int, _ reason: StaticString?) {
        begin(t, "ws.close\",\"gen\":")
        sink.put(int: gen)
        if let reason { putString(",\"reason\":\"", reason) }
        end(t)
    }

    func wsStateLine(_ t: Int, _ gen: Int, _ state: StaticString) {
        genLine(t, "ws.state\",\"gen\":", gen, ",\"state\":\"", state)
    }

    /// The client closes the current generation, ending it. A close without a reason is the
    /// `close_without_reason` fault, only where no ping waits (so no timeout rule is involved).
    func wsClientClose(_ t: Int, _ reason: StaticString, faultable: Bool = true) {
        if faultable && !ws.awaiting && fault(.closeWithoutReason) {
            wsCloseLine(t, ws.gen, nil)
            injected(.closeWithoutReason)
        } else {
            wsCloseLine(t, ws.gen, reason)
        }
        wsStateLine(t, ws.gen, "disconnected")
        wsEndGen()
    }

    /// Forgets everything the current generation had scheduled.
    func wsEndGen() {
        ws.live = false
        ws.connected = false
        ws.awaiting = false
        ws.extraPing = false
        ws.lateExtends = false
        ws.prematureClose = false
        ws.lateTimeoutClose = false
        ws.pendingPingFault = nil
        ws.pingFault = nil
        ws.pingAt = never
        ws.pongAt = never
        ws.pingErrorAt = never
        ws.timeoutCloseAt = never
        ws.messageAt = never
        ws.incidentAt = never
        ws.failAt = never
        // A connection cancelled while connecting may still report open, late: a stale callback.
        if ws.openAt != never && !rng.chance(0.5) { ws.openAt = never }
    }

    /// The transport's close callback for `gen`, some milliseconds after the client ended it.
    func wsScheduleClosed(_ t: Int, _ gen: Int, code: Int, staleState: Bool = false) {
        ws.closedAt = t + rng.range(5, 150)
        ws.closedGen = gen
        ws.closedCode = code
        ws.closedStaleState = staleState
    }

    // MARK: - Connecting

    func wsConnect(_ t: Int, fault kind: FaultKind?) {
        ws.connectAt = never
        guard ws.scene == .active else { return }
        var recorded = kind
        if ws.maxGen >= 2 && !ws.usedGenZero && ws.script.isEmpty && recorded == nil
            && fault(.generationNotIncreasing)
        {
            ws.usedGenZero = true
            ws.gen = 0
            recorded = .generationNotIncreasing
        } else {
            ws.maxGen += 1
            ws.gen = ws.maxGen
        }
        ws.live = true
        ws.connected = false
        ws.awaiting = false
        ws.heartbeatFaulted = false
        begin(t, "ws.connect\",\"gen\":")
        sink.put(int: ws.gen)
        sink.put(",\"interval_ms\":")
        sink.put(int: interval)
        sink.put(",\"timeout_ms\":")
        sink.put(int: timeout)
        end(t)
        if let recorded { injected(recorded) }
        wsStateLine(t, ws.gen, "connecting")

        let forced: ForcedOutcome? = ws.script.isEmpty ? nil : ws.script.removeFirst()
        ws.forcedTimeoutAfter = -1
        ws.immediate = false
        let inOutage = t < ws.outageUntil
        if forced == .connectFailure || (forced == nil && (inOutage || rng.chance(0.04))) {
            ws.failAt = t + (inOutage ? rng.range(1, 400) : rng.range(300, 6_000))
            ws.failError = inOutage ? -1 : rng.below(connectErrors.count)
            ws.openAt = never
        } else {
            ws.openAt = t + (rng.chance(0.05) ? rng.range(300, 3_000) : rng.range(15, 250))
            ws.openGen = ws.gen
            ws.immediate = forced == .immediateClose || (forced == nil && rng.chance(0.03))
            if forced == .pongTimeout { ws.forcedTimeoutAfter = rng.range(1, 3) }
        }
    }

    func wsFail(_ t: Int) {
        ws.failAt = never
        begin(t, "ws.connect_failed\",\"gen\":")
        sink.put(int: ws.gen)
        putString(
            ",\"error\":\"",
            ws.failError < 0 ? "NSURLErrorDomain:-1009" : connectErrors[ws.failError])
        end(t)
        wsStateLine(t, ws.gen, "disconnected")
        ws.openAt = never
        wsEndGen()
        ws.reconnectAt = t + rng.range(0, 10)
    }

    func wsOpen(_ t: Int) {
        ws.openAt = never
        let gen = ws.openGen
        guard ws.live && gen == ws.gen && !ws.connected else {
            // A stale open of a generation that already ended: it changes nothing.
            genLine(t, "ws.open\",\"gen\":", gen)
            return
        }
        genLine(t, "ws.open\",\"gen\":", gen)
        wsStateLine(t, gen, "connected")
        ws.connected = true
        ws.transientPending = false
        if ws.immediate {
            ws.incidentAt = t + rng.range(1, min(80, interval - 1))
        } else {
            ws.pingAt = t + interval + rng.range(0, 15)
            ws.messageAt = t + rng.gap(mean: 700, min: 1, max: 20_000)
            ws.incidentAt =
                ws.forcedTimeoutAfter >= 0
                ? never : t + rng.gap(mean: 45_000, min: 300, max: 900_000)
        }
    }

    // MARK: - Heartbeat

    func wsPing(_ t: Int) {
        ws.pingAt = never
        genLine(t, "ws.ping\",\"gen\":", ws.gen)
        if ws.extraPing {
            // The second ping of the double_ping fault; its pong answers both, before the first
            // deadline.
            injected(.doublePing)
            ws.extraPing = false
            ws.pongAt = min(t + rng.range(2, 30), ws.deadline - 1)
            return
        }
        if let kind = ws.pendingPingFault {
            injected(kind)
            ws.pendingPingFault = nil
        }
        ws.awaiting = true
        ws.pingT = t
        ws.deadline = t + timeout

        // Each ping is an opportunity for the heartbeat faults; a fault decides the ping's fate.
        var fate = PingFate.onTime
        var faultKind: FaultKind?
        if ws.forcedTimeoutAfter == 0 {
            fate = .missing
            ws.forcedTimeoutAfter = -1
        } else if ws.forcedTimeoutAfter > 0 {
            fate = .onTime
        } else {
            if faults.active && !ws.heartbeatFaulted {
                for kind in pingFaults where fault(kind) {
                    faultKind = kind
                    ws.heartbeatFaulted = true
                    break
                }
            }
            switch faultKind {
            case .doublePing?: fate = .onTime
            case .latePongExtendsLife?: fate = .late
            case .timeoutCloseLate?: fate = .missing
            case .transientErrorReconnect?, .reconnectWhileOpen?: fate = .error
            default:
                switch rng.pick([9_970, 10, 6, 14]) {
                case 0: fate = .onTime
                case 1: fate = .missing
                case 2: fate = .late
                default: fate = .error
                }
            }
        }
        ws.pingFault = faultKind
        switch fate {
        case .onTime:
            if faultKind == .doublePing {
                ws.extraPing = true
                ws.pingAt = t + rng.range(10, min(200, timeout / 4))
            } else {
                let rtt =
                    rng.chance(0.01)
                    ? rng.range(150, timeout - 1) : rng.gap(mean: 35, min: 2, max: timeout - 1)
                ws.pongAt = t + rtt
            }
        case .missing:
            if faultKind == .timeoutCloseLate {
                ws.timeoutCloseAt = ws.deadline + tickSlack + rng.range(1, 300)
                ws.lateTimeoutClose = true
            } else {
                ws.timeoutCloseAt = ws.deadline + rng.range(0, 200)
            }
        case .late:
            ws.pongAt = ws.deadline + rng.range(0, 120)
            if faultKind == .latePongExtendsLife {
                ws.lateExtends = true
            } else {
                ws.timeoutCloseAt = rng.range(ws.pongAt, ws.deadline + 240)
            }
        case .error:
            ws.pingErrorAt = t + rng.range(1, min(300, timeout - 1))
            switch faultKind {
            case .transientErrorReconnect?: ws.errorIsFatal = false
            case .reconnectWhileOpen?: ws.errorIsFatal = true
            default: ws.errorIsFatal = rng.chance(0.6)
            }
        }
    }

    func wsPong(_ t: Int) {
        ws.pongAt = never
        genLine(t, "ws.pong\",\"gen\":", ws.gen)
        // A pong of a connected generation: the connection works, the backoff starts over.
        ws.healthy = true
        ws.attempts = 0
        if t < ws.deadline {
            ws.awaiting = false
            if ws.forcedTimeoutAfter > 0 { ws.forcedTimeoutAfter -= 1 }
            let faultable = ws.forcedTimeoutAfter < 0 && !ws.heartbeatFaulted
            if faultable && fault(.pingTooEarly) {
                ws.pingAt = t + interval - rng.range(1, min(30, interval - 1))
                ws.pendingPingFault = .pingTooEarly
                ws.heartbeatFaulted = true
            } else if faultable && fault(.prematureTimeout) {
                ws.timeoutCloseAt = t + rng.range(1, max(1, interval / 2))
                ws.prematureClose = true
                ws.heartbeatFaulted = true
            } else {
                ws.pingAt = t + interval + rng.range(0, 15)
            }
        } else if ws.lateExtends {
            // Fault: the late pong is taken as proof of life; the heartbeat goes on.
            ws.awaiting = false
            ws.lateExtends = false
            ws.pingAt = t + interval + rng.range(0, 15)
            ws.pendingPingFault = .latePongExtendsLife
            ws.judgeUntil = max(ws.deadline + tickSlack + 1, ws.pingAt + 1)
            if ws.incidentAt != never { ws.incidentAt = max(ws.incidentAt, ws.pingAt + 1) }
        }
        // Otherwise a late pong: the pong_timeout close is already scheduled.
    }

    func wsPingError(_ t: Int) {
        ws.pingErrorAt = never
        let fatal = ws.errorIsFatal
        begin(t, "ws.ping_error\",\"gen\":")
        sink.put(int: ws.gen)
        putString(
            ",\"error\":\"",
            fatal
                ? fatalPingErrors[rng.below(fatalPingErrors.count)]
                : transientPingErrors[rng.below(transientPingErrors.count)])
        end(t)
        let gen = ws.gen
        let faultKind = ws.pingFault
        ws.pingFault = nil
        if fatal {
            if faultKind == .reconnectWhileOpen {
                wsReconnect(t, recordAs: .reconnectWhileOpen)
                wsClientClose(t, "error", faultable: false)
                wsScheduleClosed(t, gen, code: 1006)
            } else {
                wsClientClose(t, "error", faultable: false)
                wsScheduleClosed(t, gen, code: 1006)
                ws.reconnectAt = t + rng.range(0, 10)
            }
        } else if faultKind == .transientErrorReconnect {
            wsClientClose(t, "error", faultable: false)
            wsReconnect(t, recordAs: .transientErrorReconnect)
            wsScheduleClosed(t, gen, code: 1006)
        } else {
            // A transient error: not a reason to reconnect. The deadline decides; the reconnect
            // waits for the transport's close callback, which clears the pending error.
            ws.transientPending = true
            ws.timeoutCloseAt = ws.deadline + rng.range(0, 200)
        }
    }

    func wsTimeoutClose(_ t: Int) {
        ws.timeoutCloseAt = never
        let premature = ws.prematureClose
        let late = ws.lateTimeoutClose
        let gen = ws.gen
        wsCloseLine(t, gen, "pong_timeout")
        if premature { injected(.prematureTimeout) }
        if late { injected(.timeoutCloseLate) }
        wsStateLine(t, gen, "disconnected")
        wsEndGen()
        wsScheduleClosed(t, gen, code: 1001)
        if ws.transientPending {
            ws.reconnectAt = ws.closedAt + rng.range(0, 5)
            ws.transientPending = false
        } else {
            ws.reconnectAt = t + rng.range(0, 10)
        }
    }
}

// The network-path hint of a simulated device (seed 004): an NWPathMonitor-like monitor with
// generations, the app's hint that follows only the current monitor's updates, and HTTP requests
// that the hint may hold back (background ones, when the path is known to be unavailable).

/// The app's hint, as written in `path.state`.
enum Hint: Int {
    case unknown, available, needsConnection, unavailable

    var name: StaticString {
        switch self {
        case .unknown: return "unknown"
        case .available: return "available"
        case .needsConnection: return "needsConnection"
        case .unavailable: return "unavailable"
        }
    }
}

/// A monitor's `path.update` status.
enum PathStatus: Int {
    case satisfied, requiresConnection, unsatisfied

    var name: StaticString {
        switch self {
        case .satisfied: return "satisfied"
        case .requiresConnection: return "requiresConnection"
        case .unsatisfied: return "unsatisfied"
        }
    }

    var hint: Hint {
        switch self {
        case .satisfied: return .available
        case .requiresConnection: return .needsConnection
        case .unsatisfied: return .unavailable
        }
    }
}

struct PathState {
    var next = never
    var done = false

    // Slots
    var startAt = never
    var updateAt = never
    var restartAt = never
    var staleAt = never
    var httpAt = never

    var gen = 0
    var hint = Hint.unknown
    var hintExpensive = false
    var hintConstrained = false
    var status = PathStatus.satisfied
    var expensive = false
    var constrained = false
    var firstUpdateSeen = false
    /// A path.state was written since the last path.update or path.start.
    var stateSinceChange = false
    var staleGen = 0
    var staleApply = false

    mutating func updateNext() {
        next = done ? never : min(startAt, updateAt, restartAt, staleAt, httpAt)
    }
}

private let requestErrors: [StaticString] = [
    "NSURLErrorDomain:-1001", "NSURLErrorDomain:-1005", "NSURLErrorDomain:-1009",
    "NSURLErrorDomain:-1004"
]

extension Device {
    func pathStartSession(_ origin: Int) {
        if usesPath { path.startAt = origin + rng.range(0, 30) }
        path.httpAt = origin + rng.range(100, 5_000)
        path.updateNext()
    }

    func pathStep(_ t: Int) {
        if endRequested && !path.staleApply {
            path = PathState()
            path.done = true
        } else if path.startAt == t {
            path.startAt = never
            path.gen += 1
            genLine(t, "path.start\",\"gen\":", path.gen)
            setHint(t, path.gen, .unknown, expensive: false, constrained: false)
            path.stateSinceChange = true
            path.firstUpdateSeen = false
            path.updateAt = t + rng.range(3, 40)
            path.restartAt = t + rng.gap(mean: 400_000, min: 10_000, max: 3_600_000)
        } else if path.restartAt == t {
            pathRestart(t)
        } else if path.updateAt == t {
            pathUpdate(t)
        } else if path.staleAt == t {
            pathStale(t)
        } else {
            pathRequest(t)
        }
        path.updateNext()
    }

    /// Makes `hint` the app's hint and writes it as monitor `gen`'s `path.state`.
    private func setHint(_ t: Int, _ gen: Int, _ hint: Hint, expensive: Bool, constrained: Bool) {
        pathStateLine(t, gen, hint, expensive: expensive, constrained: constrained)
        path.hint = hint
        path.hintExpensive = expensive
        path.hintConstrained = constrained
    }

    // MARK: - Lines

    private func pathUpdateLine(
        _ t: Int, _ gen: Int, _ status: PathStatus, expensive: Bool, constrained: Bool
    ) {
        begin(t, "path.update\",\"gen\":")
        sink.put(int: gen)
        putString(",\"status\":\"", status.name)
        if expensive {
            sink.put(",\"expensive\":true")
        } else if gen & 1 == 0 {
            sink.put(",\"expensive\":false")
        }
        if constrained { sink.put(",\"constrained\":true") }
        end(t)
    }

    private func pathStateLine(
        _ t: Int, _ gen: Int, _ hint: Hint, expensive: Bool, constrained: Bool
    ) {
        begin(t, "path.state\",\"gen\":")
        sink.put(int: gen)
        putString(",\"state\":\"", hint.name)
        if expensive { sink.put(",\"expensive\":true") }
        if constrained { sink.put(",\"constrained\":true") }
        end(t)
    }

    /// The network changes: a new status, mostly flipping between satisfied and unsatisfied.
    private func pathNextStatus() {
        if path.status == .satisfied && path.firstUpdateSeen {
            switch rng.pick([70, 12, 14, 4]) {
            case 0: break
            case 1: path.expensive.toggle()
            case 2: path.status = .unsatisfied
            default: path.status = .requiresConnection
            }
            if rng.chance(0.03) { path.constrained.toggle() }
        } else {
            switch rng.pick([88, 4, 8]) {
            case 0: path.status = .satisfied
            case 1: path.status = .requiresConnection
            default: path.status = .unsatisfied
            }
        }
    }

    // MARK: - The monitor

    private func pathUpdate(_ t: Int) {
        path.updateAt = never
        pathNextStatus()
        pathUpdateLine(
            t, path.gen, path.status, expensive: path.expensive, constrained: path.constrained)
        let want = path.status.hint
        let changed =
            want != path.hint || path.expensive != path.hintExpensive
            || path.constrained != path.hintConstrained
        path.stateSinceChange = false
        if changed && fault(.stateMismatch) {
            // The hint gets the flags wrong.
            setHint(t, path.gen, want, expensive: !path.expensive, constrained: path.constrained)
            injected(.stateMismatch)
            path.stateSinceChange = true
        } else if changed {
            setHint(t, path.gen, want, expensive: path.expensive, constrained: path.constrained)
            path.stateSinceChange = true
        }
        path.firstUpdateSeen = true
        let mean = path.status == .satisfied ? 40_000.0 : 8_000.0
        path.updateAt = t + rng.gap(mean: mean, min: 300, max: 900_000)
    }

    /// The monitor is cancelled and a new one started; the old one's last callbacks may still come.
    private func pathRestart(_ t: Int) {
        path.restartAt = never
        if path.staleAt != never {
            path.restartAt = t + 1_000
            return
        }
        let old = path.gen
        genLine(t, "path.cancel\",\"gen\":", old)
        path.gen += 1
        genLine(t, "path.start\",\"gen\":", path.gen)
        if path.hint != .unknown && fault(.stateBeforeFirstUpdate) {
            // The new monitor's hint repeats the old one before it has said anything.
            pathStateLine(
                t, path.gen, path.hint, expensive: path.hintExpensive,
                constrained: path.hintConstrained)
            injected(.stateBeforeFirstUpdate)
        } else {
            setHint(t, path.gen, .unknown, expensive: false, constrained: false)
        }
        path.stateSinceChange = true
        path.firstUpdateSeen = false
        path.status = .satisfied
        path.updateAt = t + rng.range(3, 60)
        if fault(.staleUpdateApplied) {
            path.staleAt = path.updateAt + rng.range(1, 50)
            path.staleGen = old
            path.staleApply = true
        } else if rng.chance(0.4) {
            path.staleAt = t + rng.range(0, 100)
            path.staleGen = old
        }
        path.restartAt = t + rng.gap(mean: 400_000, min: 10_000, max: 3_600_000)
    }

    /// A callback of a cancelled monitor: ignored (stale_update_applied fault: it sets the hint).
    private func pathStale(_ t: Int) {
        path.staleAt = never
        let status: PathStatus = rng.chance(0.5) ? .satisfied : .unsatisfied
        let expensive = rng.chance(0.2)
        pathUpdateLine(t, path.staleGen, status, expensive: expensive, constrained: false)
        path.stateSinceChange = false
        if path.staleApply {
            path.staleApply = false
            setHint(t, path.staleGen, status.hint, expensive: expensive, constrained: false)
            injected(.staleUpdateApplied)
            path.stateSinceChange = true
        }
    }

    // MARK: - Requests

    private func pathRequest(_ t: Int) {
        path.httpAt = t + rng.gap(mean: 4_000, min: 20, max: 120_000)
        let user = rng.chance(0.3)
        if fault(.malformedLine) {
            malformedLine(t)
            return
        }
        if fault(.secretInField) {
            secretLine(t, user: user)
            return
        }
        if lastFile == sink.fileIndex && lastT > 60 && fault(.timeRegression) {
            let back = lastT - rng.range(1, 50)
            requestLine(back, ok: true, error: nil, user: user)
            injected(.timeRegression)
            return
        }
        if path.hint == .unavailable {
            if !user {
                begin(t, "http.blocked\",\"user\":false")
                end(t)
            } else if fault(.blockedUserRequest) {
                begin(t, "http.blocked\",\"user\":true")
                end(t)
                injected(.blockedUserRequest)
            } else {
                requestLine(t, ok: false, error: "NSURLErrorDomain:-1009", user: true)
            }
            return
        }
        let ok = rng.chance(0.95)
        requestLine(
            t, ok: ok, error: ok ? nil : requestErrors[rng.below(requestErrors.count)], user: user)
        if !ok && usesPath && path.firstUpdateSeen && path.stateSinceChange
            && path.hint == .available
            && fault(.requestOverridesHint)
        {
            // A failed request makes the app believe it is offline.
            setHint(t, path.gen, .unavailable, expensive: false, constrained: false)
            injected(.requestOverridesHint)
        }
    }

    private func requestLine(_ t: Int, ok: Bool, error: StaticString?, user: Bool) {
        begin(t, ok ? "http.request\",\"ok\":true,\"status\":200" : "http.request\",\"ok\":false")
        if let error { putString(",\"error\":\"", error) }
        sink.put(",\"ms\":")
        sink.put(int: rng.gap(mean: 120, min: 3, max: 30_000))
        if user { sink.put(",\"user\":true") }
        end(t)
    }

    /// A request line with a secret in it: one offending key path per line.
    private func secretLine(_ t: Int, user: Bool) {
        begin(t, "http.request\",\"ok\":true,\"status\":200")
        switch rng.below(4) {
        case 0: sink.put(",\"headers\":{\"Authorization\":\"Bearer 9f8e7d6c5b4a39281706f5e4\"}")
        case 1: sink.put(",\"token\":\"a1b2c3d4e5f60718\"")
        case 2:
            sink.put(
                ",\"url\":\"https://api.example.com/feed?jwt=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2ln\""
            )
        default: sink.put(",\"note\":\"retried with bearer abcdefgh12345678\"")
        }
        sink.put(",\"ms\":")
        sink.put(int: rng.gap(mean: 120, min: 3, max: 30_000))
        if user { sink.put(",\"user\":true") }
        end(t)
        injected(.secretInField)
    }

    /// A line that is not a valid connlog event (it takes no part in any timeline).
    private func malformedLine(_ t: Int) {
        let saveT = lastT
        let saveFile = lastFile
        switch rng.below(4) {
        case 0:
            // Cut off mid-line (a crash while writing).
            begin(t, "http.requ")
            sink.put("\n")
            sink.fileLines &+= 1
            sink.totalLines &+= 1
        case 1:
            // The event name missing (empty).
            begin(t, "\",\"ok\":true")
            end(t)
        case 2:
            // gen as a string.
            begin(t, "ws.message\",\"gen\":\"")
            sink.put(int: ws.gen)
            sink.put("\"")
            end(t)
        default:
            // t as a string.
            sink.put("{\"t\":\"")
            sink.put(int: t)
            sink.put("\"")
            putPrefix()
            sink.put("http.request\",\"ok\":true")
            end(t)
        }
        lastT = saveT
        lastFile = saveFile
        injected(.malformedLine)
    }
}

// Seed 004: an NWPathMonitor-based network hint that never overrides or outguesses the monitor.

// MARK: - The seed's model

/// A port of seed 004's `NetworkHint`, with the app policy the seed states in prose.
///
/// `restart()` raises the generation (invalidating the old monitor's queued callbacks) and resets
/// the hint to unknown; `accept` applies an update only from the current generation. The policy:
/// a request result never changes the hint; requests go out while the hint is unknown or
/// `needsConnection`; only a background request may be held back, and only while the path is known
/// to be unavailable.
struct PathHintModel {
    enum PathState: String, Equatable, Sendable {
        case unknown, available, needsConnection, unavailable
    }

    /// Known bugs the seed warns about.
    enum Mutant: String, CaseIterable, Sendable {
        /// The generation guard removed: a cancelled monitor's queued update changes the hint.
        case staleUpdateApplied
        /// A failed request marks the app offline.
        case requestOverridesHint
        /// Anything but `available` blocks background requests (unknown taken as offline).
        case blocksWhileUnknown
        /// The user's own retry is blocked while unavailable.
        case blocksUserRequest
        /// A (re)started monitor claims `available` before its first callback.
        case startsAvailable
    }

    private(set) var generation = 0
    private(set) var state = PathState.unknown
    private(set) var expensive = false
    private(set) var constrained = false
    let mutant: Mutant?

    init(mutant: Mutant? = nil) { self.mutant = mutant }

    mutating func restart() -> Int {
        generation += 1
        state = mutant == .startsAvailable ? .available : .unknown
        expensive = false
        constrained = false
        return generation
    }

    mutating func accept(
        generation incoming: Int,
        state next: PathState,
        expensive: Bool = false,
        constrained: Bool = false
    ) {
        guard incoming == generation || mutant == .staleUpdateApplied else { return }
        state = next
        self.expensive = expensive
        self.constrained = constrained
    }

    // MARK: The app's policy (seed 004's prose)

    /// May a request be held back? Never for the user, never on a guess.
    func blocks(user: Bool) -> Bool {
        switch mutant {
        case .blocksWhileUnknown?: return !user && state != .available
        case .blocksUserRequest?: return state == .unavailable
        default: return !user && state == .unavailable
        }
    }

    /// A request failed: the request result model's business, not the hint's.
    mutating func requestFailed() {
        if mutant == .requestOverridesHint { state = .unavailable }
    }

    /// `NWPath.Status` to the hint; an unknown future status is unknown.
    static func state(for status: String) -> PathState {
        switch status {
        case "satisfied": return .available
        case "requiresConnection": return .needsConnection
        case "unsatisfied": return .unavailable
        default: return .unknown
        }
    }
}

// MARK: - The seed's own checks

extension PathHintModel {
    /// Runs the seed's precondition sequence (`NetworkStateCheck.swift`) and returns the checks
    /// that fail; empty for a faithful port.
    static func seedPreconditionFailures(_ mutant: Mutant? = nil) -> [String] {
        var failures: [String] = []
        func check(_ ok: Bool, _ text: String) { if !ok { failures.append(text) } }

        var hint = PathHintModel(mutant: mutant)
        check(hint.state == .unknown, "hint.state == .unknown")

        let old = hint.restart()
        hint.accept(generation: old, state: .available, expensive: true)
        check(
            hint.state == .available && hint.expensive, "hint.state == .available && hint.expensive"
        )

        let current = hint.restart()
        hint.accept(generation: old, state: .unavailable)
        check(hint.state == .unknown, "hint.state == .unknown (after the stale update)")

        hint.accept(generation: current, state: .needsConnection)
        check(hint.state == .needsConnection, "hint.state == .needsConnection")

        hint.accept(generation: current, state: .available, constrained: true)
        check(hint.constrained && !hint.expensive, "hint.constrained && !hint.expensive")

        hint.accept(generation: current, state: .unavailable)
        check(hint.state == .unavailable, "hint.state == .unavailable")

        hint.accept(generation: current, state: .available)
        check(
            hint.state == .available && !hint.constrained,
            "hint.state == .available && !hint.constrained")
        return failures
    }
}

// MARK: - The adapter that logs

/// The monitor adapter and the app's request gate around `PathHintModel`, writing connlog lines:
/// `path.start`/`path.cancel` for monitors, `path.update` for every callback as it arrives (with
/// the generation it captured), `path.state` whenever the hint (or its flags) changes, with the
/// generation whose event changed it, and `http.request`/`http.blocked` for requests.
struct PathHintDriver {
    enum RequestResult {
        case ok
        case failed(String)
    }

    private(set) var model: PathHintModel
    private(set) var log = ConnlogWriter(src: "path-hint")
    private var shown: (state: PathHintModel.PathState, expensive: Bool, constrained: Bool)?

    init(mutant: PathHintModel.Mutant? = nil) { model = PathHintModel(mutant: mutant) }

    /// The app launches: the hint is unknown.
    mutating func launch(at t: Int) { show(gen: 0, at: t) }

    /// Restarts monitoring: a new generation first, then the old monitor cancelled, then a new one.
    @discardableResult
    mutating func restart(at t: Int) -> Int {
        let old = model.generation
        let gen = model.restart()
        if old > 0 { log.write(t, "path.cancel", ["gen": .int(old)]) }
        log.write(t, "path.start", ["gen": .int(gen)])
        show(gen: gen, at: t)
        return gen
    }

    /// A path callback of monitor `gen`.
    mutating func update(
        _ gen: Int, _ status: String, expensive: Bool = false, constrained: Bool = false, at t: Int
    ) {
        log.write(
            t, "path.update",
            [
                "gen": .int(gen), "status": .string(status), "expensive": .bool(expensive),
                "constrained": .bool(constrained)
            ])
        let state = PathHintModel.state(for: status)
        model.accept(generation: gen, state: state, expensive: expensive, constrained: constrained)
        show(gen: gen, at: t)
    }

    /// The app wants to send a request; the network answers with `result` if it is sent.
    mutating func request(user: Bool, result: RequestResult, at t: Int) {
        if model.blocks(user: user) {
            log.write(t, "http.blocked", ["user": .bool(user)])
            return
        }
        switch result {
        case .ok:
            log.write(t, "http.request", ["ok": true, "user": .bool(user)])
        case .failed(let error):
            log.write(
                t, "http.request", ["ok": false, "error": .string(error), "user": .bool(user)])
            model.requestFailed()
            show(gen: model.generation, at: t)
        }
    }

    /// Monitoring stops.
    mutating func stop(at t: Int) {
        log.write(t, "path.cancel", ["gen": .int(model.generation)])
    }

    private mutating func show(gen: Int, at t: Int) {
        let now = (state: model.state, expensive: model.expensive, constrained: model.constrained)
        if let shown, shown == now { return }
        shown = now
        log.write(
            t, "path.state",
            [
                "gen": .int(gen), "state": .string(now.state.rawValue),
                "expensive": .bool(now.expensive),
                "constrained": .bool(now.constrained)
            ])
    }
}

// MARK: - The scenario

extension PathHintDriver {
    /// The seed's precondition sequence as monitor callbacks, with requests from the seed's event
    /// matrix between them: a request before the first callback (sent), while `needsConnection`
    /// (sent), a failed request while available (the hint stays), a background request while
    /// unavailable (held back), the user's retry while unavailable (sent), a repeated update.
    static func seedScenario(_ mutant: PathHintModel.Mutant? = nil) -> ConnlogWriter {
        var d = PathHintDriver(mutant: mutant)
        d.launch(at: 0)
        let old = d.restart(at: 10)
        // no callback yet: unknown, and the request goes out
        d.request(user: false, result: .ok, at: 20)
        d.update(old, "satisfied", expensive: true, at: 30)
        let current = d.restart(at: 40)
        d.update(old, "unsatisfied", at: 50)  // the cancelled monitor's queued callback
        d.update(current, "requiresConnection", at: 60)
        d.request(user: false, result: .ok, at: 70)  // needsConnection is not offline
        d.update(current, "satisfied", constrained: true, at: 80)
        // a slow server, not the path
        d.request(user: false, result: .failed("NSURLErrorDomain:-1001"), at: 90)
        d.update(current, "unsatisfied", at: 100)
        // a background refresh while unavailable: held back
        d.request(user: false, result: .ok, at: 110)
        // the user retries: sent
        d.request(user: true, result: .failed("NSURLErrorDomain:-1009"), at: 120)
        d.update(current, "unsatisfied", at: 130)  // the same update again: the hint stays
        d.update(current, "satisfied", at: 140)
        d.stop(at: 150)
        return d.log
    }
}

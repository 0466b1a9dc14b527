// Seeds 000/001: a WebSocket heartbeat as a state machine, with generation isolation.

// MARK: - The seed's model

/// A port of the seeds' `Heartbeat` struct (000 in Korean, 001 in Japanese: the same code).
///
/// Pure and clock-free: `tick(now:)` returns what to do and an adapter does it. A ping waits
/// `interval` after open and after each accepted pong; at most one ping waits for its pong; a pong
/// at or after `now + timeout` is late and the next tick at the deadline closes. Every callback
/// carries the generation captured when its connection was created and is ignored unless it is
/// the current one.
///
/// Two additions the seeds describe but do not code: `failed(_:)`, the "failure path that checks
/// the generation" a transport error, close callback or failed connect goes to, and `close()`, the
/// client closing the current connection itself (user, replaced).
struct HeartbeatModel {
    enum Phase: Equatable {
        case idle, connecting, open
    }

    enum Action: Equatable {
        case ping(Int)
        case close(Int)
    }

    /// Known bugs, each a one-line change to the seed's code.
    enum Mutant: String, CaseIterable, Sendable {
        /// `id == generation` removed from every guard: an old connection's late callback acts on
        /// the new one.
        case noGenerationCheck
        /// `now < limit` made `now <= limit`: a pong exactly at the deadline is taken as on time.
        case pongAtDeadlineAccepted
        /// Pings go out every interval whether or not the previous one was answered.
        case pingWhileWaiting
    }

    private(set) var generation = 0
    private(set) var phase = Phase.idle
    private var nextPing = 0
    private var deadline: Int?
    let interval: Int
    let timeout: Int
    let mutant: Mutant?

    init(interval: Int, timeout: Int, mutant: Mutant? = nil) {
        self.interval = interval
        self.timeout = timeout
        self.mutant = mutant
    }

    mutating func connect() -> Int {
        generation += 1
        phase = .connecting
        deadline = nil
        return generation
    }

    mutating func opened(_ id: Int, now: Int) {
        guard isCurrent(id), phase == .connecting else {
            return
        }
        phase = .open
        nextPing = now + interval
    }

    mutating func pong(_ id: Int, now: Int) {
        guard isCurrent(id), phase == .open,
            let limit = deadline, isBefore(now, limit)
        else {
            return
        }
        deadline = nil
        nextPing = now + interval
    }

    mutating func tick(now: Int) -> Action? {
        guard phase == .open else { return nil }
        if let limit = deadline {
            guard now >= limit else {
                if mutant == .pingWhileWaiting, now >= nextPing {
                    nextPing = now + interval
                    return .ping(generation)
                }
                return nil
            }
            phase = .idle
            deadline = nil
            return .close(generation)
        }
        guard now >= nextPing else { return nil }
        deadline = now + timeout
        if mutant == .pingWhileWaiting { nextPing = now + interval }
        return .ping(generation)
    }

    // MARK: Additions

    /// The transport failed for connection `id` (closed, failed to connect, receive error).
    mutating func failed(_ id: Int) {
        guard isCurrent(id), phase != .idle else { return }
        phase = .idle
        deadline = nil
    }

    /// The client closes the current connection; returns its generation, nil when none is live.
    mutating func close() -> Int? {
        guard phase != .idle else { return nil }
        phase = .idle
        deadline = nil
        return generation
    }

    // MARK: Where the mutants differ

    private func isCurrent(_ id: Int) -> Bool {
        mutant == .noGenerationCheck || id == generation
    }

    private func isBefore(_ now: Int, _ limit: Int) -> Bool {
        mutant == .pongAtDeadlineAccepted ? now <= limit : now < limit
    }
}

// MARK: - The seed's own checks

extension HeartbeatModel {
    /// Runs the seeds' precondition sequence (`heartbeat.swift`) and returns the checks that fail,
    /// by the text of the seed's `precondition(...)`; empty for a faithful port.
    static func seedPreconditionFailures(_ mutant: Mutant? = nil) -> [String] {
        var failures: [String] = []
        func check(_ ok: Bool, _ text: String) { if !ok { failures.append(text) } }

        var h = HeartbeatModel(interval: 100, timeout: 1000, mutant: mutant)
        let first = h.connect()
        h.opened(first, now: 0)

        check(h.tick(now: 99) == nil, "h.tick(now: 99) == nil")
        check(h.tick(now: 100) == .ping(first), "h.tick(now: 100) == .ping(first)")
        check(h.tick(now: 1099) == nil, "h.tick(now: 1099) == nil")
        h.pong(first, now: 1100)
        check(h.tick(now: 1100) == .close(first), "h.tick(now: 1100) == .close(first)")

        let second = h.connect()
        h.opened(first, now: 1200)
        check(h.phase == .connecting, "h.phase == .connecting")
        h.opened(second, now: 2000)
        check(h.tick(now: 2100) == .ping(second), "h.tick(now: 2100) == .ping(second)")

        h.pong(first, now: 2150)
        check(h.tick(now: 3100) == .close(second), "h.tick(now: 3100) == .close(second)")

        let third = h.connect()
        h.opened(third, now: 4000)
        check(h.tick(now: 4100) == .ping(third), "h.tick(now: 4100) == .ping(third)")
        h.pong(third, now: 4200)
        check(h.tick(now: 4299) == nil, "h.tick(now: 4299) == nil")
        check(h.tick(now: 4300) == .ping(third), "h.tick(now: 4300) == .ping(third)")
        return failures
    }
}

// MARK: - The adapter that logs

/// The adapter around `HeartbeatModel`: it carries out the model's actions and writes connlog
/// lines for everything that happens, as a client instrumented for conn-audit would.
///
/// Transport callbacks are logged as they arrive (`ws.open`, `ws.pong`, `ws.closed`, ...) and then
/// handed to the model with the generation they carry; the visible state (`ws.state`) is logged
/// whenever the model's phase changes, with the generation of the event that changed it.
struct HeartbeatDriver {
    private(set) var model: HeartbeatModel
    private(set) var log: ConnlogWriter
    private var shown = HeartbeatModel.Phase.idle

    init(
        mutant: HeartbeatModel.Mutant? = nil, interval: Int = 100, timeout: Int = 1000,
        src: String = "heartbeat"
    ) {
        model = HeartbeatModel(interval: interval, timeout: timeout, mutant: mutant)
        log = ConnlogWriter(src: src)
    }

    /// The app asks for a connection. A live one is closed first (`replaced`): one socket at a
    /// time.
    @discardableResult
    mutating func connect(at t: Int) -> Int {
        close(reason: "replaced", at: t)
        let gen = model.connect()
        log.write(
            t, "ws.connect",
            [
                "gen": .int(gen), "interval_ms": .int(model.interval),
                "timeout_ms": .int(model.timeout)
            ])
        showState(gen, at: t)
        return gen
    }

    /// The transport reports generation `gen` open (possibly late, for an old generation).
    mutating func opened(_ gen: Int, at t: Int) {
        log.write(t, "ws.open", ["gen": .int(gen)])
        model.opened(gen, now: t)
        showState(gen, at: t)
    }

    /// A ping of generation `gen` completed without error.
    mutating func pong(_ gen: Int, at t: Int) {
        log.write(t, "ws.pong", ["gen": .int(gen)])
        model.pong(gen, now: t)
        showState(gen, at: t)
    }

    /// A ping of generation `gen` completed with an error: logged, and not a pong. What to do about
    /// it is the caller's policy (seed 002).
    mutating func pingError(_ gen: Int, _ error: String, at t: Int) {
        log.write(t, "ws.ping_error", ["gen": .int(gen), "error": .string(error)])
    }

    /// The scheduler's timer: asks the model what to do and does it.
    @discardableResult
    mutating func tick(at t: Int) -> HeartbeatModel.Action? {
        let action = model.tick(now: t)
        switch action {
        case .ping(let gen)?:
            log.write(t, "ws.ping", ["gen": .int(gen)])
        case .close(let gen)?:
            log.write(t, "ws.close", ["gen": .int(gen), "reason": "pong_timeout"])
            showState(gen, at: t)
        case nil:
            break
        }
        return action
    }

    /// The client closes the live connection itself; returns its generation, nil when none is live.
    @discardableResult
    mutating func close(reason: String, at t: Int) -> Int? {
        guard let gen = model.close() else { return nil }
        log.write(t, "ws.close", ["gen": .int(gen), "reason": .string(reason)])
        showState(gen, at: t)
        return gen
    }

    /// The transport's close callback for generation `gen`.
    mutating func transportClosed(_ gen: Int, code: Int, at t: Int) {
        log.write(t, "ws.closed", ["gen": .int(gen), "code": .int(code)])
        model.failed(gen)
        showState(gen, at: t)
    }

    /// Generation `gen` could not be established.
    mutating func connectFailed(_ gen: Int, error: String, at t: Int) {
        log.write(t, "ws.connect_failed", ["gen": .int(gen), "error": .string(error)])
        model.failed(gen)
        showState(gen, at: t)
    }

    /// Writes an event the heartbeat itself knows nothing about (`ws.reconnect`).
    mutating func write(_ t: Int, _ ev: String, _ fields: KeyValuePairs<String, ConnlogValue> = [:])
    {
        log.write(t, ev, fields)
    }

    /// Names the line the next event will be written at.
    mutating func markNext(_ name: String) { log.markNext(name) }

    private mutating func showState(_ gen: Int, at t: Int) {
        guard model.phase != shown else { return }
        shown = model.phase
        let state: ConnlogValue
        switch shown {
        case .idle: state = "disconnected"
        case .connecting: state = "connecting"
        case .open: state = "connected"
        }
        log.write(t, "ws.state", ["gen": .int(gen), "state": state])
    }
}

// MARK: - The scenario

extension HeartbeatDriver {
    /// The seeds' precondition sequence, step for step, then the cases the seeds ask to add
    /// (a repeated check after the timeout, a duplicate open, a pong while idle, a late close
    /// callback of a replaced connection) and the four outcomes the acceptance test must record:
    /// normal (gen 3, 6), delayed (gen 1, 2), immediate close (gen 4), connect failure (gen 5).
    ///
    /// Marks: `ping 100`, `tick 1099`, `tick 1200`, `stale open`, `stale close`.
    static func seedScenario(_ mutant: HeartbeatModel.Mutant? = nil) -> ConnlogWriter {
        var d = HeartbeatDriver(mutant: mutant)

        // The seed's sequence. Comments give what the seed's preconditions expect.
        let first = d.connect(at: 0)
        d.opened(first, at: 0)
        d.tick(at: 99)  // nil
        d.markNext("ping 100")
        d.tick(at: 100)  // .ping(first)
        d.markNext("tick 1099")
        d.tick(at: 1099)  // nil
        d.pong(first, at: 1100)  // exactly at the deadline: late
        d.tick(at: 1100)  // .close(first)
        d.markNext("tick 1200")
        d.tick(at: 1200)  // added: the check repeated after the timeout does nothing

        let second = d.connect(at: 1200)
        d.markNext("stale open")
        d.opened(first, at: 1200)  // a stale open of the first connection: phase stays .connecting
        d.opened(second, at: 2000)
        d.tick(at: 2100)  // .ping(second)
        d.pong(first, at: 2150)  // the old connection's pong while the new one waits
        d.tick(at: 3100)  // .close(second)

        let third = d.connect(at: 3900)
        d.opened(third, at: 4000)
        d.tick(at: 4100)  // .ping(third)
        d.pong(third, at: 4200)
        d.tick(at: 4299)  // nil
        d.tick(at: 4300)  // .ping(third)

        // Beyond the seed's sequence.
        d.pong(third, at: 4350)
        d.opened(third, at: 4360)  // a duplicate open changes nothing
        let fourth = d.connect(at: 4400)  // the app replaces the connection (close: replaced)
        d.markNext("stale close")
        // the replaced connection's late close callback
        d.transportClosed(third, code: 1001, at: 4450)
        d.opened(fourth, at: 4500)
        d.transportClosed(fourth, code: 1006, at: 4520)  // the server drops it at once
        let fifth = d.connect(at: 4600)
        d.connectFailed(fifth, error: "NSURLErrorDomain:-1004", at: 4700)
        let sixth = d.connect(at: 4800)
        d.opened(sixth, at: 4810)
        d.tick(at: 4910)  // .ping(sixth)
        d.pong(sixth, at: 4930)
        d.tick(at: 5030)  // .ping(sixth)
        d.close(reason: "user", at: 5040)  // the user leaves while a ping waits
        d.pong(sixth, at: 5050)  // a pong while idle changes nothing
        d.tick(at: 5100)  // nil: closed
        return d.log
    }
}

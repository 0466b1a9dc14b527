// Seed 002: reconnecting with a jittered exponential backoff, only on fatal ping errors.

import Testing
import ConnAuditTestSupport
import ConnSoak

// MARK: - The seed's policy

/// A port of seed 002's `backoff()`, the attempt limit in `reconnect()` and `handlePingError(_:)`.
///
/// `backoff()` counts the attempt and returns `base × jitter` ms, base = min(2^attempt × 100,
/// 10000), jitter in 0.5…1.0 from a seeded generator (the seed's `Double.random`). The seed's
/// comment says "no retry once 10 attempts were made" but its guard is `attempts > 10`, which lets
/// an eleventh through; the port uses `attempts < 10`. The seed never resets `attempts`; the port
/// starts over when a connection proved healthy (an accepted pong).
struct BackoffPolicy {
    /// Known bugs from the seed and its review.
    enum Mutant: String, CaseIterable, Sendable {
        /// The seed's own guard, `attempts > 10`: an eleventh attempt.
        case eleventhAttempt
        /// The count never starts over after a connection worked (as in the seed).
        case noResetAfterHealthy
        /// Every ping error reconnects (the code before the seed's fix).
        case reconnectOnTransientError
        /// `Double.random(in: 0...1)`: delays below half the base.
        case jitterOutOfRange
        /// The code before the seed's change: `Task.sleep(for: .seconds(2))` every time.
        case fixedTwoSeconds
    }

    private(set) var attempts = 0
    let maxAttempts = 10
    let mutant: Mutant?
    private var random: SplitMix64

    init(mutant: Mutant? = nil, seed: UInt64 = 0x5EED_0002) {
        self.mutant = mutant
        random = SplitMix64(seed: seed)
    }

    /// The seed's `attempts > 10` guard, fixed: may another attempt be made?
    var mayRetry: Bool {
        mutant == .eleventhAttempt ? !(attempts > maxAttempts) : attempts < maxAttempts
    }

    /// Counts an attempt and returns its delay in ms.
    mutating func backoff() -> Int {
        attempts += 1
        if mutant == .fixedTwoSeconds { return 2000 }
        let base = min(Double(UInt64(1) << UInt64(min(attempts, 62))) * 100.0, 10000)
        let jitter =
            mutant == .jitterOutOfRange ? random.next(in: 0.0, 1.0) : random.next(in: 0.5, 1.0)
        return Int(base * jitter)
    }

    /// A connection proved healthy: the next failure starts over at attempt 1.
    mutating func connectionWorked() {
        if mutant != .noResetAfterHealthy { attempts = 0 }
    }

    /// The seed's `handlePingError(_:)`: true when the error means the connection is gone.
    func isFatal(_ error: PingError) -> Bool {
        if mutant == .reconnectOnTransientError { return true }
        switch error {
        case .url(let code):  // URLError: the network is gone
            return code == PingError.notConnectedToInternet
                || code == PingError.networkConnectionLost
        case .posix(let code):  // POSIXError: the socket died
            return code == PingError.EPIPE || code == PingError.ECONNRESET
        case .other:  // the socket is not in a normal state
            return true
        }
    }
}

/// An error a ping completed with, as seed 002 tells them apart.
enum PingError: Sendable, Equatable {
    case url(Int)
    case posix(Int)
    case other(domain: String, code: Int)

    static let notConnectedToInternet = -1009
    static let networkConnectionLost = -1005
    static let timedOut = -1001
    static let EPIPE = 32
    static let ECONNRESET = 54
    static let ETIMEDOUT = 60

    /// The connlog spelling, `Domain:code`.
    var connlog: String {
        switch self {
        case .url(let code): return "NSURLErrorDomain:\(code)"
        case .posix(let code): return "NSPOSIXErrorDomain:\(code)"
        case .other(let domain, let code): return "\(domain):\(code)"
        }
    }
}

// MARK: - The client

/// A reconnecting WebSocket client: seed 002's policy around the seeds' heartbeat (a correct
/// `HeartbeatDriver`), against a scripted server, on a 1 ms simulated clock.
///
/// - A fatal ping error closes the connection (`ws.close`, reason `error`) and schedules a
///   reconnect at once, as the seed's ping handler calls `reconnect()`.
/// - A transient ping error is logged and otherwise ignored: the ping stays unanswered, and the
///   heartbeat closes at its deadline (`pong_timeout`).
/// - A connection that ends otherwise (the transport's close callback, a failed connect) schedules
///   a reconnect when that callback of the current generation arrives. The transport's close
///   callback after the client's own close comes 10 ms later.
/// - `reconnect()` does nothing while a connection is open or once the attempts are used up.
struct ReconnectingClient {
    /// What the network does with one connection attempt, in the order attempts are made. When the
    /// script runs out every attempt is refused (the network is gone for good).
    enum Attempt: Sendable {
        /// The connect fails after 50 ms.
        case refused(String)
        /// Opens after 30 ms; each ping gets the next reply, 20 ms later. When the replies run
        /// out, the server closes the connection 10 ms after the next ping.
        case opens([Reply])
        /// Opens after 30 ms, and the server closes it 20 ms later, before any ping.
        case opensThenDrops(code: Int)
    }

    enum Reply: Sendable {
        case pong
        case error(PingError)
        /// No answer at all.
        case silence
    }

    private enum Pending {
        case opened(Int)
        case refused(Int, String)
        case transportClosed(Int, code: Int)
        case reply(Int, Reply)
    }

    private var heartbeat: HeartbeatDriver
    private(set) var policy: BackoffPolicy
    private var script: [Attempt]
    private var replies: [Int: [Reply]] = [:]
    private var pending: [(t: Int, seq: Int, event: Pending)] = []
    private var seq = 0
    private var reconnectAt: Int?
    /// Generations whose end already scheduled a reconnect (or found the attempts used up).
    private var handled: Set<Int> = []

    init(mutant: BackoffPolicy.Mutant? = nil, script: [Attempt]) {
        heartbeat = HeartbeatDriver(src: "backoff")
        policy = BackoffPolicy(mutant: mutant)
        self.script = script
    }

    var log: ConnlogWriter { heartbeat.log }

    /// Connects at t=0 and runs until nothing is left to happen (or a simulated hour passes).
    mutating func run() {
        connect(at: 0)
        var t = 0
        while t < 3_600_000 {
            deliver(upTo: t)
            if let at = reconnectAt, at <= t {
                reconnectAt = nil
                connect(at: t)
            }
            switch heartbeat.tick(at: t) {
            case .ping(let gen)?: serverAnswersPing(gen, at: t)
            case .close(let gen)?: schedule(t + 10, .transportClosed(gen, code: 1001))
            case nil: break
            }
            if pending.isEmpty, reconnectAt == nil, heartbeat.model.phase == .idle { return }
            t += 1
        }
        Issue.record("the reconnecting client did not settle within a simulated hour")
    }

    // MARK: Client

    private mutating func connect(at t: Int) {
        let gen = heartbeat.connect(at: t)
        let offline = Attempt.refused(PingError.url(PingError.notConnectedToInternet).connlog)
        let attempt = script.isEmpty ? offline : script.removeFirst()
        switch attempt {
        case .refused(let error):
            schedule(t + 50, .refused(gen, error))
        case .opens(let answers):
            replies[gen] = answers
            schedule(t + 30, .opened(gen))
        case .opensThenDrops(let code):
            schedule(t + 30, .opened(gen))
            schedule(t + 50, .transportClosed(gen, code: code))
        }
    }

    private mutating func deliver(upTo t: Int) {
        while let i = pending.indices.min(by: {
            (pending[$0].t, pending[$0].seq) < (pending[$1].t, pending[$1].seq)
        }),
            pending[i].t <= t
        {
            let event = pending.remove(at: i).event
            switch event {
            case .opened(let gen):
                heartbeat.opened(gen, at: t)
            case .refused(let gen, let error):
                heartbeat.connectFailed(gen, error: error, at: t)
                reconnect(after: gen, at: t)
            case .transportClosed(let gen, let code):
                heartbeat.transportClosed(gen, code: code, at: t)
                reconnect(after: gen, at: t)
            case .reply(let gen, .pong):
                let healthy = gen == heartbeat.model.generation && heartbeat.model.phase == .open
                heartbeat.pong(gen, at: t)
                if healthy { policy.connectionWorked() }
            case .reply(let gen, .error(let error)):
                heartbeat.pingError(gen, error.connlog, at: t)
                guard policy.isFatal(error), gen == heartbeat.model.generation,
                    heartbeat.close(reason: "error", at: t) != nil
                else { break }
                schedule(t + 10, .transportClosed(gen, code: 1001))
                reconnect(after: gen, at: t)
            case .reply(_, .silence):
                break
            }
        }
    }

    /// The seed's `reconnect()`: not while a connection is open, not past the attempt limit.
    private mutating func reconnect(after gen: Int, at t: Int) {
        guard gen == heartbeat.model.generation, !handled.contains(gen) else { return }
        handled.insert(gen)
        guard heartbeat.model.phase != .open, policy.mayRetry else { return }
        let delay = policy.backoff()
        heartbeat.write(
            t, "ws.reconnect", ["attempt": .int(policy.attempts), "delay_ms": .int(delay)])
        reconnectAt = t + delay
    }

    // MARK: Server

    private mutating func serverAnswersPing(_ gen: Int, at t: Int) {
        guard var answers = replies[gen], !answers.isEmpty else {
            schedule(t + 10, .transportClosed(gen, code: 1001))
            return
        }
        let reply = answers.removeFirst()
        replies[gen] = answers
        if case .silence = reply { return }
        schedule(t + 20, .reply(gen, reply))
    }

    private mutating func schedule(_ t: Int, _ event: Pending) {
        seq += 1
        pending.append((t: t, seq: seq, event: event))
    }
}

// MARK: - The scenario

extension ReconnectingClient {
    /// Seed 002's situations in one run, which also records the four outcomes seeds 000/001 ask
    /// for: the network is down at launch (three refused connects: connect failure); a connection
    /// that answers (normal), then a transient ping error and silence until the deadline (delayed);
    /// a server that drops the connection at once (immediate close); a connection that answers,
    /// then a fatal ping error (`networkConnectionLost`); then the network is gone until the
    /// attempts are used up.
    static let seedScript: [Attempt] = [
        .refused("NSURLErrorDomain:-1009"),
        .refused("NSURLErrorDomain:-1009"),
        .refused("NSURLErrorDomain:-1004"),
        .opens([.pong, .pong, .error(.url(PingError.timedOut))]),
        .opensThenDrops(code: 1006),
        .opens([.pong, .error(.url(PingError.networkConnectionLost))])
    ]

    static func seedScenario(_ mutant: BackoffPolicy.Mutant? = nil) -> ConnlogWriter {
        var client = ReconnectingClient(mutant: mutant, script: seedScript)
        client.run()
        return client.log
    }
}

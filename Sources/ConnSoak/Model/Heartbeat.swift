/// The heartbeat of the seeds (000, 001): one ping at a time, one interval after the connection
/// opened and after each on-time pong; no pong before the deadline closes the connection.
///
/// Every event carries the generation captured when its connection was created; an event of
/// another generation, or one that comes in the wrong phase, changes nothing. A pong at the
/// deadline is late, so a timer and a pong at the same millisecond decide the same way whichever
/// runs first. Times are integer milliseconds of a monotonic clock.
public struct Heartbeat: Sendable {
    public enum Phase: Sendable, Equatable {
        case idle, connecting, open
    }

    public enum Action: Equatable, Sendable {
        case ping(Int)
        case close(Int)
    }

    public private(set) var generation = 0
    public private(set) var phase = Phase.idle
    private var nextPing = 0
    private var deadline: Int?
    public let interval: Int
    public let timeout: Int
    /// False only for the planted bug `stale-pong`: a pong of any generation counts.
    public var checksPongGeneration = true

    public init(interval: Int, timeout: Int) {
        self.interval = interval
        self.timeout = timeout
    }

    /// True while a ping waits for its pong.
    public var awaitingPong: Bool { deadline != nil }

    /// The time the next action may fall due: the deadline, else the next ping (nil when idle).
    public var nextDue: Int? {
        guard phase == .open else { return nil }
        return deadline ?? nextPing
    }

    /// A new connection: its generation.
    public mutating func connect() -> Int {
        generation += 1
        phase = .connecting
        deadline = nil
        return generation
    }

    public mutating func opened(_ id: Int, now: Int) {
        guard id == generation, phase == .connecting else { return }
        phase = .open
        nextPing = now + interval
    }

    /// A pong; true when it counted (on time, for the ping in flight of this generation).
    @discardableResult
    public mutating func pong(_ id: Int, now: Int) -> Bool {
        guard id == generation || !checksPongGeneration, phase == .open,
            let limit = deadline, now < limit
        else { return false }
        deadline = nil
        nextPing = now + interval
        return true
    }

    /// The connection of generation `id` ended (it failed, the server closed it, the client
    /// closed it for another reason): the model goes idle; another generation's end is ignored.
    public mutating func ended(_ id: Int) {
        guard id == generation else { return }
        phase = .idle
        deadline = nil
    }

    public mutating func tick(now: Int) -> Action? {
        guard phase == .open else { return nil }
        if let limit = deadline {
            guard now >= limit else { return nil }
            phase = .idle
            deadline = nil
            return .close(generation)
        }
        guard now >= nextPing else { return nil }
        deadline = now + timeout
        return .ping(generation)
    }
}

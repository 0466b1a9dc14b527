/// Reconnect delays of seed 002: attempt k waits base × jitter, base = min(2^k × 100 ms,
/// 10 s), jitter uniform in [0.5, 1); at most `maxAttempts` attempts in a row.
///
/// The count starts over after any pong of the open connection (as
/// `reconnect.resets-after-open` reads it), so one long-lived connection's failure starts again
/// at the shortest delay.
public struct Backoff: Sendable {
    public static let baseMs = 100
    public static let capMs = 10_000

    public let maxAttempts: Int
    /// True only for the planted bug `attempt-limit-off-by-one`: one attempt past the limit.
    public var offByOne = false
    public private(set) var attempts = 0
    private var random: SplitMix64

    public init(maxAttempts: Int, seed: UInt64) {
        self.maxAttempts = maxAttempts
        random = SplitMix64(seed: seed)
    }

    public mutating func reset() { attempts = 0 }

    /// The next attempt and its delay; nil once the attempts are used up.
    public mutating func next() -> (attempt: Int, delayMs: Int)? {
        let limit = offByOne ? maxAttempts + 1 : maxAttempts
        guard attempts < limit else { return nil }
        attempts += 1
        let base = attempts >= 20 ? Self.capMs : min((1 << attempts) * Self.baseMs, Self.capMs)
        let jitter = 0.5 + 0.5 * random.unit()
        return (attempts, Int(Double(base) * jitter))
    }
}

#if canImport(Glibc)
    import Glibc
#endif

/// Milliseconds since the clock was made, from CLOCK_MONOTONIC: never wall-clock, never going
/// back, as connlog's `t` requires.
public struct MonotonicClock: Sendable {
    private let origin: Int

    public init() { origin = Self.nowMs() }

    /// Milliseconds since this clock was made.
    public func elapsedMs() -> Int { Self.nowMs() - origin }

    private static func nowMs() -> Int {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int(ts.tv_sec) * 1000 + Int(ts.tv_nsec) / 1_000_000
    }
}

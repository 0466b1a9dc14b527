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

    /// Whether a ping error means the connection is gone (seed 002, and
    /// `reconnect.fatal-errors-only`): a lost network or a dead socket is, and so is an error
    /// of any other domain or an unknown spelling. Other URL and POSIX errors are transient:
    /// the heartbeat's deadline decides. Both spellings count: `URLError.X` is
    /// `NSURLErrorDomain:X`, `POSIXError.X` is `NSPOSIXErrorDomain:X`.
    public static func isFatal(pingError: String) -> Bool {
        let fatal: [String: Set<String>] = [
            "URL": ["-1009", "-1005", "notConnectedToInternet", "networkConnectionLost"],
            "POSIX": ["32", "54", "EPIPE", "ECONNRESET"]
        ]
        for (domain, prefixes) in [
            ("URL", ["URLError.", "NSURLErrorDomain:"]),
            ("POSIX", ["POSIXError.", "NSPOSIXErrorDomain:"])
        ] {
            for prefix in prefixes where pingError.hasPrefix(prefix) {
                let code = pingError.dropFirst(prefix.count)
                let body = code.first == "-" ? code.dropFirst() : code
                let known =
                    !body.isEmpty
                    && body.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
                return !known || fatal[domain]!.contains(String(code))
            }
        }
        return true
    }
}

/// A small seedable generator (SplitMix64): the same seed gives the same jitter and keys.
public struct SplitMix64: Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    public mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) }
    }
}

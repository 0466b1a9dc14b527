/// The tests' one deterministic generator (SplitMix64): randomised inputs are the same on every
/// run, so a failure can be replayed from its seed.
public struct SplitMix64: RandomNumberGenerator {
    public var state: UInt64

    public init(state: UInt64) { self.state = state }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in 0..<n.
    public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    public mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    public mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) }
    }

    /// A uniform value in the closed range `lower...upper` (both ends possible).
    public mutating func next(in lower: Double, _ upper: Double) -> Double {
        let unit = Double(next() >> 11) / Double((1 as UInt64) << 53 - 1)
        return lower + (upper - lower) * unit
    }

    public mutating func hex(_ count: Int) -> String {
        String((0..<count).map { _ in Array("0123456789abcdef")[Int(next() % 16)] })
    }
}

import ConnSoak

/// The draws the tests make of the package's generator (``SplitMix64``): randomised inputs are
/// the same on every run, so a failure can be replayed from its seed.
extension SplitMix64 {
    /// A number in 0..<n.
    public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    public mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    /// A uniform value in the closed range `lower...upper` (both ends possible).
    public mutating func next(in lower: Double, _ upper: Double) -> Double {
        let unit = Double(next() >> 11) / Double((1 as UInt64) << 53 - 1)
        return lower + (upper - lower) * unit
    }

    public mutating func hex(_ count: Int) -> String {
        String((0..<count).map { _ in Array("0123456789abcdef")[Int(next() % 16)] })
    }
}

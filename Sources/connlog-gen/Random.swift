import Foundation

/// A small, fast, seeded pseudo-random generator (xoshiro256**, seeded through SplitMix64).
///
/// Every device owns its own generator, derived from the corpus seed and the device's index, so a
/// device's log is the same whatever the layout, interleaving or fault rate of the run around it.
/// Never `SystemRandomNumberGenerator`: the output must be a pure function of the options.
struct Xoshiro256: RandomNumberGenerator {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64

    /// Seeds the state from `seed` and `stream` with SplitMix64 (never all zero).
    init(seed: UInt64, stream: UInt64 = 0) {
        var sm = SplitMix64(state: seed ^ (stream &* 0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03)
        s0 = sm.next()
        s1 = sm.next()
        s2 = sm.next()
        s3 = sm.next()
        if s0 | s1 | s2 | s3 == 0 { s0 = 1 }
    }

    @inline(__always)
    mutating func next() -> UInt64 {
        let result = ((s1 &* 5) <<< 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = s3 <<< 45
        return result
    }

    /// A uniform integer in `0..<n` (`n > 0`), by multiply-high (bias below 2^-40 for our ranges).
    @inline(__always)
    mutating func below(_ n: Int) -> Int {
        Int(truncatingIfNeeded: UInt64(n).multipliedFullWidth(by: next()).high)
    }

    /// A uniform integer in `lo...hi` (inclusive; `hi >= lo`).
    @inline(__always)
    mutating func range(_ lo: Int, _ hi: Int) -> Int {
        lo + below(hi - lo + 1)
    }

    /// A uniform double in `[0, 1)`.
    @inline(__always)
    mutating func unit() -> Double {
        Double(next() >> 11) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// `true` with probability `p`.
    @inline(__always)
    mutating func chance(_ p: Double) -> Bool {
        p > 0 && unit() < p
    }

    /// An exponentially distributed gap with the given mean, at least `min`, at most `max`.
    @inline(__always)
    mutating func gap(mean: Double, min: Int, max: Int) -> Int {
        let u = unit()
        let v = Int(-mean * log(1.0 - u))
        return v < min ? min : (v > max ? max : v)
    }

    /// One of `weights.count` choices, with the given relative weights.
    mutating func pick(_ weights: [Int]) -> Int {
        var total = 0
        for w in weights { total += w }
        var r = below(total)
        for (i, w) in weights.enumerated() {
            if r < w { return i }
            r -= w
        }
        return weights.count - 1
    }
}

/// SplitMix64: used only to expand a seed into xoshiro state.
struct SplitMix64 {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

infix operator <<< : BitwiseShiftPrecedence

@inline(__always)
private func <<< (x: UInt64, k: UInt64) -> UInt64 {
    (x << k) | (x >> (64 &- k))
}

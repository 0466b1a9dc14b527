import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// Times add up as decimals: `128.11 + 1000` is the logged `1128.11`, never the binary
/// `1128.1100000000001`, up to 16 and 17 significant digits.
@Suite struct DecimalRoundingTests {
    @Test func decimalRoundingKeepsWholeNumbersAndFixesBinaryNoise() {
        #expect(DecimalRounding.sum(128.11, 1000) == 1128.11)
        #expect(DecimalRounding.sum(0.1, 0.2) == 0.3)
        #expect(DecimalRounding.rounded(1128.11 - 128.11) == 1000)
        #expect(DecimalRounding.sum(1e15, 1) == 1e15 + 1)
        #expect(DecimalRounding.sum(1.5, 2.25) == 3.75)
        // A genuine difference below the last logged digit is not rounded away.
        #expect(DecimalRounding.sum(1128.1, 0.01) < 1128.11 + 0.001)
        #expect(DecimalRounding.sum(1128.1, 0.009) != 1128.11)
        #expect(DecimalRounding.sum(-128.11, -1000) == -1128.11)
        #expect(DecimalRounding.rounded(1e-30 + 3e-31) == 1.3e-30)
    }

    /// Decimals add up to exactly the decimal sum: the result is the double a parser makes of the
    /// sum's text (computed here in integers) — up to 16 significant digits, as in epoch
    /// milliseconds with microseconds (`1700000000123.456`) or a long uptime (`1234567890.123456`).
    @Test(arguments: [1, 3, 6, 7, 9])
    func decimalSumsAreTheDecimalResult(fractionDigits: Int) {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 &+ UInt64(fractionDigits)
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var scale: Int64 = 1
        for _ in 0..<fractionDigits { scale *= 10 }
        var failures = 0
        for _ in 0..<30_000 {
            // a, b in units of 10^-fractionDigits, from 1 to 16 digits, sums below 2^53 / 8.
            var bound: Int64 = 1
            for _ in 0..<Int64(next() % 17) { bound *= 10 }
            bound = min(bound, 1_000_000_000_000_000)
            let x = Int64(next() % UInt64(2 * bound + 1)) - bound
            let y = Int64(next() % UInt64(2 * bound + 1)) - bound
            let a = Double(x) / Double(scale), b = Double(y) / Double(scale)
            let exact = Double(x + y) / Double(scale)
            let exactDifference = Double(x - y) / Double(scale)
            if DecimalRounding.sum(a, b) != exact || DecimalRounding.sum(a, -b) != exactDifference {
                failures += 1
                if failures <= 5 {
                    Issue.record("\(a) ± \(b): \(DecimalRounding.sum(a, b)) vs \(exact)")
                }
            }
        }
        #expect(failures == 0)
    }

    /// Times with 16 or 17 significant digits (random doubles, as a `Double` uptime is logged):
    /// the sum is the decimal sum of the two shortest forms, checked against Foundation's
    /// `Decimal` (38 digits, exact here) read back by `Double(_:)`.
    @Test func longDecimalSumsAreTheDecimalResult() throws {
        var rng = SplitMix64(seed: 0x5EED_0016)
        var failures = 0
        var textPath = 0
        for i in 0..<20_000 {
            // 1e6 … 1e12 ms with a random full-precision fraction.
            let magnitude = Double(1 + rng.below(1_000_000)) * [1.0, 1e3, 1e6][i % 3]
            let a = magnitude + Double(rng.below(1 << 40)) / Double(1 << 40)
            let b: Double =
                i % 2 == 0 ? Double(rng.below(100_000)) : Double(rng.below(100_000)) / 1000
            if DecimalRounding.fractionDigits(a) == nil { textPath += 1 }
            let exact =
                try #require(Decimal(string: a.description))
                + (try #require(Decimal(string: b.description)))
            let expected = try #require(Double("\(exact)"))
            let got = DecimalRounding.sum(a, b)
            if got != expected {
                failures += 1
                if failures <= 5 { Issue.record("\(a) + \(b): \(got), expected \(expected)") }
            }
        }
        #expect(failures == 0)
        // Most of these take the text path (the fast one needs digits below 2^51).
        #expect(textPath > 10_000)
    }

    /// A time with a fraction plus (or minus) whole milliseconds, `p.t + T`, is answered by the
    /// binary sum before the fraction's digits are looked for: it must be the sum of the decimals,
    /// as the text of both gives it (``DecimalRounding/textSum(_:_:)``).
    @Test func wholeMillisecondsAddedToAFractionalTimeAreTheTextSum() throws {
        var rng = SplitMix64(seed: 0x5EED_0058)
        var failures = 0
        for i in 0..<40_000 {
            var scale = 1.0
            for _ in 0..<(1 + i % 6) { scale *= 10 }
            let magnitude = Double(rng.below(1 << 36)) * [1.0, 1e-3, 1e3][i % 3]
            let t = (magnitude * scale + Double(rng.below(1_000_000))).rounded() / scale
            let whole = Double(rng.below(3_600_000))
            for (a, b) in [(t, whole), (whole, t), (t, -whole), (-t, whole)] {
                let text = try #require(DecimalRounding.textSum(a, b))
                if DecimalRounding.sum(a, b) != text {
                    failures += 1
                    if failures <= 5 {
                        Issue.record("\(a) + \(b): \(DecimalRounding.sum(a, b)), text \(text)")
                    }
                }
            }
        }
        #expect(failures == 0)
    }

    @Test func decimalSumsAtTheEdges() {
        // Cancellation: the result's own 15th digit is noise.
        #expect(DecimalRounding.sum(777.18063, -875.375) == -98.19437)
        // 16 significant digits: the pong at the deadline is at the deadline.
        #expect(DecimalRounding.sum(1234567890.123456, 1000) == 1234568890.123456)
        #expect(DecimalRounding.sum(1700000000123.456, 1000) == 1700000001123.456)
        #expect(DecimalRounding.sum(1234568890.123459, -1234567890.123456) == 1000.000003)
        // 16 and 17 significant digits (an uptime logged from a Double): exact through the text.
        #expect(DecimalRounding.sum(693745044.0586978, 100) == 693745144.0586978)
        #expect(DecimalRounding.sum(693745144.0586978, 1000) == 693746144.0586978)
        #expect(DecimalRounding.sum(693746144.0586978, -1000) == 693745144.0586978)
        #expect(DecimalRounding.sum(14154823.563319262, 1000) == 14155823.563319262)
        #expect(DecimalRounding.sum(0.1, 693745144.0586978) == 693745144.1586978)
        #expect(DecimalRounding.fractionDigits(693745044.0586978) == nil)
        #expect(DecimalRounding.fractionDigits(693745044.058698) == 6)
        #expect(DecimalRounding.sum(9999999999999.9999, 1) == 10000000000001)
        // Magnitudes too far apart to align: binary addition.
        #expect(DecimalRounding.sum(1e300, 1.5) == 1e300)
        // A long time plus whole milliseconds at the edge of a binary exponent.
        #expect(DecimalRounding.sum(536870911.0586978, 1) == 536870912.0586978)
        #expect(DecimalRounding.sum(536870912.0586978, -1) == 536870911.0586978)
        #expect(DecimalRounding.sum(1073741823.9999999, 1) == 1073741824.9999999)
        #expect(DecimalRounding.sum(.infinity, 1) == .infinity)
        #expect(DecimalRounding.sum(0.5, 0.5) == 1)
    }

    /// ``DecimalRounding/sum(_:_:)`` answers two whole numbers itself, and anything else through
    /// ``DecimalRounding/decimalSum(_:_:)``: the two agree bit for bit on whole numbers of every
    /// magnitude (near 9e15, 2^53 and beyond, zero of either sign) and on fractions next to them.
    @Test func wholeNumbersAddAsTheFullSumAddsThem() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 11
        }
        let edges: [Double] = [
            0, -0.0, 1, -1, 1000, 9e15 - 1, 9e15, -9e15, 9_007_199_254_740_992, 1e16, 1e300,
            .infinity, -.infinity, .nan, 0.5, 128.11, 693745144.0586978, 4.5e15 + 0.5
        ]
        var operands = edges
        for _ in 0..<4000 {
            let magnitude = Double(next() % 17)
            let whole = (Double(next() % 1_000_000_007) * pow(10, magnitude)).rounded()
            let sign: Double = next() % 2 == 0 ? 1 : -1
            operands.append(sign * whole)
            if next() % 4 == 0 { operands.append(sign * whole + Double(next() % 1000) / 1000) }
        }
        var differ = 0
        var wholePairs = 0
        for i in operands.indices {
            let a = operands[i], b = operands[(i * 7 + 3) % operands.count]
            let fast = DecimalRounding.sum(a, b), full = DecimalRounding.decimalSum(a, b)
            if DecimalRounding.isPlainWhole(a), DecimalRounding.isPlainWhole(b) { wholePairs += 1 }
            if fast.bitPattern != full.bitPattern, !(fast.isNaN && full.isNaN) { differ += 1 }
        }
        #expect(differ == 0)
        #expect(wholePairs > 500)
        // A fraction is never taken for a whole number.
        #expect(!DecimalRounding.isPlainWhole(128.11))
        #expect(!DecimalRounding.isPlainWhole(4.5e15 + 0.5))
        #expect(!DecimalRounding.isPlainWhole(.nan))
        #expect(DecimalRounding.sum(128.11, 1000) == 1128.11)
    }
}

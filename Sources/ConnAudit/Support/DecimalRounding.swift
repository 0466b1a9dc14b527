#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Arithmetic on log times as the log wrote them: in decimal.
///
/// connlog times are milliseconds that may carry a fraction (`128.11`). In binary floating point
/// `128.11 + 1000` is `1128.1100000000001`, so a pong logged at `1128.11` would compare as *before*
/// a deadline of `128.11 + 1000` — on time, where the brief says a pong at the deadline is late.
/// A sum, difference, product or quotient with a fraction is therefore rounded to 15 significant
/// decimal digits (what a `Double` holds exactly) and read back: `128.11 + 1000` is then the same
/// number as a logged `1128.11`. Whole numbers are left alone (they are exact already).
enum DecimalRounding {
    /// 10^0 … 10^22: every one exact in a `Double`.
    private static let powersOfTen: [Double] = (0...22).map { k in (0..<k).reduce(1.0) { acc, _ in acc * 10 } }

    /// `r` rounded to 15 significant decimal digits, as the nearest `Double` to that decimal (for
    /// products and quotients, whose error is relative to the result).
    static func rounded(_ r: Double) -> Double { quantized(r, magnitude: Swift.abs(r)) }

    /// `a + b` in decimal. The digits kept are the 15 significant digits of the larger operand:
    /// a sum's binary error is relative to its operands, not to the result, so a difference of
    /// two close numbers (`777.18063 - 875.375`) is rounded at the operands' last digit, not the
    /// result's (which is noise there).
    static func sum(_ a: Double, _ b: Double) -> Double {
        quantized(a + b, magnitude: Swift.max(Swift.abs(a), Swift.abs(b)))
    }

    /// `r` rounded to a multiple of 10^-k, where `magnitude × 10^k` has 15 digits before the point.
    ///
    /// `N = round(r × 10^k)` is a whole number below 2^53 (so exact), and `N / 10^k` is one
    /// correctly rounded division of two exact numbers: the nearest double to the decimal, the same
    /// number a parser makes of its text. Magnitudes that need a power of ten beyond 10^22 go
    /// through the C library instead (`%.15g`, then `strtod`).
    private static func quantized(_ r: Double, magnitude m: Double) -> Double {
        guard r.isFinite, r != r.rounded(), m.isFinite, m > 0, m < 1e15 else { return r }
        var k = 14 - Int(log10(m).rounded(.down))
        guard k <= 22 else { return viaText(r) }
        guard k >= 0 else { return r }
        // log10 may land one below an exact power of ten: keep 15 digits, not 16.
        if m * powersOfTen[k] >= 1e15 {
            k -= 1
            guard k >= 0 else { return r }
        }
        return (r * powersOfTen[k]).rounded() / powersOfTen[k]
    }

    /// The same rounding through text: `%.15g`, read back with `strtod`.
    static func viaText(_ r: Double) -> Double {
        var buffer = [CChar](repeating: 0, count: 40)
        let n = buffer.withUnsafeMutableBufferPointer { out in
            withVaList([r]) { vsnprintf(out.baseAddress!, out.count, "%.15g", $0) }
        }
        guard n > 0, n < buffer.count else { return r }
        return buffer.withUnsafeBufferPointer { strtod($0.baseAddress!, nil) }
    }

}

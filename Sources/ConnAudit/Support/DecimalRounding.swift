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
    /// `r` rounded to 15 significant decimal digits, as the nearest `Double` to that decimal.
    static func rounded(_ r: Double) -> Double {
        guard r.isFinite, r != r.rounded() else { return r }
        var buffer = [CChar](repeating: 0, count: 40)
        let n = buffer.withUnsafeMutableBufferPointer { out in
            withVaList([r]) { vsnprintf(out.baseAddress!, out.count, "%.15g", $0) }
        }
        guard n > 0, n < buffer.count else { return r }
        return buffer.withUnsafeBufferPointer { strtod($0.baseAddress!, nil) }
    }

    /// `a + b` in decimal (see the type's note).
    @inline(__always) static func sum(_ a: Double, _ b: Double) -> Double { rounded(a + b) }
}

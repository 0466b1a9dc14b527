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
/// Sums and differences are therefore computed on the operands' decimal digits (``sum(_:_:)``):
/// `128.11 + 1000` is then the same number as a logged `1128.11`. Products and quotients with a
/// fraction are rounded to 15 significant digits. Whole numbers are left alone (they are exact).
enum DecimalRounding {
    /// 10^0 … 10^22: every one exact in a `Double`.
    private static let powersOfTen: [Double] = (0...22).map { k in
        (0..<k).reduce(1.0) { acc, _ in acc * 10 }
    }

    /// `r` rounded to 15 significant decimal digits, as the nearest `Double` to that decimal (for
    /// products and quotients, whose error is relative to the result; times are added and
    /// subtracted with ``sum(_:_:)``).
    static func rounded(_ r: Double) -> Double { quantized(r, magnitude: Swift.abs(r)) }

    /// `a + b` in decimal: the sum of the two numbers as written (`128.11 + 1000` is `1128.11`).
    ///
    /// Each operand is read as the decimal it was written as: its fraction digits `d` are those of
    /// its shortest decimal form, and `operand × 10^d` rounded is that decimal's digits as a whole
    /// number — exact below 2^51, where the multiplication's error is under a quarter. The sum of
    /// the two whole numbers is exact, and dividing it by 10^d is one correctly rounded division:
    /// the nearest double to the decimal sum, which is what a parser makes of that sum's text.
    /// Operands with more digits than that (16 or 17 significant digits, as a `Double` uptime in
    /// milliseconds with a long fraction: `693745144.0586978`) are added as decimal text
    /// (``textSum(_:_:)``): slower, and exact.
    ///
    /// Two whole numbers below 9e15 add as doubles (``isPlainWhole(_:)``): each is its own
    /// decimal, and their binary sum is what every path of ``decimalSum(_:_:)`` gives. Otherwise
    /// a whole number added to another number (`p.t + T`) is tried first (``shifted(_:by:)``):
    /// where it answers, it is the nearest double to the decimal sum, which the digits of both
    /// would give too, without searching for them.
    @inline(__always) static func sum(_ a: Double, _ b: Double) -> Double {
        // Two whole numbers: ``decimalSum(_:_:)`` gives their binary sum (a whole number is its
        // own decimal), found here without a call (``isPlainWhole(_:)``).
        if isPlainWhole(a), isPlainWhole(b) { return a + b }
        return decimalSum(a, b)
    }

    /// ``sum(_:_:)`` in full.
    @inline(never) static func decimalSum(_ a: Double, _ b: Double) -> Double {
        let r = a + b
        guard r.isFinite else { return r }
        if let s = shifted(a, by: b) ?? shifted(b, by: a) { return s }
        if let da = fractionDigits(a), let db = fractionDigits(b) {
            let d = Swift.max(da, db)
            if d == 0 { return r }
            let p = powersOfTen[d]
            let sa = a * p, sb = b * p
            if Swift.abs(sa) < 2.0e15, Swift.abs(sb) < 2.0e15 {
                return (sa.rounded() + sb.rounded()) / p
            }
        }
        return textSum(a, b) ?? r
    }

    /// Whether `x` is a whole number of magnitude below 9e15 (so it converts to an integer and
    /// back exactly). False for a fraction, a larger number, an infinity and NaN: those take
    /// ``sum(_:_:)``'s general path.
    @inline(__always) static func isPlainWhole(_ x: Double) -> Bool {
        guard Swift.abs(x) < 9e15 else { return false }
        return Double(Int64(x)) == x
    }

    /// `long + whole` when binary addition is already the decimal sum: `whole` is a whole number
    /// (so it is its own decimal), a multiple of `long`'s unit in the last place (`|long| < 2^53`),
    /// and the sum keeps `long`'s sign and binary exponent. The sum is then exact, on the same grid
    /// of doubles as `long`, shifted by a whole number of units: the double nearest the decimal
    /// sum, as `long` is the one nearest its decimal. (A decimal of at most 17 digits at or above 1
    /// is never halfway between two doubles, so there is no tie to break; a sum that is a power of
    /// two is left to the text path.) This is `p.t + T` for a
    /// long uptime and a whole number of milliseconds, without going through text.
    @inline(__always) private static func shifted(_ long: Double, by whole: Double) -> Double? {
        guard whole == whole.rounded(), Swift.abs(long) >= 1, Swift.abs(long) < 9.007199254740992e15
        else { return nil }
        let r = long + whole
        // (At a power of two the doubles below are twice as dense: the nearest may be one of them.)
        guard r.sign == long.sign, r.exponent == long.exponent, r.significandBitPattern != 0 else {
            return nil
        }
        return r
    }

    /// How many digits after the point the shortest decimal form of `x` has (0 for a whole
    /// number); nil when `x` is not finite, or its digits do not fit in a whole number below 2^51.
    static func fractionDigits(_ x: Double) -> Int? {
        guard x.isFinite else { return nil }
        if x == x.rounded() { return 0 }
        let m = Swift.abs(x)
        for d in 1...22 {
            let s = m * powersOfTen[d]
            if s >= 2.0e15 { return nil }
            // Whole to within the error of the multiplication (one unit in its last place), and
            // that whole number of 10^-d is `x` itself: near 2^51 a unit in the last place is
            // coarse enough that a longer decimal's product can land within one of a whole number
            // (693745044.0586978 × 10^6 rounds to …697.875).
            let n = s.rounded()
            if Swift.abs(s - n) <= s.ulp, n / powersOfTen[d] == m { return d }
        }
        return nil
    }

    /// `a + b` computed on the digits of their shortest decimal forms (Swift's `description`),
    /// then read back with `strtod`: the nearest double to the exact decimal sum. Nil when the
    /// two are too far apart in magnitude to align in 128 bits (then binary addition is as good).
    static func textSum(_ a: Double, _ b: Double) -> Double? {
        guard let x = DecimalText(a), let y = DecimalText(b) else { return nil }
        let e = Swift.min(x.exponent, y.exponent)
        guard x.exponent - e <= 20, y.exponent - e <= 20 else { return nil }
        func scaled(_ v: DecimalText) -> Int128 {
            var m = Int128(v.digits)
            for _ in 0..<(v.exponent - e) { m *= 10 }
            return v.negative ? -m : m
        }
        let total = scaled(x) + scaled(y)
        let text = "\(total)e\(e)"
        return text.withCString { strtod($0, nil) }
    }

    /// A finite double's shortest decimal form as `digits × 10^exponent`.
    struct DecimalText {
        var negative: Bool
        var digits: UInt64
        var exponent: Int

        init?(_ x: Double) {
            guard x.isFinite else { return nil }
            negative = x < 0
            digits = 0
            exponent = 0
            var afterPoint = false
            var sawDigit = false
            var exponentPart = ""
            var inExponent = false
            for u in Swift.abs(x).description.utf8 {
                if inExponent { exponentPart.unicodeScalars.append(Unicode.Scalar(u)); continue }
                switch u {
                case UInt8(ascii: "0")...UInt8(ascii: "9"):
                    // At most 17 significant digits: fits in 64 bits.
                    guard digits <= (UInt64.max - 9) / 10 else { return nil }
                    digits = digits * 10 + UInt64(u - UInt8(ascii: "0"))
                    sawDigit = true
                    if afterPoint { exponent -= 1 }
                case UInt8(ascii: "."): afterPoint = true
                case UInt8(ascii: "e"), UInt8(ascii: "E"): inExponent = true
                default: return nil
                }
            }
            guard sawDigit else { return nil }
            if inExponent {
                guard let k = Int(exponentPart) else { return nil }
                exponent += k
            }
        }
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

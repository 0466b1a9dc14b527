#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Position in a line's bytes.
struct Cursor {
    let base: UnsafePointer<UInt8>
    let count: Int
    var i = 0

    @inline(__always) var peek: UInt8 { base[i] }

    @inline(__always) mutating func skipWhitespace() {
        while i < count {
            let b = base[i]
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { i += 1 } else { return }
        }
    }

    /// Past a container's opening bracket and the white space after it; true when `closing`
    /// follows at once: the container is empty, and the cursor is past its end too.
    @inline(__always) mutating func opensEmpty(closing: UInt8) -> Bool {
        i += 1
        skipWhitespace()
        guard i < count, peek == closing else { return false }
        i += 1
        return true
    }

    /// Past the white space before an object's key, at its opening quote.
    @inline(__always) mutating func startOfKey() throws(JSONSyntaxError) {
        skipWhitespace()
        guard i < count, peek == UInt8(ascii: "\"") else {
            throw JSONSyntaxError(reason: "expected a key", offset: i)
        }
    }

    /// Past the `:` after an object's key and the white space around it, at the value.
    @inline(__always) mutating func pastColon() throws(JSONSyntaxError) {
        skipWhitespace()
        guard i < count, peek == UInt8(ascii: ":") else {
            throw JSONSyntaxError(reason: "expected ':'", offset: i)
        }
        i += 1
        skipWhitespace()
    }

    /// Past a container's member: its `,` (false: another member follows) or the container's
    /// `closing` bracket (true: the container ended), after any white space.
    @inline(__always) mutating func endOfMember(closing: UInt8) throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        guard i < count else { throw JSONSyntaxError(reason: "unexpected end of line", offset: i) }
        let b = peek
        i += 1
        if b == UInt8(ascii: ",") { return false }
        if b == closing { return true }
        throw JSONSyntaxError(
            reason: "expected ',' or '\(UnicodeScalar(closing))'", offset: i - 1)
    }

    mutating func expectLiteral(_ word: StaticString) throws(JSONSyntaxError) {
        let n = word.utf8CodeUnitCount
        guard i + n <= count else {
            throw JSONSyntaxError(reason: "unexpected end of line", offset: i)
        }
        let w = word.utf8Start
        for k in 0..<n where base[i + k] != w[k] {
            throw JSONSyntaxError(reason: "unexpected character", offset: i + k)
        }
        i += n
    }

    /// Scans a string starting at the opening quote; returns the content range and whether it has
    /// escapes.
    mutating func scanString() throws(JSONSyntaxError) -> (Int, Int, Bool) {
        i += 1
        let start = i
        var escaped = false
        while i < count {
            // Eight bytes at a time: jump to the first quote, backslash, control or non-ASCII byte.
            if i + 8 <= count {
                let mask = Cursor.specialBytes(
                    UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)))
                if mask == 0 {
                    i += 8
                    continue
                }
                i += mask.trailingZeroBitCount >> 3
            }
            let b = base[i]
            if b == 0x22 { let end = i; i += 1; return (start, end, escaped) }
            if b == 0x5C {
                escaped = true
                guard i + 1 < count else { break }
                let e = base[i + 1]
                switch e {
                case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74: i += 2
                case 0x75:
                    guard i + 5 < count else {
                        throw JSONSyntaxError(reason: "bad \\u escape", offset: i)
                    }
                    for k in 2...5 where Cursor.hexValue(base[i + k]) == nil {
                        throw JSONSyntaxError(reason: "bad \\u escape", offset: i)
                    }
                    i += 6
                default: throw JSONSyntaxError(reason: "bad escape", offset: i)
                }
            } else if b < 0x20 {
                throw JSONSyntaxError(reason: "control character in string", offset: i)
            } else if b >= 0x80 {
                let n = utf8SequenceLength(at: i)
                guard n > 0 else { throw .notUTF8(at: i) }
                i += n
            } else {
                i += 1
            }
        }
        throw JSONSyntaxError(reason: "unterminated string", offset: start - 1)
    }

    /// For eight bytes read little-endian: nonzero when one of them is `"`, `\\`, a control byte
    /// (< 0x20) or not ASCII (>= 0x80), and then the lowest set bit lies in the first such byte.
    /// (The classic "has a zero byte" / "has a byte below n" word tricks: a false mark can only
    /// sit above a true one, where a borrow spread from it.)
    @inline(__always) static func specialBytes(_ w: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quote = w ^ (ones &* 0x22)
        let backslash = w ^ (ones &* 0x5C)
        let zeroQuote = (quote &- ones) & ~quote
        let zeroBackslash = (backslash &- ones) & ~backslash
        let control = w &- (ones &* 0x20)
        return (zeroQuote | zeroBackslash | control | w) & (ones &* 0x80)
    }

    func validUTF8Sequence(at p: Int) -> Bool { utf8SequenceLength(at: p) > 0 }

    /// Length of the valid UTF-8 sequence starting at `p` (a byte >= 0x80), or 0 if invalid.
    func utf8SequenceLength(at p: Int) -> Int {
        let b0 = base[p]
        @inline(__always) func cont(_ k: Int) -> UInt8? {
            guard p + k < count else { return nil }
            let b = base[p + k]
            return b & 0xC0 == 0x80 ? b : nil
        }
        switch b0 {
        case 0xC2...0xDF:
            return cont(1) != nil ? 2 : 0
        case 0xE0...0xEF:
            guard let b1 = cont(1), cont(2) != nil else { return 0 }
            if b0 == 0xE0 && b1 < 0xA0 { return 0 }  // overlong
            if b0 == 0xED && b1 >= 0xA0 { return 0 }  // surrogate
            return 3
        case 0xF0...0xF4:
            guard let b1 = cont(1), cont(2) != nil, cont(3) != nil else { return 0 }
            if b0 == 0xF0 && b1 < 0x90 { return 0 }
            if b0 == 0xF4 && b1 >= 0x90 { return 0 }
            return 4
        default:
            return 0
        }
    }

    static func hexValue(_ b: UInt8) -> UInt32? {
        switch b {
        case 0x30...0x39: return UInt32(b - 0x30)
        case 0x41...0x46: return UInt32(b - 0x41 + 10)
        case 0x61...0x66: return UInt32(b - 0x61 + 10)
        default: return nil
        }
    }

    /// Decodes the escapes of an already-validated string body into UTF-8 bytes.
    /// A lone surrogate escape becomes U+FFFD.
    static func unescape(
        _ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int, into out: inout [UInt8]
    ) throws(JSONSyntaxError) {
        var i = start
        func hex4(_ p: Int) -> UInt32 {
            (hexValue(base[p])! << 12) | (hexValue(base[p + 1])! << 8)
                | (hexValue(base[p + 2])! << 4)
                | hexValue(base[p + 3])!
        }
        while i < end {
            let b = base[i]
            guard b == 0x5C else { out.append(b); i += 1; continue }
            let e = base[i + 1]
            switch e {
            case 0x62: out.append(0x08); i += 2
            case 0x66: out.append(0x0C); i += 2
            case 0x6E: out.append(0x0A); i += 2
            case 0x72: out.append(0x0D); i += 2
            case 0x74: out.append(0x09); i += 2
            case 0x75:
                var scalar = hex4(i + 2)
                i += 6
                if scalar >= 0xD800 && scalar < 0xDC00, i + 5 < end, base[i] == 0x5C,
                    base[i + 1] == 0x75
                {
                    let low = hex4(i + 2)
                    if low >= 0xDC00 && low < 0xE000 {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                    }
                }
                let u = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                out.append(contentsOf: UTF8.encode(u)!)
            default: out.append(e); i += 2
            }
        }
    }
}

/// JSON string escaping on bytes: `"`, `\`, control characters, DEL and the line and paragraph
/// separators (U+2028, U+2029) escaped; every other byte copied as it is, in runs.
enum JSONEscape {
    /// `s` quoted and escaped, appended to `out`.
    static func appendQuoted(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { appendEscaped($0, to: &out) }
        out.append(UInt8(ascii: "\""))
    }

    static func appendEscaped(_ u: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        let hex = Self.hex
        var runStart = 0
        var i = 0
        let n = u.count
        while i < n {
            let b = u[i]
            let escape: Bool
            if b >= 0x20 && b != 0x22 && b != 0x5C && b != 0x7F {
                // U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
                escape =
                    b == 0xE2 && i + 2 < n && u[i + 1] == 0x80
                    && (u[i + 2] == 0xA8 || u[i + 2] == 0xA9)
            } else {
                escape = true
            }
            if !escape {
                i += 1
                continue
            }
            if runStart < i {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: u[runStart..<i]))
            }
            switch b {
            case 0x22: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "\""))
            case 0x5C: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "\\"))
            case 0x0A: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "t"))
            case 0xE2:
                out.append(contentsOf: [
                    UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "2"), UInt8(ascii: "0"),
                    UInt8(ascii: "2"),
                    u[i + 2] == 0xA8 ? UInt8(ascii: "8") : UInt8(ascii: "9")
                ])
                i += 2
            default:
                out.append(contentsOf: [
                    UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                    hex[Int(b >> 4)], hex[Int(b & 0xF)]
                ])
            }
            i += 1
            runStart = i
        }
        if runStart < n { out.append(contentsOf: UnsafeBufferPointer(rebasing: u[runStart..<n])) }
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)
}

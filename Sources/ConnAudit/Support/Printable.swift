/// Log text made safe to print anywhere: control characters (C0, DEL, C1, the line and paragraph
/// separators) become `\uXXXX`, so a value read from a log can neither end a report line early
/// nor forge one (a CI annotation, a JUnit row, a terminal escape) in any format.
enum Printable {
    static func escaped(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: isControl) else { return s }
        var out = ""
        for u in s.unicodeScalars {
            if isControl(u) {
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out
    }

    static func isControl(_ u: Unicode.Scalar) -> Bool {
        u.value < 0x20 || (u.value >= 0x7F && u.value <= 0x9F) || u.value == 0x2028 || u.value == 0x2029
    }
}

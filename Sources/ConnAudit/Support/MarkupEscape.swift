/// Escaping text for the XML and HTML reports, in one pass, so nothing is escaped twice.
///
/// Every context escapes `& < > " '` as entities, so the text is safe in element content and in
/// attributes quoted either way. The contexts differ in the rest:
/// - ``Context/html``: `'` as `&#39;` (HTML 4 has no `&apos;`); every other character kept.
///   Control characters are the caller's to show (the timeline page shows them before escaping).
/// - ``Context/xmlText`` and ``Context/xmlAttribute``: `'` as `&apos;`, and text XML 1.0 can
///   carry. Tab and newline are kept in element text and written `&#9;`/`&#10;` in attributes,
///   which parsers would otherwise normalise to spaces. Every other character XML 1.0 cannot carry
///   (C0 controls, U+FFFE, U+FFFF; not even as a character reference) is shown as the text report
///   shows it, `\u{1B}`, CR as `\r`, so texts that differ in them stay different.
enum MarkupEscape {
    /// Where the escaped text goes.
    enum Context {
        case html
        case xmlText
        case xmlAttribute
    }

    /// `s` escaped for `context`; `s` itself when nothing in it needs escaping.
    ///
    /// - Complexity: O(`s.utf8.count`).
    static func escape(_ s: String, for context: Context) -> String {
        let xml = context != .html
        // 0xEF leads U+FFFE and U+FFFF in UTF-8.
        let needsWork = s.utf8.contains { b in
            b == 0x26 || b == 0x3C || b == 0x3E || b == 0x22 || b == 0x27
                || (xml && (b < 0x20 || b == 0xEF))
        }
        guard needsWork else { return s }
        let inAttribute = context == .xmlAttribute
        var out = ""
        out.reserveCapacity(s.utf8.count + 16)
        for u in s.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += xml ? "&apos;" : "&#39;"
            case _ where !xml: out.unicodeScalars.append(u)
            case "\n": out += inAttribute ? "&#10;" : "\n"
            case "\t": out += inAttribute ? "&#9;" : "\t"
            // A parser would turn a CR into a newline: shown, as the text report shows it.
            case "\r": out += "\\r"
            // XML 1.0 `Char`: no C0 controls but tab, newline and CR, and no U+FFFE/U+FFFF.
            // Surrogates cannot occur in a String.
            case _ where u.value < 0x20 || u.value == 0xFFFE || u.value == 0xFFFF:
                out += "\\u{" + String(u.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(u)
            }
        }
        return out
    }
}

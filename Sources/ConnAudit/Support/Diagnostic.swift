/// A message about a position in a text file, rendered the way compilers do.
///
/// `path:line:column: error: message`, then the source line and a caret under the column.
/// Lines and columns are 1-based. Used for rule files (YAML and the expressions inside them);
/// log lines use ``Finding`` instead, because their text may hold secrets and is never echoed.
///
/// Its text (``description``) hides what the reader would flag as a secret, so it is defined
/// beside the reader's redaction, in `Reading/Diagnostic+Redaction.swift`; this file lays it out.
public struct Diagnostic: Error, Sendable, Equatable {
    public enum Severity: String, Sendable { case error, warning, note }

    public var severity: Severity
    public var path: String
    public var line: Int
    public var column: Int
    public var message: String
    /// The source line the position is on, without its line end; empty when unknown.
    public var sourceLine: String

    public init(
        _ severity: Severity = .error, path: String, line: Int, column: Int, message: String,
        sourceLine: String = ""
    ) {
        self.severity = severity
        self.path = path
        self.line = line
        self.column = column
        self.message = message
        self.sourceLine = sourceLine
    }

    /// Builds a diagnostic and takes the snippet line from the whole text of the file.
    public init(
        _ severity: Severity = .error, path: String, line: Int, column: Int, message: String,
        in text: String
    ) {
        self.init(
            severity, path: path, line: line, column: column, message: message,
            sourceLine: Diagnostic.line(line, of: text))
    }

    /// The diagnostic laid out the way compilers print it, from its message and source line as
    /// they are shown: `path:line:column: severity: message`, then, when `shownLine` is not
    /// empty, the line and a caret under `caretColumn`.
    ///
    /// - Parameters:
    ///   - shownMessage: The message to print; its control characters are made visible here.
    ///   - shownLine: The source line to print (empty: none); `path:line:column` still names the
    ///     position in the line as written.
    ///   - caretColumn: The 1-based column, in Unicode scalars of `shownLine`, the caret is under.
    func laidOut(message shownMessage: String, line shownLine: String, caretColumn: Int) -> String {
        var out = "\(path):\(line):\(column): \(severity.rawValue): \(shownMessage.visibleControls)"
        if !shownLine.isEmpty {
            // At most 200 characters of the line, around the column when it lies further right
            // (cut off on the left: "…"), so the caret is always under the place it names.
            let scalars = Array(shownLine.unicodeScalars)
            let start =
                caretColumn - 1 > 160 ? min(caretColumn - 1 - 100, max(0, scalars.count - 200)) : 0
            let window = scalars[start..<min(scalars.count, start + 200)]
            // Control characters would break the line or the caret's column: show them as '?'.
            let shown = window.map {
                $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F ? "?" : Character($0)
            }
            out += "\n" + (start > 0 ? "…" : "") + String(shown) + "\n"
            // The caret sits under the column; tabs are kept so it lines up in a terminal.
            let lead = shown.prefix(max(0, caretColumn - 1 - start)).map { $0 == "\t" ? "\t" : " " }
                .joined()
            out += (start > 0 ? " " : "") + lead + "^"
        }
        return out
    }

    /// The 1-based `number`th line of `text`, without its line end (empty if out of range).
    public static func line(_ number: Int, of text: String) -> String {
        guard number >= 1 else { return "" }
        let lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false)
        guard number <= lines.count else { return "" }
        var line = lines[number - 1]
        if line.last == 0x0D { line = line.dropLast() }
        return String(decoding: line, as: UTF8.self)
    }
}

/// Several diagnostics at once: a rules load reports every error it found, not only the first.
public struct DiagnosticList: Error, Sendable {
    public var diagnostics: [Diagnostic]
    public init(_ diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }
}

extension String {
    /// How many bytes of one value a report shows inside a message or a context line (a field of
    /// up to 1 MiB, a server's close reason or an error's whole description, would otherwise be
    /// repeated whole in every finding that names it). The log at the finding's file:line has it.
    public static let shownValueBytes = 256

    /// The text, or when it is longer than `limit` bytes of UTF-8 its first `limit` bytes or fewer
    /// (whole Unicode scalars; a combining mark may be cut from its letter) and `… (N bytes)`:
    /// `N` is the whole text's length.
    public func clipped(bytes limit: Int = String.shownValueBytes) -> String {
        guard let head = clippedHead(bytes: limit) else { return self }
        return head + Self.clipMark(utf8.count)
    }

    /// The first `limit` bytes of the text or fewer (whole Unicode scalars) when it is longer than
    /// that; nil when it is not.
    func clippedHead(bytes limit: Int = String.shownValueBytes) -> String? {
        let bytes = utf8
        guard bytes.count > limit else { return nil }
        var end = bytes.index(bytes.startIndex, offsetBy: limit)
        // Back to the start of a scalar: a continuation byte is 10xxxxxx.
        while end > bytes.startIndex, bytes[end] & 0xC0 == 0x80 { end = bytes.index(before: end) }
        return String(decoding: bytes[..<end], as: UTF8.self)
    }

    /// What follows a clipped text: its whole length.
    static func clipMark(_ length: Int) -> String { "… (\(length) bytes)" }

    /// The text with control characters made visible (`\u{1B}`, `\n`, and the line and paragraph
    /// separators), so a value from a log can neither end a report early (NUL), draw on the
    /// terminal (ESC) nor forge a line of its own.
    public var visibleControls: String {
        // Most texts are printable ASCII: their bytes answer at once (a scan by Unicode scalars
        // cost 1,400 instructions on each malformed line's 60-byte message).
        let printableASCII = utf8.withContiguousStorageIfAvailable { bytes in
            bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
        }
        if printableASCII == true { return self }
        guard
            unicodeScalars.contains(where: {
                $0.value < 0x20 || $0.value == 0x7F || ($0.value >= 0x80 && $0.value < 0xA0)
                    || $0.value == 0x2028 || $0.value == 0x2029
            })
        else {
            return self
        }
        var out = ""
        for u in unicodeScalars {
            switch u.value {
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0..<0x20, 0x7F, 0x80..<0xA0, 0x2028, 0x2029:
                let hex = String(u.value, radix: 16, uppercase: true)
                out += "\\u{" + hex + "}"
            default: out.unicodeScalars.append(u)
            }
        }
        return out
    }
}

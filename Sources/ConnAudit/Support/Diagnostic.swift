/// A message about a position in a text file, rendered the way compilers do.
///
/// `path:line:column: error: message`, then the source line and a caret under the column.
/// Lines and columns are 1-based. Used for rule files (YAML and the expressions inside them);
/// log lines use ``Finding`` instead, because their text may hold secrets and is never echoed.
public struct Diagnostic: Error, Sendable, Equatable, CustomStringConvertible {
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
        self.init(severity, path: path, line: line, column: column, message: message,
                  sourceLine: Diagnostic.line(line, of: text))
    }

    public var description: String {
        var out = "\(path):\(line):\(column): \(severity.rawValue): \(message)"
        if !sourceLine.isEmpty {
            let shown = String(sourceLine.prefix(200))
            out += "\n" + shown + "\n"
            // The caret sits under the column; tabs are kept so it lines up in a terminal.
            let lead = shown.prefix(max(0, column - 1)).map { $0 == "\t" ? "\t" : " " }.joined()
            out += lead + "^"
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
public struct DiagnosticList: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [Diagnostic]
    public init(_ diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}

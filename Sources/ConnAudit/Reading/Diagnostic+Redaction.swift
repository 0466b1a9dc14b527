/// A diagnostic's text, with what the reader would flag in a rules file hidden.
///
/// A rules file is printed here as written, never read as a log: what `log.no-secrets` would
/// flag in it is redacted (``SecretRedaction``) — in the message, which quotes the file's keys,
/// names and values, and in the line, under which the caret follows what is shown.
extension Diagnostic: CustomStringConvertible {
    /// `path:line:column: severity: message`, then the source line and a caret under the column.
    public var description: String {
        let message = SecretRedaction.text(message)
        guard !sourceLine.isEmpty else {
            return laidOut(message: message, line: "", caretColumn: column)
        }
        let (shownLine, caretColumn) = SecretRedaction.positioned(sourceLine, column: column)
        return laidOut(message: message, line: shownLine, caretColumn: caretColumn)
    }
}

extension DiagnosticList: CustomStringConvertible {
    /// Each diagnostic's text (``Diagnostic/description``), one after another.
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}

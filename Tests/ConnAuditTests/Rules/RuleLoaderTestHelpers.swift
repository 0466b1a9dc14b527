import Foundation
import Testing

@testable import ConnAudit

/// A rules file whose `1️⃣` marks where the error must point; the marker is removed from `text`.
struct MarkedRules: Sendable {
    var text: String
    var line: Int
    var column: Int

    init(_ marked: String) {
        let marker: Character = "1️⃣"
        guard let index = marked.firstIndex(of: marker) else {
            preconditionFailure("no 1️⃣ in \(marked)")
        }
        let before = marked[..<index].split(separator: "\n", omittingEmptySubsequences: false)
        var text = marked
        text.remove(at: index)
        self.text = text
        line = before.count
        column = before.last!.count + 1
    }
}

/// The diagnostics loading `files` throws, or nil when they load.
func loadErrors(_ files: [(path: String, text: String)]) -> [Diagnostic]? {
    do {
        _ = try RuleLoader.load(files: files)
        return nil
    } catch {
        return error.diagnostics
    }
}

/// `[line, column]`, typed so literals compare without ambiguity.
func position(_ d: Diagnostic) -> [Int] { [d.line, d.column] }

/// How a diagnostic at `line:column` of `text` must render: the header, the source line, a caret.
private func rendering(path: String, line: Int, column: Int, message: String, text: String)
    -> String
{
    let source = Diagnostic.line(line, of: text)
    let lead = String(source.prefix(column - 1).map { $0 == "\t" ? "\t" : " " })
    return "\(path):\(line):\(column): error: \(message)\n\(source)\n\(lead)^"
}

/// Checks one diagnostic against a marked file: path, line, column, message and rendering.
func expectDiagnostic(
    _ d: Diagnostic, at marked: MarkedRules, path: String = "rules/a.yaml",
    containing message: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(d.severity == .error, sourceLocation: sourceLocation)
    #expect(d.path == path, sourceLocation: sourceLocation)
    #expect(
        position(d) == [marked.line, marked.column], "\(d.message)", sourceLocation: sourceLocation)
    #expect(
        d.message.contains(message), "message was: \(d.message)", sourceLocation: sourceLocation)
    #expect(
        d.sourceLine == Diagnostic.line(marked.line, of: marked.text),
        sourceLocation: sourceLocation)
    #expect(
        d.description
            == rendering(
                path: path, line: marked.line, column: marked.column, message: d.message,
                text: marked.text),
        sourceLocation: sourceLocation)
}

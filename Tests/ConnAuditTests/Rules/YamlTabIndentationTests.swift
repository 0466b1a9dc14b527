import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

// YAML indents with spaces only. libyaml stops at a tab that indents with "found character that
// cannot start any token" or "found a tab character that violates indentation"; the diagnostic
// says what the rule is instead, at the tab's file:line:column.

@Suite struct YamlTabIndentationTests {
    /// Each input has one tab where libyaml stops: at `line`, `column` (1-based, in characters).
    @Test(
        arguments: [
            ("key:\n\t- x\n", 2, 1),
            ("rules:\n  - id: a.b\n\ttitle: x\n", 3, 1),
            ("a:\n  b: 1\n  \t  c: 2\n", 3, 3),
            ("\u{FEFF}ü:\n  é: 1\n\tx: 2\n", 3, 1)
        ] as [(String, Int, Int)])
    func aTabThatIndentsIsNamed(_ text: String, _ line: Int, _ column: Int) throws {
        let diagnostic: Diagnostic
        do {
            _ = try YamlLoader.load(text, path: "rules/a.yaml")
            Issue.record("loaded")
            return
        } catch {
            diagnostic = error
        }
        #expect(
            diagnostic.message
                == "a tab character: YAML does not allow tabs for indentation (indent with spaces)")
        #expect(diagnostic.line == line)
        #expect(diagnostic.column == column)
        #expect(
            diagnostic.description.hasPrefix(
                "rules/a.yaml:\(line):\(column): error: a tab character"))
    }

    /// A tab that does not indent (before a comment, inside a quoted text) is white space or text.
    @Test func aTabElsewhereIsFine() throws {
        let documents = try YamlLoader.load("a: \"x\ty\"\t# note\nb: 1\n", path: "rules/a.yaml")
        #expect(documents.count == 1)
    }

    /// The command line shows it as any rule error: file:line:column, the line, a caret.
    @Test func rulesCheckShowsIt() throws {
        let path =
            FileManager.default.temporaryDirectory.path
            + "/conn-audit-tab-\(UUID().uuidString).yaml"
        try "rules:\n  - id: a.b\n\ttitle: x\n".write(
            toFile: path, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = CommandLineRun(["rules", "--check", "--rules", path])
        #expect(run.code == 2)
        #expect(
            run.err.hasPrefix(
                """
                \(path):3:1: error: a tab character: YAML does not allow tabs for indentation (indent with spaces)
                \ttitle: x
                ^
                """), "\(run.err)")
    }
}

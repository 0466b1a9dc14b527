import Foundation
import ConnAuditTestSupport
import Testing

@testable import ConnAudit

// MARK: - Helpers

/// A rules file whose `1️⃣` marks where the error must point; the marker is removed from `text`.
private struct MarkedRules: Sendable {
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
private func loadErrors(_ files: [(path: String, text: String)]) -> [Diagnostic]? {
    do {
        _ = try RuleLoader.load(files: files)
        return nil
    } catch {
        return error.diagnostics
    }
}

/// The diagnostics loading rule `paths` throws, or nil when they load.
private func loadPathErrors(_ paths: [String]) -> [Diagnostic]? {
    do {
        _ = try RuleLoader.load(paths: paths)
        return nil
    } catch {
        return error.diagnostics
    }
}

/// `[line, column]`, typed so literals compare without ambiguity.
private func position(_ d: Diagnostic) -> [Int] { [d.line, d.column] }

/// How a diagnostic at `line:column` of `text` must render: the header, the source line, a caret.
private func rendering(path: String, line: Int, column: Int, message: String, text: String)
    -> String
{
    let source = Diagnostic.line(line, of: text)
    let lead = String(source.prefix(column - 1).map { $0 == "\t" ? "\t" : " " })
    return "\(path):\(line):\(column): error: \(message)\n\(source)\n\(lead)^"
}

/// Checks one diagnostic against a marked file: path, line, column, message and rendering.
private func expectDiagnostic(
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

/// The repository root.
private let repositoryRoot = URL(fileURLWithPath: Repository.root)

/// Runs `body` with a fresh directory under the temporary directory, removed afterwards.
private func withRulesScratch(_ body: (URL) throws -> Void) throws {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("conn-audit-rules-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    try body(url)
}

private func write(_ text: String, to url: URL) throws {
    try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
}

// MARK: - Cases

/// One rules file with one error, and what the error must say.
struct LoaderErrorCase: Sendable, CustomTestStringConvertible {
    var name: String
    var yaml: String
    var message: String
    var testDescription: String { name }
}

private let loaderErrorCases: [LoaderErrorCase] = [
    LoaderErrorCase(
        name: "unknown key in a rule",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: "reason != null"
                1️⃣colour: red
            """, message: "unknown key 'colour' in a rule"),
    LoaderErrorCase(
        name: "unknown top-level key",
        yaml: """
            rules:
              - id: ws.a
                title: A
                never: { ev: ws.ping }
            1️⃣rulez: []
            """, message: "unknown key 'rulez' at the top of a rules file"),
    LoaderErrorCase(
        name: "missing id",
        yaml: """
            rules:
              - 1️⃣title: A
                never: { ev: ws.ping }
            """, message: "missing required key 'id'"),
    LoaderErrorCase(
        name: "missing title",
        yaml: """
            rules:
              - 1️⃣id: ws.a
                never: { ev: ws.ping }
            """, message: "rule 'ws.a': missing required key 'title'"),
    LoaderErrorCase(
        name: "empty title",
        yaml: """
            rules:
              - id: ws.a
                title: 1️⃣""
                never: { ev: ws.ping }
            """, message: "rule 'ws.a': 'title' must not be empty"),
    LoaderErrorCase(
        name: "null title",
        yaml: """
            rules:
              - id: ws.a
                title: 1️⃣~
                never: { ev: ws.ping }
            """, message: "rule 'ws.a': 'title' must not be empty"),
    LoaderErrorCase(
        name: "a second YAML document, whose rules would never run",
        yaml: """
            rules:
              - id: ws.a
                title: A
                never: { ev: ws.ping }
            ---
            1️⃣rules:
              - id: ws.b
                title: B
                never: { ev: ws.pong }
            """,
        message:
            "a second YAML document ('---'): a rules file holds one mapping with 'rules:'; put these rules in another file"
    ),
    LoaderErrorCase(
        name: "an error in a message hole on the second line of a block scalar",
        yaml: """
            rules:
              - id: ws.a
                title: A
                never: { ev: ws.ping }
                message: >-
                  first line {t}
                  second {t + 1️⃣}
            """, message: "unexpected end of expression"),
    LoaderErrorCase(
        name: "an error on the second line of a double-quoted expression",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: "reason != null and
                  reason == 1️⃣== ''"
            """, message: "unexpected '=='"),
    LoaderErrorCase(
        name: "an error after a line with trailing spaces",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: "reason != null and\u{20}\u{20}\u{20}
                  reason == 1️⃣== ''"
            """, message: "unexpected '=='"),
    LoaderErrorCase(
        name: "an error after a blank line in a quoted expression",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: "reason != null and

                  reason == 1️⃣== ''"
            """, message: "unexpected '=='"),
    LoaderErrorCase(
        name: "an error after an escaped line break",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: "reason != null and \\
                  reason == 1️⃣== ''"
            """, message: "unexpected '=='"),
    LoaderErrorCase(
        name: "an error in a message hole after a blank line of a folded block",
        yaml: """
            rules:
              - id: ws.a
                title: A
                never: { ev: ws.ping }
                message: >-
                  first line {t}

                  second {t + 1️⃣}
            """, message: "unexpected end of expression"),
    LoaderErrorCase(
        name: "an error on the second line of a plain expression",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: reason != null and
                  reason == 1️⃣== 'x'
            """, message: "unexpected '=='"),
    LoaderErrorCase(
        name: "two steps binding one capture name",
        yaml: """
            rules:
              - id: ws.a
                title: A
                forbid:
                  - { ev: ws.ping, as: p }
                  - { ev: ws.ping, as: 1️⃣p }
            """,
        message: "capture 'p' is already bound by the step at line 5: give each step its own name"),
    LoaderErrorCase(
        name: "a passing fixture with violations",
        yaml: """
            rules:
              - id: ws.a
                title: A
                never: { ev: ws.ping }
                tests:
                  - name: n
                    log: "{}"
                    expect: pass
                    violations: 1️⃣3
            """,
        message:
            "fixture 'n': 'violations: 3' with 'expect: pass' can never hold (violations make a rule fail)"
    ),
    LoaderErrorCase(
        name: "a trigger and its answer binding one capture name",
        yaml: """
            rules:
              - id: ws.a
                title: A
                each: { ev: ws.ping, as: p }
                followed_by: { ev: ws.pong, as: 1️⃣p }
            """, message: "capture 'p' is already bound at line 4: give each its own name"),
    LoaderErrorCase(
        name: "a null id",
        yaml: """
            rules:
              - id: 1️⃣null
                title: A
                never: { ev: ws.ping }
            """, message: "rule id '' must match [a-z0-9._-]+"),
    LoaderErrorCase(
        name: "upper-case id",
        yaml: """
            rules:
              - id: 1️⃣WS.Close
                title: A
                never: { ev: ws.ping }
            """, message: "rule id 'WS.Close' must match [a-z0-9._-]+"),
    LoaderErrorCase(
        name: "id with a space",
        yaml: """
            rules:
              - title: A
                id: 1️⃣"ws close"
                never: { ev: ws.ping }
            """, message: "rule id 'ws close' must match [a-z0-9._-]+"),
    LoaderErrorCase(
        name: "bad severity",
        yaml: """
            rules:
              - id: ws.a
                title: A
                severity: 1️⃣fatal
                never: { ev: ws.ping }
            """, message: "severity must be error, warning or info"),
    LoaderErrorCase(
        name: "bad for",
        yaml: """
            rules:
              - id: ws.a
                title: A
                for: 1️⃣session
                never: { ev: ws.ping }
            """, message: "'for' must be generation, source or corpus"),
    LoaderErrorCase(
        name: "two check kinds",
        yaml: """
            rules:
              - id: ws.a
                title: A
                never: { ev: ws.ping }
                count: 1️⃣{ ev: ws.close }
                max: 1
            """, message: "rule 'ws.a' has more than one check kind (never, count)"),
    LoaderErrorCase(
        name: "no check at all",
        yaml: """
            rules:
              - 1️⃣id: ws.a
                title: A
            """, message: "rule 'ws.a' has no check: give one of every, never, count"),
    LoaderErrorCase(
        name: "every without expect",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: 1️⃣{ ev: ws.close }
            """, message: "'every' needs 'expect'"),
    LoaderErrorCase(
        name: "count without min or max",
        yaml: """
            rules:
              - id: ws.a
                title: A
                count: 1️⃣{ ev: ws.close }
            """, message: "'count' needs 'min' or 'max'"),
    LoaderErrorCase(
        name: "min greater than max",
        yaml: """
            rules:
              - id: ws.a
                title: A
                count: { ev: ws.close }
                min: 1️⃣3
                max: 1
            """, message: "'min' (3) is greater than 'max' (1)"),
    LoaderErrorCase(
        name: "negative max",
        yaml: """
            rules:
              - id: ws.a
                title: A
                count: { ev: ws.close }
                min: 0
                max: 1️⃣-1
            """, message: "'max' must be a whole number >= 0"),
    LoaderErrorCase(
        name: "a key that does not go with the check",
        yaml: """
            rules:
              - id: ws.a
                title: A
                never: { ev: ws.ping }
                expect: 1️⃣"true"
            """, message: "'expect' does not go with 'never'"),
    LoaderErrorCase(
        name: "each without an answer",
        yaml: """
            rules:
              - id: ws.a
                title: A
                each: 1️⃣{ ev: ws.ping, as: p }
            """, message: "'each' needs exactly one of followed_by, preceded_by, never_after"),
    LoaderErrorCase(
        name: "a capture used before it is bound",
        yaml: """
            rules:
              - id: ws.a
                title: A
                forbid:
                  - { ev: ws.ping, where: "1️⃣q.t > 0" }
                  - { ev: ws.pong, as: q }
            """, message: "capture 'q' is used before it is bound"),
    LoaderErrorCase(
        name: "report_at names no capture",
        yaml: """
            rules:
              - id: ws.a
                title: A
                forbid: [{ ev: ws.ping, as: p }, { ev: ws.ping }]
                report_at: 1️⃣q
            """, message: "'report_at' must name a capture of the steps"),
    LoaderErrorCase(
        name: "report_gen names no capture",
        yaml: """
            rules:
              - id: ws.a
                title: A
                each: [{ ev: ws.ping, as: p }, { ev: ws.ping }]
                followed_by: { ev: ws.pong }
                report_gen: 1️⃣q
            """, message: "'report_gen' must name a capture of the steps"),
    LoaderErrorCase(
        name: "report_gen on a check without steps",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.ping, as: p }
                expect: "true"
                report_gen: 1️⃣p
            """, message: "'report_gen' does not go with 'every'"),
    LoaderErrorCase(
        name: "within_ms on the corpus",
        yaml: """
            rules:
              - id: ws.a
                title: A
                for: corpus
                each: { ev: ws.ping }
                followed_by: { ev: ws.pong }
                within_ms: 1️⃣100
            """, message: "'within_ms' needs a timeline with a clock"),
    LoaderErrorCase(
        name: "classify outside the corpus",
        yaml: """
            rules:
              - id: ws.a
                title: A
                classify: 1️⃣{ stream: ws, labels: { ok: { has: { ev: ws.pong } } } }
            """, message: "'classify' labels generations across the corpus: it needs for: corpus"),
    LoaderErrorCase(
        name: "require names no label",
        yaml: """
            rules:
              - id: ws.a
                title: A
                for: corpus
                classify: { stream: ws, labels: { ok: { has: { ev: ws.pong } } } }
                require: [ok, 1️⃣nope]
            """, message: "'require' names no label of 'classify'"),
    LoaderErrorCase(
        name: "between takes two selectors",
        yaml: """
            rules:
              - id: ws.a
                title: A
                never: { ev: ws.ping }
                between: 1️⃣[{ ev: ws.close }]
            """, message: "'between' takes two selectors"),
    LoaderErrorCase(
        name: "a misspelt key gets a suggestion",
        yaml: """
            rules:
              - id: ws.a
                title: A
                never: { ev: ws.ping }
                1️⃣aftr: { ev: ws.close }
            """, message: "unknown key 'aftr' in a rule (did you mean after?)"),
    LoaderErrorCase(
        name: "bad undecided",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: "reason != null"
                undecided: 1️⃣maybe
            """, message: "'undecided' must be fail, pass or inconclusive"),
    LoaderErrorCase(
        name: "expression error inside a double-quoted string",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: "reason 1️⃣= 'x'"
            """, message: "'=' is not an operator; use '==' to compare"),
    LoaderErrorCase(
        name: "expression error inside a single-quoted string",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: 'gen > 1 or1️⃣'
            """, message: "unexpected end of expression"),
    LoaderErrorCase(
        name: "expression error inside a plain scalar",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: gen > 1️⃣)
            """, message: "unexpected ')'"),
    LoaderErrorCase(
        name: "expression error inside a literal block scalar",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: |
                  reason != null and
                  reason 1️⃣&& gen > 0
            """, message: "use 'and', 'or', 'not' instead of '&'"),
    LoaderErrorCase(
        name: "unknown function",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: "gen > 0 and 1️⃣foo(1)"
            """, message: "unknown function 'foo'"),
    LoaderErrorCase(
        name: "wrong number of arguments",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: "1️⃣pow(gen) > 1"
            """, message: "pow() takes 2 argument(s), not 1"),
    LoaderErrorCase(
        name: "a where that is a number",
        yaml: """
            rules:
              - id: ws.a
                title: A
                never: { ev: ws.ping, where: 1️⃣5 }
            """, message: "'where' must be a condition (true or false), not the int 5"),
    LoaderErrorCase(
        name: "an expect that is a number",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.ping }
                expect: 1️⃣42
            """, message: "'expect' must be a condition (true or false), not the int 42"),
    LoaderErrorCase(
        name: "a negative within_ms",
        yaml: """
            rules:
              - id: ws.a
                title: A
                each: { ev: ws.ping }
                followed_by: { ev: ws.pong }
                within_ms: 1️⃣-5
            """, message: "'within_ms' must be a number of milliseconds >= 0, not -5"),
    LoaderErrorCase(
        name: "next() outside an every expectation",
        yaml: """
            rules:
              - id: ws.a
                title: A
                each: { ev: ws.ping, as: p }
                followed_by: { ev: ws.pong, where: "1️⃣next({ev: ws.close}) == null" }
            """,
        message:
            "next() (look-ahead) can be used only in the expect: of an every check and in its message"
    ),
    LoaderErrorCase(
        name: "next() with since",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.ping, as: p }
                expect: "1️⃣next({ev: ws.pong}, since: p) != null"
            """, message: "next() looks forward from the current event: it takes no since:"),
    LoaderErrorCase(
        name: "params.nope not defined",
        yaml: """
            rules:
              - id: ws.a
                title: A
                params: { limit: 5 }
                every: { ev: ws.close }
                expect: "gen < params.1️⃣nope"
            """, message: "unknown param 'nope' (this rule defines: limit)"),
    LoaderErrorCase(
        name: "since names no capture",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: "1️⃣count({ev: ws.ping}, since: x) == 0"
            """, message: "'since: x' names no capture bound before it"),
    LoaderErrorCase(
        name: "expression error in the where of a history selector",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: "count({ev: ws.ping, where: 'gen 1️⃣= 1'}) == 0"
            """, message: "'=' is not an operator"),
    LoaderErrorCase(
        name: "unknown selector test",
        yaml: """
            rules:
              - id: ws.a
                title: A
                never: { ev: ws.ping, delay_ms: { 1️⃣gtee: 5 } }
            """, message: "unknown test 'gtee' for field 'delay_ms'"),
    LoaderErrorCase(
        name: "selector that is not a map",
        yaml: """
            rules:
              - id: ws.a
                title: A
                never: 1️⃣ws.ping
            """, message: "a selector must be a map of field tests"),
    LoaderErrorCase(
        name: "a fixture setting a param the rule does not have",
        yaml: """
            rules:
              - id: ws.a
                title: A
                params: { n: 1 }
                count: { ev: ws.ping }
                max: params.n
                tests:
                  - name: x
                    params: { n: 2, 1️⃣m: 3 }
                    log: "{}"
                    expect: pass
            """, message: "fixture 'x': 'm' is not a param of the rule (its params: n)"),
    LoaderErrorCase(
        name: "a fixture setting a number param to text",
        yaml: """
            rules:
              - id: ws.a
                title: A
                params: { n: 1 }
                count: { ev: ws.ping }
                max: params.n
                tests:
                  - name: x
                    params: { n: 1️⃣lots }
                    log: "{}"
                    expect: pass
            """, message: "fixture 'x': param 'n' must be of its default's kind (default 1)"),
    LoaderErrorCase(
        name: "fixture with a bad expect",
        yaml: """
            rules:
              - id: ws.a
                title: A
                never: { ev: ws.ping }
                tests:
                  - name: x
                    log: "{}"
                    expect: 1️⃣maybe
            """, message: "'expect' must be pass, fail, inconclusive or not_applicable"),
    LoaderErrorCase(
        name: "a rules file that is a scalar",
        yaml: """
            1️⃣just some text
            """, message: "expected a mapping with 'rules:' at the top, found a scalar"),
    LoaderErrorCase(
        name: "rules that is not a list",
        yaml: """
            rules: 1️⃣{ id: ws.a }
            """, message: "'rules' must be a list of rules, found a mapping")
]

// MARK: - Tests

@Suite struct RuleLoaderTests {
    @Test(arguments: loaderErrorCases)
    func oneErrorIsReportedAtItsPosition(_ c: LoaderErrorCase) throws {
        let marked = MarkedRules(c.yaml)
        let errors = try #require(loadErrors([("rules/a.yaml", marked.text)]), "the file loaded")
        #expect(errors.count == 1, "\(errors)")
        let first = try #require(errors.first)
        expectDiagnostic(first, at: marked, containing: c.message)
    }

    @Test func everyErrorOfAFileIsReportedInOrder() throws {
        let text = """
            rules:
              - id: ws.a
                title: A
                severity: fatal
                never: { ev: ws.ping }
              - id: ws.b
                title: B
                every: { ev: ws.close }
                expect: "reason = 1"
              - id: Bad
                title: C
                never: { ev: ws.ping }
            """
        let errors = try #require(loadErrors([("rules/a.yaml", text)]))
        #expect(errors.map(position) == [[4, 15], [9, 21], [10, 9]])
        // The DiagnosticList renders every diagnostic, each with its snippet.
        let all = DiagnosticList(errors).description
        #expect(all.components(separatedBy: "rules/a.yaml:").count == 4)
    }

    @Test func duplicateIdAcrossTwoFilesNamesTheFirstPlace() throws {
        let first = """
            rules:
              - id: ws.a
                title: A
                never: { ev: ws.ping }
            """
        let second = MarkedRules(
            """
            rules:
              - id: ws.b
                title: B
                never: { ev: ws.ping }
              - id: 1️⃣ws.a
                title: A again
                never: { ev: ws.pong }
            """)
        let errors = try #require(
            loadErrors([("rules/a.yaml", first), ("rules/b.yaml", second.text)]))
        #expect(errors.count == 1)
        let d = try #require(errors.first)
        expectDiagnostic(
            d, at: second, path: "rules/b.yaml",
            containing: "duplicate rule id 'ws.a' (first defined at rules/a.yaml:2)")
    }

    @Test func duplicateIdInOneFile() throws {
        let marked = MarkedRules(
            """
            rules:
              - id: ws.a
                title: A
                never: { ev: ws.ping }
              - id: 1️⃣ws.a
                title: A again
                never: { ev: ws.pong }
            """)
        let errors = try #require(loadErrors([("rules/a.yaml", marked.text)]))
        #expect(errors.count == 1)
        expectDiagnostic(
            errors[0], at: marked,
            containing: "duplicate rule id 'ws.a' (first defined at rules/a.yaml:2)")
    }

    /// An expression's column is found in the raw text: escapes in a quoted string and the line
    /// folding of `>` do not move the caret.
    @Test(arguments: [
        """
        rules:
          - id: ws.a
            title: A
            every: { ev: ws.close }
            expect: "reason == \\"x\\" 1️⃣= 1"
        """,
        """
        rules:
          - id: ws.a
            title: A
            every: { ev: ws.close }
            expect: 'reason == ''x'' 1️⃣= 1'
        """,
        """
        rules:
          - id: ws.a
            title: A
            every: { ev: ws.close }
            expect: >
              reason != null and
              reason 1️⃣= 1
        """
    ])
    func expressionErrorPositionSurvivesEscapesAndFolding(_ yaml: String) throws {
        let marked = MarkedRules(yaml)
        let errors = try #require(loadErrors([("rules/a.yaml", marked.text)]))
        let d = try #require(errors.first)
        #expect(d.message.contains("'=' is not an operator"))
        #expect(position(d) == [marked.line, marked.column])

    }

    /// The column of an error inside a message hole counts the quote and the hole's `{`.
    @Test(arguments: [
        ("message: \"ping of gen {gen +1️⃣} seen\"", "unexpected end of expression"),
        ("message: \"ping {1️⃣foo(gen)}\"", "unknown function 'foo'")
    ])
    func expressionErrorInAMessageHole(_ line: String, _ message: String) throws {
        let marked = MarkedRules(
            """
            rules:
              - id: ws.a
                title: A
                never: { ev: ws.ping }
                \(line)
            """)
        let errors = try #require(loadErrors([("rules/a.yaml", marked.text)]))
        #expect(errors.count == 1)
        let d = try #require(errors.first)
        #expect(d.line == marked.line)
        #expect(d.message.contains(message))
        #expect(d.column == marked.column)
    }

    /// An unknown param inside `let:` is reported in the `let:` expression.
    @Test func unknownParamInALetPointsAtTheLet() throws {
        let marked = MarkedRules(
            """
            rules:
              - id: t.a
                title: A
                let: { T: "params.1️⃣nope + 1" }
                every: { ev: ws.close }
                expect: "t < T"
            """)
        let errors = try #require(loadErrors([("rules/a.yaml", marked.text)]))
        #expect(errors.count == 1)
        let d = try #require(errors.first)
        #expect(d.message.hasPrefix("unknown param 'nope'"))
        #expect(position(d) == [marked.line, marked.column])

    }

    @Test func aliasBombIsAnErrorNotAHang() throws {
        var lines = ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
        for level in 1..<9 {
            let items = Array(repeating: "*l\(level - 1)", count: 9).joined(separator: ", ")
            lines.append("l\(level): &l\(level) [\(items)]")
        }
        lines.append("rules: [*l8]")
        let text = lines.joined(separator: "\n") + "\n"
        let clock = ContinuousClock()
        var errors: [Diagnostic]?
        let elapsed = clock.measure { errors = loadErrors([("rules/bomb.yaml", text)]) }
        let found = try #require(errors)
        #expect(found.count == 1)
        let d = try #require(found.first)
        #expect(d.path == "rules/bomb.yaml")
        #expect(d.message == "alias expansion exceeds 10000 nodes (possible alias bomb)")
        #expect(position(d) == [5, 10])
        #expect(d.description.hasPrefix("rules/bomb.yaml:5:10: error: alias expansion exceeds"))
        #expect(d.description.hasSuffix("\n" + String(repeating: " ", count: 9) + "^"))
        #expect(elapsed < .seconds(2))
    }

    @Test func aFileThatIsNotYAML() throws {
        let marked = MarkedRules(
            """
            rules:
              - id: ws.a
                title: "A
            1️⃣
            """)
        let errors = try #require(loadErrors([("rules/a.yaml", marked.text)]))
        #expect(errors.count == 1)
        let d = try #require(errors.first)
        #expect(d.path == "rules/a.yaml")
        #expect(d.message.contains("quoted scalar"), "\(d.message)")
        #expect(position(d) == [marked.line, marked.column])
        #expect(d.description.hasPrefix("rules/a.yaml:\(marked.line):\(marked.column): error: "))
    }

    @Test func unbalancedFlowIsNotYAML() throws {
        let errors = try #require(loadErrors([("rules/a.yaml", "rules: [ { id: a, title: b ]\n")]))
        let d = try #require(errors.first)
        #expect(d.path == "rules/a.yaml")
        #expect(d.line == 1)
        #expect(d.column > 1)
        #expect(d.description.hasPrefix("rules/a.yaml:1:\(d.column): error: "))
        #expect(d.description.hasSuffix("\n" + String(repeating: " ", count: d.column - 1) + "^"))
    }

    @Test func anEmptyFileIsAnError() throws {
        let errors = try #require(loadErrors([("rules/empty.yaml", "")]))
        #expect(errors.count == 1)
        #expect(errors[0].path == "rules/empty.yaml")
        #expect(position(errors[0]) == [1, 1])
        #expect(errors[0].message.contains("empty rules file"))
    }

    @Test func aRulesDirectoryWithNoRuleFiles() throws {
        try withRulesScratch { dir in
            try write("not rules\n", to: dir.appendingPathComponent("README.txt"))
            try write("rules: []\n", to: dir.appendingPathComponent(".hidden.yaml"))
            let errors = try #require(
                loadPathErrors([dir.path]), "a directory without rule files loaded")
            #expect(errors.count == 1)
            let d = try #require(errors.first)
            #expect(d.path == dir.path)
            #expect(position(d) == [1, 1])
            #expect(d.message == "no rule files (*.yaml, *.yml) found here")
            #expect(
                d.description == "\(dir.path):1:1: error: no rule files (*.yaml, *.yml) found here")
        }
    }

    @Test func aDanglingLinkOrAFifoNamedLikeARuleFileIsAnError() throws {
        try withRulesScratch { dir in
            try write(
                "rules:\n  - id: a.b\n    title: T\n    never: { ev: ws.ping }\n",
                to: dir.appendingPathComponent("a.yaml"))
            let gone = dir.appendingPathComponent("b.yaml").path
            #expect(symlink("/nonexistent/conn-audit.yaml", gone) == 0)
            let fifo = dir.appendingPathComponent("c.yaml").path
            #expect(mkfifo(fifo, 0o600) == 0)
            // not a rule name: ignored
            _ = symlink("/nonexistent/x.txt", dir.appendingPathComponent("d.txt").path)
            let errors = try #require(
                loadPathErrors([dir.path]), "a pack with a missing rule file loaded")
            #expect(errors.map(\.path) == [gone, fifo])
            #expect(errors[0].message == "cannot read rules: no such file or directory")
            #expect(errors[1].message == "cannot read rules: not a regular file")
        }
    }

    @Test func aMissingRulesPath() throws {
        let errors = try #require(
            loadPathErrors(["/nonexistent/conn-audit/rules"]), "a missing path loaded")
        let d = try #require(errors.first)
        #expect(d.path == "/nonexistent/conn-audit/rules")
        #expect(d.message.contains("cannot read rules"))
    }

    @Test func aDirectoryIsSearchedRecursivelyInOrder() throws {
        try withRulesScratch { dir in
            func file(_ id: String) -> String {
                "rules:\n  - id: \(id)\n    title: T\n    never: { ev: ws.ping }\n"
            }
            try write(file("x.b"), to: dir.appendingPathComponent("b.yaml"))
            try write(file("x.a"), to: dir.appendingPathComponent("a.yml"))
            try write(file("x.c"), to: dir.appendingPathComponent("sub/c.yaml"))
            try write(file("x.hidden"), to: dir.appendingPathComponent(".hidden/d.yaml"))
            try write("not yaml: [", to: dir.appendingPathComponent("notes.txt"))
            let set = try RuleLoader.load(paths: [dir.path])
            #expect(set.rules.map(\.id) == ["x.a", "x.b", "x.c"])
            #expect(
                set.rules.map(\.file)
                    == ["a.yml", "b.yaml", "sub/c.yaml"].map { dir.path + "/" + $0 })
        }
    }

    @Test func aValidFileLoads() throws {
        let text = """
            params: { timeout_ms: 1000, interval_ms: 250 }
            rules:
              - id: ws.one
                title: One
                severity: warning
                for: source
                description: Why it matters.
                params: { timeout_ms: 2000, label: "x" }
                every: { ev: ws.close }
                expect: "reason != null"
                undecided: inconclusive

              - id: ws.two
                title: Two
                severity: info
                for: corpus
                never: { ev: ws.ping }
                after: { ev: ws.close }
              - id: ws.three
                title: Three
                count: { ev: [ws.close, ws.closed] }
                min: 1
                max: 2
                tests:
                  - name: one close
                    log: |
                      {"t":0,"ev":"ws.close","gen":1}
                    expect: pass
                    violations: 0
            """
        let set = try RuleLoader.load(files: [("rules/a.yaml", text)])
        // ws.one defines params it never reads: a warning each, not an error.
        #expect(
            set.warnings.map(\.severity) == Array(repeating: .warning, count: set.warnings.count))
        #expect(set.warnings.allSatisfy { $0.message.contains("is never read") })
        #expect(set.rules.map(\.id) == ["ws.one", "ws.two", "ws.three"])
        #expect(set.rules.map(\.title) == ["One", "Two", "Three"])
        #expect(set.rules.map(\.severity) == [.warning, .info, .error])
        #expect(set.rules.map(\.scope) == [.source, .corpus, .generation])
        #expect(set.rules.map(\.check.kindName) == ["every", "never", "count"])
        #expect(set.rules.map(\.line) == [3, 13, 19])
        #expect(set.rules.map(\.file) == ["rules/a.yaml", "rules/a.yaml", "rules/a.yaml"])
        #expect(set.rules.map(\.family) == ["ws", "ws", "ws"])
        #expect(set.rules[0].description == "Why it matters.")
        #expect(set.rules[1].description == nil)

        // File params, overridden by the rule's own.
        #expect(
            set.rules[0].params == [
                "timeout_ms": .int(2000), "interval_ms": .int(250), "label": .string("x")
            ])
        #expect(set.rules[1].params == ["timeout_ms": .int(1000), "interval_ms": .int(250)])

        if case .every(_, _, let policy) = set.rules[0].check {
            #expect(policy == .inconclusive)
        } else {
            Issue.record("ws.one is not an every rule")
        }
        if case .count(let selector, let min, let max, _) = set.rules[2].check {
            #expect(min == 1)
            #expect(max == 2)
            #expect(selector.evNames == ["ws.close", "ws.closed"])
        } else {
            Issue.record("ws.three is not a count rule")
        }
        let fixture = try #require(set.rules[2].tests.first)
        #expect(fixture.name == "one close")
        #expect(fixture.expect == .pass)
        #expect(fixture.violations == 0)
        #expect(fixture.line == 25)
        #expect(fixture.log == "{\"t\":0,\"ev\":\"ws.close\",\"gen\":1}\n")

        // The rule's own YAML, as written.
        #expect(
            set.rules[1].yaml == """
                - id: ws.two
                  title: Two
                  severity: info
                  for: corpus
                  never: { ev: ws.ping }
                  after: { ev: ws.close }
                """)
        // Fields any rule reads are known, so the reader decodes them.
        #expect(set.fieldsRead.isSuperset(of: ["ev", "reason"]))
    }

    /// `as: t` or `let: { reason: … }` reads like the event's field but replaces it in every
    /// expression of the rule: a warning names it.
    @Test func aLetOrCaptureNamedLikeAFixedFieldIsWarnedAbout() throws {
        let text = """
            let: { reason: "'fixed'" }
            rules:
              - id: ws.a
                title: A
                forbid:
                  - { ev: ws.ping, as: t }
                  - { ev: ws.pong, where: "t > 5" }
              - id: ws.b
                title: B
                let: { T: "1" }
                every: { ev: ws.close }
                expect: "T == 1"
            """
        let set = try RuleLoader.load(files: [("rules/a.yaml", text)])
        #expect(
            set.warnings.map(\.message) == [
                "let 'reason' hides the event field 'reason' in this rule's expressions; choose another name",
                "capture 't' hides the event field 't' in this rule's expressions; choose another name"
            ])
        #expect(set.warnings.map(\.line) == [1, 6])
    }

    /// Thousands of lets are a generated file gone wrong: refused at once (loading and compiling
    /// them took seconds to minutes), with the map's position.
    @Test func tooManyLetsAreRefused() throws {
        let lets = (0...FileLoader.maxLets).map { "  L\($0): \"\($0)\"" }.joined(separator: "\n")
        let text =
            "let:\n" + lets + "\nrules:\n  - id: ws.a\n    title: A\n    never: { ev: ws.ping }\n"
        let errors = try #require(loadErrors([("rules/a.yaml", text)]))
        #expect(errors.first?.message == "1001 lets in one 'let:' map; at most 1000")
        #expect(errors.first?.line == 2)
        // At the limit, a chain of lets loads and compiles quickly enough to run.
        let chain =
            "let:\n  L0: \"1\"\n"
            + (1..<FileLoader.maxLets).map { "  L\($0): \"L\($0 - 1) + 1\"" }.joined(
                separator: "\n")
            + "\nrules:\n  - id: ws.a\n    title: A\n    every: { ev: ws.ping }\n    expect: \"L\(FileLoader.maxLets - 1) > 0\"\n"
        let set = try RuleLoader.load(files: [("rules/b.yaml", chain)])
        let compiled = CompiledRule(rule: set.rules[0], index: 0, overrides: [:])
        #expect(compiled.rule.lets.count == FileLoader.maxLets)
    }

    /// The sequence engine keeps a bit per step: a sequence of 65 steps is refused at its 65th
    /// step (64 load and run: SequenceRunnerTests).
    @Test func aSequenceOfMoreThan64StepsIsRefused() throws {
        let steps = (0...FileLoader.maxSteps).map { _ in "      - { ev: ws.ping }" }.joined(
            separator: "\n")
        let text = "rules:\n  - id: ws.a\n    title: A\n    forbid:\n" + steps + "\n"
        let errors = try #require(loadErrors([("rules/a.yaml", text)]))
        #expect(errors.first?.message == "'forbid' has at most 64 steps, found 65")
        #expect(errors.first?.line == 4 + FileLoader.maxSteps + 1)
        #expect(errors.first?.column == 9)
        let each =
            "rules:\n  - id: ws.b\n    title: B\n    each:\n" + steps
            + "\n    followed_by: { ev: ws.pong }\n"
        #expect(
            try #require(loadErrors([("rules/b.yaml", each)])).first?.message
                == "'each' has at most 64 steps, found 65")
    }

    /// A second document with rules is an error (its rules would never run: see the error
    /// cases); an empty one after a `---` holds nothing to lose.
    @Test func anEmptySecondDocumentIsAllowed() throws {
        let text = """
            rules:
              - id: ws.a
                title: A
                never: { ev: ws.ping }
            ---

            """
        let set = try RuleLoader.load(files: [("rules/a.yaml", text)])
        #expect(set.rules.map(\.id) == ["ws.a"])
        #expect(set.warnings.isEmpty)
    }

    // MARK: Built-in pack

    @Test func builtinPackIsTheRulesDirectoryOnDisk() throws {
        let dir = repositoryRoot.appendingPathComponent("rules")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            .filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }
            .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        #expect(!names.isEmpty)
        #expect(BuiltinPack.files.map(\.name) == names)
        for (name, text) in BuiltinPack.files {
            let onDisk = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
            #expect(
                text == onDisk,
                "rules/\(name) differs from the built-in pack: run script/embed-rules")
        }
    }

    @Test func builtinPackLoadsTheSameRulesAsTheDirectory() throws {
        let builtin = RuleLoader.builtin()
        let fromDisk = try RuleLoader.load(paths: [
            repositoryRoot.appendingPathComponent("rules").path
        ])
        #expect(builtin.warnings.isEmpty)
        #expect(fromDisk.warnings.isEmpty)
        #expect(builtin.rules.map(\.id) == fromDisk.rules.map(\.id))
        #expect(builtin.rules.map(\.yaml) == fromDisk.rules.map(\.yaml))
        #expect(builtin.rules.map(\.line) == fromDisk.rules.map(\.line))
        #expect(builtin.rules.allSatisfy { $0.file.hasPrefix("<built-in>/") })
        #expect(Set(builtin.rules.map(\.id)).count == builtin.rules.count)
        #expect(builtin.rules.map(\.id).contains("ws.single-close"))
        #expect(builtin.rules.map(\.id).contains("log.malformed"))
    }
}

@Suite struct ParamReadWarningTests {
    @Test func aParamReadThroughTheRulesOwnLetIsRead() throws {
        let text = """
            rules:
              - id: t.b
                title: B
                params: { T: 100, U: 5 }
                let: { L: "params.T" }
                every: { ev: b }
                expect: "t <= L"
            """
        let set = try RuleLoader.load(files: [("rules/b.yaml", text)])
        // T is read through the let; U is read nowhere.
        #expect(set.warnings.map(\.message) == ["param 'U' of rule 't.b' is never read (params.U)"])
    }
}

// MARK: - Snippets of long lines

@Suite struct DiagnosticSnippetTests {
    /// A column far to the right of a long line: the snippet is a window around it, and the caret
    /// stands under the column (it was drawn at the 200th character, where the snippet was cut).
    @Test func theCaretOfALongLineIsUnderItsColumn() {
        let line = String(repeating: "a", count: 380) + "XY" + String(repeating: "b", count: 300)
        let d = Diagnostic(path: "r.yaml", line: 3, column: 381, message: "here", sourceLine: line)
        let parts = d.description.split(separator: "\n", omittingEmptySubsequences: false).map(
            String.init)
        #expect(parts.count == 3)
        #expect(parts[0] == "r.yaml:3:381: error: here")
        #expect(parts[1].hasPrefix("…") && parts[1].count <= 201)
        let caret = parts[2].count - 1
        #expect(Array(parts[1])[caret] == "X", "\(parts[1])\n\(parts[2])")
    }

    @Test func aShortLineIsShownWhole() {
        let d = Diagnostic(path: "r.yaml", line: 1, column: 5, message: "m", sourceLine: "abcdXfg")
        #expect(d.description == "r.yaml:1:5: error: m\nabcdXfg\n    ^")
    }
}

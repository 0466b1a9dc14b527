import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// `rules --explain` and `rules --test` print rule text that conn-audit never read as a log: the
/// fixture logs, the description, the message. A value `log.no-secrets` flags is never printed
/// there either (cli.md: never the value of a flagged field): fixture lines are shown through the
/// reader's own detection (``SecretRedaction``), with `[redacted]` for each flagged value.
@Suite struct RulesExplainSecretsTests {
    // MARK: - Helpers

    private func cli(_ arguments: [String]) -> CommandLineRun { CommandLineRun(arguments) }

    /// Runs `arguments` after `rules --rules FILE`, FILE holding `yaml`.
    private func rules(_ yaml: String, _ arguments: [String]) throws -> CommandLineRun {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("conn-audit-explain-\(UUID().uuidString).yaml")
        try Data(yaml.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return cli(["rules", "--rules", url.path] + arguments)
    }

    private func expectNone(
        _ secrets: [String], in text: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for s in secrets {
            #expect(
                !text.contains(s), "'\(s)' is printed:\n\(text)", sourceLocation: sourceLocation)
        }
    }

    private func expectAll(
        _ kept: [String], in text: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for s in kept {
            #expect(text.contains(s), "'\(s)' is missing:\n\(text)", sourceLocation: sourceLocation)
        }
    }

    /// A user's rule whose fixture lines hold a token under a key at depth, a bearer token in a
    /// string, a JWT, a bearer token in a line that is not JSON, and one in the description and
    /// in a `where:` literal.
    static let userRules = """
        rules:
          - id: my.secrets
            title: Secrets stay out
            severity: error
            for: corpus
            description: >
              Such as Bearer descriptionTOKEN123 in a header.
            never: { ev: $secret, where: "path != 'Bearer whereLITERAL123'" }
            message: "field '{path}' holds a secret"
            tests:
              - name: at any depth
                log: |
                  {"t":0,"ev":"ws.connect","gen":1,"meta":{"auth":[{"Access_Token":"deepSECRET42"}]},"note":"keep me"}
                  {"t":1,"ev":"ws.open","gen":1,"msg":"sent Authorization: Bearer bearerSECRET987 ok","reason":"plain"}
                  {"t":2,"ev":"ws.open","gen":1,"id":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.jwtSIGNATURE"}
                  not JSON but Bearer textSECRET4567 here
                expect: fail
                violations: 3
        """

    // MARK: - rules --explain

    @Test func theBuiltinNoSecretsRuleShowsItsFixturesRedacted() {
        let run = cli(["rules", "--explain", "log.no-secrets"])
        #expect(run.code == 0)
        expectNone(
            [
                "hunter2", "abcdefgh12", "eyJhbGciOi", "eyJzdWIiOi", "abcdefghijkl",
                "\"Authorization\":\"x\""
            ], in: run.out)
        expectAll(
            [
                "log.no-secrets — Logs carry no secrets",
                "never: { ev: $secret }",
                // Lines without secrets are shown as written; keys stay, their flagged values do not.
                #"{"t":0,"ev":"ws.connect","gen":1,"token_type":"bearer","note":"bearer"}"#,
                #"{"t":0,"ev":"ws.connect","gen":1,"Authorization":"[redacted]"}"#,
                #"{"t":1,"ev":"ws.open","gen":1,"headers":{"h":"[redacted]"}}"#,
                #"{"t":2,"ev":"ws.open","gen":1,"jwt":["[redacted]"]}"#,
                #"{"ev":"no t here","password":"[redacted]"}"#,
                #"{"t":0,"ev":"http.request","ok":true,"body":"[redacted]"}"#,
                "- name: keys in any case and tokens in values",
                "violations: 4"
            ], in: run.out)
    }

    @Test func aUserRuleShowsItsFixturesRedactedInPlace() throws {
        let run = try rules(Self.userRules, ["--explain", "my.secrets"])
        #expect(run.code == 0, "\(run.err)")
        expectNone(
            [
                "deepSECRET42", "bearerSECRET987", "eyJhbGciOiJIUzI1NiJ9", "eyJzdWIiOiIxIn0",
                "jwtSIGNATURE",
                "textSECRET4567", "descriptionTOKEN123", "whereLITERAL123"
            ], in: run.out)
        expectAll(
            [
                // `auth` is a secret key name to every output (``SecretShapes``): hidden whole.
                #"{"t":0,"ev":"ws.connect","gen":1,"meta":{"auth":"[redacted]"},"note":"keep me"}"#,
                #"{"t":1,"ev":"ws.open","gen":1,"msg":"[redacted]","reason":"plain"}"#,
                #"{"t":2,"ev":"ws.open","gen":1,"id":"[redacted]"}"#,
                "not JSON but [redacted] here",
                "Such as [redacted] in a header.",
                #"never: { ev: $secret, where: "path != '[redacted]'" }"#,
                "- name: at any depth",
                "violations: 3"
            ], in: run.out)
    }

    /// A quoted log may spell a secret with escapes (`pass\u0077ord`) or across lines: `tests:` is
    /// written again from the fixtures as read, and the rest of the YAML stays as written.
    @Test func aQuotedFixtureLogIsWrittenAgainRedacted() throws {
        let run = try rules(
            #"""
            rules:
              - id: my.quoted
                title: Quoted logs
                for: corpus
                never: { ev: $secret }
                tests:
                  - name: single-quoted
                    log: '{"t":0,"ev":"x.y","password":"singleSECRET1"}'
                    expect: fail
                  - name: double-quoted
                    log: "{\"t\":0,\"ev\":\"x.y\",\"pass\\u0077ord\":\"doubleSECRET2\"}\n{\"t\":1,\"ev\":\"x.y\",\"k\":\"ok\"}\n"
                    expect: fail
                    violations: 1
                message: "after the tests"
            """#, ["--explain", "my.quoted"])
        #expect(run.code == 0, "\(run.err)")
        expectNone(["singleSECRET1", "doubleSECRET2"], in: run.out)
        expectAll(
            [
                "never: { ev: $secret }",
                "message: \"after the tests\"",
                "tests:",
                "- name: \"single-quoted\"",
                "log: |-\n        {\"t\":0,\"ev\":\"x.y\",\"password\":\"[redacted]\"}\n      expect: fail",
                "log: |\n        {\"t\":0,\"ev\":\"x.y\",\"password\":\"[redacted]\"}\n        {\"t\":1,\"ev\":\"x.y\",\"k\":\"ok\"}\n",
                "violations: 1"
            ], in: run.out)
    }

    /// A fixture's `params:` are written again with it: the rewritten `tests:` is YAML that loads
    /// and tests the same.
    @Test func aRewrittenFixtureKeepsItsParams() throws {
        let run = try rules(
            #"""
            rules:
              - id: my.params
                title: Params
                for: corpus
                params: { n: 1, limit: 2.5 }
                count: { ev: $secret }
                max: params.n
                message: "{params.limit}"
                tests:
                  - name: two allowed
                    params: { n: 2, limit: 1e300 }
                    log: "{\"t\":0,\"ev\":\"x.y\",\"token\":\"paramSECRET1\",\"password\":\"x\"}\n"
                    expect: pass
            """#, ["--explain", "my.params"])
        #expect(run.code == 0, "\(run.err)")
        expectNone(["paramSECRET1"], in: run.out)
        expectAll(
            ["- name: \"two allowed\"\n      params: {\"limit\": 1e+300, \"n\": 2}\n      log: |"],
            in: run.out)
    }

    /// A rule written as one flow mapping has no lines of `tests:` to rewrite: its YAML is left
    /// out, its fixtures are shown redacted.
    @Test func aFlowRuleWithAQuotedSecretLeavesItsYAMLOut() throws {
        let run = try rules(
            #"""
            rules:
              - {id: my.flow, title: Flow, for: corpus, never: { ev: $secret }, tests: [{name: a, log: "{\"t\":0,\"ev\":\"x.y\",\"token\":\"flowSECRET3\"}\n", expect: fail}]}
            """#, ["--explain", "my.flow"])
        #expect(run.code == 0, "\(run.err)")
        expectNone(["flowSECRET3"], in: run.out)
        expectAll(
            [
                "my.flow — Flow", "# (the rule's YAML is left out",
                #"{"t":0,"ev":"x.y","token":"[redacted]"}"#
            ],
            in: run.out)
    }

    /// Fixtures without secrets, quoted or not, are shown exactly as written.
    @Test func fixturesWithoutSecretsAreShownAsWritten() throws {
        let yaml = #"""
            rules:
              - id: my.plain
                title: Plain
                never: { ev: ws.ping }
                tests:
                  - name: quoted
                    log: "{\"t\":0,\"ev\":\"ws.pong\",\"gen\":1}\n"
                    expect: pass
            """#
        let run = try rules(yaml, ["--explain", "my.plain"])
        #expect(run.code == 0, "\(run.err)")
        #expect(run.out.contains(#"log: "{\"t\":0,\"ev\":\"ws.pong\",\"gen\":1}\n""#))
        #expect(!run.out.contains("[redacted]"))
    }

    // MARK: - rules --test

    @Test func aFailingFixtureNamesNoSecret() throws {
        let run = try rules(
            """
            rules:
              - id: my.failing
                title: No pings
                never: { ev: ws.ping }
                tests:
                  - name: with Bearer nameSECRET12345
                    log: |
                      {"t":0,"ev":"ws.ping","gen":1,"token":"fixtureSECRET6"}
                    expect: pass
                  - name: a bad line
                    log: |
                      {"t":0,"ev":"ws.pong","gen":1}
                      {"password":"badLINESECRET7"
                    expect: pass
            """, ["--test"])
        #expect(run.code == 1)
        expectNone(["nameSECRET12345", "fixtureSECRET6", "badLINESECRET7"], in: run.out + run.err)
        expectAll(
            [
                "FAIL my.failing fixture 'with [redacted]'", "FAIL my.failing fixture 'a bad line'",
                "line 2:"
            ],
            in: run.out)
    }

    // MARK: - rules --list

    @Test func theListRedactsTitles() throws {
        let run = try rules(
            """
            rules:
              - id: my.listed
                title: Sends Bearer titleSECRET12345 and eyJhbGciOi.eyJzdWIiOi.titleSIG
                never: { ev: ws.ping }
            """, ["--list"])
        #expect(run.code == 0, "\(run.err)")
        expectNone(["titleSECRET12345", "eyJhbGciOi", "titleSIG"], in: run.out)
        #expect(run.out.hasSuffix("  Sends [redacted] and [redacted]\n"), "\(run.out)")
        #expect(run.out.hasPrefix("my.listed  "))
    }

    // MARK: - Rule errors and warnings

    /// A diagnostic quotes the file: its message (a fixture's name, a key) and its source line,
    /// where a fixture log may stand in quotes. Both are redacted; the caret stays under the place
    /// named, which the header's column still gives as written.
    @Test func ruleErrorsNameNoSecretAndKeepTheirCaret() throws {
        let yaml = #"""
            rules:
              - id: my.errors
                title: Errors
                descriptin: Bearer keySECRET123456
                every: { ev: ws.open }
                expect: 'auth != "Bearer exprSECRET12345" and ) '
                tests:
                  - {name: 'Bearer nameSECRET12345', log: '{"t":0,"ev":"ws.ping","password":"flowSECRET1"}', expect: pas}
                  - {name: b, log: "{\"t\":0,\"pass\\u0077ord\":\"escSECRET2\"}", expect: pass, bad: 1}
            """#
        for arguments in [["--check"], ["--list"]] {
            let run = try rules(yaml, arguments)
            #expect(run.code == 2)
            expectNone(
                [
                    "keySECRET123456", "exprSECRET12345", "nameSECRET12345", "flowSECRET1",
                    "escSECRET2"
                ],
                in: run.out + run.err)
            expectAll(
                [
                    // The caret under the key, before the token: where it was.
                    ":4:5: error: unknown key 'descriptin' in a rule (did you mean 'description'?)\n"
                        + "    descriptin: [redacted]\n    ^\n",
                    // After a token: moved left by what the token lost.
                    ":6:51: error: unexpected ')'\n    expect: 'auth != \"[redacted]\" and ) '\n"
                        + String(repeating: " ", count: 38) + "^\n",
                    // In what follows a secret key in a quoted log: at the '[redacted]' that hides it.
                    ":8:106: error: fixture '[redacted]': 'expect' must be pass, fail, inconclusive or not_applicable\n"
                        + #"      - {name: '[redacted]', log: '{"t":0,"ev":"ws.ping","password":[redacted]"#
                        + "\n"
                        + String(repeating: " ", count: 68) + "^\n",
                    // A YAML double-quoted log, its key spelled with escapes.
                    ":9:85: error: unknown key 'bad' in a fixture (expected name, log, expect, violations, params)\n"
                        + #"      - {name: b, log: "{\"t\":0,\"pass\\u0077ord\":[redacted]"# + "\n"
                        + String(repeating: " ", count: 52) + "^\n"
                ], in: run.err)
        }
        // `check` and `timeline` print the same diagnostics.
        let scratch = FileManager.default.temporaryDirectory
        let log = scratch.appendingPathComponent("conn-audit-errors-\(UUID().uuidString).jsonl")
        let url = scratch.appendingPathComponent("conn-audit-errors-\(UUID().uuidString).yaml")
        try Data(#"{"t":0,"ev":"ws.open","gen":1}"#.utf8 + [0x0A]).write(to: log)
        try Data(yaml.utf8).write(to: url)
        defer {
            try? FileManager.default.removeItem(at: log)
            try? FileManager.default.removeItem(at: url)
        }
        for arguments in [
            [log.path, "--rules", url.path], ["timeline", log.path, "--rules", url.path]
        ] {
            let run = cli(arguments)
            #expect(run.code == 2)
            expectNone(
                [
                    "keySECRET123456", "exprSECRET12345", "nameSECRET12345", "flowSECRET1",
                    "escSECRET2"
                ],
                in: run.out + run.err)
            #expect(run.err.contains("    descriptin: [redacted]\n"), "\(run.err)")
        }
    }

    @Test func ruleWarningsNameNoSecret() throws {
        let run = try rules(
            """
            rules:
              - id: my.warned
                title: Warned
                params: { unused: 1 }  # Bearer commentSECRET123
                never: { ev: ws.ping }
            """, ["--check"])
        #expect(run.code == 0, "\(run.err)")
        expectNone(["commentSECRET123"], in: run.out + run.err)
        expectAll(
            [
                ":4:15: warning: param 'unused' of rule 'my.warned' is never read (params.unused)\n"
                    + "    params: { unused: 1 }  # [redacted]\n"
                    + String(repeating: " ", count: 14) + "^"
            ], in: run.err)
    }

    /// `SecretRedaction.positioned`: a column (1-based, in Unicode scalars) before a replaced span
    /// stays, one after it moves by the difference in length, one inside it goes to the marker.
    @Test(arguments: [
        ("nothing here", 5, "nothing here", 5),
        ("a Bearer abcdefgh12 b", 1, "a [redacted] b", 1),
        ("a Bearer abcdefgh12 b", 3, "a [redacted] b", 3),
        ("a Bearer abcdefgh12 b", 10, "a [redacted] b", 3),
        ("a Bearer abcdefgh12 b", 21, "a [redacted] b", 14),
        ("a Bearer abcdefgh12 b", 30, "a [redacted] b", 23),
        // Scalars beyond ASCII before and after the token.
        ("é Bearer abcdefgh12 ü x", 22, "é [redacted] ü x", 15),
        // Two tokens: both lengths count.
        ("eyJa.eyJb.sig Bearer abcdefgh12 z", 33, "[redacted] [redacted] z", 23),
        // A JSON log at the line's start, written again compactly.
        (#"  {"t": 0, "password": "x"} x"#, 29, #"  {"t":0,"password":"[redacted]"} x"#, 35),
        (#"  {"t": 0, "password": "x"} x"#, 4, #"  {"t":0,"password":"[redacted]"} x"#, 3),
        // A secret key in a quoted log: the rest of the line.
        (
            #"log: '{"t":0,"Token" : "x"}', expect: pass"#, 40,
            #"log: '{"t":0,"Token" :[redacted]"#, 23
        ),
        (#"log: '{"t":0,"tokens":"x"}'"#, 20, #"log: '{"t":0,"tokens":"x"}'"#, 20)
    ])
    func positioned(_ line: String, _ column: Int, _ shown: String, _ shownColumn: Int) {
        let result = SecretRedaction.positioned(line, column: column)
        #expect(result.text == shown)
        #expect(result.column == shownColumn)
    }

    // MARK: - SecretRedaction

    @Test(arguments: [
        // Nothing flagged: the line as it is, spacing and all.
        (
            #"  {"t": 0, "ev":"ws.connect", "token_type":"bearer"}"#,
            #"  {"t": 0, "ev":"ws.connect", "token_type":"bearer"}"#
        ),
        ("plain text", "plain text"),
        // Secret key names in any case, at any depth, in arrays; the value whole.
        (
            #"{"t":0,"PassWord":"x","a":[{"b":{"cookie":{"c":1}}}]}"#,
            #"{"t":0,"PassWord":"[redacted]","a":[{"b":{"cookie":"[redacted]"}}]}"#
        ),
        // Tokens in string values (escaped too), and a key holding one with its value.
        (
            #"{"h":"Bearer\u0020abcdefgh12","Bearer abcdefgh12":1}"#,
            #"{"h":"[redacted]","[redacted]":"[redacted]"}"#
        ),
        // Text after the object, and a line that is not JSON: token spans, a JWT with its
        // signature.
        (#"{"token":"x"} then Bearer abcdefgh12"#, #"{"token":"[redacted]"} then [redacted]"#),
        ("a eyJhbGciOi.eyJzdWIiOi.sig-_x b", "a [redacted] b"),
        ("[not json bearer  abcdefgh12,", "[not json [redacted],"),
        (#"{"broken": "Bearer abcdefgh12""#, #"{"broken": "[redacted]""#)
    ])
    func lines(_ line: String, _ shown: String) {
        #expect(SecretRedaction.line(line[...]) == shown)
    }

    @Test func tokenRangesCoverWholeTokens() {
        let text = Array("x Bearer abcdefgh12 y eyJa.eyJb.sig z bearer short".utf8)
        let ranges = text.withUnsafeBufferPointer { JSONLineParser.tokenRanges($0) }
        #expect(
            ranges.map { String(decoding: text[$0], as: UTF8.self) } == [
                "Bearer abcdefgh12", "eyJa.eyJb.sig"
            ])
        #expect(text.withUnsafeBufferPointer { JSONLineParser.containsToken($0) })
    }
}

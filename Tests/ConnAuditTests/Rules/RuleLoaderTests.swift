import Foundation
import Testing

@testable import ConnAudit

@Suite struct RuleLoaderTests {
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

import Testing

@testable import ConnAudit

/// A rule's YAML (``Rule/yaml``) is made from its file's bytes where it is read (``RuleText``):
/// it must be the rule's lines as written, whichever text the pack was parsed from.
@Suite struct RuleTextTests {
    /// The rule at `line` of `text`, read the plain way: its first line and each line after it
    /// that is blank or indented past its dash, without the blank lines at the end and without
    /// the indentation all these lines share (none when one of them is empty).
    static func writtenLines(of text: String, at line: Int) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func indent(_ s: String) -> Int { s.prefix { $0 == " " }.count }
        func isBlank(_ s: String) -> Bool { s.allSatisfy { $0 == " " || $0 == "\t" } }
        let dash = indent(lines[line - 1])
        var taken = [lines[line - 1]]
        for next in lines[line...] {
            if !isBlank(next) && indent(next) <= dash { break }
            taken.append(next)
        }
        while let last = taken.last, isBlank(last) { taken.removeLast() }
        let shared = taken.map(indent).min() ?? 0
        return taken.map { String($0.dropFirst(shared)) }.joined(separator: "\n")
    }

    @Test(arguments: [true, false])
    func eachRuleOfThePackIsItsLinesAsWritten(fixtures: Bool) throws {
        let rules = RuleLoader.builtin(fixtures: fixtures).rules
        #expect(rules.count == 30)
        for rule in rules {
            let name = String(rule.file.dropFirst("<built-in>/".count))
            let file = try #require(BuiltinPack.files.first { $0.name == name })
            #expect(rule.yaml == Self.writtenLines(of: file.text, at: rule.line), "\(rule.id)")
            #expect(rule.yaml.contains("- id: \(rule.id)\n"), "\(rule.id)")
        }
    }

    @Test func theTextIsTheSameOnEveryRead() {
        for rule in RuleLoader.builtin().rules {
            let first = rule.yaml
            let copy = rule
            #expect(copy.yaml == first && rule.yaml == first, "\(rule.id)")
        }
    }

    @Test func aLoadedFileGivesTheSameTextsAsThePack() throws {
        let pack = RuleLoader.builtin().rules
        let files = BuiltinPack.files.map { (path: "rules/" + $0.name, text: $0.text) }
        let loaded = try RuleLoader.load(files: files).rules
        #expect(loaded.map(\.id) == pack.map(\.id))
        for (a, b) in zip(loaded, pack) {
            #expect(a.yaml == b.yaml, "\(a.id)")
            #expect(a.testsLines == b.testsLines, "\(a.id)")
        }
    }

    /// The text reaches past a quoted scalar that goes on at a lower indentation (and keeps all
    /// the indentation then), and the `tests:` lines are counted in that text.
    @Test func aQuotedScalarAtColumnOneStaysInTheText() throws {
        let text = """
            rules:
              - id: x.quoted
                title: "A
            b"
                severity: error
                for: source
                never: { ev: a }
                tests:
                  - name: t
                    log: '{"t":0,"ev":"b"}'
                    expect: pass
            """
        let rule = try #require(try RuleLoader.load(files: [("r.yaml", text)]).rules.first)
        let lines = rule.yaml.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 10)
        #expect(lines[2] == "b\"" && lines.last == "        expect: pass", "\(rule.yaml)")
        #expect(rule.testsLines == 6..<10)
    }
}

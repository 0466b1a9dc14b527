import Foundation
import Testing

@testable import ConnAudit

/// A let is evaluated where it is first read, on top of the expression reading it: lets reading
/// one another nest evaluation as deep as all of them together. 2,000 lets of 100 levels each
/// (within every other limit) overflowed the stack on the first event; such a rule is refused
/// when it loads, naming the let.
@Suite("Let chain depth", .timeLimit(.minutes(10)))
struct LetChainDepthTests {
    /// `count` lets, each reading the one before at the bottom of `levels` levels of `+ 1` (the
    /// last one `lastLevels`), the first `fileLets` of them at the top of the file and the rest
    /// the rule's; the rule's check is `check` of the last one's name.
    static func chain(
        _ count: Int, levels: Int, lastLevels: Int? = nil, fileLets: Int = 1_000,
        check: (String) -> String = { "\($0) > 0" }
    ) -> String {
        var previous = "1"
        var file: [String] = []
        var rule: [String] = []
        for i in 0..<count {
            let name = "l\(i)"
            let own = i == count - 1 ? lastLevels ?? levels : levels
            let line = "\(name): \"\(previous)\(String(repeating: " + 1", count: own - 1))\""
            if i < fileLets { file.append("  " + line) } else { rule.append("      " + line) }
            previous = name
        }
        var text = file.isEmpty ? "" : "let:\n" + file.joined(separator: "\n") + "\n"
        text += "rules:\n  - id: probe.lets\n    title: Lets\n    for: source\n"
        if !rule.isEmpty { text += "    let:\n" + rule.joined(separator: "\n") + "\n" }
        text += "    every: { ev: probe.hit }\n    expect: \"\(check(previous))\"\n"
        return text
    }

    static let log = #"{"t":0,"src":"d","ev":"probe.hit"}"# + "\n"

    static func load(_ text: String) -> Result<RuleSet, DiagnosticList> {
        do throws(DiagnosticList) {
            return .success(try RuleLoader.load(files: [("lets.yaml", text)]))
        } catch {
            return .failure(error)
        }
    }

    @Test func twoThousandLetsOfAHundredLevelsAreRefusedNamingTheLet() throws {
        let text = Self.chain(2_000, levels: 100)
        guard case .failure(let errors) = Self.load(text) else {
            Issue.record("a chain of 2,000 lets loaded")
            return
        }
        // l0 is 100 levels, l1 reads it at level 100: 200, … l29 3,000, l30 3,100.
        let diagnostic = try #require(errors.diagnostics.first)
        #expect(
            diagnostic.message
                == "rule 'probe.lets': let 'l30' with the lets it reads nests deeper than 3000 (3100 levels): "
                + "each let read adds its own depth where it is read; read fewer lets through one another"
        )
        #expect(errors.diagnostics.count == 1)
        // A file-level let is named at the id of the rule it is read in.
        #expect(diagnostic.line == 1_003)
        #expect(diagnostic.column == 9)
    }

    @Test func theCommandLineRefusesTheChainInsteadOfCrashing() async throws {
        try await DeepExpressionTests.expectRefusedByTheCommandLine(
            [
                (
                    Self.chain(2_000, levels: 100),
                    "1003:9: error: rule 'probe.lets': let 'l30' with the lets it reads nests deeper than 3000"
                )
            ],
            commands: [["rules", "--check", "--rules"], ["check", "LOG", "--rules"]])
    }

    @Test func aRuleLevelLetIsNamedWhereItIsWritten() throws {
        // 800 lets of the rule, four levels each: l749 is 3,000 deep, l750 3,004.
        let text = Self.chain(800, levels: 4, fileLets: 0)
        guard case .failure(let errors) = Self.load(text) else {
            Issue.record("a chain of 800 lets loaded")
            return
        }
        let diagnostic = try #require(errors.diagnostics.first)
        #expect(
            diagnostic.message.hasPrefix(
                "rule 'probe.lets': let 'l750' with the lets it reads nests deeper than 3000 (3004 levels)"
            ))
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[diagnostic.line - 1] == #"      l750: "l749 + 1 + 1 + 1""#)
        #expect(diagnostic.column == 7)
    }

    @Test func anExpressionReadingALetPastTheBoundIsRefused() throws {
        // 30 lets of 100 levels: l29 is 3,000 deep, and `l29 > 0` reads it at level 2.
        guard case .failure(let errors) = Self.load(Self.chain(30, levels: 100)) else {
            Issue.record("an expression 3,002 levels deep with its lets loaded")
            return
        }
        #expect(
            errors.diagnostics.first?.message.hasPrefix(
                "rule 'probe.lets': an expression with the lets it reads nests deeper than 3000 (3002 levels)"
            ) == true)
    }

    /// Lets reading one another in a cycle are undecided where the cycle closes, so each is on
    /// the stack once: the bound adds up each let's deepest read inside the cycle.
    @Test func letsReadingEachOtherInACycleAreBoundedByTheirSum() throws {
        let deep = String(repeating: " + 1", count: 99)
        func rule(_ a: String, _ b: String) -> String {
            """
            rules:
              - id: probe.cycle
                title: Cycle
                for: source
                let:
                  a: "\(a)"
                  b: "\(b)"
                every: { ev: probe.hit }
                expect: "a > 0"

            """
        }
        // a reads b at level 100, b reads a at level 100: at most 200, plus `a > 0`'s 2 levels.
        guard case .success = Self.load(rule("b" + deep, "a" + deep)) else {
            Issue.record("a cycle of two lets of 100 levels refused")
            return
        }
    }
}

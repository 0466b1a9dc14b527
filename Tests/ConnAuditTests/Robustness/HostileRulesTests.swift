import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// Rules files that are bombs, too deep, not YAML, empty or of the wrong shape are refused fast
/// with their position; a catastrophic regex over a long string finishes fast.
@Suite("Hostile input: rules written by many people", .timeLimit(.minutes(10)))
struct HostileRulesTests {}

// MARK: - Rules written by many people

extension HostileRulesTests {
    private static let cleanLog = Hostile.probe(0, src: "d") + "\n"

    /// Runs `check` and `rules --check` with one rules path; both must refuse it with exit 2.
    private func expectRulesRefused(
        _ rules: String, log: String, _ diagnostic: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for arguments in [[log, "--rules", rules], ["rules", "--rules", rules, "--check"]] {
            let run = Hostile.runCLI(arguments)
            #expect(
                run.code == 2, "\(arguments.first!): \(run.out)", sourceLocation: sourceLocation)
            #expect(
                run.err.contains(diagnostic), "stderr was: \(run.err.prefix(600))",
                sourceLocation: sourceLocation)
            #expect(
                run.err.contains("error(s) in the rules; no verdict"),
                sourceLocation: sourceLocation)
            #expect(run.out.isEmpty || arguments.first == "rules", sourceLocation: sourceLocation)
            #expect(run.elapsed < Hostile.timeLimit, sourceLocation: sourceLocation)
        }
    }

    @Test func aYAMLAliasBombIsRefusedFastWithItsPosition() throws {
        try withScratchDirectory("hostile") { dir in
            var lines = [#"a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]"#]
            var previous = "a"
            for name in ["b", "c", "d", "e", "f", "g", "h", "i"] {
                lines.append(
                    "\(name): &\(name) [\(Array(repeating: "*" + previous, count: 9).joined(separator: ","))]"
                )
                previous = name
            }
            lines.append("rules: []")
            let rules = try Hostile.put(lines.joined(separator: "\n") + "\n", dir, "bomb.yaml")
            let log = try Hostile.put(Self.cleanLog, dir, "a.jsonl")
            // a: 10 nodes; b: 9 copies of a (90); c: 9 × 91 = 819; d: 9 × 820 = 7,380 — 8,289 so
            // far; the first *d of e (7,381 more) passes the 10,000-node limit, at line 5, column
            // 8.
            expectRulesRefused(
                rules, log: log,
                "\(rules):5:8: error: alias expansion exceeds 10000 nodes (possible alias bomb)\n"
                    + lines[4] + "\n" + String(repeating: " ", count: 7) + "^")
        }
    }

    @Test func yamlNestedTenThousandDeepIsRefused() throws {
        try withScratchDirectory("hostile") { dir in
            let log = try Hostile.put(Self.cleanLog, dir, "a.jsonl")
            let n = 10_000
            let flow = try Hostile.put(
                "rules: " + String(repeating: "[", count: n) + String(repeating: "]", count: n)
                    + "\n", dir, "flow.yaml")
            expectRulesRefused(flow, log: log, "\(flow):1:71: error: nesting deeper than 64 levels")
            let map = try Hostile.put(
                "rules: " + String(repeating: "{a: ", count: n) + "1"
                    + String(repeating: "}", count: n) + "\n", dir, "map.yaml")
            expectRulesRefused(map, log: log, "\(map):1:260: error: nesting deeper than 64 levels")
            let block = try Hostile.put(
                "rules:\n  " + String(repeating: "- ", count: n) + "x\n", dir, "block.yaml")
            expectRulesRefused(
                block, log: log, "\(block):2:129: error: nesting deeper than 64 levels")
        }
    }

    @Test func aCatastrophicRegexOverALongStringFinishesFast() throws {
        try withScratchDirectory("hostile") { dir in
            let rules = try Hostile.put(
                """
                rules:
                  - id: probe.regex
                    title: A runaway pattern in a selector
                    for: source
                    never: { ev: probe.hit, v: { matches: "(a+)+$" } }
                  - id: probe.regex-expr
                    title: A runaway pattern in an expression
                    for: source
                    every: { ev: probe.hit }
                    expect: 'not matches(v, "(a+)+$")'
                """, dir, "regex.yaml")
            let a = String(repeating: "a", count: 100_000)
            let log = try Hostile.put(
                """
                {"t":1,"ev":"probe.hit","v":"\(a)!"}
                {"t":2,"ev":"probe.hit","v":"\(a)"}
                {"t":3,"ev":"probe.hit","v":"\(a)!\(a)"}

                """, dir, "long.jsonl")
            let report = try Hostile.checkedJSONRun([log, "--rules", rules]).report
            #expect(try Hostile.violationLines(report, "probe.regex", file: log) == [2, 3])
            #expect(try Hostile.violationLines(report, "probe.regex-expr", file: log) == [2, 3])
        }
    }

    @Test func aRulesFileThatIsNotYAMLIsRefused() throws {
        try withScratchDirectory("hostile") { dir in
            let log = try Hostile.put(Self.cleanLog, dir, "a.jsonl")
            var random = SplitMix64(seed: 99)
            var binary = random.bytes(4096)
            binary[0] = 0xFF
            let notUTF8 = try Hostile.put(binary, dir, "binary.yaml")
            expectRulesRefused(
                notUTF8, log: log, "\(notUTF8):1:1: error: rules file is not valid UTF-8")
            // Valid UTF-8, but control characters: libyaml's reader names the first one and where
            // it is.
            let control = try Hostile.put(
                Hostile.bytes("rules:\n  - id: a") + [1, 2, 0] + Hostile.bytes("b\n"), dir,
                "control.yaml")
            expectRulesRefused(
                control, log: log,
                "\(control):2:10: error: control characters are not allowed (U+0001)")
            let run = Hostile.runCLI([log, "--rules", control])
            // Console.standard writes with fputs: the NUL ends the diagnostic there (the caret line
            // is lost).
            #expect(!run.err.contains("\u{0}"), "a raw NUL on stderr")
            #expect(!run.err.contains("\u{1}"), "a raw U+0001 on stderr")

        }
    }

    @Test func anEmptyRulesDirectoryOrFileIsRefused() throws {
        try withScratchDirectory("hostile") { dir in
            let log = try Hostile.put(Self.cleanLog, dir, "a.jsonl")
            let empty = dir + "/rules-empty"
            try FileManager.default.createDirectory(
                atPath: empty, withIntermediateDirectories: true)
            expectRulesRefused(
                empty, log: log, "\(empty):1:1: error: no rule files (*.yaml, *.yml) found here")
            let other = dir + "/rules-other"
            try Hostile.put("rules: []\n", other, "notes.txt")
            try Hostile.put("rules: []\n", other, ".hidden.yaml")
            expectRulesRefused(
                other, log: log, "\(other):1:1: error: no rule files (*.yaml, *.yml) found here")
            let emptyFile = try Hostile.put("", dir, "empty.yaml")
            expectRulesRefused(
                emptyFile, log: log,
                "\(emptyFile):1:1: error: empty rules file: expected a mapping with 'rules:'")
        }
    }

    @Test func aRulesFileWithAListAtTheTopIsRefused() throws {
        try withScratchDirectory("hostile") { dir in
            let log = try Hostile.put(Self.cleanLog, dir, "a.jsonl")
            let rules = try Hostile.put(
                "- id: x.y\n  title: T\n  never: { ev: a.b }\n", dir, "list.yaml")
            expectRulesRefused(
                rules, log: log,
                "\(rules):1:1: error: expected a mapping with 'rules:' at the top, found a sequence\n- id: x.y\n^"
            )
        }
    }

    /// An expression 10,000 levels deep, built from its name (so the test list shows the name, not
    /// the text).
    enum DeepExpression: String, CaseIterable, Sendable, CustomTestStringConvertible {
        // Nesting the expression parser counts.
        case parentheses, not, unaryMinus = "unary minus", listLiterals = "list literals",
            functionCalls = "function calls"
        // Flat chains: each builds a tree as deep as the chain is long (the parser refuses them;
        // see below).
        case or, and, plus, coalesce, member, index

        static let counted: [DeepExpression] = [
            .parentheses, .not, .unaryMinus, .listLiterals, .functionCalls
        ]
        static let chains: [DeepExpression] = [.or, .and, .plus, .coalesce, .member, .index]

        var testDescription: String { rawValue }

        var text: String {
            let n = 10_000
            func chain(_ term: String, _ op: String) -> String {
                Array(repeating: term, count: n).joined(separator: op)
            }
            switch self {
            case .parentheses:
                return String(repeating: "(", count: n) + "1" + String(repeating: ")", count: n)
                    + " == 1"
            case .not: return String(repeating: "not ", count: n) + "true"
            case .unaryMinus: return String(repeating: "-", count: n) + "1 < 5"
            case .listLiterals:
                return String(repeating: "[", count: n) + String(repeating: "]", count: n)
                    + " != null"
            case .functionCalls:
                return String(repeating: "abs(", count: n) + "1" + String(repeating: ")", count: n)
                    + " == 1"
            case .or: return chain("x == 1", " or ")
            case .and: return chain("x", " and ")
            case .plus: return chain("1", " + ") + " > 0"
            case .coalesce: return chain("x", " ?? ") + " == 1"
            case .member: return "x" + String(repeating: ".y", count: n) + " == 1"
            case .index: return "x" + String(repeating: "[0]", count: n) + " == 1"
            }
        }
    }

    private func expectDeepExpressionRefused(_ expression: DeepExpression) throws {
        try withScratchDirectory("hostile") { dir in
            let log = try Hostile.put(Self.cleanLog, dir, "a.jsonl")
            let rules = try Hostile.put(
                """
                rules:
                  - id: probe.deep
                    title: Deep
                    every: { ev: probe.hit }
                    expect: "\(expression.text)"
                """, dir, "deep.yaml")
            // The error points into the expression on line 5 (file:line:column).
            expectRulesRefused(rules, log: log, "\(rules):5:")
            expectRulesRefused(rules, log: log, ": error: expression nested deeper than 100")
        }
    }

    @Test(arguments: DeepExpression.counted)
    func anExpressionNestedTenThousandDeepIsAnError(_ expression: DeepExpression) throws {
        try expectDeepExpressionRefused(expression)
    }

    // Long *flat* chains (a or b or c …, a.y.y.y …, x[0][0] …, a ?? b ?? …) build a tree as deep as
    // the chain is long; the parser refuses any expression deeper than its limit, measured without
    // recursion, so nothing downstream can overflow the stack.
    @Test(arguments: DeepExpression.chains)
    func aFlatChainOfTenThousandTermsIsAnError(_ expression: DeepExpression) throws {
        try expectDeepExpressionRefused(expression)
    }
}

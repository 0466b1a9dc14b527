import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@testable import ConnAudit
import ConnAuditTestSupport

/// Expressions of 100,000 terms and more, chained or nested every way the grammar allows, and the
/// other ways a rule could make a walk or an evaluation recurse without bound (history calls in
/// selectors inside history calls, lets reading lets). Each is refused with its place: the
/// expression parser never builds a tree deeper than its limit (freeing a deeper one overflowed
/// the stack). The command line runs in a child process, so a crash fails the test instead of
/// ending the test run.
@Suite("Deep expressions", .serialized, .timeLimit(.minutes(10)))
struct DeepExpressionTests {
    /// One way to chain or nest terms, built from its name (the test list shows the name, not
    /// 100,000 terms).
    enum Shape: String, CaseIterable, Sendable, CustomTestStringConvertible {
        // Flat chains: each link is a level of the tree.
        case or, and, plus, minus, times, divide, remainder, coalesce, member, index
        /// A chain inside 50 calls: the calls count towards its depth.
        case chainInsideCalls = "chain inside calls"
        // Nesting the parser recurses on.
        case not, unaryMinus = "unary minus", parentheses, lists, maps, calls, conditionals

        var testDescription: String { rawValue }

        static let terms = 100_000

        private static func chain(_ term: String, _ op: String) -> String {
            Array(repeating: term, count: terms).joined(separator: op)
        }

        var text: String {
            let n = Self.terms
            switch self {
            case .or: return Self.chain("x", " or ")
            case .and: return Self.chain("x", " and ")
            case .plus: return Self.chain("1", " + ") + " > 0"
            case .minus: return Self.chain("1", " - ") + " > 0"
            case .times: return Self.chain("2", " * ") + " > 0"
            case .divide: return Self.chain("2", " / ") + " > 0"
            case .remainder: return Self.chain("7", " % ") + " > 0"
            case .coalesce: return Self.chain("x", " ?? ") + " == 1"
            case .member: return "x" + String(repeating: ".y", count: n) + " == 1"
            case .index: return "x" + String(repeating: "[0]", count: n) + " == 1"
            case .chainInsideCalls:
                return String(repeating: "abs(", count: 50) + Self.chain("1", " + ")
                    + String(repeating: ")", count: 50) + " > 0"
            case .not: return String(repeating: "not ", count: n) + "true"
            case .unaryMinus: return String(repeating: "-", count: n) + "1 < 5"
            case .parentheses:
                return String(repeating: "(", count: n) + "1" + String(repeating: ")", count: n)
                    + " == 1"
            case .lists:
                return String(repeating: "[", count: n) + String(repeating: "]", count: n)
                    + " != null"
            case .maps:
                return String(repeating: "{a: ", count: n) + "1" + String(repeating: "}", count: n)
                    + " != null"
            case .calls:
                return String(repeating: "abs(", count: n) + "1" + String(repeating: ")", count: n)
                    + " == 1"
            case .conditionals: return String(repeating: "if x then x else ", count: n) + "x"
            }
        }

        /// The byte offset of the `count`-th (from 1) `needle` in `text`.
        private func offset(of needle: String, _ count: Int) -> Int {
            var from = text.startIndex
            var found = text.startIndex
            for _ in 0..<count {
                let range = text.range(of: needle, range: from..<text.endIndex)!
                found = range.lowerBound
                from = range.upperBound
            }
            return text.utf8.distance(from: text.startIndex, to: found)
        }

        /// Where the expression passes the limit: a chain at the link that makes its tree 101
        /// deep (the 100th operator, past 50 calls the 50th), nesting at the token that would
        /// take the parser a 101st level down (the condition of the 100th `if`).
        var offset: Int {
            switch self {
            case .or: return offset(of: " or ", 100) + 1
            case .and: return offset(of: " and ", 100) + 1
            case .plus: return offset(of: " + ", 100) + 1
            case .minus: return offset(of: " - ", 100) + 1
            case .times: return offset(of: " * ", 100) + 1
            case .divide: return offset(of: " / ", 100) + 1
            case .remainder: return offset(of: " % ", 100) + 1
            case .coalesce: return offset(of: " ?? ", 100) + 1
            case .member: return offset(of: ".y", 100) + 1
            case .index: return offset(of: "[0]", 100)
            case .chainInsideCalls: return offset(of: " + ", 50) + 1
            case .not: return offset(of: "not ", 101)
            case .unaryMinus, .parentheses, .lists: return 100
            case .maps: return offset(of: "{a: ", 101)
            case .calls: return offset(of: "abs(", 101)
            case .conditionals: return offset(of: "if ", 100) + 3
            }
        }

        var message: String {
            switch self {
            case .or, .and, .plus, .minus, .times, .divide, .remainder, .coalesce, .member, .index,
                .chainInsideCalls:
                return
                    "expression nested deeper than 100 (split a long chain of and/or/+ into let: bindings)"
            case .not, .unaryMinus, .parentheses, .lists, .maps, .calls, .conditionals:
                return "expression nested deeper than 100"
            }
        }
    }

    /// A rules file whose one rule holds `expression` as a `where:` on line 6, from column 15.
    static func rules(where expression: String) -> String {
        """
        rules:
          - id: probe.deep
            title: Deep
            never:
              ev: probe.hit
              where: "\(expression)"

        """
    }

    static let whereColumn = 15

    /// The first error loading `text` as `deep.yaml`, and how long loading took.
    static func loadError(_ text: String) -> (Diagnostic?, Duration) {
        var first: Diagnostic?
        let elapsed = ContinuousClock().measure {
            do throws(DiagnosticList) {
                _ = try RuleLoader.load(files: [("deep.yaml", text)])
            } catch {
                first = error.diagnostics.first
            }
        }
        return (first, elapsed)
    }

    @Test(arguments: Shape.allCases)
    func theLoaderRefusesItWhereItPassesTheLimit(_ shape: Shape) throws {
        let (error, elapsed) = Self.loadError(Self.rules(where: shape.text))
        let diagnostic = try #require(error, "a 100,000-term expression loaded")
        #expect(diagnostic.message == shape.message)
        #expect(diagnostic.line == 6)
        #expect(diagnostic.column == Self.whereColumn + shape.offset)
        #expect(elapsed < .seconds(20))
    }

    /// Runs each of `commands` (arguments after which the path of `rules` is added, the log
    /// is `LOG`) in one child process: each must exit 2 and print `path:diagnostic` (a crash is
    /// a signal, and fails the expectation).
    static func expectRefusedByTheCommandLine(
        _ cases: [(rules: String, diagnostic: String)],
        commands: [[String]] = [["rules", "--check", "--rules"]],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("conn-audit-deep-\(UUID().uuidString)", isDirectory: true).path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var runs: [[String]] = []
        var expected: [String] = []
        let log = dir + "/a.jsonl"
        try Data(#"{"t":0,"src":"d","ev":"probe.hit"}"#.utf8 + [0x0A]).write(
            to: URL(fileURLWithPath: log))
        for (i, c) in cases.enumerated() {
            let path = dir + "/deep\(i).yaml"
            try Data(c.rules.utf8).write(to: URL(fileURLWithPath: path))
            for command in commands {
                runs.append(command.map { $0 == "LOG" ? log : $0 } + [path])
                expected.append("\(path):\(c.diagnostic)")
            }
        }
        let result = await #expect(
            processExitsWith: .exitCode(2), observing: [\.standardErrorContent],
            sourceLocation: sourceLocation
        ) { [runs = runs as [[String]]] in
            for arguments in runs {
                let code = CommandLineTool.run(arguments, console: .standard)
                if code != 2 { exit(code == 0 ? 3 : code) }
            }
            exit(2)
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        for (arguments, diagnostic) in zip(runs, expected) {
            #expect(
                stderr.contains(diagnostic), "\(arguments.prefix(2)) did not say \(diagnostic)",
                sourceLocation: sourceLocation)
        }
    }

    /// Every shape through `rules --check` (and `check` and `timeline` for two of them), in one
    /// child process.
    @Test func theCommandLineExitsTwoWithThePlace() async throws {
        let place = { (shape: Shape) in
            "6:\(Self.whereColumn + shape.offset): error: \(shape.message)\n"
        }
        try await Self.expectRefusedByTheCommandLine(
            Shape.allCases.map { (Self.rules(where: $0.text), place($0)) })
        try await Self.expectRefusedByTheCommandLine(
            [Shape.or, .coalesce].map { (Self.rules(where: $0.text), place($0)) },
            commands: [["check", "LOG", "--rules"], ["timeline", "LOG", "--rules"]])
    }
}

// MARK: - History calls inside selectors

extension DeepExpressionTests {
    /// `count({ev: probe.hit, where: "count({… where: \"…\"}) >= 0"}) >= 0`, `levels` calls deep,
    /// each in `parentheses` pairs: each level's text is the next one written as a YAML
    /// double-quoted string, its quotes and backslashes escaped as `\x22` and `\x5c` (so the text
    /// grows by a few bytes a level).
    static func nestedCalls(_ levels: Int, parentheses: Int = 0) -> String {
        func quoted(_ s: String) -> String {
            s.replacingOccurrences(of: "\\", with: "\\x5c").replacingOccurrences(
                of: "\"", with: "\\x22")
        }
        var e = "x == 1"
        for _ in 0..<levels {
            e =
                String(repeating: "(", count: parentheses) + #"count({ev: probe.hit, where: ""#
                + quoted(e) + #""}) >= 0"#
                + String(repeating: ")", count: parentheses)
        }
        return quoted(e)
    }

    /// Each call is a level deeper than the expression it stands in, and the `where:` in its
    /// selector goes on from there: a chain of calls inside selectors is bounded by the same
    /// limit as any expression (it was not: 500 such levels, each in 20 parentheses, took 22 s
    /// and 600 MB to overflow the stack while parsing).
    @Test func historyCallsNestedInSelectorsAreBoundedByTheDepthLimit() throws {
        let (error, elapsed) = Self.loadError(
            Self.rules(where: Self.nestedCalls(500, parentheses: 20)))
        let diagnostic = try #require(error, "500 levels of history calls loaded")
        #expect(diagnostic.message.hasPrefix("expression nested deeper than 100"), "\(diagnostic)")
        #expect(diagnostic.line == 6)
        #expect(elapsed < .seconds(20))
        // 98 levels are within the limit: the rule loads.
        let (fine, _) = Self.loadError(Self.rules(where: Self.nestedCalls(98)))
        #expect(fine == nil, "\(String(describing: fine))")
    }

    /// Collecting the fields a rule reads walked each level of calls in selectors twice over, so
    /// 98 levels would have taken about 2^98 walks.
    @Test func aRuleWithCallsNestedInSelectorsRunsInLinearTime() throws {
        let rules = try RuleLoader.load(files: [
            ("deep.yaml", Self.rules(where: Self.nestedCalls(98)))
        ])
        let log =
            (0..<3).map { #"{"t":\#($0),"src":"d","ev":"probe.hit"}"# }.joined(separator: "\n")
            + "\n"
        var report: AuditReport?
        let elapsed = ContinuousClock().measure {
            report = RuleRuns.audit(rules.rules, log, path: "a.jsonl")
        }
        #expect(report?.results.map(\.rule.id) == ["probe.deep"])
        #expect(elapsed < .seconds(20))
    }
}

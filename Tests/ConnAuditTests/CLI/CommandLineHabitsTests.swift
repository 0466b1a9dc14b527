import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// What users of other command-line tools expect: each command's own help, short flags, "did
/// you mean" for options, commands and rule ids, and no colour where the environment asks.
@Suite("Command-line habits")
struct CommandLineHabitsTests {
    static let samples = Repository.samples

    // MARK: Help

    @Test(
        arguments: [
            (["check", "--help"], "conn-audit check —"), (["check", "-h"], "conn-audit check —"),
            (["timeline", "--help"], "conn-audit timeline —"),
            (["timeline", "-h"], "conn-audit timeline —"),
            (["rules", "-h"], "conn-audit rules —"), (["help", "rules"], "conn-audit rules —"),
            (["help", "timeline"], "conn-audit timeline —")
        ] as [([String], String)])
    func eachCommandHasItsOwnPage(_ arguments: [String], _ title: String) {
        let run = CommandLineRun(arguments)
        #expect(run.code == 0)
        #expect(run.out.hasPrefix(title), "\(run.out.prefix(80))")
        #expect(
            run.out.contains("USAGE") && run.out.contains("EXIT STATUS")
                && run.out.contains("EXAMPLES"))
        #expect(run.err.isEmpty)
    }

    @Test func aCommandsPageHoldsItsOwnOptionsOnly() {
        let check = CommandLineRun(["check", "--help"]).out
        #expect(
            check.contains("CHECK OPTIONS") && !check.contains("TIMELINE OPTIONS")
                && !check.contains("RULES OPTIONS"))
        #expect(check.contains("-j --jobs"))
        let rules = CommandLineRun(["rules", "--help"]).out
        #expect(rules.contains("RULES OPTIONS") && !rules.contains("CHECK OPTIONS"))
        #expect(rules.contains("conn-audit rules --explain ws.single-close"))
        #expect(!rules.contains("conn-audit timeline samples/"))
        let timeline = CommandLineRun(["timeline", "--help"]).out
        #expect(timeline.contains("--around FILE:LINE") && !timeline.contains("--baseline FILE"))
        // The whole manual still has every section.
        let all = CommandLineRun(["--help"]).out
        for section in [
            "CHECK OPTIONS", "TIMELINE OPTIONS", "RULES OPTIONS", "EXIT STATUS", "EXAMPLES"
        ] {
            #expect(all.contains(section))
        }
    }

    // MARK: Short flags

    @Test func shortFlagsMeanTheirLongForms() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let long = CommandLineRun([
            Self.samples, "--format", "json", "--jobs", "1", "--output", dir + "/long.json"
        ])
        let short = CommandLineRun([Self.samples, "-f", "json", "-j1", "-o", dir + "/short.json"])
        #expect(long.code == 1 && short.code == long.code)
        let a = try String(contentsOfFile: dir + "/long.json", encoding: .utf8)
        let b = try String(contentsOfFile: dir + "/short.json", encoding: .utf8)
        #expect(a.count > 100)
        #expect(
            a.replacingOccurrences(of: "long.json", with: "")
                == b.replacingOccurrences(of: "short.json", with: ""))
        let quiet = CommandLineRun([Self.samples, "-q"])
        #expect(quiet.code == 1 && quiet.out.isEmpty && quiet.err.isEmpty)
        // A flag takes no value, and a short form a command lacks is unknown.
        #expect(CommandLineRun([Self.samples, "-qx"]).err.contains("takes no value"))
        #expect(CommandLineRun(["rules", "-j", "2"]).err.contains("unknown option '-j'"))
    }

    // MARK: Did you mean

    @Test(
        arguments: [
            ([samples, "--fromat", "json"], "unknown option '--fromat' (did you mean '--format'?)"),
            ([samples, "--ouput", "x"], "unknown option '--ouput' (did you mean '--output'?)"),
            ([samples, "--max", "3"], "unknown option '--max' (did you mean '--max-expansion'?)"),
            (["chekc", samples], "unknown command 'chekc' (did you mean 'check'?)"),
            (["timelien", samples], "unknown command 'timelien' (did you mean 'timeline'?)"),
            (
                [samples, "--only", "ws.singel-close"],
                "no rule matches 'ws.singel-close' (did you mean 'ws.single-close'?)"
            ),
            (
                [samples, "--skip", "log.malformd"],
                "no rule matches 'log.malformd' (did you mean 'log.malformed'?)"
            ),
            (
                ["rules", "--explain", "ws.single-clos"],
                "no rule 'ws.single-clos' (did you mean 'ws.single-close'?)"
            )
        ] as [([String], String)])
    func mistakesGetTheNearestName(_ arguments: [String], _ message: String) {
        let run = CommandLineRun(arguments)
        #expect(run.code == 2)
        #expect(run.err.contains(message), "\(run.err)")
    }

    @Test func farNamesGetNoGuess() {
        let run = CommandLineRun([Self.samples, "--zzzzzz"])
        #expect(run.code == 2)
        #expect(run.err.contains("unknown option '--zzzzzz'") && !run.err.contains("did you mean"))
        // A path that does not exist and is like no command is a missing input, not a command.
        let missing = CommandLineRun(["no-such-logs-here"])
        #expect(missing.code == 2 && !missing.err.contains("unknown command"))
    }

    @Test(arguments: [
        ("format", "format", 0), ("fromat", "format", 1), ("formt", "format", 1),
        ("formaat", "format", 1),
        ("ofrmat", "format", 1), ("fmroat", "format", 2), ("abc", "xyz", 3)
    ])
    func editDistance(_ a: String, _ b: String, _ expected: Int) {
        #expect(
            Suggestions.distance(Array(a.unicodeScalars), Array(b.unicodeScalars), limit: 3)
                == expected)
    }

    // MARK: Colour

    @Test(
        arguments: [
            (nil, nil, true), ("", "xterm", true), ("1", "xterm", false), ("0", nil, false),
            (nil, "dumb", false)
        ] as [(String?, String?, Bool)])
    func theEnvironmentDecidesWhetherAutoColours(
        _ noColor: String?, _ term: String?, _ allowed: Bool
    ) {
        #expect(Console.colorAllowed(noColor: noColor, term: term) == allowed)
    }

    @Test func noColorKeepsATerminalPlainUnlessColourIsAskedFor() {
        let escape = "\u{1B}["
        #expect(CommandLineRun([Self.samples], terminal: true).out.contains(escape))
        #expect(
            !CommandLineRun([Self.samples], terminal: true, colorAllowed: false).out.contains(
                escape))
        #expect(
            CommandLineRun([Self.samples, "--color", "always"], terminal: true, colorAllowed: false)
                .out.contains(escape))
        #expect(
            !CommandLineRun(
                ["timeline", Self.samples, "--src", "ipad-b"], terminal: true, colorAllowed: false
            ).out
                .contains(escape))
    }
}

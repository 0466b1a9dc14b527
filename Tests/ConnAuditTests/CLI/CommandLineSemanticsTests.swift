import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// What the command line makes of a log: exact deadlines with fractions, typed params, the
/// incomplete verdict, and timelines, findings and selections.
@Suite struct CommandLineSemanticsTests {
    /// connlog's own example: a ping at 128.11, its deadline at 128.11 + 1000. A pong at 1128.11 is
    /// *at* the deadline, so late; the close there is on time. In binary floating point the sum is
    /// 1128.1100000000001, which would turn both the other way.
    @Test func fractionalTimesMeetTheirDeadlinesExactly() throws {
        try withScratchDirectory("cli") { dir in
            let log = try CLI.write(
                """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":0,"ev":"ws.open","gen":1}
                {"t":128.11,"ev":"ws.ping","gen":1}
                {"t":1128.11,"ev":"ws.pong","gen":1}
                {"t":1128.11,"ev":"ws.close","gen":1,"reason":"pong_timeout"}

                """, dir, "frac.jsonl")
            let run = CLI.run([log, "--format", "json"])
            let report = try jsonObject(run.out)
            let outcomes = try #require(report["outcomes"] as? [String: Any])
            #expect(outcomes["delayed"] as? Int == 1, "\(outcomes)")
            #expect(outcomes["normal"] as? Int == 0, "\(outcomes)")
            #expect(try CLI.entry(report, "ws.no-premature-timeout")["status"] as? String == "pass")
            #expect(try CLI.entry(report, "ws.timeout-closes")["status"] as? String == "pass")
        }
    }

    @Test func aParamOfTheWrongKindIsAUsageError() throws {
        try withScratchDirectory("cli") { dir in
            let log = try CLI.write(#"{"t":0,"ev":"ws.connect","gen":1}"# + "\n", dir, "a.jsonl")
            let bad = CLI.run([log, "--param", "timeout_ms=abc"])
            #expect(bad.code == 2)
            #expect(bad.err.contains("timeout_ms=abc"), "\(bad.err)")
            #expect(bad.err.contains("number"), "\(bad.err)")
            #expect(CLI.run([log, "--param", "timeout_ms=1500", "--quiet"]).code != 2)
            #expect(CLI.run([log, "--param", "ws.timeout-closes.timeout_ms=x"]).code == 2)
        }
    }

    @Test func anUnreadableInputMakesTheVerdictIncompleteInEveryMachineFormat() throws {
        try withScratchDirectory("cli") { dir in
            let log = try CLI.write(#"{"t":0,"ev":"app.start"}"# + "\n", dir, "a.jsonl")
            let missing = dir + "/missing.jsonl"
            let run = CLI.run([log, missing, "--format", "json"])
            #expect(run.code == 2)
            let report = try jsonObject(run.out)
            #expect(report["verdict"] as? String == "incomplete")
            #expect(report["complete"] as? Bool == false)
            let junit = CLI.run([log, missing, "--format", "junit"])
            #expect(
                junit.out.contains(#"name="verdict" value="incomplete""#),
                "\(junit.out.prefix(600))")
            let github = CLI.run([log, missing, "--format", "github"])
            #expect(github.out.contains("verdict INCOMPLETE"), "\(github.out)")
        }
    }
}

extension CommandLineSemanticsTests {
    /// `--around` names the file as the user has it at hand: through another path to the same
    /// file (a symbolic link, an absolute path for a relative input) it is the same input.
    @Test func timelineAroundFindsTheInputByItsRealPath() throws {
        try withScratchDirectory("cli") { dir in
            let log = try CLI.write(
                """
                {"t":0,"src":"d","ev":"ws.connect","gen":1}
                {"t":10,"src":"d","ev":"ws.open","gen":1}

                """, dir, "real.jsonl")
            try FileManager.default.createDirectory(
                atPath: dir + "/links", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                atPath: dir + "/links/other.jsonl", withDestinationPath: log)
            let run = CLI.run(["timeline", dir + "/links/other.jsonl", "--around", log + ":2"])
            #expect(run.code == 0, "\(run.err)")
            #expect(run.out.contains(">>"), "\(run.out)")
        }
    }

    @Test func timelineWritesAnHTMLPageWithTheViolationMarked() throws {
        try withScratchDirectory("cli") { dir in
            let log = try CLI.write(
                """
                {"t":0,"src":"dev<1>","ev":"ws.connect","gen":1}
                {"t":10,"src":"dev<1>","ev":"ws.open","gen":1}
                {"t":500,"src":"dev<1>","ev":"ws.close","gen":1}

                """, dir, "a.jsonl")
            let out = dir + "/t.html"
            let run = CLI.run(["timeline", log, "--format", "html", "--output", out])
            #expect(run.code == 0, "\(run.err)")
            let html = try String(contentsOfFile: out, encoding: .utf8)
            #expect(html.hasPrefix("<!DOCTYPE html>"))
            #expect(html.contains("ws.close-has-reason"))
            #expect(html.contains("dev&lt;1&gt;"))
            #expect(!html.contains("dev<1>"))
        }
    }
}

extension CommandLineSemanticsTests {
    @Test func theSameRulesFileTwiceIsReadOnce() throws {
        try withScratchDirectory("cli") { dir in
            let log = try CLI.write(#"{"t":0,"ev":"a"}"# + "\n", dir, "a.jsonl")
            let rules = try CLI.write(
                """
                rules:
                  - id: t.a
                    title: A
                    every: { ev: a }
                    expect: "t >= 0"
                """, dir, "rules/r.yaml")
            let twice = CLI.run([log, "--rules", rules, "--rules", rules, "--quiet"])
            #expect(twice.code == 0, "\(twice.err)")
            let fileAndDirectory = CLI.run([
                log, "--rules", rules, "--rules", dir + "/rules", "--quiet"
            ]
            )
            #expect(fileAndDirectory.code == 0, "\(fileAndDirectory.err)")
        }
    }

    /// rules.md: `$malformed` (file, line, reason), `$secret` (file, line, key path).
    @Test func theReadersFindingsHaveFileAndLineFields() throws {
        try withScratchDirectory("cli") { dir in
            let log = try CLI.write(
                "not json\n" + #"{"t":1,"ev":"a","token":"x"}"# + "\n", dir, "a.jsonl")
            let rules = try CLI.write(
                """
                rules:
                  - id: t.bad
                    title: Bad lines
                    for: corpus
                    never: { ev: $malformed }
                    message: "bad line {file}:{line}: {reason}"
                  - id: t.secret
                    title: Secrets
                    for: corpus
                    never: { ev: $secret }
                    message: "secret at {file}:{line} ({path})"
                """, dir, "r.yaml")
            let run = CLI.run([log, "--rules", rules, "--format", "json"])
            let report = try jsonObject(run.out)
            let bad = try #require(
                (try CLI.entry(report, "t.bad")["violations"] as? [[String: Any]])?.first)
            #expect(
                (bad["message"] as? String)?.hasPrefix("bad line \(log):1: not valid JSON") == true,
                "\(bad)")
            let secret = try #require(
                (try CLI.entry(report, "t.secret")["violations"] as? [[String: Any]])?.first)
            #expect(secret["message"] as? String == "secret at \(log):2 (token)")
        }
    }
}

extension CommandLineSemanticsTests {
    /// cli.md's minimum JSON shape has the outcome counts; --only must not turn them into null.
    @Test func outcomesAreCountedWhateverRulesAreSelected() throws {
        try withScratchDirectory("cli") { dir in
            let log = try CLI.write(
                """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":5,"ev":"ws.connect_failed","gen":1,"error":"NSURLErrorDomain:-1004"}

                """, dir, "a.jsonl")
            let all = try jsonObject(CLI.run([log, "--format", "json"]).out)
            let only = CLI.run([log, "--only", "ws.single-close", "--format", "json"])
            #expect(only.code == 0, "\(only.err)")
            let report = try jsonObject(only.out)
            #expect(try CLI.ruleIDs(report) == ["ws.single-close"])
            let outcomes = try #require(report["outcomes"] as? [String: Int])
            #expect(outcomes == (all["outcomes"] as? [String: Int]))
            #expect(outcomes["connect_failure"] == 1)
            #expect(
                outcomes.keys.sorted() == [
                    "connect_failure", "delayed", "immediate_close", "normal"
                ])
        }
    }
}

extension CommandLineSemanticsTests {
    /// connlog: `src` and `session` are top-level fields like any other; rules may read them.
    @Test func rulesReadSrcAndSession() throws {
        try withScratchDirectory("cli") { dir in
            let log = try CLI.write(
                """
                {"t":0,"src":"dev1","session":"s1","ev":"a.b"}
                {"t":1,"src":"dev2","ev":"a.b"}

                """, dir, "a.jsonl")
            let rules = try CLI.write(
                """
                rules:
                  - id: t.src
                    title: Only dev1 in session s1
                    for: source
                    every: { ev: a.b }
                    expect: "src == 'dev1' and session == 's1'"
                    message: "{src} in {session ?? 'no session'}"
                """, dir, "r.yaml")
            let report = try jsonObject(CLI.run([log, "--rules", rules, "--format", "json"]).out)
            let violations = try #require(
                try CLI.entry(report, "t.src")["violations"] as? [[String: Any]])
            #expect(violations.compactMap { $0["line"] as? Int } == [2])
            #expect(violations.first?["message"] as? String == "dev2 in no session")
        }
    }
}

import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// `.conn-audit.yaml`: found by walking up to a repository's root, its paths taken from its own
/// directory, its rules on top of the built-in pack, the command line winning over it, and
/// `--show-config` printing a file that reads back the same.
@Suite("Config file")
struct ConfigFileTests {
    static let badClose =
        #"{"t":0,"src":"d","ev":"ws.connect","gen":1}"# + "\n"
        + #"{"t":5,"src":"d","ev":"ws.close","gen":1}"# + "\n"

    /// An extra rule of the team's own: every ws.connect names its url.
    static let ownRule = """
        rules:
          - id: team.connect-has-url
            title: Every connect names its url
            severity: warning
            every: { ev: ws.connect }
            expect: "url != null"
        """

    /// A repository: `.git/`, a config at its root, logs and rules beside it, and `sub/` to run in.
    static func repository(config: String) throws -> String {
        let dir = try makeTemporaryDirectory(["up.jsonl": badClose, "team.yaml": ownRule])
        for sub in ["/.git", "/logs", "/sub/deeper"] {
            try FileManager.default.createDirectory(
                atPath: dir + sub, withIntermediateDirectories: true)
        }
        try FileManager.default.moveItem(atPath: dir + "/up.jsonl", toPath: dir + "/logs/up.jsonl")
        try config.write(toFile: dir + "/.conn-audit.yaml", atomically: true, encoding: .utf8)
        return dir
    }

    /// `conn-audit ARGS` run from `directory`.
    static func run(_ arguments: [String], in directory: String) throws -> (
        code: Int32, out: String, err: String
    ) {
        try Subprocess.run(arguments, scratch: directory, shell: "cd '\(directory)' && exec \"$@\"")
    }

    @Test func theNearestConfigAboveTheWorkingDirectoryIsUsedWithItsPaths() throws {
        let dir = try Self.repository(
            config: "paths: [logs]\nrules: [team.yaml]\nformat: json\nfail-on: warning\n")
        defer { removeTemporaryDirectory(dir) }
        let shown = try Self.run(["--show-config"], in: dir + "/sub/deeper")
        #expect(shown.code == 0, "\(shown.err)")
        #expect(
            shown.out.contains("# in force: \"../../.conn-audit.yaml\" beneath the command line"),
            "\(shown.out)")
        #expect(
            shown.out.contains(
                "paths: [\"../../logs\"]\nbuiltin-rules: true\nrules: [\"../../team.yaml\"]"),
            "\(shown.out)")
        // No PATH on the command line: the config's; its rule on top of the built-in pack.
        let run = try Self.run([], in: dir + "/sub/deeper")
        #expect(run.code == 1, "\(run.err)")
        let report = try jsonObject(run.out)
        let rules = try ruleStatuses(run.out)
        #expect(rules["team.connect-has-url"] == "fail")
        #expect(rules["ws.close-has-reason"] == "fail")
        #expect(rules.count == RuleLoader.builtin().rules.count + 1)
        #expect(
            (report["files"] as? [[String: Any]])?.first?["path"] as? String
                == "../../logs/up.jsonl")
    }

    @Test func theSearchStopsAtTheRepositoryRoot() throws {
        let outer = try makeTemporaryDirectory([".conn-audit.yaml": "fail-on: never\n"])
        defer { removeTemporaryDirectory(outer) }
        try FileManager.default.createDirectory(
            atPath: outer + "/repo/.git", withIntermediateDirectories: true)
        let shown = try Self.run(["--show-config"], in: outer + "/repo")
        #expect(shown.out.contains("# in force: the command line (no config file)"), "\(shown.out)")
        #expect(shown.out.contains("fail-on: error"))
        // Without a repository in the way, the outer file is found.
        try FileManager.default.removeItem(atPath: outer + "/repo/.git")
        #expect(try Self.run(["--show-config"], in: outer + "/repo").out.contains("fail-on: never"))
        #expect(
            try Self.run(["--show-config", "--no-config"], in: outer + "/repo").out.contains(
                "fail-on: error"))
    }

    @Test func theCommandLineWinsOverTheFile() throws {
        let dir = try Self.repository(
            config: """
                paths: [logs]
                fail-on: never
                only: ["ws.*"]
                params: {timeout_ms: 2000, interval_ms: 300}
                """)
        defer { removeTemporaryDirectory(dir) }
        #expect(try Self.run([], in: dir).code == 0)
        #expect(try Self.run(["--fail-on", "error"], in: dir).code == 1)
        let shown = try Self.run(
            ["--show-config", "--param", "timeout_ms=5000", "--only", "log.*"], in: dir)
        #expect(shown.out.contains("only: [\"log.*\"]"), "\(shown.out)")
        #expect(
            shown.out.contains("params: {\"interval_ms\": \"300\", \"timeout_ms\": \"5000\"}"),
            "\(shown.out)")
        // A PATH given replaces the config's.
        let other = try Self.run(["--show-config", "elsewhere/"], in: dir)
        #expect(other.out.contains("paths: [\"elsewhere/\"]"))
        // --rules given replaces the config's rules and the built-in pack, as without a config.
        #expect(
            try Self.run(["--show-config", "--rules", "team.yaml"], in: dir).out.contains(
                "builtin-rules: false"))
    }

    @Test func whatShowConfigPrintsReadsBackTheSame() throws {
        let dir = try Self.repository(
            config: """
                paths: [logs]
                rules: team.yaml
                use: gate
                reports: {junit: out/junit.xml, sarif: out/r.sarif}
                exact-baseline: gate/base.json
                jobs: 1
                suppressions:
                  - rule: "ws.*"
                    src: "ipad-*"
                    fields: {app_build: "4.2.*"}
                    reason: "BUG-1 \\"quoted\\""
                    expires: 2027-06-30
                """)
        defer { removeTemporaryDirectory(dir) }
        let first = try Self.run(["--show-config"], in: dir)
        #expect(first.code == 0, "\(first.err)")
        try first.out.write(toFile: dir + "/shown.yaml", atomically: true, encoding: .utf8)
        let second = try Self.run(["--show-config", "--config", "shown.yaml"], in: dir)
        #expect(second.code == 0, "\(second.err)")
        func body(_ s: String) -> [Substring] {
            s.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasPrefix("  #") }
        }
        #expect(body(first.out) == body(second.out), "\(first.out)\n---\n\(second.out)")
        #expect(first.out.contains("reports: {junit: \"out/junit.xml\", sarif: \"out/r.sarif\"}"))
    }

    @Test(arguments: [
        ("fial-on: never\n", "1:1: error: unknown setting 'fial-on' (did you mean 'fail-on'?)"),
        ("use: soak\n", "1:6: error: use must be one of corpus, gate, not 'soak'"),
        ("jobs: 0\n", "1:7: error: jobs is a whole number from 1 to 256"),
        ("- a\n", "1:1: error: a config file is a mapping of settings"),
        ("rules: {a: b}\n", "1:8: error: rules takes one value, not a mapping"),
        ("paths: [a\n", "error:"),
        ("version: 2\n", "1:10: error: this conn-audit reads config version 1")
    ])
    func aBadConfigIsNamedAtItsPlaceAndGivesNoVerdict(text: String, expected: String) throws {
        let dir = try makeTemporaryDirectory(["c.yaml": text, "up.jsonl": Self.badClose])
        defer { removeTemporaryDirectory(dir) }
        let run = CommandLineRun([dir + "/up.jsonl", "--config", dir + "/c.yaml"])
        #expect(run.code == 2)
        #expect(
            run.err.contains(dir + "/c.yaml:" + expected)
                || (expected == "error:" && run.err.contains(dir + "/c.yaml:")),
            "\(run.err)")
        #expect(run.err.contains("in the config file \(dir)/c.yaml; no verdict"), "\(run.err)")
        #expect(run.out.isEmpty)
    }

    @Test func aMissingConfigFileIsAnError() throws {
        let run = CommandLineRun(["x.jsonl", "--config", "/nonexistent/c.yaml"])
        #expect(run.code == 2)
        #expect(
            run.err.contains(
                "/nonexistent/c.yaml:1:1: error: cannot read the config file: no such file or directory"
            ),
            "\(run.err)")
    }

    @Test func aConfigRuleTakingABuiltinIdIsRefused() throws {
        let clash = Self.ownRule.replacingOccurrences(
            of: "team.connect-has-url", with: "ws.close-has-reason")
        let dir = try makeTemporaryDirectory([
            "c.yaml": "rules: [own.yaml]\n", "own.yaml": clash, "up.jsonl": Self.badClose
        ])
        defer { removeTemporaryDirectory(dir) }
        let run = CommandLineRun([dir + "/up.jsonl", "--config", dir + "/c.yaml"])
        #expect(run.code == 2)
        #expect(
            run.err.contains(
                "own.yaml:2:1: error: rule id 'ws.close-has-reason' is a built-in rule's"),
            "\(run.err)")
        // With builtin-rules: false the file's rules replace the pack, as --rules does.
        try "rules: [own.yaml]\nbuiltin-rules: false\n".write(
            toFile: dir + "/c.yaml", atomically: true, encoding: .utf8)
        let alone = CommandLineRun([
            dir + "/up.jsonl", "--config", dir + "/c.yaml", "-f", "json", "--fail-on", "warning"
        ])
        #expect(alone.code == 1, "\(alone.err)")
        #expect(!alone.out.contains("\"ws.single-close\""))
    }

    @Test func rulesAndTimelineReadTheConfigToo() throws {
        let dir = try Self.repository(config: "paths: [logs]\nrules: [team.yaml]\n")
        defer { removeTemporaryDirectory(dir) }
        let list = try Self.run(["rules", "--list"], in: dir)
        #expect(list.code == 0, "\(list.err)")
        #expect(
            list.out.contains("team.connect-has-url") && list.out.contains("ws.close-has-reason"))
        let timeline = try Self.run(["timeline", "logs"], in: dir)
        #expect(timeline.code == 0, "\(timeline.err)")
        #expect(timeline.out.contains("team.connect-has-url"), "\(timeline.out)")
    }

    @Test func theFormerBaselineOptionNamesStillWork() throws {
        let dir = try makeTemporaryDirectory(["up.jsonl": Self.badClose])
        defer { removeTemporaryDirectory(dir) }
        #expect(
            CommandLineRun([dir + "/up.jsonl", "-q", "--write-baseline", dir + "/b.json"]).code == 1
        )
        #expect(CommandLineRun([dir + "/up.jsonl", "-q", "--baseline", dir + "/b.json"]).code == 0)
        let both = CommandLineRun([
            dir + "/up.jsonl", "--baseline", dir + "/b.json", "--exact-baseline", dir + "/b.json"
        ])
        #expect(both.code == 2)
        #expect(both.err.contains("--baseline and --exact-baseline are the same option"))
    }
    @Test func aCheckOnlySettingDoesNotReachTimelineOrRules() throws {
        let dir = try Self.repository(config: "paths: [logs]\nformat: junit\noutput: report.xml\n")
        defer { removeTemporaryDirectory(dir) }
        let timeline = try Self.run(["timeline", "logs"], in: dir)
        #expect(timeline.code == 0, "\(timeline.err)")
        #expect(timeline.out.contains("ws.close"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/report.xml"))
        #expect(try Self.run(["rules", "--list"], in: dir).code == 0)
    }

    @Test func aParamOnTheCommandLineBeatsTheFilesEvenForOneRule() throws {
        let dir = try Self.repository(
            config: "params: {reconnect.attempt-limit.max_attempts: 5, timeout_ms: 2000}\n")
        defer { removeTemporaryDirectory(dir) }
        let shown = try Self.run(["--show-config", "--param", "max_attempts=20"], in: dir)
        #expect(
            shown.out.contains("params: {\"timeout_ms\": \"2000\", \"max_attempts\": \"20\"}"),
            "\(shown.out)")
        // A file param no selected rule has is left out; the same on the command line is an error.
        let only = try Self.run(["logs", "--only", "sse.*"], in: dir)
        #expect(only.code == 0, "\(only.err)")
        let typed = try Self.run(["logs", "--only", "sse.*", "--param", "timeout_ms=5"], in: dir)
        #expect(typed.code == 2)
        #expect(typed.err.contains("--param timeout_ms: no selected rule has a param of that name"))
    }

    @Test func aFilePatternIsRelativeToTheConfigsDirectory() throws {
        let dir = try Self.repository(
            config: """
                paths: [logs]
                suppressions:
                  - {rule: ws.close-has-reason, file: "logs/*", reason: known, expires: 2999-01-01}
                """)
        defer { removeTemporaryDirectory(dir) }
        for place in [dir, dir + "/sub/deeper"] {
            let run = try Self.run(["--only", "ws.close-has-reason"], in: place)
            #expect(run.code == 0, "\(place): \(run.out)")
            #expect(
                run.out.contains("SUPPRESSED ws.close-has-reason — 1 violation"),
                "\(place): \(run.out)")
        }
    }

    @Test func showConfigRedactsATokenInAnyPattern() throws {
        let token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdef"
        let dir = try makeTemporaryDirectory([
            "c.yaml": """
            suppressions:
              - {rule: "ws.*", message: "*\(token)*", fields: {note: "*ghp_abcdefghijklmnopqrstuvwxyz0123456789*"}, reason: r, expires: 2999-01-01}
            """
        ])
        defer { removeTemporaryDirectory(dir) }
        let shown = CommandLineRun(["--config", dir + "/c.yaml", "--show-config"])
        #expect(shown.code == 0, "\(shown.err)")
        #expect(
            !shown.out.contains(token)
                && !shown.out.contains("ghp_abcdefghijklmnopqrstuvwxyz0123456789"), "\(shown.out)")
    }

    @Test func aDirectoryIsNoConfigFile() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let run = CommandLineRun(["x.jsonl", "--config", dir])
        #expect(run.code == 2)
        #expect(run.err.contains("\(dir):1:1: error: the config file is a directory"), "\(run.err)")
    }
    @Test func aFileParamTheRulesRefuseIsNamedAtItsPlace() throws {
        let dir = try makeTemporaryDirectory([
            "c.yaml": "fail-on: error\nparams:\n  timeout_ms: soon\n", "up.jsonl": Self.badClose
        ])
        defer { removeTemporaryDirectory(dir) }
        for command in [[dir + "/up.jsonl"], ["timeline", dir + "/up.jsonl"]] {
            let run = CommandLineRun(command + ["--config", dir + "/c.yaml"])
            #expect(run.code == 2)
            #expect(
                run.err.contains("\(dir)/c.yaml:3:15: error: param timeout_ms=soon: "), "\(run.err)"
            )
            #expect(run.err.contains("needs a number here"), "\(run.err)")
            #expect(!run.err.contains("--param"), "\(run.err)")
        }
    }
}

import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// Suppressions in a config file accept known issues by rule and conditions, keep matching on new
/// uploads, expire loudly, and are shown in every report as suppressed, never dropped.
@Suite("Suppressions")
struct SuppressionsTests {
    /// One upload: a ws generation per source, each closing without a reason (a violation of
    /// ws.close-has-reason at its close line), shifted by `shift` in time.
    static func upload(
        shift: Int = 0, builds: [String: String] = ["dev-1": "4.2.1", "dev-2": "5.0.0"]
    ) -> String {
        var lines: [String] = []
        for (k, src) in builds.keys.sorted().enumerated() {
            let t = shift + k * 10
            let build = builds[src]!
            lines.append(
                #"{"t":\#(t),"src":"\#(src)","session":"s\#(k)","ev":"ws.connect","gen":1,"app_build":"\#(build)"}"#
            )
            lines.append(
                #"{"t":\#(t + 1),"src":"\#(src)","session":"s\#(k)","ev":"ws.open","gen":1,"app_build":"\#(build)"}"#
            )
            lines.append(
                #"{"t":\#(t + 2),"src":"\#(src)","session":"s\#(k)","ev":"ws.close","gen":1,"app_build":"\#(build)"}"#
            )
            lines.append(
                #"{"t":\#(t + 3),"src":"\#(src)","session":"s\#(k)","ev":"ws.closed","gen":1,"app_build":"\#(build)"}"#
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Runs `check` on `log` with a config holding `suppressions` (YAML list items) and JSON out.
    static func run(
        _ suppressions: String, log: String = upload(), extra: [String] = [],
        format: String = "json"
    ) throws -> (run: CommandLineRun, dir: String) {
        let dir = try makeTemporaryDirectory([
            "up.jsonl": log,
            "config.yaml": "use: gate\nsuppressions:\n" + suppressions
        ])
        let run = CommandLineRun(
            [
                dir + "/up.jsonl", "--config", dir + "/config.yaml", "--only",
                "ws.close-has-reason",
                "-f", format
            ] + extra)
        return (run, dir)
    }

    static func rule(_ json: String) throws -> [String: Any] {
        try ruleEntry(json, "ws.close-has-reason")
    }

    @Test func withoutSuppressionsBothClosesFail() throws {
        let dir = try makeTemporaryDirectory(["up.jsonl": Self.upload()])
        defer { removeTemporaryDirectory(dir) }
        let run = CommandLineRun([
            dir + "/up.jsonl", "--no-config", "--use", "gate", "--only", "ws.close-has-reason",
            "-f", "json"
        ])
        #expect(run.code == 1, "\(run.err)")
        #expect((try Self.rule(run.out)["violations"] as? [Any])?.count == 2)
    }

    @Test(arguments: [
        // condition, how many of the two violations it accepts
        ("src: \"dev-1\"", 1), ("src: \"dev-*\"", 2), ("session: s1", 1),
        ("message: \"*generation 1*\"", 2),
        ("file: \"*/up.jsonl\"", 2), ("file: \"*/other.jsonl\"", 0),
        ("fields: {app_build: \"4.2.*\"}", 1),
        ("fields: {app_build: \"6.*\"}", 0), ("fields: {device_model: \"*\"}", 0),
        ("src: \"dev-*\"\n    fields: {app_build: \"5.*\"}", 1), ("src: dev-1\n    session: s1", 0)
    ])
    func everyConditionGivenMustHold(condition: String, accepted: Int) throws {
        let (run, dir) = try Self.run(
            """
              - rule: ws.close-has-reason
                \(condition)
                reason: "BUG-1: the SDK drops the reason"
                expires: 2999-12-31
            """ + "\n")
        defer { removeTemporaryDirectory(dir) }
        let rule = try Self.rule(run.out)
        let suppressed = rule["suppressed"] as? [[String: Any]] ?? []
        #expect(suppressed.count == accepted, "\(condition): \(run.out)")
        #expect((rule["violations"] as? [Any])?.count == 2 - accepted)
        #expect(suppressed.allSatisfy { $0["suppression"] as? Int == 0 })
        #expect(run.code == (accepted == 2 ? 0 : 1), "\(condition): \(run.err)")
    }

    /// The next day's upload: other times, another file name. A suppression keeps accepting its
    /// violations; the exact baseline recorded from the first upload does not.
    @Test func theNextUploadStaysSuppressedWhereAnExactBaselineDoesNot() throws {
        let config = """
            suppressions:
              - rule: ws.close-has-reason
                fields: {app_build: "4.2.*"}
                reason: BUG-1
                expires: 2999-12-31
            """
        let dir = try makeTemporaryDirectory([
            "day1.jsonl": Self.upload(), "day2.jsonl": Self.upload(shift: 50_000),
            "config.yaml": config, "empty.yaml": "{}"
        ])
        defer { removeTemporaryDirectory(dir) }
        let only = ["--only", "ws.close-has-reason", "-q"]
        // Day 1: the 4.2 close is suppressed, the 5.0 one is recorded in an exact baseline.
        let day1 = CommandLineRun(
            [
                dir + "/day1.jsonl", "--config", dir + "/config.yaml",
                "--write-exact-baseline", dir + "/base.json"
            ] + only)
        #expect(day1.code == 1)
        let recorded = try String(contentsOfFile: dir + "/base.json", encoding: .utf8)
        #expect(
            recorded.components(separatedBy: "\"fingerprint\"").count == 2,
            "only the unsuppressed one: \(recorded)")
        #expect(
            CommandLineRun(
                [
                    dir + "/day1.jsonl", "--config", dir + "/config.yaml",
                    "--exact-baseline", dir + "/base.json"
                ] + only
            ).code == 0)
        // Day 2: the suppression still holds; the baseline of day 1 matches nothing.
        let day2 = CommandLineRun(
            [
                dir + "/day2.jsonl", "--config", dir + "/config.yaml",
                "--exact-baseline", dir + "/base.json", "-f", "json"
            ] + only.dropLast())
        let rule = try Self.rule(day2.out)
        #expect((rule["suppressed"] as? [Any])?.count == 1)
        #expect((rule["violations"] as? [Any])?.count == 1)
        #expect(day2.code == 1)
    }

    @Test func anExpiredSuppressionAcceptsNothingAndSaysSo() throws {
        let (run, dir) = try Self.run(
            """
              - rule: "ws.*"
                reason: was fixed in 4.3
                expires: 2020-01-31
            """ + "\n", format: "text")
        defer { removeTemporaryDirectory(dir) }
        #expect(run.code == 1)
        #expect(
            run.err.contains(
                "the suppression at \(dir)/config.yaml:3 for ws.* expired on 2020-01-31; its violations count again"
            ),
            "\(run.err)")
        #expect(run.out.contains("EXPIRED SUPPRESSION at \(dir)/config.yaml:3"), "\(run.out)")
        #expect(!run.out.contains("SUPPRESSED ws."))
    }

    @Test func theTextReportNamesWhatEachEntryAcceptedAndWhichMatchedNothing() throws {
        let (run, dir) = try Self.run(
            """
              - rule: ws.close-has-reason
                src: dev-1
                reason: "BUG-7 (owner: net team)"
                expires: 2999-01-01
              - rule: ws.close-has-reason
                src: nobody
                reason: stale
                expires: 2999-01-01
            """ + "\n", format: "text")
        defer { removeTemporaryDirectory(dir) }
        #expect(
            run.out.contains(
                "SUPPRESSED ws.close-has-reason — 1 violation: BUG-7 (owner: net team) "
                    + "(suppression at \(dir)/config.yaml:3, until 2999-01-01)"), "\(run.out)")
        #expect(
            run.out.contains("1 suppression matches no violation: \(dir)/config.yaml:7"),
            "\(run.out)")
    }

    @Test func sarifMarksSuppressedResultsWithTheirJustification() throws {
        let (run, dir) = try Self.run(
            """
              - rule: ws.close-has-reason
                src: dev-2
                reason: BUG-9
                expires: 2999-01-01
            """ + "\n", format: "sarif")
        defer { removeTemporaryDirectory(dir) }
        let sarif = try jsonObject(run.out)
        let results = try #require(
            ((sarif["runs"] as? [[String: Any]])?.first?["results"]) as? [[String: Any]])
        #expect(results.count == 2)
        let suppressed = results.filter { $0["suppressions"] != nil }
        #expect(suppressed.count == 1)
        let justification =
            (suppressed.first?["suppressions"] as? [[String: Any]])?.first?["justification"]
            as? String
        #expect(justification == "BUG-9 (suppression at \(dir)/config.yaml:3, until 2999-01-01)")
        // Fingerprints do not move when a suppression takes some violations aside.
        let plain = CommandLineRun([
            dir + "/up.jsonl", "--no-config", "--only", "ws.close-has-reason", "-f", "sarif"
        ])
        func fingerprints(_ text: String) throws -> Set<String> {
            let s = try jsonObject(text)
            let r = try #require(
                ((s["runs"] as? [[String: Any]])?.first?["results"]) as? [[String: Any]])
            return Set(
                r.compactMap { ($0["partialFingerprints"] as? [String: String])?.values.first })
        }
        #expect(try fingerprints(plain.out) == fingerprints(run.out))
    }

    @Test func junitAndGitHubCountSuppressedViolationsApart() throws {
        let entry = """
              - rule: ws.close-has-reason
                reason: BUG-2
                expires: 2999-01-01
            """ + "\n"
        let (junit, dir) = try Self.run(entry, format: "junit")
        defer { removeTemporaryDirectory(dir) }
        #expect(junit.code == 0)
        #expect(junit.out.contains("failures=\"0\""), "\(junit.out)")
        #expect(junit.out.contains("2 violations suppressed as known issues:"), "\(junit.out)")
        let github = CommandLineRun([
            dir + "/up.jsonl", "--config", dir + "/config.yaml", "--only", "ws.close-has-reason",
            "-f", "github"
        ])
        #expect(!github.out.contains("::error"))
        #expect(
            github.out.contains("conn-audit: 2 violations suppressed as known issues"),
            "\(github.out)")
        for run in [
            github,
            CommandLineRun([
                dir + "/up.jsonl", "--config", dir + "/config.yaml", "--only",
                "ws.close-has-reason", "-f", "concise"
            ])
        ] {
            let last = run.out.split(separator: "\n").last.map(String.init) ?? ""
            #expect(
                last
                    == "conn-audit: 0 rules failed, 1 passed, 0 inconclusive; 2 violations suppressed — verdict PASS",
                "\(run.out)")
        }
    }

    @Test func aSuppressionOfNoLoadedRuleIsAUsageError() throws {
        let (run, dir) = try Self.run(
            """
              - rule: ws.close-has-raeson
                reason: typo
                expires: 2999-01-01
            """ + "\n")
        defer { removeTemporaryDirectory(dir) }
        #expect(run.code == 2)
        #expect(
            run.err.contains(
                "the suppression at \(dir)/config.yaml:3 names no loaded rule: 'ws.close-has-raeson'"
            ), "\(run.err)")
        #expect(run.err.contains("'ws.close-has-reason'"))
    }

    @Test func aTokenInAReasonIsNeverPrinted() throws {
        let token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdef"
        let entry = """
              - rule: ws.close-has-reason
                reason: "see Authorization: Bearer abcdefgh12345678 and \(token)"
                expires: 2999-01-01
            """ + "\n"
        for format in ["text", "json", "sarif", "junit"] {
            let (run, dir) = try Self.run(entry, format: format)
            defer { removeTemporaryDirectory(dir) }
            #expect(
                !run.out.contains("abcdefgh12345678") && !run.out.contains(token),
                "\(format): \(run.out)")
            #expect(!run.err.contains("abcdefgh12345678"))
        }
        let dir = try makeTemporaryDirectory(["config.yaml": "suppressions:\n" + entry])
        defer { removeTemporaryDirectory(dir) }
        let shown = CommandLineRun(["--config", dir + "/config.yaml", "--show-config"])
        #expect(shown.code == 0)
        #expect(
            !shown.out.contains("abcdefgh12345678") && !shown.out.contains(token), "\(shown.out)")
    }

    @Test(arguments: [
        ("  - rule: ws.x\n    expires: 2999-01-01\n", "3:5: error: a suppression needs reason"),
        ("  - rule: ws.x\n    reason: r\n", "3:5: error: a suppression needs expires"),
        (
            "  - rule: ws.x\n    reason: r\n    expires: 2027-02-29\n",
            "5:14: error: expires must be a date written YYYY-MM-DD, not '2027-02-29'"
        ),
        (
            "  - rule: ws.x\n    reason: r\n    expires: 2999-01-01\n    sorce: a\n",
            "6:5: error: unknown suppression key 'sorce'"
        ),
        ("  - reason: r\n    expires: 2999-01-01\n", "3:5: error: a suppression needs rule"),
        (
            "  - rule: ws.x\n    reason: r\n    expires: 2999-01-01\n    fields: {gen: \"1\"}\n",
            "6:14: error: 'gen' is not a field"
        )
    ])
    func aBadEntryIsNamedAtItsPlace(entry: String, expected: String) throws {
        let dir = try makeTemporaryDirectory([
            "config.yaml": "use: gate\nsuppressions:\n" + entry, "up.jsonl": Self.upload()
        ])
        defer { removeTemporaryDirectory(dir) }
        let run = CommandLineRun([dir + "/up.jsonl", "--config", dir + "/config.yaml"])
        #expect(run.code == 2)
        #expect(run.err.contains(dir + "/config.yaml:" + expected), "\(run.err)")
        #expect(run.err.contains("error(s) in the config file \(dir)/config.yaml; no verdict"))
    }
    /// A rule whose violations were all suppressed but which has a case it could not decide is
    /// skipped in JUnit; the suppressed violations are still named beside the skip.
    @Test func junitNamesSuppressedViolationsOfAnInconclusiveRule() throws {
        let rule = try #require(RuleLoader.builtin().rules.first { $0.id == "ws.timeout-closes" })
        var result = RuleResult(
            rule: rule, violations: [],
            inconclusive: [Finding(file: 0, line: 3, message: "undecided")])
        result.suppressed = [Finding(file: 0, line: 9, message: "known one")]
        result.suppressedBy = [0]
        var stats = FileStats(path: "up.jsonl")
        stats.lines = 9
        stats.events = 9
        let report = AuditReport(
            files: [stats], inputs: InputStats(), inputErrors: [], results: [result], failOn: .error
        )
        let xml = JUnitReport.render(report)
        #expect(
            xml.contains(
                "<skipped message=\"inconclusive: 1 case could not be decided: undecided\">"),
            "\(xml)")
        #expect(
            xml.contains(
                "<system-out>1 violation suppressed as known issues:\nup.jsonl:9 known one</system-out>"
            ), "\(xml)")
    }
}

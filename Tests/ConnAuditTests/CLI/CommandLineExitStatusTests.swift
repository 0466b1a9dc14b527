import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// The exit status of `conn-audit`: 0 for a pass, 1 for a violation, 2 for a usage error or an
/// input that cannot be read, with the message on stderr.
@Suite struct CommandLineExitStatusTests {
    @Test func aCleanLogExitsZero() throws {
        try withScratchDirectory("cli") { dir in
            let log = try CLI.write(CLI.cleanLog, dir, "clean.jsonl")
            let run = CLI.run([log])
            #expect(run.code == 0, "\(run.out)\(run.err)")
            #expect(run.out.contains("verdict: PASS"))
            #expect(run.err.isEmpty)
            #expect(CLI.run(["check", log, "--quiet"]).code == 0)
        }
    }

    @Test func aViolationExitsOne() throws {
        try withScratchDirectory("cli") { dir in
            let log = try CLI.write(CLI.badLog, dir, "bad.jsonl")
            let run = CLI.run([log])
            #expect(run.code == 1)
            #expect(run.out.contains("FAIL ws.close-has-reason"))
            #expect(run.out.contains("\(log):3"))
            #expect(run.out.contains("FAIL log.malformed"))
            #expect(run.out.contains("verdict: FAIL"))
            let quiet = CLI.run([log, "--quiet"])
            #expect(quiet.code == 1)
            #expect(quiet.out.isEmpty)
        }
    }

    /// `--fail-on` against an error violation and a warning violation.
    @Test(
        arguments: [
            ("error", nil, Int32(1), Int32(0)),
            ("warning", "warning", 1, 1),
            ("info", "info", 1, 1),
            ("never", "never", 0, 0)
        ] as [(String, String?, Int32, Int32)])
    func failOn(_ name: String, _ option: String?, _ withError: Int32, _ withWarning: Int32) throws
    {
        try withScratchDirectory("cli") { dir in
            let rules = try CLI.write(CLI.testRules, dir, "rules.yaml")
            let errorLog = try CLI.write(
                "{\"t\":0,\"ev\":\"ws.close\",\"gen\":1}\n", dir, "error.jsonl")
            let warningLog = try CLI.write(
                "{\"t\":0,\"ev\":\"ws.ping\",\"gen\":1}\n", dir, "warning.jsonl")
            let extra = option.map { ["--fail-on", $0] } ?? []
            #expect(CLI.run([errorLog, "--rules", rules] + extra).code == withError)
            #expect(CLI.run([warningLog, "--rules", rules] + extra).code == withWarning)
        }
    }

    @Test(
        arguments: [
            (["--bogus"], "unknown option '--bogus'"),
            (["--rules"], "option '--rules' needs a value"),
            ([], "no PATH given"),
            (["check"], "no PATH given"),
            (
                ["LOG", "--format", "xml"],
                "--format must be one of text, json, junit, sarif, github, gitlab, concise, partial, not 'xml'"
            ),
            (["LOG", "--format=yaml"], "--format must be one of text, json, junit, sarif, github"),
            (["LOG", "--report", "junit"], "--report takes FORMAT=FILE"),
            (["LOG", "--report", "xml=out.xml"], "--report xml: the format must be one of"),
            (["LOG", "--jobs", "0"], "--jobs takes a whole number from 1 to 256"),
            (["LOG", "--jobs", "many"], "--jobs takes a whole number"),
            (["LOG", "--fail-on", "fatal"], "--fail-on must be error, warning, info or never"),
            (["LOG", "--color", "sometimes"], "--color must be auto, always or never"),
            (
                ["LOG", "--format", "json", "--format", "text"],
                "option '--format' given more than once"
            ),
            (["LOG", "--quiet=yes"], "option '--quiet' takes no value"),
            (["LOG", "--only", "zzz.*"], "no rule matches 'zzz.*'"),
            (["LOG", "--skip", "nothing"], "no rule matches 'nothing'"),
            (["LOG", "--skip", "*"], "no rule selected: --only/--skip leave none of the"),
            (["LOG", "--only", "u.*", "--skip", "u.limit"], "no rule selected"),
            (["LOG", "--output", "LOG"], "is one of the input logs: the report would overwrite it"),
            (["LOG", "--format", "json", "--report", "junit=LOG"], "is one of the input logs"),
            (
                [
                    "LOG", "--output", "/tmp/conn-audit-dup.out", "--report",
                    "sarif=/tmp/./conn-audit-dup.out"
                ],
                "--report sarif=/tmp/./conn-audit-dup.out and --output /tmp/conn-audit-dup.out name the same file"
            ),
            (["timeline", "LOG", "--output", "LOG"], "is one of the input logs"),
            (
                ["LOG", "--param", "nope=1"],
                "--param nope: no selected rule has a param of that name"
            ),
            (["LOG", "--param", "limit_ms"], "--param takes NAME=VALUE, not 'limit_ms'"),
            (
                ["LOG", "--param", "t.reason.limit_ms=5"],
                "--param t.reason.limit_ms: no selected rule"
            ),
            (
                ["LOG", "--param", "limit_ms=5", "--skip", "u.limit"],
                "--param limit_ms: no selected rule"
            ),
            (["-", "-"], "'-' (standard input) given more than once"),
            (["rules", "--list", "--check"], "choose one of --check, --list, --explain, --test"),
            (["rules", "extra"], "unexpected argument 'extra'"),
            (["rules", "--explain", "no.such-rule"], "no rule 'no.such-rule'"),
            (["timeline"], "no PATH given"),
            (["timeline", "LOG", "--gen", "x"], "--gen takes a whole number"),
            (["timeline", "LOG", "--around", "nocolon"], "--around expects FILE:LINE"),
            (
                ["timeline", "LOG", "--format", "sarif"],
                "timeline --format must be text, json or html"
            ),
            (["timeline", "LOG", "--src", "nobody"], "nobody")
        ] as [([String], String)])
    func usageErrorsExitTwo(_ arguments: [String], _ message: String) throws {
        try withScratchDirectory("cli") { dir in
            let log = try CLI.write(CLI.cleanLog, dir, "a.jsonl")
            let rules = try CLI.write(CLI.testRules, dir, "rules.yaml")
            var args = arguments.map {
                $0 == "LOG" ? log : $0.replacingOccurrences(of: "=LOG", with: "=" + log)
            }
            // The param tests need a rule with a param; the others do not mind the test rules.
            let needsRules = !["rules", "timeline", "check"].contains(args.first ?? "check")
            if needsRules, !args.contains("--rules") {
                args += ["--rules", rules]
            }
            let run = CLI.run(args)
            #expect(run.code == 2, "\(args): \(run.out)")
            #expect(run.err.contains(message), "stderr was: \(run.err)")
            #expect(run.err.hasPrefix("conn-audit: error: "))
            #expect(run.out.isEmpty)
        }
    }

    @Test func severalReportsMayGoToOneDevice() throws {
        try withScratchDirectory("cli") { dir in
            let log = try CLI.write(CLI.cleanLog, dir, "a.jsonl")
            let run = CLI.run([
                log, "--output", "/dev/null", "--report", "sarif=/dev/null", "--report",
                "junit=/dev/null"
            ])
            #expect(run.code == 0, "\(run.err)")
        }
    }

    @Test func badRulesExitTwoWithFileLineColumn() throws {
        try withScratchDirectory("cli") { dir in
            let log = try CLI.write(CLI.cleanLog, dir, "a.jsonl")
            let rules = try CLI.write(
                """
                rules:
                  - id: t.a
                    title: A
                    severity: fatal
                    never: { ev: ws.ping }
                """, dir, "bad-rules.yaml")
            let run = CLI.run([log, "--rules", rules])
            #expect(run.code == 2)
            #expect(
                run.err.contains("\(rules):4:15: error: severity must be error, warning or info"))
            #expect(
                run.err.contains("    severity: fatal\n" + String(repeating: " ", count: 14) + "^"))
            #expect(run.err.contains("1 error(s) in the rules; no verdict"))
            #expect(run.out.isEmpty)

            let check = CLI.run(["rules", "--rules", rules, "--check"])
            #expect(check.code == 2)
            #expect(check.err.contains("\(rules):4:15: error:"))
        }
    }

    /// A pack of one's own still judges bad lines: the built-in `log.*` rules run beside it unless
    /// it defines them or `--skip` leaves them out.
    @Test func aCustomPackStillReportsMalformedLines() throws {
        // The reader's rules are the built-in pack's file of `log.*` rules, all of them.
        let reader = RuleLoader.builtin(only: RuleLoader.readerRulesFile).rules.map(\.id)
        #expect(reader == ["log.malformed", "log.time-monotonic", "log.no-secrets"])
        #expect(RuleLoader.builtin().rules.filter { $0.id.hasPrefix("log.") }.map(\.id) == reader)
        try withScratchDirectory("cli") { dir in
            let rules = try CLI.write(CLI.testRules, dir, "rules.yaml")
            let log = try CLI.write("{\"t\":0,\"ev\":\"app.ok\"}\nnot json\n", dir, "a.jsonl")
            let run = CLI.run([log, "--rules", rules, "--format", "json"])
            #expect(run.code == 1)
            let report = try jsonObject(run.out)
            let malformed = try #require(
                try CLI.entry(report, "log.malformed")["violations"] as? [[String: Any]])
            #expect(malformed.map { $0["line"] as? Int } == [2])
            #expect(try CLI.ruleIDs(report).contains("log.no-secrets"))
            #expect(try CLI.ruleIDs(report).contains("log.time-monotonic"))

            let skipped = CLI.run([log, "--rules", rules, "--skip", "log.*", "--format", "json"])
            #expect(skipped.code == 0)
            #expect(try !CLI.ruleIDs(jsonObject(skipped.out)).contains("log.malformed"))

            // A rule of the pack's own with the same id replaces the built-in one (no duplicate).
            let own = try CLI.write(
                CLI.testRules + """

                      - id: log.malformed
                        title: Our own
                        severity: warning
                        for: corpus
                        never: { ev: $malformed }
                    """, dir, "own.yaml")
            let replaced = CLI.run([log, "--rules", own, "--format", "json"])
            #expect(replaced.code == 0, "stderr: \(replaced.err)")
            #expect(
                try CLI.entry(jsonObject(replaced.out), "log.malformed")["severity"] as? String
                    == "warning")
        }
    }

    /// Violations found in what could be read make the verdict `fail`, even when another input
    /// could not be read (the exit status is still 2).
    @Test func violationsBesideAnUnreadableInputAreAFail() throws {
        try withScratchDirectory("cli") { dir in
            let rules = try CLI.write(CLI.testRules, dir, "rules.yaml")
            let bad = try CLI.write("{\"t\":0,\"ev\":\"ws.close\",\"gen\":1}\n", dir, "bad.jsonl")
            let good = try CLI.write(
                "{\"t\":0,\"ev\":\"ws.close\",\"gen\":1,\"reason\":\"x\"}\n", dir, "good.jsonl")
            let missing = dir + "/missing.jsonl"
            let failing = CLI.run([bad, missing, "--rules", rules, "--format", "json"])
            #expect(failing.code == 2)
            let report = try jsonObject(failing.out)
            #expect(report["verdict"] as? String == "fail")
            #expect(report["complete"] as? Bool == false)
            let text = CLI.run([bad, missing, "--rules", rules])
            #expect(text.out.contains("verdict: FAIL"))
            #expect(text.out.contains("; 1 input could not be read\n"), "\(text.out)")

            let clean = CLI.run([good, missing, "--rules", rules, "--format", "json"])
            #expect(clean.code == 2)
            #expect(try jsonObject(clean.out)["verdict"] as? String == "incomplete")
        }
    }

    @Test func aMissingRulesDirectoryExitsTwo() throws {
        try withScratchDirectory("cli") { dir in
            let log = try CLI.write(CLI.cleanLog, dir, "a.jsonl")
            let run = CLI.run([log, "--rules", dir + "/no-rules-here"])
            #expect(run.code == 2)
            #expect(run.err.contains(dir + "/no-rules-here:1:1: error: cannot read rules"))
        }
    }

    @Test func aMissingInputIsNamedAndTheOthersAreStillChecked() throws {
        try withScratchDirectory("cli") { dir in
            let rules = try CLI.write(CLI.testRules, dir, "rules.yaml")
            let good = try CLI.write("{\"t\":0,\"ev\":\"ws.close\",\"gen\":1}\n", dir, "good.jsonl")
            let missing = dir + "/missing.jsonl"

            let asJSON = CLI.run([good, missing, "--rules", rules, "--format", "json"])
            #expect(asJSON.code == 2)
            #expect(asJSON.err.contains(missing), "stderr was: \(asJSON.err)")
            let report = try jsonObject(asJSON.out)
            let violations = try #require(
                try CLI.entry(report, "t.reason")["violations"] as? [[String: Any]])
            #expect(violations.map { $0["file"] as? String } == [good])
            let errors = try #require(report["input_errors"] as? [[String: Any]])
            #expect(errors.map { $0["path"] as? String } == [missing])

            let asText = CLI.run([good, missing, "--rules", rules])
            #expect(asText.code == 2)
            #expect(asText.out.contains("\(good):1"))
            #expect(asText.out.contains(missing))
            #expect(asText.err.contains(missing))

        }
    }

    /// An unreadable input is named once; no second "no log files found" for the same path (an
    /// empty directory beside it still is).
    @Test func timelineOfAMissingFileNamesItOnce() throws {
        let run = CLI.run(["timeline", "/nonexistent/conn-audit-test.jsonl"])
        #expect(run.code == 2)
        #expect(
            run.err
                == "conn-audit: error: could not read /nonexistent/conn-audit-test.jsonl: no such file or directory\n"
        )
        try withScratchDirectory("cli") { dir in
            let both = CLI.run(["timeline", dir, "/nonexistent/conn-audit-test.jsonl"])
            #expect(both.code == 2)
            #expect(both.err.contains("could not read /nonexistent/conn-audit-test.jsonl"))
            #expect(both.err.contains("no log files found under \(dir)"), "\(both.err)")
        }
    }
}

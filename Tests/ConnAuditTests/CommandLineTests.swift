import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

// MARK: - Helpers

private typealias Run = CommandLineRun

private func cli(_ arguments: [String]) -> Run { CommandLineRun(arguments) }

/// Runs `body` with a fresh directory under the temporary directory, removed afterwards.
private func withTemporaryDirectory(_ body: (String) throws -> Void) throws {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("conn-audit-cli-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    try body(url.path)
}

/// Writes `text` to `dir/name` and returns the path.
@discardableResult
private func write(_ text: String, _ dir: String, _ name: String) throws -> String {
    let path = dir + "/" + name
    try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
}

private func ruleEntries(_ report: [String: Any]) throws -> [[String: Any]] {
    try #require(report["rules"] as? [[String: Any]])
}

private func ruleIDs(_ report: [String: Any]) throws -> [String] {
    try ruleEntries(report).compactMap { $0["id"] as? String }
}

private func entry(_ report: [String: Any], _ id: String) throws -> [String: Any] {
    try #require(
        try ruleEntries(report).first { $0["id"] as? String == id }, "no rule \(id) in the report")
}

/// A log the whole built-in pack passes: no connection at all (`ws.required-outcomes` is then not
/// applicable), nothing malformed.
private let cleanLog = """
    {"t":0,"src":"dev1","ev":"app.launch"}
    {"t":5,"src":"dev1","ev":"app.ready"}

    """

/// A close without a reason (`ws.close-has-reason`), after a malformed line (`log.malformed`).
private let badLog = """
    {"t":0,"src":"dev1","ev":"app.launch"}
    not json
    {"t":7,"src":"dev1","ev":"ws.close","gen":3}

    """

/// Three small rules: an error, a warning, and one with a param.
private let testRules = """
    rules:
      - id: t.reason
        title: Every close has a reason
        every: { ev: ws.close }
        expect: "reason != null"
      - id: t.warn
        title: No pings
        severity: warning
        never: { ev: ws.ping }
      - id: u.limit
        title: Pongs are fast
        params: { limit_ms: 100 }
        every: { ev: ws.pong }
        expect: "delay_ms <= params.limit_ms"
    """

// MARK: - Tests

@Suite struct CommandLineTests {
    // MARK: Exit status

    @Test func aCleanLogExitsZero() throws {
        try withTemporaryDirectory { dir in
            let log = try write(cleanLog, dir, "clean.jsonl")
            let run = cli([log])
            #expect(run.code == 0, "\(run.out)\(run.err)")
            #expect(run.out.contains("verdict: PASS"))
            #expect(run.err.isEmpty)
            #expect(cli(["check", log, "--quiet"]).code == 0)
        }
    }

    @Test func aViolationExitsOne() throws {
        try withTemporaryDirectory { dir in
            let log = try write(badLog, dir, "bad.jsonl")
            let run = cli([log])
            #expect(run.code == 1)
            #expect(run.out.contains("FAIL ws.close-has-reason"))
            #expect(run.out.contains("\(log):3"))
            #expect(run.out.contains("FAIL log.malformed"))
            #expect(run.out.contains("verdict: FAIL"))
            let quiet = cli([log, "--quiet"])
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
        try withTemporaryDirectory { dir in
            let rules = try write(testRules, dir, "rules.yaml")
            let errorLog = try write(
                "{\"t\":0,\"ev\":\"ws.close\",\"gen\":1}\n", dir, "error.jsonl")
            let warningLog = try write(
                "{\"t\":0,\"ev\":\"ws.ping\",\"gen\":1}\n", dir, "warning.jsonl")
            let extra = option.map { ["--fail-on", $0] } ?? []
            #expect(cli([errorLog, "--rules", rules] + extra).code == withError)
            #expect(cli([warningLog, "--rules", rules] + extra).code == withWarning)
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
                "--format must be one of text, json, junit, sarif, github, gitlab, concise, not 'xml'"
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
        try withTemporaryDirectory { dir in
            let log = try write(cleanLog, dir, "a.jsonl")
            let rules = try write(testRules, dir, "rules.yaml")
            var args = arguments.map {
                $0 == "LOG" ? log : $0.replacingOccurrences(of: "=LOG", with: "=" + log)
            }
            // The param tests need a rule with a param; the others do not mind the test rules.
            let needsRules = !["rules", "timeline", "check"].contains(args.first ?? "check")
            if needsRules, !args.contains("--rules") {
                args += ["--rules", rules]
            }
            let run = cli(args)
            #expect(run.code == 2, "\(args): \(run.out)")
            #expect(run.err.contains(message), "stderr was: \(run.err)")
            #expect(run.err.hasPrefix("conn-audit: error: "))
            #expect(run.out.isEmpty)
        }
    }

    @Test func severalReportsMayGoToOneDevice() throws {
        try withTemporaryDirectory { dir in
            let log = try write(cleanLog, dir, "a.jsonl")
            let run = cli([
                log, "--output", "/dev/null", "--report", "sarif=/dev/null", "--report",
                "junit=/dev/null"
            ])
            #expect(run.code == 0, "\(run.err)")
        }
    }

    /// ws.timeout-closes' message says when a ping was sent after its generation had ended (the
    /// close it owes cannot come: the ping should not have been sent), and not otherwise.
    @Test func aTimeoutMessageSaysThePingCameAfterTheEnd() throws {
        try withTemporaryDirectory { dir in
            let log = try write(
                """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":100,"ev":"ws.ping","gen":1}
                {"t":1100,"ev":"ws.close","gen":1,"reason":"pong_timeout"}
                {"t":1120,"ev":"ws.closed","gen":1}
                {"t":1200,"ev":"ws.ping","gen":1}
                {"t":1300,"ev":"ws.connect","gen":2}
                {"t":1400,"ev":"ws.ping","gen":2}
                {"t":4000,"ev":"app.scene","phase":"active"}

                """, dir, "after.jsonl")
            let run = cli([log, "--only", "ws.timeout-closes", "--format", "json"])
            #expect(run.code == 1, "\(run.err)")
            let violations = try JSONTree(run.out)["rules"][0]["violations"].array
            #expect(violations.map { $0["line"].int } == [5, 7])
            #expect(
                violations.first?["message"].string?.hasSuffix(
                    "(the ping was sent after the generation ended, with ws.close at t=1100)")
                    == true)
            #expect(
                violations.last?["message"].string?.hasSuffix(
                    "no pong_timeout close came by t=2650") == true)
        }
    }

    /// The external check's case: a corrupt `.gz`, a missing file, then a log the coverage rule
    /// fails on. Its results go to the log that was read, not to line 1 of the binary file.
    @Test func sarifPlacesCorpusResultsOnTheInputThatWasRead() throws {
        try withTemporaryDirectory { dir in
            let corrupt = dir + "/corrupt.jsonl.gz"
            try Data([0x1f, 0x8b, 0x08, 0x00] + Array("garbage".utf8)).write(
                to: URL(fileURLWithPath: corrupt))
            let log = try write(
                "{\"t\":1,\"src\":\"d\",\"ev\":\"ws.connect\",\"gen\":1}\n", dir, "read.jsonl")
            let run = cli([corrupt, dir + "/missing.jsonl", log, "--format", "sarif"])
            #expect(run.code == 2, "\(run.err)")
            let results = try JSONTree(run.out)["runs"][0]["results"].array
            let corpus = results.filter { $0["properties"]["corpusWide"].bool == true }
            #expect(!corpus.isEmpty)
            for r in corpus {
                let uri =
                    r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].string ?? ""
                #expect(uri.hasSuffix("/read.jsonl"), "\(uri)")
            }
        }
    }

    /// A relative PATH that climbs out of the working directory (`../../tmp/…`) is no relative
    /// URI (code scanning would read it against the repository's root): SARIF names the file by
    /// its absolute path. The other reports keep the path as given.
    @Test func sarifNamesAPathOutOfTheWorkingDirectoryAbsolutely() throws {
        try withTemporaryDirectory { dir in
            let log = try write(badLog, dir, "x.jsonl")
            let cwd = FileManager.default.currentDirectoryPath
            try #require(
                cwd.hasPrefix("/") && !log.hasPrefix(cwd + "/"),
                "the test needs \(log) outside \(cwd)")
            let up = String(repeating: "../", count: cwd.split(separator: "/").count)
            // `../../tmp/conn-audit-cli-…/./../conn-audit-cli-…/x.jsonl`
            let name = (dir as NSString).lastPathComponent
            let relative = up + String(dir.dropFirst()) + "/./../" + name + "/x.jsonl"
            let run = cli([relative, "--format", "sarif"])
            #expect(run.code == 1, "\(run.err)")
            let results = try JSONTree(run.out)["runs"][0]["results"].array
            #expect(!results.isEmpty)
            let uris = Set(
                results.map {
                    $0["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].string
                })
            #expect(uris == ["file://" + log], "\(uris)")
            let json = try JSONTree(cli([relative, "--format", "json"]).out)
            #expect(json["files"][0]["path"].string == relative)
        }
    }

    @Test func badRulesExitTwoWithFileLineColumn() throws {
        try withTemporaryDirectory { dir in
            let log = try write(cleanLog, dir, "a.jsonl")
            let rules = try write(
                """
                rules:
                  - id: t.a
                    title: A
                    severity: fatal
                    never: { ev: ws.ping }
                """, dir, "bad-rules.yaml")
            let run = cli([log, "--rules", rules])
            #expect(run.code == 2)
            #expect(
                run.err.contains("\(rules):4:15: error: severity must be error, warning or info"))
            #expect(
                run.err.contains("    severity: fatal\n" + String(repeating: " ", count: 14) + "^"))
            #expect(run.err.contains("1 error(s) in the rules; no verdict"))
            #expect(run.out.isEmpty)

            let check = cli(["rules", "--rules", rules, "--check"])
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
        try withTemporaryDirectory { dir in
            let rules = try write(testRules, dir, "rules.yaml")
            let log = try write("{\"t\":0,\"ev\":\"app.ok\"}\nnot json\n", dir, "a.jsonl")
            let run = cli([log, "--rules", rules, "--format", "json"])
            #expect(run.code == 1)
            let report = try jsonObject(run.out)
            let malformed = try #require(
                try entry(report, "log.malformed")["violations"] as? [[String: Any]])
            #expect(malformed.map { $0["line"] as? Int } == [2])
            #expect(try ruleIDs(report).contains("log.no-secrets"))
            #expect(try ruleIDs(report).contains("log.time-monotonic"))

            let skipped = cli([log, "--rules", rules, "--skip", "log.*", "--format", "json"])
            #expect(skipped.code == 0)
            #expect(try !ruleIDs(jsonObject(skipped.out)).contains("log.malformed"))

            // A rule of the pack's own with the same id replaces the built-in one (no duplicate).
            let own = try write(
                testRules + """

                      - id: log.malformed
                        title: Our own
                        severity: warning
                        for: corpus
                        never: { ev: $malformed }
                    """, dir, "own.yaml")
            let replaced = cli([log, "--rules", own, "--format", "json"])
            #expect(replaced.code == 0, "stderr: \(replaced.err)")
            #expect(
                try entry(jsonObject(replaced.out), "log.malformed")["severity"] as? String
                    == "warning")
        }
    }

    /// Violations found in what could be read make the verdict `fail`, even when another input
    /// could not be read (the exit status is still 2).
    @Test func violationsBesideAnUnreadableInputAreAFail() throws {
        try withTemporaryDirectory { dir in
            let rules = try write(testRules, dir, "rules.yaml")
            let bad = try write("{\"t\":0,\"ev\":\"ws.close\",\"gen\":1}\n", dir, "bad.jsonl")
            let good = try write(
                "{\"t\":0,\"ev\":\"ws.close\",\"gen\":1,\"reason\":\"x\"}\n", dir, "good.jsonl")
            let missing = dir + "/missing.jsonl"
            let failing = cli([bad, missing, "--rules", rules, "--format", "json"])
            #expect(failing.code == 2)
            let report = try jsonObject(failing.out)
            #expect(report["verdict"] as? String == "fail")
            #expect(report["complete"] as? Bool == false)
            let text = cli([bad, missing, "--rules", rules])
            #expect(text.out.contains("verdict: FAIL"))
            #expect(text.out.contains("; 1 input could not be read\n"), "\(text.out)")

            let clean = cli([good, missing, "--rules", rules, "--format", "json"])
            #expect(clean.code == 2)
            #expect(try jsonObject(clean.out)["verdict"] as? String == "incomplete")
        }
    }

    @Test func aMissingRulesDirectoryExitsTwo() throws {
        try withTemporaryDirectory { dir in
            let log = try write(cleanLog, dir, "a.jsonl")
            let run = cli([log, "--rules", dir + "/no-rules-here"])
            #expect(run.code == 2)
            #expect(run.err.contains(dir + "/no-rules-here:1:1: error: cannot read rules"))
        }
    }

    @Test func aMissingInputIsNamedAndTheOthersAreStillChecked() throws {
        try withTemporaryDirectory { dir in
            let rules = try write(testRules, dir, "rules.yaml")
            let good = try write("{\"t\":0,\"ev\":\"ws.close\",\"gen\":1}\n", dir, "good.jsonl")
            let missing = dir + "/missing.jsonl"

            let asJSON = cli([good, missing, "--rules", rules, "--format", "json"])
            #expect(asJSON.code == 2)
            #expect(asJSON.err.contains(missing), "stderr was: \(asJSON.err)")
            let report = try jsonObject(asJSON.out)
            let violations = try #require(
                try entry(report, "t.reason")["violations"] as? [[String: Any]])
            #expect(violations.map { $0["file"] as? String } == [good])
            let errors = try #require(report["input_errors"] as? [[String: Any]])
            #expect(errors.map { $0["path"] as? String } == [missing])

            let asText = cli([good, missing, "--rules", rules])
            #expect(asText.code == 2)
            #expect(asText.out.contains("\(good):1"))
            #expect(asText.out.contains(missing))
            #expect(asText.err.contains(missing))

        }
    }

    // MARK: JSON report

    @Test func jsonReportHasTheDocumentedShape() throws {
        try withTemporaryDirectory { dir in
            let log = try write(badLog, dir, "bad.jsonl")
            let run = cli([log, "--format", "json"])
            #expect(run.code == 1)
            let report = try jsonObject(run.out)
            #expect(report["schema"] as? String == "conn-audit/report")
            #expect(report["version"] as? Int == 1)
            #expect(report["verdict"] as? String == "fail")

            let inputs = try #require(report["inputs"] as? [String: Any])
            #expect(inputs["files"] as? Int == 1)
            #expect(inputs["lines"] as? Int == 3)
            #expect(inputs["events"] as? Int == 2)
            #expect(inputs["malformed"] as? Int == 1)
            #expect(inputs["sources"] as? Int == 1)
            #expect(inputs["generations"] as? Int == 1)

            let rules = try ruleEntries(report)
            #expect(try ruleIDs(report) == RuleLoader.builtin().rules.map(\.id))
            for rule in rules {
                #expect(rule["id"] is String)
                #expect(["error", "warning", "info"].contains(rule["severity"] as? String ?? ""))
                #expect(
                    ["pass", "fail", "inconclusive", "not_applicable"].contains(
                        rule["status"] as? String ?? ""))
                #expect(rule["violations"] is [Any])
                #expect(rule["inconclusive"] is [Any])
            }

            let reason = try entry(report, "ws.close-has-reason")
            #expect(reason["severity"] as? String == "error")
            #expect(reason["status"] as? String == "fail")
            let violations = try #require(reason["violations"] as? [[String: Any]])
            #expect(violations.count == 1)
            let v = try #require(violations.first)
            #expect(v["file"] as? String == log)
            #expect(v["line"] as? Int == 3)
            #expect(v["t"] as? Int == 7)
            #expect(v["src"] as? String == "dev1")
            #expect(v["gen"] as? Int == 3)
            #expect(v["message"] as? String == "ws.close of generation 3 has no reason")

            let malformed = try entry(report, "log.malformed")
            #expect(malformed["status"] as? String == "fail")
            let bad = try #require((malformed["violations"] as? [[String: Any]])?.first)
            #expect(bad["line"] as? Int == 2)
            #expect(bad["file"] as? String == log)

            #expect(try entry(report, "ws.single-close")["status"] as? String == "pass")

            #expect(report.keys.contains("outcomes"))
            let outcomes = try #require(report["outcomes"] as? [String: Any])
            #expect(
                Set(outcomes.keys) == ["normal", "delayed", "immediate_close", "connect_failure"])
            #expect(outcomes.values.allSatisfy { $0 is Int })
        }
    }

    /// docs/json-report.md: a finding that points at no line — a coverage violation, or a corpus
    /// `count` + `min` with nothing to count — has `null` `file` and `line` (and `t`, `src`,
    /// `session`, `gen`), and no context.
    @Test func jsonFindingsThatPointAtNoLineHaveNullFileAndLine() throws {
        try withTemporaryDirectory { dir in
            let log = try write(
                "{\"t\":1,\"src\":\"d\",\"ev\":\"ws.connect\",\"gen\":1}\n", dir, "a.jsonl")
            let rules = try write(
                """
                rules:
                  - id: t.some-ping
                    title: A ping somewhere
                    for: corpus
                    count: { ev: ws.ping }
                    min: 1
                """, dir, "corpus.yaml")
            let coverage = try entry(
                try jsonObject(cli([log, "--format", "json"]).out), "ws.required-outcomes")
            let counted = try entry(
                try jsonObject(cli([log, "--rules", rules, "--format", "json"]).out), "t.some-ping")
            for rule in [coverage, counted] {
                let found = try #require(rule["violations"] as? [[String: Any]])
                #expect(!found.isEmpty, "\(rule["id"] ?? "?")")
                for f in found {
                    for key in ["file", "line", "t", "src", "session", "gen"] {
                        #expect(
                            f.keys.contains(key) && f[key] is NSNull,
                            "\(rule["id"] ?? "?") \(key): \(f[key] ?? "missing")")
                    }
                    #expect((f["context"] as? [Any])?.isEmpty == true)
                }
            }
        }
    }

    @Test func jsonReportOfACleanLogPasses() throws {
        try withTemporaryDirectory { dir in
            let log = try write(cleanLog, dir, "clean.jsonl")
            let run = cli([log, "--format=json"])
            #expect(run.code == 0)
            let report = try jsonObject(run.out)
            #expect(report["verdict"] as? String == "pass")
            for rule in try ruleEntries(report) {
                #expect((rule["violations"] as? [Any])?.isEmpty == true, "\(rule["id"] ?? "?")")
            }
        }
    }

    @Test func fileIsThePathAsFoundUnderTheGivenDirectory() throws {
        try withTemporaryDirectory { dir in
            let rules = try write(testRules, dir, "rules/r.yaml")
            try write("{\"t\":0,\"ev\":\"ws.close\",\"gen\":1}\n", dir, "logs/sub/a.jsonl")
            try write("{\"t\":0,\"ev\":\"ws.close\",\"gen\":1}\n", dir, "logs/.hidden/b.jsonl")
            try write("not a log\n", dir, "logs/notes.txt")
            let run = cli([dir + "/logs/", "--rules", rules, "--format", "json"])
            #expect(run.code == 1)
            let report = try jsonObject(run.out)
            let violations = try #require(
                try entry(report, "t.reason")["violations"] as? [[String: Any]])
            #expect(violations.map { $0["file"] as? String } == [dir + "/logs/sub/a.jsonl"])
            #expect((report["inputs"] as? [String: Any])?["files"] as? Int == 1)
        }
    }

    @Test func outputWritesTheReportToAFile() throws {
        try withTemporaryDirectory { dir in
            let log = try write(badLog, dir, "bad.jsonl")
            let out = dir + "/report.json"
            let run = cli([log, "--format", "json", "--output", out])
            #expect(run.code == 1)
            #expect(run.out.isEmpty)
            let written = try String(contentsOfFile: out, encoding: .utf8)
            #expect(try jsonObject(written)["verdict"] as? String == "fail")

            let textOut = dir + "/report.txt"
            let text = cli([log, "--output=\(textOut)", "--quiet"])
            #expect(text.code == 1)
            #expect(text.out.isEmpty)
            let report = try String(contentsOfFile: textOut, encoding: .utf8)
            #expect(report.contains("verdict: FAIL"))
            #expect(!report.contains("\u{1B}["), "no colour in a file")

            let unwritable = cli([log, "--output", dir + "/no/such/dir/r.json"])
            #expect(unwritable.code == 2)
            #expect(unwritable.err.contains("cannot write"))

            // Found before the run: nothing is printed or written that would say `pass` or `fail`.
            let first = dir + "/first.json"
            let extra = cli([
                log, "--format", "json", "--output", first, "--report",
                "junit=\(dir)/no/such/dir/x.xml"
            ])
            #expect(extra.code == 2)
            #expect(extra.out.isEmpty)
            #expect(
                extra.err.contains(
                    "cannot write \(dir)/no/such/dir/x.xml: no such file or directory"),
                "\(extra.err)")
            #expect(!FileManager.default.fileExists(atPath: first))
            let toDirectory = cli([log, "--output", dir])
            #expect(toDirectory.code == 2)
            #expect(
                toDirectory.err.contains("cannot write \(dir): is a directory"),
                "\(toDirectory.err)")
            let baseline = cli([log, "--write-exact-baseline", dir + "/missing/b.json"])
            #expect(baseline.code == 2)
            #expect(baseline.err.contains("cannot write \(dir)/missing/b.json"), "\(baseline.err)")
        }
    }

    /// A JSON, SARIF or JUnit report of many findings goes out in chunks as it is written (to a
    /// file, to standard output, beside another format): what arrives is the report made whole, for
    /// the same run, in every one of those places.
    @Test func aLargeReportStreamsOutWhole() throws {
        try withTemporaryDirectory { dir in
            // Every ping breaks three heartbeat rules: some 9,000 findings, 1.5 MB of JUnit.
            var lines = [#"{"t":0,"ev":"ws.connect","gen":1}"#]
            for i in 1...3_000 {
                lines.append(#"{"t":\#(i * 10),"ev":"ws.ping","gen":1,"note":"café \#(i)"}"#)
            }
            let log = try write(lines.joined(separator: "\n") + "\n", dir, "pings.jsonl")
            for format in ["json", "sarif", "junit"] {
                let toStdout = cli([log, "--format", format, "--jobs", "1"])
                #expect(toStdout.code == 1)
                #expect(toStdout.out.utf8.count > JSONWriter.flushSize + JSONWriter.flushSize / 4)
                let file = dir + "/report." + format
                let other = dir + "/also." + format
                let toFile = cli([
                    log, "--format", format, "--output", file, "--report", "\(format)=\(other)",
                    "--jobs", "2"
                ])
                #expect(toFile.code == 1)
                #expect(try String(contentsOfFile: file, encoding: .utf8) == toStdout.out)
                #expect(try String(contentsOfFile: other, encoding: .utf8) == toStdout.out)
                if format == "junit" {
                    #expect(toStdout.out.hasSuffix("</testsuites>\n"))
                    // One line per finding of the rule, between the failure's tags.
                    let testcase = try #require(
                        toStdout.out.components(separatedBy: "ws.ping-after-interval").dropFirst()
                            .first)
                    let failure = try #require(testcase.components(separatedBy: "</failure>").first)
                    #expect(failure.components(separatedBy: "pings.jsonl:").count - 1 == 3_000)
                    #expect(
                        failure.contains(
                            "pings.jsonl:3001 t=30000 gen=1 ws.ping at t=30000 comes too early"))
                    continue
                }
                #expect(toStdout.out.hasSuffix("}\n"))
                let report = try jsonObject(toStdout.out)
                if format == "json" {
                    let v = try #require(
                        try entry(report, "ws.ping-after-interval")["violations"]
                            as? [[String: Any]])
                    #expect(v.count == 3_000)
                    #expect(v.last?["line"] as? Int == 3_001)
                } else {
                    let runs = try #require(report["runs"] as? [[String: Any]])
                    let results = try #require(runs.first?["results"] as? [[String: Any]])
                    #expect(results.count > 8_000)
                }
            }
        }
    }

    // MARK: Selecting rules and params

    @Test(
        arguments: [
            (["--only", "t.*"], ["t.reason", "t.warn"]),
            // The built-in reader rules run beside a pack that does not define them.
            (
                ["--skip", "t.*"],
                ["u.limit", "log.malformed", "log.time-monotonic", "log.no-secrets"]
            ),
            (["--skip", "t.*", "--skip", "log.*"], ["u.limit"]),
            (["--only", "t.*", "--skip", "t.warn"], ["t.reason"]),
            (["--only", "u.limit"], ["u.limit"]),
            (["--only", "*.limit", "--only", "t.reason"], ["t.reason", "u.limit"]),
            (["--only=t.?ea*"], ["t.reason"]),
            (
                [],
                [
                    "t.reason", "t.warn", "u.limit", "log.malformed", "log.time-monotonic",
                    "log.no-secrets"
                ]
            )
        ] as [([String], [String])])
    func onlyAndSkipSelectRules(_ options: [String], _ expected: [String]) throws {
        try withTemporaryDirectory { dir in
            let rules = try write(testRules, dir, "rules.yaml")
            let log = try write(cleanLog, dir, "a.jsonl")
            let run = cli([log, "--rules", rules, "--format", "json"] + options)
            #expect(run.code == 0, "\(run.err)")
            #expect(try ruleIDs(try jsonObject(run.out)) == expected)
        }
    }

    @Test func onlySelectsBuiltinRulesByGlob() throws {
        try withTemporaryDirectory { dir in
            let log = try write(cleanLog, dir, "a.jsonl")
            let run = cli([log, "--only", "log.*", "--format", "json"])
            #expect(run.code == 0)
            let ids = try ruleIDs(try jsonObject(run.out))
            #expect(!ids.isEmpty)
            #expect(ids.allSatisfy { $0.hasPrefix("log.") })
            #expect(ids == RuleLoader.builtin().rules.map(\.id).filter { $0.hasPrefix("log.") })
        }
    }

    @Test(
        arguments: [
            ([], 1),
            (["--param", "limit_ms=200"], 0),
            (["--param", "u.limit.limit_ms=200"], 0),
            (["--param", "u.limit.limit_ms=149.5"], 1),
            (["--param", "limit_ms=150"], 0)
        ] as [([String], Int32)])
    func paramOverridesAreApplied(_ options: [String], _ code: Int32) throws {
        try withTemporaryDirectory { dir in
            let rules = try write(testRules, dir, "rules.yaml")
            let log = try write(
                "{\"t\":0,\"ev\":\"ws.pong\",\"gen\":1,\"delay_ms\":150}\n", dir, "a.jsonl")
            let run = cli([log, "--rules", rules] + options)
            #expect(run.code == code, "\(run.out)\(run.err)")
        }
    }

    @Test func theJobsOptionDoesNotChangeTheReport() throws {
        try withTemporaryDirectory { dir in
            let rules = try write(testRules, dir, "rules.yaml")
            var paths: [String] = []
            for i in 0..<4 {
                paths.append(
                    try write(
                        """
                        {"t":0,"src":"d\(i)","ev":"ws.close","gen":1}
                        {"t":1,"src":"d\(i)","ev":"ws.ping","gen":1}

                        """, dir, "log\(i).jsonl"))
            }
            let one = cli(paths + ["--rules", rules, "--format", "json", "--jobs", "1"])
            let two = cli(paths + ["--rules", rules, "--format", "json", "--jobs=2"])
            #expect(one.code == 1)
            #expect(one.out == two.out)
        }
    }

    // MARK: rules subcommand

    @Test func rulesListNamesEveryRule() {
        let run = cli(["rules", "--list"])
        #expect(run.code == 0)
        let lines = run.out.split(separator: "\n")
        let builtin = RuleLoader.builtin().rules
        #expect(lines.count == builtin.count)
        for (line, rule) in zip(lines, builtin) {
            #expect(line.hasPrefix(rule.id + " "))
            #expect(line.contains(rule.severity.rawValue))
            #expect(line.contains(rule.scope.rawValue))
            #expect(line.hasSuffix(rule.title))
        }
        #expect(cli(["rules"]).out == run.out)
    }

    @Test func rulesCheckValidatesThePack() throws {
        let run = cli(["rules", "--check"])
        #expect(run.code == 0)
        #expect(run.out == "\(RuleLoader.builtin().rules.count) rules OK, 0 warning(s)\n")
        try withTemporaryDirectory { dir in
            let rules = try write(testRules, dir, "r.yaml")
            let own = cli(["rules", "--rules", rules, "--check"])
            #expect(own.code == 0)
            #expect(own.out == "3 rules OK, 0 warning(s)\n")
        }
    }

    @Test func rulesExplainShowsOneRule() {
        let run = cli(["rules", "--explain", "ws.single-close"])
        #expect(run.code == 0)
        #expect(run.out.hasPrefix("ws.single-close — A generation is closed at most once\n"))
        #expect(run.out.contains("severity: error"))
        #expect(run.out.contains("scope: generation"))
        #expect(run.out.contains("check: count"))
        #expect(run.out.contains("defined at: <built-in>/20-ws.yaml:"))
        #expect(run.out.contains("A second ws.close in the same"))
        #expect(run.out.contains("count: { ev: ws.close }"))
        #expect(run.out.contains("max: 1"))
        #expect(!run.out.contains("ws.generation-increases"), "only the one rule's YAML")
    }

    @Test func rulesTestPassesOnTheBuiltinPack() {
        let run = cli(["rules", "--test"])
        #expect(run.code == 0, "\(run.out)")
        let total = RuleLoader.builtin().rules.map(\.tests.count).reduce(0, +)
        #expect(run.out.hasSuffix("fixtures: \(total) passed, 0 failed\n"))
        #expect(!run.out.contains("FAIL"))
    }

    @Test func rulesTestFailsOnAWrongFixture() throws {
        try withTemporaryDirectory { dir in
            let rules = try write(
                """
                rules:
                  - id: t.noping
                    title: No pings
                    never: { ev: ws.ping }
                    tests:
                      - name: two pings
                        log: |
                          {"t":0,"ev":"ws.ping","gen":1}
                          {"t":1,"ev":"ws.ping","gen":1}
                        expect: fail
                        violations: 2
                      - name: claims a pass
                        log: |
                          {"t":0,"ev":"ws.ping","gen":1}
                        expect: pass
                  - id: t.untested
                    title: Untested
                    never: { ev: ws.pong }
                """, dir, "r.yaml")
            let run = cli(["rules", "--rules", rules, "--test"])
            #expect(run.code == 1)
            #expect(run.out.contains("FAIL t.noping fixture 'claims a pass' (\(rules):12)"))
            #expect(run.out.contains("expected: pass"))
            #expect(run.out.contains("actual:   fail with 1 violation(s)"))
            #expect(run.out.contains("line 1: No pings"))
            #expect(run.out.contains("rules without fixtures: t.untested"))
            #expect(run.out.hasSuffix("fixtures: 1 passed, 1 failed\n"))
        }
    }

    /// A fixture line that is no connlog event takes no part: a typo would let an `expect: pass`
    /// fixture pass on nothing. Such a fixture fails, naming the line — unless its rule reads the
    /// reader's findings on bad lines, as log.malformed does.
    @Test func rulesTestFailsOnAFixtureWithABadLine() throws {
        try withTemporaryDirectory { dir in
            let rules = try write(
                """
                rules:
                  - id: t.reason
                    title: Closes have reasons
                    every: { ev: ws.close }
                    expect: "reason != null"
                    tests:
                      - name: a typo
                        log: |
                          {"t":0,"ev":"ws.close","gen":1,}
                        expect: pass
                  - id: t.any
                    title: Every ws event has a gen
                    for: source
                    every: { ev: "ws.*" }
                    expect: "gen != null"
                    tests:
                      - name: a typo under a glob
                        log: |
                          {"t":0,"ev":"ws.close","gen":1,}
                        expect: pass
                  - id: t.bad
                    title: No bad lines
                    for: corpus
                    never: { ev: $malformed }
                    tests:
                      - name: a bad line
                        log: |
                          not json
                        expect: fail
                """, dir, "r.yaml")
            let run = cli(["rules", "--rules", rules, "--test"])
            #expect(run.code == 1)
            #expect(run.out.contains("FAIL t.reason fixture 'a typo' (\(rules):7)"))
            #expect(run.out.contains("line 1: not a connlog event: not valid JSON"))
            #expect(run.out.contains("FAIL t.any fixture 'a typo under a glob'"))
            #expect(!run.out.contains("FAIL t.bad"))
            #expect(run.out.hasSuffix("fixtures: 1 passed, 2 failed\n"))
        }
    }

    /// A count bound may be a param (`max: params.max_closes`), so `--param` can move it; the
    /// docs' first example reads so (it warned that its param was never read).
    @Test func aCountBoundIsAParamOverridableFromTheCommandLine() throws {
        try withTemporaryDirectory { dir in
            let rules = try write(
                """
                rules:
                  - id: t.closes
                    title: A generation is closed at most so often
                    params: { max_closes: 1 }
                    count: { ev: ws.close }
                    max: params.max_closes
                """, dir, "r.yaml")
            let log = try write(
                """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":1,"ev":"ws.close","gen":1,"reason":"user"}
                {"t":2,"ev":"ws.close","gen":1,"reason":"user"}

                """, dir, "a.jsonl")
            let check = cli(["rules", "--rules", rules, "--check"])
            #expect(check.code == 0 && !check.err.contains("never read"), "\(check.err)")
            #expect(
                cli([log, "--rules", rules, "--only", "t.closes", "--format", "json"]).code == 1)
            #expect(
                cli([log, "--rules", rules, "--only", "t.closes", "--param", "max_closes=2"]).code
                    == 0)
            #expect(
                cli([
                    log, "--rules", rules, "--only", "t.closes", "--param", "t.closes.max_closes=2"
                ]).code == 0)
            let crossed = try write(
                """
                rules:
                  - id: t.range
                    title: T
                    params: { lo: 0, hi: 5 }
                    count: { ev: ws.close }
                    min: params.lo
                    max: params.hi
                """, dir, "m.yaml")
            let refusedRange = cli([log, "--rules", crossed, "--param", "lo=9", "--param", "hi=1"])
            #expect(refusedRange.code == 2)
            #expect(
                refusedRange.err.contains(
                    "t.range would count at least 9 and at most 1 (min > max)"),
                "\(refusedRange.err)")
            let bad = cli([log, "--rules", rules, "--param", "max_closes=1.5"])
            #expect(bad.code == 2)
            #expect(
                bad.err.contains("t.closes counts with it: it needs a whole number >= 0"),
                "\(bad.err)")

            let unknown = try write(
                """
                rules:
                  - id: t.closes
                    title: T
                    count: { ev: ws.close }
                    max: params.nope
                """, dir, "u.yaml")
            let refused = cli(["rules", "--rules", unknown, "--check"])
            #expect(refused.code == 2)
            #expect(
                refused.err.contains("u.yaml:5:10: error: 'max': unknown param 'nope'"),
                "\(refused.err)")
        }
    }

    // MARK: Help and version

    @Test(arguments: [["--help"], ["-h"], ["help"], ["check", "--help"], ["rules", "--help"]])
    func helpExitsZero(_ arguments: [String]) {
        let run = cli(arguments)
        #expect(run.code == 0)
        #expect(run.out.contains("USAGE"))
        #expect(run.out.contains("EXIT STATUS"))
        #expect(run.err.isEmpty)
    }

    @Test func versionExitsZero() {
        let run = cli(["--version"])
        #expect(run.code == 0)
        #expect(run.out == "conn-audit \(ConnAuditVersion.string)\n")
    }

    @Test func versionRefusesAnArgument() {
        let run = cli(["--version", "extra"])
        #expect(run.code == 2)
        #expect(run.out.isEmpty)
        #expect(run.err.contains("--version takes no argument: extra"))
    }

    /// An unreadable input is named once; no second "no log files found" for the same path (an
    /// empty directory beside it still is).
    @Test func timelineOfAMissingFileNamesItOnce() throws {
        let run = cli(["timeline", "/nonexistent/conn-audit-test.jsonl"])
        #expect(run.code == 2)
        #expect(
            run.err
                == "conn-audit: error: could not read /nonexistent/conn-audit-test.jsonl: no such file or directory\n"
        )
        try withTemporaryDirectory { dir in
            let both = cli(["timeline", dir, "/nonexistent/conn-audit-test.jsonl"])
            #expect(both.code == 2)
            #expect(both.err.contains("could not read /nonexistent/conn-audit-test.jsonl"))
            #expect(both.err.contains("no log files found under \(dir)"), "\(both.err)")
        }
    }
}

// MARK: - Exact deadlines with fractions, typed params, the incomplete verdict

@Suite struct ReviewedSemanticsTests {
    /// connlog's own example: a ping at 128.11, its deadline at 128.11 + 1000. A pong at 1128.11 is
    /// *at* the deadline, so late; the close there is on time. In binary floating point the sum is
    /// 1128.1100000000001, which would turn both the other way.
    @Test func fractionalTimesMeetTheirDeadlinesExactly() throws {
        try withTemporaryDirectory { dir in
            let log = try write(
                """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":0,"ev":"ws.open","gen":1}
                {"t":128.11,"ev":"ws.ping","gen":1}
                {"t":1128.11,"ev":"ws.pong","gen":1}
                {"t":1128.11,"ev":"ws.close","gen":1,"reason":"pong_timeout"}

                """, dir, "frac.jsonl")
            let run = cli([log, "--format", "json"])
            let report = try jsonObject(run.out)
            let outcomes = try #require(report["outcomes"] as? [String: Any])
            #expect(outcomes["delayed"] as? Int == 1, "\(outcomes)")
            #expect(outcomes["normal"] as? Int == 0, "\(outcomes)")
            #expect(try entry(report, "ws.no-premature-timeout")["status"] as? String == "pass")
            #expect(try entry(report, "ws.timeout-closes")["status"] as? String == "pass")
        }
    }

    @Test func decimalRoundingKeepsWholeNumbersAndFixesBinaryNoise() {
        #expect(DecimalRounding.sum(128.11, 1000) == 1128.11)
        #expect(DecimalRounding.sum(0.1, 0.2) == 0.3)
        #expect(DecimalRounding.rounded(1128.11 - 128.11) == 1000)
        #expect(DecimalRounding.sum(1e15, 1) == 1e15 + 1)
        #expect(DecimalRounding.sum(1.5, 2.25) == 3.75)
        // A genuine difference below the last logged digit is not rounded away.
        #expect(DecimalRounding.sum(1128.1, 0.01) < 1128.11 + 0.001)
        #expect(DecimalRounding.sum(1128.1, 0.009) != 1128.11)
        #expect(DecimalRounding.sum(-128.11, -1000) == -1128.11)
        #expect(DecimalRounding.rounded(1e-30 + 3e-31) == 1.3e-30)
    }

    /// Decimals add up to exactly the decimal sum: the result is the double a parser makes of the
    /// sum's text (computed here in integers) — up to 16 significant digits, as in epoch
    /// milliseconds with microseconds (`1700000000123.456`) or a long uptime (`1234567890.123456`).
    @Test(arguments: [1, 3, 6, 7, 9])
    func decimalSumsAreTheDecimalResult(fractionDigits: Int) {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 &+ UInt64(fractionDigits)
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var scale: Int64 = 1
        for _ in 0..<fractionDigits { scale *= 10 }
        var failures = 0
        for _ in 0..<30_000 {
            // a, b in units of 10^-fractionDigits, from 1 to 16 digits, sums below 2^53 / 8.
            var bound: Int64 = 1
            for _ in 0..<Int64(next() % 17) { bound *= 10 }
            bound = min(bound, 1_000_000_000_000_000)
            let x = Int64(next() % UInt64(2 * bound + 1)) - bound
            let y = Int64(next() % UInt64(2 * bound + 1)) - bound
            let a = Double(x) / Double(scale), b = Double(y) / Double(scale)
            let exact = Double(x + y) / Double(scale)
            let exactDifference = Double(x - y) / Double(scale)
            if DecimalRounding.sum(a, b) != exact || DecimalRounding.sum(a, -b) != exactDifference {
                failures += 1
                if failures <= 5 {
                    Issue.record("\(a) ± \(b): \(DecimalRounding.sum(a, b)) vs \(exact)")
                }
            }
        }
        #expect(failures == 0)
    }

    /// Times with 16 or 17 significant digits (random doubles, as a `Double` uptime is logged):
    /// the sum is the decimal sum of the two shortest forms, checked against Foundation's
    /// `Decimal` (38 digits, exact here) read back by `Double(_:)`.
    @Test func longDecimalSumsAreTheDecimalResult() throws {
        var rng = SplitMix64(state: 0x5EED_0016)
        var failures = 0
        var textPath = 0
        for i in 0..<20_000 {
            // 1e6 … 1e12 ms with a random full-precision fraction.
            let magnitude = Double(1 + rng.below(1_000_000)) * [1.0, 1e3, 1e6][i % 3]
            let a = magnitude + Double(rng.below(1 << 40)) / Double(1 << 40)
            let b: Double =
                i % 2 == 0 ? Double(rng.below(100_000)) : Double(rng.below(100_000)) / 1000
            if DecimalRounding.fractionDigits(a) == nil { textPath += 1 }
            let exact =
                try #require(Decimal(string: a.description))
                + (try #require(Decimal(string: b.description)))
            let expected = try #require(Double("\(exact)"))
            let got = DecimalRounding.sum(a, b)
            if got != expected {
                failures += 1
                if failures <= 5 { Issue.record("\(a) + \(b): \(got), expected \(expected)") }
            }
        }
        #expect(failures == 0)
        // Most of these take the text path (the fast one needs digits below 2^51).
        #expect(textPath > 10_000)
    }

    @Test func decimalSumsAtTheEdges() {
        // Cancellation: the result's own 15th digit is noise.
        #expect(DecimalRounding.sum(777.18063, -875.375) == -98.19437)
        // 16 significant digits: the pong at the deadline is at the deadline.
        #expect(DecimalRounding.sum(1234567890.123456, 1000) == 1234568890.123456)
        #expect(DecimalRounding.sum(1700000000123.456, 1000) == 1700000001123.456)
        #expect(DecimalRounding.sum(1234568890.123459, -1234567890.123456) == 1000.000003)
        // 16 and 17 significant digits (an uptime logged from a Double): exact through the text.
        #expect(DecimalRounding.sum(693745044.0586978, 100) == 693745144.0586978)
        #expect(DecimalRounding.sum(693745144.0586978, 1000) == 693746144.0586978)
        #expect(DecimalRounding.sum(693746144.0586978, -1000) == 693745144.0586978)
        #expect(DecimalRounding.sum(14154823.563319262, 1000) == 14155823.563319262)
        #expect(DecimalRounding.sum(0.1, 693745144.0586978) == 693745144.1586978)
        #expect(DecimalRounding.fractionDigits(693745044.0586978) == nil)
        #expect(DecimalRounding.fractionDigits(693745044.058698) == 6)
        #expect(DecimalRounding.sum(9999999999999.9999, 1) == 10000000000001)
        // Magnitudes too far apart to align: binary addition.
        #expect(DecimalRounding.sum(1e300, 1.5) == 1e300)
        // A long time plus whole milliseconds at the edge of a binary exponent.
        #expect(DecimalRounding.sum(536870911.0586978, 1) == 536870912.0586978)
        #expect(DecimalRounding.sum(536870912.0586978, -1) == 536870911.0586978)
        #expect(DecimalRounding.sum(1073741823.9999999, 1) == 1073741824.9999999)
        #expect(DecimalRounding.sum(.infinity, 1) == .infinity)
        #expect(DecimalRounding.sum(0.5, 0.5) == 1)
    }

    @Test func aParamOfTheWrongKindIsAUsageError() throws {
        try withTemporaryDirectory { dir in
            let log = try write(#"{"t":0,"ev":"ws.connect","gen":1}"# + "\n", dir, "a.jsonl")
            let bad = cli([log, "--param", "timeout_ms=abc"])
            #expect(bad.code == 2)
            #expect(bad.err.contains("timeout_ms=abc"), "\(bad.err)")
            #expect(bad.err.contains("number"), "\(bad.err)")
            #expect(cli([log, "--param", "timeout_ms=1500", "--quiet"]).code != 2)
            #expect(cli([log, "--param", "ws.timeout-closes.timeout_ms=x"]).code == 2)
        }
    }

    @Test func anUnreadableInputMakesTheVerdictIncompleteInEveryMachineFormat() throws {
        try withTemporaryDirectory { dir in
            let log = try write(#"{"t":0,"ev":"app.start"}"# + "\n", dir, "a.jsonl")
            let missing = dir + "/missing.jsonl"
            let run = cli([log, missing, "--format", "json"])
            #expect(run.code == 2)
            let report = try jsonObject(run.out)
            #expect(report["verdict"] as? String == "incomplete")
            #expect(report["complete"] as? Bool == false)
            let junit = cli([log, missing, "--format", "junit"])
            #expect(
                junit.out.contains(#"name="verdict" value="incomplete""#),
                "\(junit.out.prefix(600))")
            let github = cli([log, missing, "--format", "github"])
            #expect(github.out.contains("verdict INCOMPLETE"), "\(github.out)")
        }
    }
}

extension ReviewedSemanticsTests {
    /// `--around` names the file as the user has it at hand: through another path to the same
    /// file (a symbolic link, an absolute path for a relative input) it is the same input.
    @Test func timelineAroundFindsTheInputByItsRealPath() throws {
        try withTemporaryDirectory { dir in
            let log = try write(
                """
                {"t":0,"src":"d","ev":"ws.connect","gen":1}
                {"t":10,"src":"d","ev":"ws.open","gen":1}

                """, dir, "real.jsonl")
            try FileManager.default.createDirectory(
                atPath: dir + "/links", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                atPath: dir + "/links/other.jsonl", withDestinationPath: log)
            let run = cli(["timeline", dir + "/links/other.jsonl", "--around", log + ":2"])
            #expect(run.code == 0, "\(run.err)")
            #expect(run.out.contains(">>"), "\(run.out)")
        }
    }

    @Test func timelineWritesAnHTMLPageWithTheViolationMarked() throws {
        try withTemporaryDirectory { dir in
            let log = try write(
                """
                {"t":0,"src":"dev<1>","ev":"ws.connect","gen":1}
                {"t":10,"src":"dev<1>","ev":"ws.open","gen":1}
                {"t":500,"src":"dev<1>","ev":"ws.close","gen":1}

                """, dir, "a.jsonl")
            let out = dir + "/t.html"
            let run = cli(["timeline", log, "--format", "html", "--output", out])
            #expect(run.code == 0, "\(run.err)")
            let html = try String(contentsOfFile: out, encoding: .utf8)
            #expect(html.hasPrefix("<!DOCTYPE html>"))
            #expect(html.contains("ws.close-has-reason"))
            #expect(html.contains("dev&lt;1&gt;"))
            #expect(!html.contains("dev<1>"))
        }
    }
}

extension ReviewedSemanticsTests {
    @Test func theSameRulesFileTwiceIsReadOnce() throws {
        try withTemporaryDirectory { dir in
            let log = try write(#"{"t":0,"ev":"a"}"# + "\n", dir, "a.jsonl")
            let rules = try write(
                """
                rules:
                  - id: t.a
                    title: A
                    every: { ev: a }
                    expect: "t >= 0"
                """, dir, "rules/r.yaml")
            let twice = cli([log, "--rules", rules, "--rules", rules, "--quiet"])
            #expect(twice.code == 0, "\(twice.err)")
            let fileAndDirectory = cli([log, "--rules", rules, "--rules", dir + "/rules", "--quiet"]
            )
            #expect(fileAndDirectory.code == 0, "\(fileAndDirectory.err)")
        }
    }

    /// rules.md: `$malformed` (file, line, reason), `$secret` (file, line, key path).
    @Test func theReadersFindingsHaveFileAndLineFields() throws {
        try withTemporaryDirectory { dir in
            let log = try write(
                "not json\n" + #"{"t":1,"ev":"a","token":"x"}"# + "\n", dir, "a.jsonl")
            let rules = try write(
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
            let run = cli([log, "--rules", rules, "--format", "json"])
            let report = try jsonObject(run.out)
            let bad = try #require(
                (try entry(report, "t.bad")["violations"] as? [[String: Any]])?.first)
            #expect(
                (bad["message"] as? String)?.hasPrefix("bad line \(log):1: not valid JSON") == true,
                "\(bad)")
            let secret = try #require(
                (try entry(report, "t.secret")["violations"] as? [[String: Any]])?.first)
            #expect(secret["message"] as? String == "secret at \(log):2 (token)")
        }
    }
}

extension ReviewedSemanticsTests {
    /// cli.md's minimum JSON shape has the outcome counts; --only must not turn them into null.
    @Test func outcomesAreCountedWhateverRulesAreSelected() throws {
        try withTemporaryDirectory { dir in
            let log = try write(
                """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":5,"ev":"ws.connect_failed","gen":1,"error":"NSURLErrorDomain:-1004"}

                """, dir, "a.jsonl")
            let all = try jsonObject(cli([log, "--format", "json"]).out)
            let only = cli([log, "--only", "ws.single-close", "--format", "json"])
            #expect(only.code == 0, "\(only.err)")
            let report = try jsonObject(only.out)
            #expect(try ruleIDs(report) == ["ws.single-close"])
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

extension ReviewedSemanticsTests {
    /// connlog: `src` and `session` are top-level fields like any other; rules may read them.
    @Test func rulesReadSrcAndSession() throws {
        try withTemporaryDirectory { dir in
            let log = try write(
                """
                {"t":0,"src":"dev1","session":"s1","ev":"a.b"}
                {"t":1,"src":"dev2","ev":"a.b"}

                """, dir, "a.jsonl")
            let rules = try write(
                """
                rules:
                  - id: t.src
                    title: Only dev1 in session s1
                    for: source
                    every: { ev: a.b }
                    expect: "src == 'dev1' and session == 's1'"
                    message: "{src} in {session ?? 'no session'}"
                """, dir, "r.yaml")
            let report = try jsonObject(cli([log, "--rules", rules, "--format", "json"]).out)
            let violations = try #require(
                try entry(report, "t.src")["violations"] as? [[String: Any]])
            #expect(violations.compactMap { $0["line"] as? Int } == [2])
            #expect(violations.first?["message"] as? String == "dev2 in no session")
        }
    }
}

/// connlog: a `gen` is any JSON integer from 0 to 2^64 - 1 (a client may use a random or hashed
/// UInt64). Past Int64 it orders exactly, keys its own timeline, and every report prints its
/// digits.
@Suite struct UnsignedGenTests {
    @Test(arguments: [
        // 2^63 + 1, then 2^63: lower (as doubles the two are equal).
        ("9223372036854775809", "9223372036854775808", Int32(1)),
        ("9223372036854775808", "9223372036854775809", Int32(0)),
        ("9223372036854775807", "9223372036854775808", Int32(0)),
        ("18446744073709551615", "18446744073709551614", Int32(1)),
        ("18446744073709551614", "18446744073709551615", Int32(0))
    ])
    func generationsPastInt64IncreaseExactly(_ first: String, _ second: String, _ code: Int32)
        throws
    {
        try withTemporaryDirectory { dir in
            let log = try write(
                """
                {"t":0,"src":"d","ev":"ws.connect","gen":\(first)}
                {"t":5,"src":"d","ev":"ws.close","gen":\(first),"reason":"user"}
                {"t":10,"src":"d","ev":"ws.connect","gen":\(second)}

                """, dir, "a.jsonl")
            let run = cli([log, "--only", "ws.generation-increases", "--format", "json"])
            #expect(run.code == code, "\(run.err)")
            let rule = try entry(try jsonObject(run.out), "ws.generation-increases")
            let violations = try #require(rule["violations"] as? [[String: Any]])
            #expect(violations.compactMap { $0["line"] as? Int } == (code == 1 ? [3] : []))
            if code == 1 {
                #expect(run.out.contains(#""gen": \#(second),"#), "\(run.out)")
                #expect(
                    violations.first?["message"] as? String
                        == "ws.connect gen \(second) is not greater than every earlier ws.connect gen of this source"
                )
            }
        }
    }

    /// Two connects of 2^64 - 2 and 2^64 - 1: two generations, the second while the first is live.
    private static let twoLive = """
        {"t":0,"src":"d","ev":"ws.connect","gen":18446744073709551614}
        {"t":2,"src":"d","ev":"ws.connect","gen":18446744073709551615}

        """

    @Test func twoGenerationsAtTheTopOfUInt64StayApart() throws {
        try withTemporaryDirectory { dir in
            let log = try write(Self.twoLive, dir, "a.jsonl")
            let run = cli([log, "--only", "ws.single-live-connection", "--format", "json"])
            #expect(run.code == 1, "\(run.err)")
            let report = try jsonObject(run.out)
            #expect((report["inputs"] as? [String: Any])?["generations"] as? Int == 2)
            let rule = try entry(report, "ws.single-live-connection")
            let violations = try #require(rule["violations"] as? [[String: Any]])
            #expect(violations.compactMap { $0["line"] as? Int } == [2])
            #expect(
                violations.first?["message"] as? String
                    == "ws.connect of generation 18446744073709551615"
                    + " while generation 18446744073709551614 (its ws.connect at t=0) is still live"
            )
            // The digits exactly, as a JSON number (a double would print 1.8446744073709552e+19).
            #expect(run.out.contains(#""gen": 18446744073709551615,"#), "\(run.out)")
            #expect(run.out.contains("t=2 ws.connect gen=18446744073709551615"), "\(run.out)")
        }
    }

    @Test(arguments: ["text", "junit", "sarif", "github"])
    func everyReportPrintsTheDigits(_ format: String) throws {
        try withTemporaryDirectory { dir in
            let log = try write(Self.twoLive, dir, "a.jsonl")
            let run = cli([log, "--only", "ws.single-live-connection", "--format", format])
            #expect(run.code == 1, "\(run.err)")
            #expect(
                run.out.contains(
                    "generation 18446744073709551615 while generation 18446744073709551614"),
                "\(run.out)")
            if format != "github" {
                // Where the report names a finding's gen (SARIF: a JSON number in its properties).
                let gen =
                    format == "sarif" ? #""gen": 18446744073709551615"# : "gen=18446744073709551615"
                #expect(run.out.contains(gen), "\(run.out)")
            }
        }
    }

    @Test func theTimelineShowsOneGenerationPastInt64() throws {
        try withTemporaryDirectory { dir in
            let log = try write(Self.twoLive, dir, "a.jsonl")
            let text = cli(["timeline", log, "--gen", "18446744073709551615"])
            #expect(text.code == 0, "\(text.err)")
            #expect(text.out.contains("ws gen 18446744073709551615 · 1 event"), "\(text.out)")
            #expect(!text.out.contains("18446744073709551614 ·"), "\(text.out)")
            let js = cli(["timeline", log, "--gen", "18446744073709551614", "--format", "json"])
            #expect(js.code == 0, "\(js.err)")
            #expect(js.out.contains(#""gen": 18446744073709551614"#), "\(js.out)")
            #expect(!js.out.contains("18446744073709551615"), "\(js.out)")
            let html = cli(["timeline", log, "--format", "html"])
            #expect(html.code == 0, "\(html.err)")
            #expect(html.out.contains("ws gen 18446744073709551615"), "\(html.out.prefix(300))")
            let tooLarge = cli(["timeline", log, "--gen", "18446744073709551616"])
            #expect(tooLarge.code == 2)
            #expect(
                tooLarge.err.contains(
                    "--gen takes a whole number from 0 to 18446744073709551615, not '18446744073709551616'"
                ),
                "\(tooLarge.err)")
        }
    }
}

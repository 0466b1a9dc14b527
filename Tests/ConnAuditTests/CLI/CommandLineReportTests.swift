import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// What the reports say: a message in words, SARIF locations, and the JSON report's shape and
/// destination.
@Suite struct CommandLineReportTests {
    // MARK: Messages and SARIF locations

    /// ws.timeout-closes' message says when a ping was sent after its generation had ended (the
    /// close it owes cannot come: the ping should not have been sent), and not otherwise.
    @Test func aTimeoutMessageSaysThePingCameAfterTheEnd() throws {
        try withScratchDirectory("cli") { dir in
            let log = try CLI.write(
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
            let run = CLI.run([log, "--only", "ws.timeout-closes", "--format", "json"])
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
        try withScratchDirectory("cli") { dir in
            let corrupt = dir + "/corrupt.jsonl.gz"
            try Data([0x1f, 0x8b, 0x08, 0x00] + Array("garbage".utf8)).write(
                to: URL(fileURLWithPath: corrupt))
            let log = try CLI.write(
                "{\"t\":1,\"src\":\"d\",\"ev\":\"ws.connect\",\"gen\":1}\n", dir, "read.jsonl")
            let run = CLI.run([corrupt, dir + "/missing.jsonl", log, "--format", "sarif"])
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
        try withScratchDirectory("cli") { dir in
            let log = try CLI.write(CLI.badLog, dir, "x.jsonl")
            let cwd = FileManager.default.currentDirectoryPath
            try #require(
                cwd.hasPrefix("/") && !log.hasPrefix(cwd + "/"),
                "the test needs \(log) outside \(cwd)")
            let up = String(repeating: "../", count: cwd.split(separator: "/").count)
            // `../../tmp/conn-audit-cli-…/./../conn-audit-cli-…/x.jsonl`
            let name = (dir as NSString).lastPathComponent
            let relative = up + String(dir.dropFirst()) + "/./../" + name + "/x.jsonl"
            let run = CLI.run([relative, "--format", "sarif"])
            #expect(run.code == 1, "\(run.err)")
            let results = try JSONTree(run.out)["runs"][0]["results"].array
            #expect(!results.isEmpty)
            let uris = Set(
                results.map {
                    $0["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].string
                })
            #expect(uris == ["file://" + log], "\(uris)")
            let json = try JSONTree(CLI.run([relative, "--format", "json"]).out)
            #expect(json["files"][0]["path"].string == relative)
        }
    }

    // MARK: JSON report

    @Test func jsonReportHasTheDocumentedShape() throws {
        try withScratchDirectory("cli") { dir in
            let log = try CLI.write(CLI.badLog, dir, "bad.jsonl")
            let run = CLI.run([log, "--format", "json"])
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

            let rules = try CLI.ruleEntries(report)
            #expect(try CLI.ruleIDs(report) == RuleLoader.builtin().rules.map(\.id))
            for rule in rules {
                #expect(rule["id"] is String)
                #expect(["error", "warning", "info"].contains(rule["severity"] as? String ?? ""))
                #expect(
                    ["pass", "fail", "inconclusive", "not_applicable"].contains(
                        rule["status"] as? String ?? ""))
                #expect(rule["violations"] is [Any])
                #expect(rule["inconclusive"] is [Any])
            }

            let reason = try CLI.entry(report, "ws.close-has-reason")
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

            let malformed = try CLI.entry(report, "log.malformed")
            #expect(malformed["status"] as? String == "fail")
            let bad = try #require((malformed["violations"] as? [[String: Any]])?.first)
            #expect(bad["line"] as? Int == 2)
            #expect(bad["file"] as? String == log)

            #expect(try CLI.entry(report, "ws.single-close")["status"] as? String == "pass")

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
        try withScratchDirectory("cli") { dir in
            let log = try CLI.write(
                "{\"t\":1,\"src\":\"d\",\"ev\":\"ws.connect\",\"gen\":1}\n", dir, "a.jsonl")
            let rules = try CLI.write(
                """
                rules:
                  - id: t.some-ping
                    title: A ping somewhere
                    for: corpus
                    count: { ev: ws.ping }
                    min: 1
                """, dir, "corpus.yaml")
            let coverage = try CLI.entry(
                try jsonObject(CLI.run([log, "--format", "json"]).out), "ws.required-outcomes")
            let counted = try CLI.entry(
                try jsonObject(CLI.run([log, "--rules", rules, "--format", "json"]).out),
                "t.some-ping")
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
        try withScratchDirectory("cli") { dir in
            let log = try CLI.write(CLI.cleanLog, dir, "clean.jsonl")
            let run = CLI.run([log, "--format=json"])
            #expect(run.code == 0)
            let report = try jsonObject(run.out)
            #expect(report["verdict"] as? String == "pass")
            for rule in try CLI.ruleEntries(report) {
                #expect((rule["violations"] as? [Any])?.isEmpty == true, "\(rule["id"] ?? "?")")
            }
        }
    }

    @Test func fileIsThePathAsFoundUnderTheGivenDirectory() throws {
        try withScratchDirectory("cli") { dir in
            let rules = try CLI.write(CLI.testRules, dir, "rules/r.yaml")
            try CLI.write("{\"t\":0,\"ev\":\"ws.close\",\"gen\":1}\n", dir, "logs/sub/a.jsonl")
            try CLI.write("{\"t\":0,\"ev\":\"ws.close\",\"gen\":1}\n", dir, "logs/.hidden/b.jsonl")
            try CLI.write("not a log\n", dir, "logs/notes.txt")
            let run = CLI.run([dir + "/logs/", "--rules", rules, "--format", "json"])
            #expect(run.code == 1)
            let report = try jsonObject(run.out)
            let violations = try #require(
                try CLI.entry(report, "t.reason")["violations"] as? [[String: Any]])
            #expect(violations.map { $0["file"] as? String } == [dir + "/logs/sub/a.jsonl"])
            #expect((report["inputs"] as? [String: Any])?["files"] as? Int == 1)
        }
    }

    @Test func outputWritesTheReportToAFile() throws {
        try withScratchDirectory("cli") { dir in
            let log = try CLI.write(CLI.badLog, dir, "bad.jsonl")
            let out = dir + "/report.json"
            let run = CLI.run([log, "--format", "json", "--output", out])
            #expect(run.code == 1)
            #expect(run.out.isEmpty)
            let written = try String(contentsOfFile: out, encoding: .utf8)
            #expect(try jsonObject(written)["verdict"] as? String == "fail")

            let textOut = dir + "/report.txt"
            let text = CLI.run([log, "--output=\(textOut)", "--quiet"])
            #expect(text.code == 1)
            #expect(text.out.isEmpty)
            let report = try String(contentsOfFile: textOut, encoding: .utf8)
            #expect(report.contains("verdict: FAIL"))
            #expect(!report.contains("\u{1B}["), "no colour in a file")

            let unwritable = CLI.run([log, "--output", dir + "/no/such/dir/r.json"])
            #expect(unwritable.code == 2)
            #expect(unwritable.err.contains("cannot write"))

            // Found before the run: nothing is printed or written that would say `pass` or `fail`.
            let first = dir + "/first.json"
            let extra = CLI.run([
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
            let toDirectory = CLI.run([log, "--output", dir])
            #expect(toDirectory.code == 2)
            #expect(
                toDirectory.err.contains("cannot write \(dir): is a directory"),
                "\(toDirectory.err)")
            let baseline = CLI.run([log, "--write-exact-baseline", dir + "/missing/b.json"])
            #expect(baseline.code == 2)
            #expect(baseline.err.contains("cannot write \(dir)/missing/b.json"), "\(baseline.err)")
        }
    }

    /// A JSON, SARIF or JUnit report of many findings goes out in chunks as it is written (to a
    /// file, to standard output, beside another format): what arrives is the report made whole, for
    /// the same run, in every one of those places.
    @Test func aLargeReportStreamsOutWhole() throws {
        try withScratchDirectory("cli") { dir in
            // Every ping breaks three heartbeat rules: some 9,000 findings, 1.5 MB of JUnit.
            var lines = [#"{"t":0,"ev":"ws.connect","gen":1}"#]
            for i in 1...3_000 {
                lines.append(#"{"t":\#(i * 10),"ev":"ws.ping","gen":1,"note":"café \#(i)"}"#)
            }
            let log = try CLI.write(lines.joined(separator: "\n") + "\n", dir, "pings.jsonl")
            for format in ["json", "sarif", "junit"] {
                let toStdout = CLI.run([log, "--format", format, "--jobs", "1"])
                #expect(toStdout.code == 1)
                #expect(toStdout.out.utf8.count > JSONWriter.flushSize + JSONWriter.flushSize / 4)
                let file = dir + "/report." + format
                let other = dir + "/also." + format
                let toFile = CLI.run([
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
                        try CLI.entry(report, "ws.ping-after-interval")["violations"]
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
}

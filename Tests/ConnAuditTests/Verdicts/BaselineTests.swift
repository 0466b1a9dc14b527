import Foundation
import Testing
@testable import ConnAudit
import ConnAuditTestSupport

/// Baselines: known violations accepted by fingerprint, surviving unrelated edits to a log.
@Suite struct BaselineTests {
    static let log = """
        {"t":0,"src":"d","ev":"ws.connect","gen":1}
        {"t":10,"src":"d","ev":"ws.close","gen":1,"reason":"user"}
        {"t":11,"src":"d","ev":"ws.close","gen":1}
        {"t":20,"src":"d","ev":"ws.connect","gen":1}

        """

    static func run(
        _ text: String,
        only: [String] = ["ws.single-close", "ws.close-has-reason", "ws.generation-increases"]
    ) -> AuditReport {
        let all = RuleLoader.builtin()
        let rules = RuleSet(rules: all.rules.filter { only.contains($0.id) })
        return RuleRuns.audit(rules, text, path: "logs/d.jsonl")
    }

    @Test func aBaselineOfARunAcceptsEveryViolationOfTheSameLog() throws {
        var report = Self.run(Self.log)
        #expect(report.exitCode == 1)
        let baseline = Baseline.from(report)
        #expect(baseline.entries.count == 3)
        let summary = baseline.apply(to: &report, path: "b.json", today: "2026-11-30")
        #expect(summary.accepted == 3)
        #expect(summary.unused.isEmpty && summary.expired.isEmpty)
        #expect(report.exitCode == 0)
        #expect(report.results.allSatisfy { $0.status == .pass })
        #expect(report.results.map(\.baselined.count).reduce(0, +) == 3)
    }

    @Test func fingerprintsSurviveUnrelatedLinesAddedAboveAndBetween() throws {
        let baseline = Baseline.from(Self.run(Self.log))
        let shifted =
            "{\"t\":0,\"src\":\"other\",\"ev\":\"app.scene\",\"phase\":\"active\"}\n\n"
            + Self.log.replacingOccurrences(
                of: "\n{\"t\":20",
                with: "\n{\"t\":15,\"src\":\"d\",\"ev\":\"ws.message\",\"gen\":1}\n{\"t\":20")
        var report = Self.run(shifted)
        let lines = report.results.flatMap(\.violations).compactMap(\.line).sorted()
        #expect(lines == [5, 5, 7], "the violations moved: \(lines)")
        let summary = baseline.apply(to: &report, path: "b.json", today: "2026-11-30")
        #expect(summary.accepted == 3)
        #expect(report.exitCode == 0)
    }

    @Test func aGenPastInt64IsFingerprintedByItsDigits() throws {
        // Two closes without a reason at one t, in generations 2^64 - 2 and 2^64 - 1.
        let log = """
            {"t":0,"src":"d","ev":"ws.connect","gen":18446744073709551614}
            {"t":0,"src":"d","ev":"ws.connect","gen":18446744073709551615}
            {"t":10,"src":"d","ev":"ws.close","gen":18446744073709551614}
            {"t":10,"src":"d","ev":"ws.close","gen":18446744073709551615}

            """
        let only = ["ws.close-has-reason"]
        let report = Self.run(log, only: only)
        let findings = report.results.flatMap(\.violations)
        #expect(findings.map(\.gen) == [18_446_744_073_709_551_614, 18_446_744_073_709_551_615])
        let identities = findings.map {
            Fingerprint.identity($0, rule: "ws.close-has-reason", paths: ["logs/d.jsonl"])
        }
        #expect(
            identities
                == ["18446744073709551614", "18446744073709551615"].map {
                    ["ws.close-has-reason", "logs/d.jsonl", "d", "", $0, "ws.close", "10"].joined(
                        separator: "\u{1F}")
                })
        // A gen within Int64 is fingerprinted as it always was.
        let small = Finding(
            file: 0, line: 3, t: 10, source: SourceKey(src: "d"), gen: 7, message: "m",
            ev: "ws.close")
        #expect(
            Fingerprint.identity(small, rule: "r", paths: ["logs/d.jsonl"])
                == ["r", "logs/d.jsonl", "d", "", "7", "ws.close", "10"].joined(separator: "\u{1F}")
        )

        // The baseline accepts both; one generation renumbered (its last digit) is a new violation.
        let baseline = Baseline.from(report)
        var same = Self.run(log, only: only)
        #expect(baseline.apply(to: &same, path: "b.json", today: "2026-11-30").accepted == 2)
        let renumberedLog = log.replacingOccurrences(
            of: "18446744073709551615", with: "18446744073709551613")
        var renumbered = Self.run(renumberedLog, only: only)
        let summary = baseline.apply(to: &renumbered, path: "b.json", today: "2026-11-30")
        #expect(summary.accepted == 1)
        #expect(summary.unused.count == 1)
        #expect(renumbered.exitCode == 1)
    }

    @Test func aChangedOffendingEventIsANewViolation() throws {
        let baseline = Baseline.from(Self.run(Self.log))
        var report = Self.run(Self.log.replacingOccurrences(of: "{\"t\":20,", with: "{\"t\":21,"))
        let summary = baseline.apply(to: &report, path: "b.json", today: "2026-11-30")
        #expect(summary.accepted == 2)
        #expect(summary.unused.count == 1)
        #expect(report.exitCode == 1)
        let failing = report.results.filter { $0.status == .fail }.map(\.rule.id)
        #expect(failing == ["ws.generation-increases"])
    }

    @Test func anExpiredEntryAcceptsNothingAndIsListed() throws {
        var baseline = Baseline.from(Self.run(Self.log))
        baseline.entries[0].expires = "2026-11-29"
        baseline.entries[0].reason = "BUG-1"
        baseline.entries[1].expires = "2026-11-30"  // the last day still counts
        var report = Self.run(Self.log)
        let summary = baseline.apply(to: &report, path: "b.json", today: "2026-11-30")
        #expect(summary.expired.map(\.reason) == ["BUG-1"])
        #expect(summary.accepted == 2)
        #expect(report.exitCode == 1)
        let text = TextReport().render(
            {
                var r = report; r.baseline = summary; return r
            }())
        #expect(text.contains("EXPIRED BASELINE ENTRY"))
        #expect(text.contains("BUG-1"))
    }

    @Test func aBaselineRoundTripsThroughItsFile() throws {
        var baseline = Baseline.from(Self.run(Self.log))
        baseline.entries[0].reason = "known \"quoted\" reason"
        baseline.entries[0].expires = "2027-01-31"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "baseline-\(UUID().uuidString).json"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try baseline.json().write(toFile: path, atomically: true, encoding: .utf8)
        let loaded = try Baseline.load(path)
        #expect(loaded.entries == baseline.entries)
    }

    /// A baseline is made only when ``Baseline/load(_:)`` could read it back: larger than the
    /// limit, there is no text (and `--write-exact-baseline` writes nothing and says why).
    @Test func aBaselineLargerThanTheLimitIsNotMade() throws {
        let entries = (0..<20_000).map { i in
            Baseline.Entry(
                rule: "ws.ping-after-interval", fingerprint: String(format: "%016x", i),
                file: "logs/a.jsonl",
                line: i + 2,
                message: "ws.ping at t=\(i * 10) comes too early: there is no ws.open before it — é"
            )
        }
        let baseline = Baseline(entries: entries)
        let whole = baseline.json()
        let size = whole.utf8.count
        #expect(size > 2 * JSONWriter.flushSize)
        #expect(baseline.json(limit: size) == whole)
        #expect(baseline.json(limit: size - 1) == nil)
        #expect(baseline.json(limit: JSONWriter.flushSize) == nil)
        #expect(Baseline.maxBytes == 64 << 20)
    }

    @Test(arguments: [
        ("not json", "is not valid JSON"),
        (#"{"schema":"x","version":1,"entries":[]}"#, "conn-audit/baseline"),
        (#"{"schema":"conn-audit/baseline","version":2,"entries":[]}"#, "unsupported version"),
        (
            #"{"schema":"conn-audit/baseline","version":1,"entries":[{"rule":"a"}]}"#,
            "entry 1 needs"
        ),
        (
            #"{"schema":"conn-audit/baseline","version":1,"entries":[{"rule":"a","fingerprint":"b","expires":"soon"}]}"#,
            "YYYY-MM-DD"
        ),
        (
            #"{"schema":"conn-audit/baseline","version":1,"entries":[{"rule":"a","fingerprint":"b","expires":"2020-13-45"}]}"#,
            "YYYY-MM-DD"
        ),
        (
            #"{"schema":"conn-audit/baseline","version":1,"entries":[{"rule":"a","fingerprint":"b","expires":"2099-02-30"}]}"#,
            "YYYY-MM-DD"
        ),
        (
            #"{"schema":"conn-audit/baseline","version":1,"entries":[{"rule":"a","fingerprint":"b","expires":"2027-02-29"}]}"#,
            "YYYY-MM-DD"
        )
    ])
    func aBadBaselineFileIsAClearError(_ text: String, _ message: String) throws {
        // (Real dates pass: the last day of February in a leap year, the last of December.)
        #expect(
            Baseline.isDate("2028-02-29") && Baseline.isDate("2000-02-29")
                && Baseline.isDate("2026-12-31"))
        #expect(
            !Baseline.isDate("2100-02-29") && !Baseline.isDate("2026-04-31")
                && !Baseline.isDate("2026-00-10"))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "baseline-\(UUID().uuidString).json"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let error = #expect(throws: UsageError.self) { try Baseline.load(path) }
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
        #expect(error?.message.contains(path) == true)
    }

    @Test func theCommandLineWritesAndAppliesABaseline() throws {
        try withScratchDirectory("baseline") { dir in
            let log = dir + "/d.jsonl"
            let base = dir + "/base.json"
            try Self.log.write(toFile: log, atomically: true, encoding: .utf8)
            var out = "", err = ""
            let console = Console(out: { out += $0 }, err: { err += $0 }, isTerminal: false)
            let only = ["--only", "ws.single-close", "--only", "ws.close-has-reason"]
            #expect(
                CommandLineTool.run([log, "--write-exact-baseline", base] + only, console: console)
                    == 1
            )
            #expect(FileManager.default.fileExists(atPath: base))
            out = ""
            #expect(
                CommandLineTool.run(
                    [log, "--exact-baseline", base, "--format", "json"] + only, console: console)
                    == 0)
            #expect(out.contains("\"baselined\""))
            #expect(out.contains("\"accepted\": 2"))

            // A reviewed baseline rewritten from a run that applied it keeps its reviews.
            var reviewed = try Baseline.load(base)
            reviewed.entries[0].reason = "known: BUG-1"
            reviewed.entries[0].expires = "2099-12-31"
            try reviewed.json().write(toFile: base, atomically: true, encoding: .utf8)
            let rewritten = dir + "/rewritten.json"
            #expect(
                CommandLineTool.run(
                    [log, "--exact-baseline", base, "--write-exact-baseline", rewritten, "--quiet"]
                        + only, console: console) == 0)
            let again = try Baseline.load(rewritten)
            #expect(again.entries.count == reviewed.entries.count)
            let kept = again.entries.filter {
                $0.rule == reviewed.entries[0].rule
                    && $0.fingerprint == reviewed.entries[0].fingerprint
            }
            #expect(
                !kept.isEmpty
                    && kept.allSatisfy { $0.reason == "known: BUG-1" && $0.expires == "2099-12-31" }
            )
            #expect(again.entries.filter { $0.reason != nil }.count == kept.count)

            // Two reviews of one fingerprint: the one that accepts longest is kept (the one the run
            // applied).
            var twice = reviewed
            var older = twice.entries[0]
            older.reason = "old review"
            older.expires = "2020-01-01"
            twice.entries.insert(older, at: 0)
            try twice.json().write(toFile: base, atomically: true, encoding: .utf8)
            #expect(
                CommandLineTool.run(
                    [log, "--exact-baseline", base, "--write-exact-baseline", rewritten, "--quiet"]
                        + only, console: console) == 0)
            let renewed = try Baseline.load(rewritten)
            #expect(
                renewed.entries.contains {
                    $0.reason == "known: BUG-1" && $0.expires == "2099-12-31"
                })
            #expect(!renewed.entries.contains { $0.reason == "old review" })
        }
    }

    /// A report over the `--baseline` file would replace the reviewed baseline with a report (and
    /// the next run would refuse it): refused before anything runs, however the path is spelled.
    /// B is the baseline, LINK a symbolic link to it, DIR its directory.
    @Test(
        arguments: [
            (
                ["--output", "B"],
                "--output B is the --exact-baseline file: the report would overwrite it"
            ),
            (
                ["--format", "json", "--output", "DIR/./sub/../base.json"],
                "--output DIR/./sub/../base.json is the --exact-baseline file B: the report would overwrite it"
            ),
            (["--output", "LINK"], "--output LINK is the --exact-baseline file B"),
            (
                ["--report", "sarif=B"],
                "--report sarif=B is the --exact-baseline file: the report would overwrite it"
            ),
            (
                ["--output", "/dev/null", "--report", "junit=LINK"],
                "--report junit=LINK is the --exact-baseline file B"
            ),
            // Not the baseline, but the same file as the baseline this run writes: refused as before.
            (
                ["--write-exact-baseline", "DIR/new.json", "--output", "DIR/./new.json"],
                "--write-exact-baseline DIR/new.json and --output DIR/./new.json name the same file"
            )
        ] as [([String], String)])
    func aReportMayNotOverwriteTheBaseline(_ options: [String], _ message: String) throws {
        try withScratchDirectory("baseline") { dir in
            try FileManager.default.createDirectory(
                atPath: dir + "/sub", withIntermediateDirectories: false)
            let log = dir + "/d.jsonl", base = dir + "/base.json", link = dir + "/link.json"
            try Self.log.write(toFile: log, atomically: true, encoding: .utf8)
            #expect(CommandLineRun([log, "--write-exact-baseline", base, "--quiet"]).code == 1)
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: base)
            let before = try Data(contentsOf: URL(fileURLWithPath: base))
            func spelled(_ s: String) -> String {
                s.replacingOccurrences(of: "LINK", with: link).replacingOccurrences(
                    of: "DIR", with: dir
                )
                .replacingOccurrences(of: "=B", with: "=" + base).replacingOccurrences(
                    of: " B", with: " " + base)
            }
            let args = options.map { $0 == "B" ? base : spelled($0) }
            let run = CommandLineRun([log, "--exact-baseline", base] + args)
            #expect(run.code == 2)
            #expect(run.err.contains("conn-audit: error: " + spelled(message)), "\(run.err)")
            #expect(run.out.isEmpty)
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: base)) == before,
                "the baseline was changed")
            #expect(!FileManager.default.fileExists(atPath: dir + "/new.json"))
        }
    }

    /// `--write-exact-baseline` may rewrite the `--baseline` file itself (it is read first): the
    /// entries that still match keep their reviews.
    @Test func aBaselineMayBeRewrittenInPlace() throws {
        try withScratchDirectory("baseline") { dir in
            let log = dir + "/d.jsonl", base = dir + "/base.json"
            try Self.log.write(toFile: log, atomically: true, encoding: .utf8)
            #expect(CommandLineRun([log, "--write-exact-baseline", base, "--quiet"]).code == 1)
            var reviewed = try Baseline.load(base)
            reviewed.entries[0].reason = "known: BUG-2"
            try reviewed.json().write(toFile: base, atomically: true, encoding: .utf8)
            let run = CommandLineRun([
                log, "--exact-baseline", base, "--write-exact-baseline", dir + "/./base.json",
                "--quiet"
            ])
            #expect(run.code == 0, "\(run.err)")
            let again = try Baseline.load(base)
            #expect(again.entries.count == reviewed.entries.count)
            #expect(
                again.entries.contains {
                    $0.fingerprint == reviewed.entries[0].fingerprint && $0.reason == "known: BUG-2"
                })
        }
    }
}

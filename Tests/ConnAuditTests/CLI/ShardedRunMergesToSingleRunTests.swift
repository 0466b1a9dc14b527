import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// `check --shard K/N --format partial` for every K, then `merge`, writes the report one check
/// over all the logs writes, byte for byte, in every format, with the same exit status: on
/// samples/ and on connlog-gen corpora with faults, laid out as rotated files, interleaved
/// collector files and gzip uploads, at N = 1, 2 and 7.
@Suite("A sharded run merges to the single run's report")
struct ShardedRunMergesToSingleRunTests {
    static let formats = CommandLineTool.formats

    /// Runs check over `inputs` once, and in `n` shards merged, with `options` and the config
    /// file `config` (none: `--no-config`) for both; expects the same bytes in every format and
    /// the same exit status.
    static func expectSame(
        _ inputs: [String], shards n: Int, options: [String] = [], config: String? = nil,
        in dir: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let base = (config.map { ["--config", $0] } ?? ["--no-config"]) + options
        var reports = ["--format", "json", "--output", dir + "/single.json"]
        for f in formats where f != "json" { reports += ["--report", "\(f)=\(dir)/single.\(f)"] }
        let single = CommandLineRun(inputs + base + reports)
        #expect(single.code != 2 || !single.err.isEmpty, sourceLocation: sourceLocation)
        var parts: [String] = []
        for k in 1...n {
            let part = dir + "/part-\(k)-of-\(n).jsonl"
            let run = CommandLineRun(
                inputs + base + ["--shard", "\(k)/\(n)", "--format", "partial", "-o", part])
            try #require(
                run.code == 0, "shard \(k)/\(n): \(run.err)", sourceLocation: sourceLocation)
            parts.append(part)
        }
        var merged = ["--format", "json", "--output", dir + "/merged.json"]
        for f in formats where f != "json" { merged += ["--report", "\(f)=\(dir)/merged.\(f)"] }
        let merge = CommandLineRun(["merge"] + parts + base + merged)
        #expect(
            merge.code == single.code, "exit \(merge.code), single \(single.code): \(merge.err)",
            sourceLocation: sourceLocation)
        #expect(merge.err == single.err, sourceLocation: sourceLocation)
        for f in formats {
            let a = try Data(contentsOf: URL(fileURLWithPath: "\(dir)/single.\(f)"))
            let b = try Data(contentsOf: URL(fileURLWithPath: "\(dir)/merged.\(f)"))
            #expect(a == b, "\(f) differs at N = \(n)", sourceLocation: sourceLocation)
        }
        // The text report on standard output too (its findings cut to the first of each rule).
        let text = CommandLineRun(inputs + base)
        let mergedText = CommandLineRun(["merge"] + parts + base)
        #expect(mergedText.out == text.out, sourceLocation: sourceLocation)
        #expect(mergedText.code == text.code, sourceLocation: sourceLocation)
    }

    @Test(arguments: [1, 2, 7])
    func onTheSamples(shards: Int) throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        try Self.expectSame([Repository.samples], shards: shards, in: dir)
    }

    @Test(arguments: [1, 2, 7])
    func onInterleavedCollectorFilesWithFaults(shards: Int) throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        // Several devices a file, in time order; every fault kind, malformed lines and secrets
        // among them; more than the text report shows of a rule.
        try ConnlogGen.write([
            "--out", dir + "/logs", "--files", "6", "--devices", "20", "--interleave",
            "--size", "1MB", "--faults", "0.03", "--seed", "\(shards)"
        ])
        try Self.expectSame([dir + "/logs"], shards: shards, in: dir)
    }

    @Test(arguments: [1, 2, 7])
    func onRotatedGzipUploadsWithFaults(shards: Int) throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        // Fewer devices than files: each device's log rotated over several files.
        try ConnlogGen.write([
            "--out", dir + "/logs", "--files", "8", "--devices", "3", "--gzip", "--size", "600KB",
            "--faults", "0.02", "--seed", "\(10 + shards)"
        ])
        try Self.expectSame([dir + "/logs"], shards: shards, in: dir)
    }

    @Test func withGateSelectionAndFailOnGivenToBoth() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        try ConnlogGen.write([
            "--out", dir + "/logs", "--files", "5", "--devices", "9", "--size", "400KB",
            "--faults", "0.02", "--seed", "21"
        ])
        // ws.required-outcomes left out: it runs for the outcome counts alone.
        try Self.expectSame(
            [dir + "/logs"], shards: 3,
            options: ["--use", "gate", "--skip", "ws.required-outcomes", "--fail-on", "warning"],
            in: dir)
    }

    @Test(arguments: [2, 7])
    func withMoreFindingsThanTheTextReportShows(shards: Int) throws {
        // Past twice what the text report keeps of a rule: the totals are cut as findings come,
        // in one run and in the merge alike.
        var files: [String: String] = [:]
        for f in 0..<6 {
            var lines: [String] = []
            for i in 0..<40 {
                let src = "dev-\((f + i) % 9)"
                let t = f * 10_000 + i * 10
                lines.append(
                    "{\"t\":\(t),\"src\":\"\(src)\",\"ev\":\"ws.connect\",\"gen\":\(i + 1)}")
                lines.append(
                    "{\"t\":\(t + 1),\"src\":\"\(src)\",\"ev\":\"ws.close\",\"gen\":\(i + 1)}")
                lines.append(
                    "{\"t\":\(t + 2),\"src\":\"\(src)\",\"ev\":\"ws.close\",\"gen\":\(i + 1)}")
                if i % 3 == 0 { lines.append("not json \(f) \(i)") }
            }
            files["logs/f\(f).jsonl"] = lines.joined(separator: "\n") + "\n"
        }
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        try FileManager.default.createDirectory(
            atPath: dir + "/logs", withIntermediateDirectories: true)
        for (name, text) in files {
            try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
        }
        let text = CommandLineRun([dir + "/logs", "--no-config"])
        #expect(text.out.contains("more (all of them are in --format json)"))
        try Self.expectSame([dir + "/logs"], shards: shards, in: dir)
    }

    @Test func writesAndAppliesTheSameBaseline() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        try ConnlogGen.write([
            "--out", dir + "/logs", "--files", "4", "--devices", "6", "--size", "300KB",
            "--faults", "0.03", "--seed", "24"
        ])
        let inputs = [dir + "/logs", "--no-config"]
        var parts: [String] = []
        for k in 1...3 {
            parts.append(dir + "/p\(k)")
            let run = CommandLineRun(
                inputs + ["--shard", "\(k)/3", "-f", "partial", "-o", parts[k - 1]])
            try #require(run.code == 0, "\(run.err)")
        }
        let single = CommandLineRun(inputs + ["-q", "--write-exact-baseline", dir + "/single.json"])
        let merged = CommandLineRun(
            ["merge"] + parts + [
                "--no-config", "-q", "--write-exact-baseline", dir + "/merged.json"
            ])
        #expect(single.code == 1)
        #expect(merged.code == single.code)
        let a = try String(contentsOfFile: dir + "/single.json", encoding: .utf8)
        #expect(a.contains("fingerprint"))
        #expect(try String(contentsOfFile: dir + "/merged.json", encoding: .utf8) == a)
        // Applied: every violation baselined, in both.
        let applied = CommandLineRun(
            inputs + ["--exact-baseline", dir + "/single.json", "-f", "json"])
        let mergedApplied = CommandLineRun(
            ["merge"] + parts + [
                "--no-config", "--exact-baseline", dir + "/single.json", "-f", "json"
            ])
        #expect(applied.code == 0)
        #expect(mergedApplied.code == 0)
        #expect(mergedApplied.out == applied.out)
    }

    @Test func withSuppressionsAndABaselineInEveryFormat() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        try ConnlogGen.write([
            "--out", dir + "/logs", "--files", "6", "--devices", "16", "--interleave", "--size",
            "1MB", "--faults", "0.06", "--seed", "26"
        ])
        let known = """
            suppressions:
              - rule: "ws.*"
                fields: {reason: "pong_*"}
                reason: "known timeouts"
                expires: 2999-12-31
              - rule: "*"
                src: "ipad-*"
                reason: "known on tablets"
                expires: 2999-12-31
              - rule: "*"
                message: "*"
                reason: "long gone"
                expires: 2001-01-01

            """
        let config = dir + "/known.yaml"
        try known.write(toFile: config, atomically: true, encoding: .utf8)
        let logs = [dir + "/logs"]
        // A reviewed baseline of one run: every other violation, some of them expired.
        let all = CommandLineRun(
            logs + ["--config", config, "-q", "--write-exact-baseline", dir + "/all.json"])
        try #require(all.code == 1, "\(all.err)")
        var root = try #require(
            JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: dir + "/all.json"))) as? [String: Any])
        let entries = try #require(root["entries"] as? [[String: Any]])
        root["entries"] = entries.enumerated().filter { $0.offset % 2 == 0 }.map { item in
            var e = item.element
            if item.offset % 10 == 0 { e["expires"] = "2002-02-02" }
            return e
        }
        try JSONSerialization.data(withJSONObject: root).write(
            to: URL(fileURLWithPath: dir + "/base.json"))
        #expect(entries.count > 100, "too few violations to check the lists read again")
        // Given in the config file, the baseline is the merge's: the shards leave it.
        let applying = dir + "/applying.yaml"
        try (known + "exact-baseline: \(dir)/base.json\n").write(
            toFile: applying, atomically: true, encoding: .utf8)
        try Self.expectSame(logs, shards: 3, config: applying, in: dir)
        let text = try String(contentsOfFile: dir + "/merged.text", encoding: .utf8)
        #expect(text.contains("EXPIRED BASELINE ENTRY") && text.contains("SUPPRESSED"))
        #expect(text.contains("EXPIRED SUPPRESSION"))
        // The baseline each writes, with the suppressions and the baseline applied.
        var parts: [String] = []
        for k in 1...3 {
            parts.append(dir + "/p\(k)")
            let run = CommandLineRun(
                logs + [
                    "--config", config, "--shard", "\(k)/3", "-f", "partial", "-o", parts[k - 1]
                ])
            try #require(run.code == 0, "\(run.err)")
        }
        let single = CommandLineRun(
            logs + ["--config", applying, "-q", "--write-exact-baseline", dir + "/s.json"])
        let merged = CommandLineRun(
            ["merge"] + parts + [
                "--config", applying, "-q", "--write-exact-baseline", dir + "/m.json"
            ])
        #expect(merged.code == single.code)
        #expect(merged.err == single.err)
        let a = try String(contentsOfFile: dir + "/s.json", encoding: .utf8)
        #expect(a.contains("long gone") == false && a.contains("fingerprint"))
        #expect(try String(contentsOfFile: dir + "/m.json", encoding: .utf8) == a)
    }

    @Test func aConfigFilesReportsAreTheMergesNotTheShards() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        try ConnlogGen.write([
            "--out", dir + "/logs", "--files", "3", "--devices", "5", "--size", "200KB",
            "--faults", "0.03", "--seed", "25"
        ])
        try """
        format: github
        output: out/report.txt
        reports: {junit: out/junit.xml}
        """.write(toFile: dir + "/c.yaml", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(
            atPath: dir + "/out", withIntermediateDirectories: true)
        let config = ["--config", dir + "/c.yaml"]
        var parts: [String] = []
        for k in 1...2 {
            parts.append(dir + "/p\(k)")
            let run = CommandLineRun(
                [dir + "/logs"] + config + [
                    "--shard", "\(k)/2", "-f", "partial", "-o", parts[k - 1]
                ])
            try #require(run.code == 0, "\(run.err)")
        }
        // The shards wrote their partials only.
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/report.txt"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/junit.xml"))
        let single = CommandLineRun([dir + "/logs"] + config)
        let report = try String(contentsOfFile: dir + "/out/report.txt", encoding: .utf8)
        let junit = try String(contentsOfFile: dir + "/out/junit.xml", encoding: .utf8)
        let merged = CommandLineRun(["merge"] + parts + config)
        #expect(merged.code == single.code)
        #expect(try String(contentsOfFile: dir + "/out/report.txt", encoding: .utf8) == report)
        #expect(try String(contentsOfFile: dir + "/out/junit.xml", encoding: .utf8) == junit)
        // Given on the command line, a shard refuses them.
        let refused = CommandLineRun(
            [dir + "/logs"] + config + ["--shard", "1/2", "-f", "partial", "--report", "sarif=x"])
        #expect(refused.code == 2)
    }

    @Test func withSuppressionsOfTheConfigFile() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        try ConnlogGen.write([
            "--out", dir + "/logs", "--files", "4", "--devices", "8", "--interleave", "--size",
            "400KB", "--faults", "0.03", "--seed", "22"
        ])
        let config = dir + "/known.yaml"
        try """
        suppressions:
          - rule: "ws.*"
            src: "iphone-*"
            reason: "a known issue"
            expires: 2999-12-31
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let inputs = [dir + "/logs"]
        var parts: [String] = []
        for k in 1...2 {
            parts.append(dir + "/p\(k)")
            let run = CommandLineRun(
                inputs + [
                    "--config", config, "--shard", "\(k)/2", "-f", "partial", "-o", parts[k - 1]
                ])
            try #require(run.code == 0, "\(run.err)")
        }
        for format in ["text", "json", "sarif"] {
            let single = CommandLineRun(inputs + ["--config", config, "-f", format])
            let merged = CommandLineRun(["merge"] + parts + ["--config", config, "-f", format])
            // The suppression took some violations: TextReport's SUPPRESSED, SARIF's suppressions.
            #expect(single.out.lowercased().contains("suppress"))
            #expect(merged.out == single.out, "\(format)")
            #expect(merged.code == single.code)
        }
    }

    @Test func ofAnUnreadableInputKeepsItsError() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        try ConnlogGen.write([
            "--out", dir + "/logs", "--files", "3", "--size", "100KB", "--seed", "23"
        ])
        let locked = dir + "/logs/locked.jsonl"
        try "{\"t\":1,\"ev\":\"x\"}\n".write(toFile: locked, atomically: true, encoding: .utf8)
        chmod(locked, 0)
        defer { chmod(locked, 0o644) }
        // Root reads any file: the case says nothing there.
        guard access(locked, R_OK) != 0 else { return }
        try Self.expectSame([dir + "/logs", dir + "/missing.jsonl"], shards: 2, in: dir)
    }
}

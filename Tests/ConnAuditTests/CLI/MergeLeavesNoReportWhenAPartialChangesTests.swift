import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A merge reads its partials more than once: a partial that changes between two readings fails
/// it with exit 2, and no report file it was to write is put in place — a file there before stays
/// as it was — nor is a temporary file left beside one. What went to standard output has gone.
@Suite("A merge whose partial changes leaves no report behind")
struct MergeLeavesNoReportWhenAPartialChangesTests {
    /// The partials of a 2-shard run over a corpus with faults, in `dir`.
    static func partials(in dir: String, config: [String]) throws -> [String] {
        try ConnlogGen.write([
            "--out", dir + "/logs", "--files", "3", "--devices", "8", "--interleave", "--size",
            "400KB", "--faults", "0.05", "--seed", "27"
        ])
        return try (1...2).map { k in
            let part = dir + "/part-\(k).jsonl"
            let run = CommandLineRun(
                [dir + "/logs"] + config + ["--shard", "\(k)/2", "-f", "partial", "-o", part])
            try #require(run.code == 0, "\(run.err)")
            return part
        }
    }

    /// `part` without the last violation of the rule it lists most violations of, its end
    /// record counting one record less: a partial as a shard could have written it.
    static func dropOneViolation(_ part: String) throws {
        var lines = try String(contentsOfFile: part, encoding: .utf8).split(separator: "\n")
            .map(String.init)
        func rule(_ line: String) -> String? {
            guard line.hasPrefix(#"{"violation":{"rule":"#) else { return nil }
            return String(line.dropFirst(22).prefix { $0 != "," })
        }
        var counts: [String: Int] = [:]
        for line in lines { if let r = rule(line) { counts[r, default: 0] += 1 } }
        let most = try #require(counts.max { $0.value < $1.value })
        #expect(most.value > CommandLineTool.shownFindings, "the rule is read again")
        let at = try #require(lines.lastIndex { rule($0) == most.key })
        lines.remove(at: at)
        let end = lines.count - 1
        #expect(lines[end].hasPrefix(#"{"end":"#))
        lines[end] = #"{"end":{"records":\#(end)}}"#
        try (lines.joined(separator: "\n") + "\n").write(
            toFile: part, atomically: true, encoding: .utf8)
    }

    /// Merges `parts` with `options`, the text report on standard output; the first piece
    /// printed there changes the first partial (after the merge's first readings, before the
    /// reports that list every finding read it again).
    static func mergeChangingAPartial(_ parts: [String], _ options: [String]) -> (
        code: Int32, err: String, changed: Bool
    ) {
        final class State: @unchecked Sendable {
            var err = ""
            var changed = false
        }
        let state = State()
        let console = Console(
            out: { _ in
                guard !state.changed else { return }
                state.changed = true
                #expect(throws: Never.self) { try dropOneViolation(parts[0]) }
            },
            err: { state.err += $0 }, isTerminal: false)
        let code = CommandLineTool.run(["merge"] + parts + options, console: console)
        return (code, state.err, state.changed)
    }

    static func leftovers(in dir: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir).filter {
            $0.hasPrefix(".conn-audit-")
        }
    }

    @Test(arguments: [false, true])
    func noReportFileIsPutInPlace(suppressions: Bool) throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        var config = ["--no-config"]
        if suppressions {
            try """
            suppressions:
              - rule: "ws.*"
                src: "ipad-*"
                reason: "known on tablets"
                expires: 2999-12-31
            """.write(toFile: dir + "/c.yaml", atomically: true, encoding: .utf8)
            config = ["--config", dir + "/c.yaml"]
        }
        let parts = try Self.partials(in: dir, config: config)
        try "an older report\n".write(toFile: dir + "/junit.xml", atomically: true, encoding: .utf8)
        let run = Self.mergeChangingAPartial(
            parts,
            config + [
                "--report", "json=\(dir)/report.json", "--report", "junit=\(dir)/junit.xml",
                "--report", "sarif=\(dir)/report.sarif", "--write-exact-baseline",
                dir + "/baseline.json"
            ])
        #expect(run.changed)
        #expect(run.code == 2)
        #expect(run.err.contains("changed while they were merged"), "\(run.err)")
        // Nor does it say it wrote the baseline.
        #expect(!run.err.contains("to the baseline"), "\(run.err)")
        for name in ["report.json", "report.sarif", "baseline.json"] {
            #expect(!FileManager.default.fileExists(atPath: dir + "/" + name), "\(name)")
        }
        #expect(
            try String(contentsOfFile: dir + "/junit.xml", encoding: .utf8) == "an older report\n")
        #expect(try Self.leftovers(in: dir).isEmpty)
    }

    @Test func unchangedPartialsPutEveryFileInPlace() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let parts = try Self.partials(in: dir, config: ["--no-config"])
        let run = CommandLineRun(
            ["merge"] + parts + [
                "--no-config", "--report", "json=\(dir)/report.json",
                "--write-exact-baseline", dir + "/baseline.json"
            ])
        #expect(run.code == 1, "\(run.err)")
        #expect(run.err.contains("violations to the baseline \(dir)/baseline.json"), "\(run.err)")
        #expect(FileManager.default.fileExists(atPath: dir + "/report.json"))
        #expect(FileManager.default.fileExists(atPath: dir + "/baseline.json"))
        #expect(try Self.leftovers(in: dir).isEmpty)
    }
}

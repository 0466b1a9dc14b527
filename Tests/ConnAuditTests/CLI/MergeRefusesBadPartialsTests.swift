import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A partial that cannot stand for its shard — another format version, cut short, of another
/// run (other files, another N, other rules), a shard missing or given twice, not a partial at
/// all — is refused with a message naming it and why: exit 2, nothing written, no crash. So is a
/// corpus rule whose verdict cannot be merged from per-shard parts, by its id.
@Suite("merge refuses partials that are not one run's")
struct MergeRefusesBadPartialsTests {
    /// Writes the partials of `shards` over samples/ into `dir`, with `options`; their paths.
    static func partials(
        _ shards: Int, in dir: String, options: [String] = [], name: String = "part"
    ) throws -> [String] {
        try (1...shards).map { k in
            let path = "\(dir)/\(name)-\(k).jsonl"
            let run = CommandLineRun(
                [
                    Repository.samples, "--no-config", "--shard", "\(k)/\(shards)", "-f", "partial",
                    "-o", path
                ] + options)
            try #require(run.code == 0, "\(run.err)")
            return path
        }
    }

    static func merge(_ parts: [String], _ options: [String] = []) -> CommandLineRun {
        CommandLineRun(["merge"] + parts + ["--no-config"] + options)
    }

    static func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    static func write(_ lines: [String], _ path: String) throws {
        try (lines.joined(separator: "\n") + "\n").write(
            toFile: path, atomically: true, encoding: .utf8)
    }

    @Test func aPartialOfAnotherFormatVersion() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let parts = try Self.partials(2, in: dir)
        var lines = try Self.lines(parts[1])
        let (ours, other) = (PartialReport.version, PartialReport.version + 1)
        #expect(lines[0].contains("\"version\":\(ours),"))
        lines[0] = lines[0].replacingOccurrences(
            of: "\"version\":\(ours),", with: "\"version\":\(other),")
        try Self.write(lines, parts[1])
        let run = Self.merge(parts)
        #expect(run.code == 2)
        #expect(run.out.isEmpty)
        #expect(run.err.contains("\(parts[1]) is of partial format version \(other)"))
        #expect(run.err.contains("reads version \(ours)"))
    }

    /// A log that grew between two shards: the shards read different files, whatever their
    /// paths say.
    @Test func aFileThatChangedBetweenShards() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let logs = dir + "/logs"
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
        let log = logs + "/d.jsonl"
        try #"{"t":1,"src":"d","ev":"ws.connect","gen":1}"#.appending("\n").write(
            toFile: log, atomically: true, encoding: .utf8)
        var parts: [String] = []
        for k in 1...2 {
            let path = "\(dir)/part-\(k).jsonl"
            let run = CommandLineRun(
                [logs, "--no-config", "--shard", "\(k)/2", "-f", "partial", "-o", path])
            try #require(run.code == 0, "\(run.err)")
            parts.append(path)
            // The log grows after the first shard read it.
            let handle = try #require(FileHandle(forWritingAtPath: log))
            handle.seekToEndOfFile()
            handle.write(Data(#"{"t":2,"src":"d","ev":"ws.open","gen":1}"#.appending("\n").utf8))
            try handle.close()
        }
        let run = Self.merge(parts)
        #expect(run.code == 2)
        #expect(run.out.isEmpty)
        #expect(run.err.contains("was made from other input files"), "\(run.err)")
    }

    @Test func aPartialOfAnotherConnAuditVersion() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let parts = try Self.partials(2, in: dir)
        var lines = try Self.lines(parts[0])
        lines[0] = lines[0].replacingOccurrences(
            of: "\"tool\":\"\(ConnAuditVersion.string)\"", with: "\"tool\":\"9.9.9\"")
        try Self.write(lines, parts[0])
        let run = Self.merge(parts)
        #expect(run.code == 2)
        #expect(run.out.isEmpty)
        #expect(run.err.contains("\(parts[0]) was written by conn-audit 9.9.9"), "\(run.err)")
    }

    @Test func aTruncatedPartial() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let parts = try Self.partials(2, in: dir)
        let whole = try Data(contentsOf: URL(fileURLWithPath: parts[0]))
        let lines = try Self.lines(parts[0])
        // Cut at a line's end (the end record lost), and in the middle of a line.
        try Self.write(Array(lines.dropLast()), parts[0])
        var run = Self.merge(parts)
        #expect(run.code == 2)
        #expect(run.err.contains("\(parts[0]) is cut short: it has no end record"))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: parts[0]))
        run = Self.merge(parts)
        #expect(run.code == 2)
        #expect(run.err.contains(parts[0]))
        #expect(run.err.contains("cut short"))
        // Empty.
        try Data().write(to: URL(fileURLWithPath: parts[0]))
        run = Self.merge(parts)
        #expect(run.code == 2)
        #expect(run.err.contains("\(parts[0]) is empty"))
        // A record dropped from the middle: the end record's count tells.
        try Self.write(lines.enumerated().filter { $0.offset != 2 }.map(\.element), parts[0])
        run = Self.merge(parts)
        #expect(run.code == 2)
        #expect(run.err.contains("does not count its"))
    }

    @Test func shardsOfADifferentNumberOfShards() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let two = try Self.partials(2, in: dir, name: "two")
        let three = try Self.partials(3, in: dir, name: "three")
        let run = Self.merge([two[0], three[1], three[2]])
        #expect(run.code == 2)
        #expect(run.err.contains("is shard 2/3 of 3, another partial is of 2"))
    }

    @Test func shardsOfOtherRulesOrParams() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let plain = try Self.partials(2, in: dir, name: "plain")
        let skipped = try Self.partials(
            2, in: dir, options: ["--skip", "ws.single-close"], name: "skip")
        var run = Self.merge([plain[0], skipped[1]])
        #expect(run.code == 2)
        #expect(run.err.contains("\(skipped[1]) was made with other rules"))
        // The merge's own rules must be the shards' too.
        run = Self.merge(plain, ["--param", "timeout_ms=5000"])
        #expect(run.code == 2)
        #expect(run.err.contains("was made with other rules or --param values"))
        run = Self.merge(skipped)
        #expect(run.code == 2)
        #expect(run.err.contains("was made with other rules"))
        #expect(Self.merge(skipped, ["--skip", "ws.single-close"]).code == 1)
    }

    @Test func shardsOfOtherFiles() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let all = try Self.partials(2, in: dir, name: "all")
        let run0 = CommandLineRun(
            [
                Repository.samples + "/violations", "--no-config", "--shard", "2/2", "-f",
                "partial",
                "-o", dir + "/other.jsonl"
            ])
        try #require(run0.code == 0)
        let run = Self.merge([all[0], dir + "/other.jsonl"])
        #expect(run.code == 2)
        #expect(run.err.contains("was made from other input files"))
    }

    @Test func aMissingOrRepeatedShard() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let parts = try Self.partials(3, in: dir)
        var run = Self.merge([parts[0], parts[2]])
        #expect(run.code == 2)
        #expect(run.err.contains("the partials are 2 of 3 shards: shard 2/3 missing"))
        run = Self.merge([parts[0], parts[1], parts[1], parts[2]])
        #expect(run.code == 2)
        #expect(run.err.contains("is shard 2/3 again"))
    }

    @Test func aFileThatIsNoPartial() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        var run = Self.merge([Repository.samples + "/healthy/ipad-j.jsonl"])
        #expect(run.code == 2)
        #expect(run.err.contains("is not a conn-audit partial result"))
        run = Self.merge([dir + "/none.jsonl"])
        #expect(run.code == 2)
        #expect(run.err.contains("cannot read the partial \(dir)/none.jsonl"))
        run = Self.merge([])
        #expect(run.code == 2)
        #expect(run.err.contains("no PART given"))
        // A record of an unknown kind, and one with a rule out of range.
        let parts = try Self.partials(1, in: dir)
        var lines = try Self.lines(parts[0])
        lines.insert("{\"mystery\":{}}", at: 1)
        try Self.write(lines, parts[0])
        run = Self.merge(parts)
        #expect(run.code == 2)
        #expect(run.err.contains("an unknown record 'mystery'"))
        lines.remove(at: 1)
        lines.insert("{\"violation\":{\"rule\":99999,\"message\":\"x\"}}", at: 1)
        try Self.write(lines, parts[0])
        run = Self.merge(parts)
        #expect(run.code == 2)
        #expect(run.err.contains("a finding without its rule"))
    }

    @Test func aCorpusRuleThatCannotBeMergedIsNamed() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let rules = dir + "/corpus.yaml"
        try """
        rules:
          - id: corpus.few-malformed
            title: At most two malformed lines in the whole corpus
            severity: error
            for: corpus
            count: { ev: $malformed }
            max: 2
        """.write(toFile: rules, atomically: true, encoding: .utf8)
        let options = ["--rules", rules, "--no-config"]
        var run = CommandLineRun(
            [Repository.samples, "--shard", "1/2", "-f", "partial", "-o", dir + "/p"] + options)
        #expect(run.code == 2)
        #expect(run.err.contains("the corpus rule corpus.few-malformed"))
        #expect(run.err.contains("cannot be merged"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/p"))
        // One shard is the whole run: nothing to merge across.
        run = CommandLineRun(
            [Repository.samples, "--shard", "1/1", "-f", "partial", "-o", dir + "/p"] + options)
        #expect(run.code == 0)
        let single = CommandLineRun([Repository.samples] + options)
        let merged = CommandLineRun(["merge", dir + "/p"] + options)
        #expect(merged.out == single.out)
        #expect(merged.code == single.code)
    }

    @Test func badShardOptions() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        for bad in ["0/3", "4/3", "1/0", "a/b", "1", "1/3/3", "-1/3", "1/99999999"] {
            let run = CommandLineRun(
                [Repository.samples, "--no-config", "--shard", bad, "-f", "partial"])
            #expect(run.code == 2, "\(bad)")
            #expect(run.err.contains("--shard takes K/N"), "\(bad)")
        }
        var run = CommandLineRun([Repository.samples, "--no-config", "--shard", "1/2"])
        #expect(run.code == 2)
        #expect(run.err.contains("give --format partial too"))
        run = CommandLineRun(
            ["-", "--no-config", "--shard", "1/2", "-f", "partial"])
        #expect(run.code == 2)
        #expect(run.err.contains("standard input cannot be read by several shards"))
        run = CommandLineRun(
            [
                Repository.samples, "--no-config", "--shard", "1/2", "-f", "partial", "--report",
                "json=\(dir)/r.json"
            ])
        #expect(run.code == 2)
        #expect(run.err.contains("--report is for 'conn-audit merge'"))
        run = CommandLineRun(["merge", "--no-config", "-f", "partial", dir + "/x"])
        #expect(run.code == 2)
        #expect(run.err.contains("--format must be one of"))
    }

    /// Counts edited by hand: too large to sum, negative, a file whose lines are not its events,
    /// malformed and blank lines, a file list too long to hold. Each is refused, exit 2, where an
    /// unchecked sum would trap or an allocation abort.
    @Test(arguments: [
        (#""lines":10,"#, #""lines":9223372036854775807,"#, "a file record without its counts"),
        (#""lines":10,"#, #""lines":-1,"#, "a file record without its counts"),
        (#""lines":10,"#, #""lines":11,"#, "counts 11 lines in"),
        (#""sources":5,"#, #""sources":1125899906842624,"#, "counts more sources than any run"),
        (#""file_count":11,"#, #""file_count":100000000000,"#, "has a header without its shard")
    ])
    func handEditedCounts(_ edit: (from: String, to: String, says: String)) throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let parts = try Self.partials(2, in: dir)
        // The edit goes where its text stands in either partial (the file record with 10 lines is
        // in one of them).
        var edited = false
        for path in parts {
            let lines = try Self.lines(path)
            guard let i = lines.firstIndex(where: { $0.contains(edit.from) }) else { continue }
            var changed = lines
            changed[i] = lines[i].replacingOccurrences(of: edit.from, with: edit.to)
            // A second sources record, as a hand-made partial could add, sums past the bound.
            if edit.from.contains("sources") { changed.insert(changed[i], at: i) }
            try Self.write(changed, path)
            edited = true
            break
        }
        try #require(edited, "no partial holds \(edit.from)")
        let run = Self.merge(parts)
        #expect(run.code == 2, "\(run.err)")
        #expect(run.out.isEmpty)
        #expect(run.err.contains(edit.says), "\(run.err)")
    }
}

import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@testable import ConnAudit
import ConnAuditTestSupport

/// The helpers the hostile-input suites share (`HostileLogBytesTests`, `HostileGzipTests`, …).
///
/// Hostile inputs are what devices upload and what many people write as rules.
/// "A crash or a hang is a failed gate, and a silently skipped line is a wrong verdict." Each case
/// runs the command line (or the ``Auditor`` where the file system must change mid-run) and checks
/// the message and its location, the exit status (cli.md: 0, 1, 2), a generous time bound (a hang
/// fails, a loaded 2-core CI machine passes) and, where lines surround the damage, that every good
/// line still reached the rules and that `lines == events + malformed + blank` for every file.
///
/// Most cases run two rule sets together: the built-in `10-log.yaml` (so `log.malformed` and
/// `log.no-secrets` are the real rules) and `probe.seen`, which reports every `probe.hit` event —
/// a violation of `probe.seen` at a line proves that line was read, parsed and fed to the rules.
enum Hostile {
    /// Generous: a hang fails, a slow shared CI machine does not.
    static let timeLimit: Duration = .seconds(20)

    /// For a million lines: a debug build reads about 85,000 lines a second on the 2-core machine
    /// these tests were written on (about 12 s here, 15.6 s with the whole pack), so 20 s would be
    /// too tight.
    static let millionLineLimit: Duration = .seconds(60)

    struct Run {
        var code: Int32
        var out: String
        var err: String
        var elapsed: Duration
    }

    /// Runs the command line with a capturing console, timing it.
    static func runCLI(_ arguments: [String]) -> Run {
        let start = ContinuousClock.now
        let run = CommandLineRun(arguments)
        return Run(code: run.code, out: run.out, err: run.err, elapsed: .now - start)
    }

    /// `arguments` run with `--format json` and checked as most cases check a run: exit status
    /// `code`, an end within `limit`, and a report whose lines add up (``expectAccounting(_:)``).
    static func checkedJSONRun(
        _ arguments: [String], code: Int32 = 1, within limit: Duration = timeLimit,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (run: Run, report: [String: Any]) {
        let run = runCLI(arguments + ["--format", "json"])
        #expect(run.code == code, "\(run.err)", sourceLocation: sourceLocation)
        #expect(run.elapsed < limit, "took \(run.elapsed)", sourceLocation: sourceLocation)
        let report = try parseReport(run.out, sourceLocation: sourceLocation)
        try expectAccounting(report, sourceLocation: sourceLocation)
        return (run, report)
    }

    struct ScratchError: Error, CustomStringConvertible {
        var description: String
    }

    /// Writes `bytes` to `dir/name` (creating folders) and returns the path.
    @discardableResult
    static func put(_ bytes: [UInt8], _ dir: String, _ name: String) throws -> String {
        let path = dir + "/" + name
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @discardableResult
    static func put(_ text: String, _ dir: String, _ name: String) throws -> String {
        try put(Array(text.utf8), dir, name)
    }

    /// A file written piece by piece, so a 100 MB input never exists in memory.
    final class StreamingFile {
        private let handle: UnsafeMutablePointer<FILE>
        let path: String

        init(_ path: String) throws {
            guard let handle = fopen(path, "wb") else {
                throw ScratchError(description: "cannot create \(path)")
            }
            self.handle = handle
            self.path = path
        }

        func write(_ bytes: [UInt8]) throws {
            let written = bytes.withUnsafeBufferPointer {
                fwrite($0.baseAddress, 1, $0.count, handle)
            }
            guard written == bytes.count else {
                throw ScratchError(description: "short write to \(path)")
            }
        }

        func close() throws {
            guard fclose(handle) == 0 else {
                throw ScratchError(description: "cannot close \(path)")
            }
        }
    }

    /// A valid event that `probe.seen` reports: its violation at a line proves the line was
    /// checked.
    static func probe(_ t: Int, src: String? = nil) -> String {
        if let src { return #"{"t":\#(t),"src":"\#(src)","ev":"probe.hit"}"# }
        return #"{"t":\#(t),"ev":"probe.hit"}"#
    }

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    static let newline: [UInt8] = [0x0A]
    static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Every `probe.hit` event is a violation, at its file:line.
    static let probeRules = """
        rules:
          - id: probe.seen
            title: Every probe line reaches the rules
            for: source
            never: { ev: probe.hit }
        """

    /// A rules directory: the built-in `10-log.yaml` (the real `log.*` rules) plus `extra`.
    static func rulesDirectory(_ dir: String, extra: String = probeRules) throws -> String {
        let log = try #require(BuiltinPack.files.first { $0.name == "10-log.yaml" })
        try put(log.text, dir + "/rules", "10-log.yaml")
        try put(extra, dir + "/rules", "90-probe.yaml")
        return dir + "/rules"
    }

    // MARK: JSON report access

    static func parseReport(_ text: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws
        -> [String: Any]
    {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try #require(
            object as? [String: Any], "not a JSON object: \(text.prefix(300))",
            sourceLocation: sourceLocation)
    }

    struct FileCounts: Equatable, CustomStringConvertible {
        var lines: Int
        var events: Int
        var malformed: Int
        var blank: Int
        var error: String?

        var description: String {
            "lines \(lines), events \(events), malformed \(malformed), blank \(blank), error \(error ?? "none")"
        }
    }

    static func fileCounts(
        _ report: [String: Any], _ path: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws
        -> FileCounts
    {
        let files = try #require(
            report["files"] as? [[String: Any]], sourceLocation: sourceLocation)
        let entry = try #require(
            files.first { $0["path"] as? String == path },
            "no files[] entry for \(path) in \(files.map { $0["path"] ?? "?" })",
            sourceLocation: sourceLocation)
        return FileCounts(
            lines: entry["lines"] as? Int ?? -1, events: entry["events"] as? Int ?? -1,
            malformed: entry["malformed"] as? Int ?? -1, blank: entry["blank"] as? Int ?? -1,
            error: entry["error"] as? String)
    }

    static func violations(
        _ report: [String: Any], _ id: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws
        -> [[String: Any]]
    {
        let rules = try #require(
            report["rules"] as? [[String: Any]], sourceLocation: sourceLocation)
        let rule = try #require(
            rules.first { $0["id"] as? String == id }, "no rule \(id) in the report",
            sourceLocation: sourceLocation)
        return try #require(rule["violations"] as? [[String: Any]], sourceLocation: sourceLocation)
    }

    /// The lines of `file` where rule `id` has a violation, sorted.
    static func violationLines(
        _ report: [String: Any], _ id: String, file: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [Int] {
        try violations(report, id, sourceLocation: sourceLocation)
            .filter { $0["file"] as? String == file }
            .compactMap { $0["line"] as? Int }
            .sorted()
    }

    /// `log.malformed` messages of `file` by line.
    static func malformedMessages(
        _ report: [String: Any], file: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [Int: String] {
        var out: [Int: String] = [:]
        for v in try violations(report, "log.malformed", sourceLocation: sourceLocation)
        where v["file"] as? String == file {
            if let line = v["line"] as? Int { out[line] = v["message"] as? String ?? "" }
        }
        return out
    }

    /// `lines == events + malformed + blank` for every file and for `inputs`; `inputs` is the sum
    /// of the files; and when `log.malformed` ran, it has exactly one violation per malformed line
    /// (none skipped).
    static func expectAccounting(
        _ report: [String: Any], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let files = try #require(
            report["files"] as? [[String: Any]], sourceLocation: sourceLocation)
        let inputs = try #require(
            report["inputs"] as? [String: Any], sourceLocation: sourceLocation)
        var sums = (lines: 0, events: 0, malformed: 0, blank: 0)
        for f in files {
            let l = f["lines"] as? Int ?? -1, e = f["events"] as? Int ?? -1
            let m = f["malformed"] as? Int ?? -1, b = f["blank"] as? Int ?? -1
            #expect(
                l == e + m + b,
                "\(f["path"] ?? "?"): lines \(l) != events \(e) + malformed \(m) + blank \(b)",
                sourceLocation: sourceLocation)
            sums.lines += l
            sums.events += e
            sums.malformed += m
            sums.blank += b
        }
        #expect(inputs["files"] as? Int == files.count, sourceLocation: sourceLocation)
        #expect(inputs["lines"] as? Int == sums.lines, sourceLocation: sourceLocation)
        #expect(inputs["events"] as? Int == sums.events, sourceLocation: sourceLocation)
        #expect(inputs["malformed"] as? Int == sums.malformed, sourceLocation: sourceLocation)
        #expect(inputs["blank"] as? Int == sums.blank, sourceLocation: sourceLocation)
        let rules = report["rules"] as? [[String: Any]] ?? []
        if let malformed = rules.first(where: { $0["id"] as? String == "log.malformed" }) {
            let count = (malformed["violations"] as? [Any])?.count ?? -1
            #expect(
                count == sums.malformed,
                "log.malformed has \(count) violations for \(sums.malformed) malformed lines",
                sourceLocation: sourceLocation)
        }
    }

    /// What the reader must make of `content` (connlog.md "Lines" and "Fine print"), computed
    /// independently: physical lines, and how many of them are blank.
    static func physicalLines(_ content: [UInt8]) -> (lines: Int, blank: Int) {
        var pieces = content.split(separator: 0x0A, omittingEmptySubsequences: false)
        if content.last == 0x0A { pieces.removeLast() }
        var blank = 0
        for (index, piece) in pieces.enumerated() {
            var line = piece[...]
            if index == 0, line.starts(with: bom) { line = line.dropFirst(3) }
            if line.last == 0x0D { line = line.dropLast() }
            if line.allSatisfy({ $0 == 0x20 || (0x09...0x0D).contains($0) }) { blank += 1 }
        }
        return (pieces.count, blank)
    }
}

import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@testable import ConnAudit
import ConnAuditTestSupport

/// Hostile inputs: what devices upload and what many people write as rules.
///
/// "A crash or a hang is a failed gate, and a silently skipped line is a wrong verdict." Each case
/// runs the command line (or the ``Auditor`` where the file system must change mid-run) and checks
/// the message and its location, the exit status (cli.md: 0, 1, 2), a generous time bound (a hang
/// fails, a loaded 2-core CI machine passes) and, where lines surround the damage, that every good
/// line still reached the rules and that `lines == events + malformed + blank` for every file.
///
/// Most cases run two rule sets together: the built-in `10-log.yaml` (so `log.malformed` and
/// `log.no-secrets` are the real rules) and `probe.seen`, which reports every `probe.hit` event —
/// a violation of `probe.seen` at a line proves that line was read, parsed and fed to the rules.
@Suite("Hostile input", .timeLimit(.minutes(2)))
struct HostileInputTests {}

// MARK: - Helpers

/// Generous: a hang fails, a slow shared CI machine does not.
private let timeLimit: Duration = .seconds(20)

/// For a million lines: a debug build reads about 85,000 lines a second on the 2-core machine these
/// tests were written on (about 12 s here, 15.6 s with the whole pack), so 20 s would be too tight.
private let millionLineLimit: Duration = .seconds(60)

private struct HostileRun {
    var code: Int32
    var out: String
    var err: String
    var elapsed: Duration
}

private final class HostileCapture: @unchecked Sendable {
    var out = ""
    var err = ""
}

/// Runs the command line with a capturing console, timing it.
private func runCLI(_ arguments: [String]) -> HostileRun {
    let captured = HostileCapture()
    let console = Console(
        out: { captured.out += $0 }, err: { captured.err += $0 }, isTerminal: false)
    var code: Int32 = -1
    let elapsed = ContinuousClock().measure {
        code = CommandLineTool.run(arguments, console: console)
    }
    return HostileRun(code: code, out: captured.out, err: captured.err, elapsed: elapsed)
}

private struct ScratchError: Error, CustomStringConvertible {
    var description: String
}

/// Runs `body` with a fresh directory, removed afterwards (even when a case made parts of it
/// unreadable).
private func withScratch(_ body: (String) throws -> Void) throws {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("conn-audit-hostile-\(UUID().uuidString)", isDirectory: true).path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer {
        restorePermissions(path)
        try? FileManager.default.removeItem(atPath: path)
    }
    try body(path)
}

/// Makes everything under `path` removable again after a permissions case.
private func restorePermissions(_ path: String) {
    _ = chmod(path, 0o755)
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
    for name in names {
        let child = path + "/" + name
        var info = stat()
        guard lstat(child, &info) == 0 else { continue }
        if info.st_mode & S_IFMT == S_IFDIR {
            restorePermissions(child)
        } else if info.st_mode & S_IFMT == S_IFREG {
            _ = chmod(child, 0o644)
        }
    }
}

/// Writes `bytes` to `dir/name` (creating folders) and returns the path.
@discardableResult
private func put(_ bytes: [UInt8], _ dir: String, _ name: String) throws -> String {
    let path = dir + "/" + name
    try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
}

@discardableResult
private func put(_ text: String, _ dir: String, _ name: String) throws -> String {
    try put(Array(text.utf8), dir, name)
}

/// A file written piece by piece, so a 100 MB input never exists in memory.
private final class StreamingFile {
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
        let written = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, handle) }
        guard written == bytes.count else {
            throw ScratchError(description: "short write to \(path)")
        }
    }

    func close() throws {
        guard fclose(handle) == 0 else { throw ScratchError(description: "cannot close \(path)") }
    }
}

/// A valid event that `probe.seen` reports: its violation at a line proves the line was checked.
private func probe(_ t: Int, src: String? = nil) -> String {
    if let src { return #"{"t":\#(t),"src":"\#(src)","ev":"probe.hit"}"# }
    return #"{"t":\#(t),"ev":"probe.hit"}"#
}

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

private let newline: [UInt8] = [0x0A]
private let bom: [UInt8] = [0xEF, 0xBB, 0xBF]

/// Every `probe.hit` event is a violation, at its file:line.
private let probeRules = """
    rules:
      - id: probe.seen
        title: Every probe line reaches the rules
        for: source
        never: { ev: probe.hit }
    """

/// A rules directory: the built-in `10-log.yaml` (the real `log.*` rules) plus `extra`.
private func rulesDirectory(_ dir: String, extra: String = probeRules) throws -> String {
    let log = try #require(BuiltinPack.files.first { $0.name == "10-log.yaml" })
    try put(log.text, dir + "/rules", "10-log.yaml")
    try put(extra, dir + "/rules", "90-probe.yaml")
    return dir + "/rules"
}

// MARK: JSON report access

private func parseReport(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws
    -> [String: Any]
{
    let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
    return try #require(
        object as? [String: Any], "not a JSON object: \(text.prefix(300))",
        sourceLocation: sourceLocation)
}

private struct FileCounts: Equatable, CustomStringConvertible {
    var lines: Int
    var events: Int
    var malformed: Int
    var blank: Int
    var error: String?

    var description: String {
        "lines \(lines), events \(events), malformed \(malformed), blank \(blank), error \(error ?? "none")"
    }
}

private func fileCounts(
    _ report: [String: Any], _ path: String, sourceLocation: SourceLocation = #_sourceLocation
) throws
    -> FileCounts
{
    let files = try #require(report["files"] as? [[String: Any]], sourceLocation: sourceLocation)
    let entry = try #require(
        files.first { $0["path"] as? String == path },
        "no files[] entry for \(path) in \(files.map { $0["path"] ?? "?" })",
        sourceLocation: sourceLocation)
    return FileCounts(
        lines: entry["lines"] as? Int ?? -1, events: entry["events"] as? Int ?? -1,
        malformed: entry["malformed"] as? Int ?? -1, blank: entry["blank"] as? Int ?? -1,
        error: entry["error"] as? String)
}

private func violations(
    _ report: [String: Any], _ id: String, sourceLocation: SourceLocation = #_sourceLocation
) throws
    -> [[String: Any]]
{
    let rules = try #require(report["rules"] as? [[String: Any]], sourceLocation: sourceLocation)
    let rule = try #require(
        rules.first { $0["id"] as? String == id }, "no rule \(id) in the report",
        sourceLocation: sourceLocation)
    return try #require(rule["violations"] as? [[String: Any]], sourceLocation: sourceLocation)
}

/// The lines of `file` where rule `id` has a violation, sorted.
private func violationLines(
    _ report: [String: Any], _ id: String, file: String,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> [Int] {
    try violations(report, id, sourceLocation: sourceLocation)
        .filter { $0["file"] as? String == file }
        .compactMap { $0["line"] as? Int }
        .sorted()
}

/// `log.malformed` messages of `file` by line.
private func malformedMessages(
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

/// `lines == events + malformed + blank` for every file and for `inputs`; `inputs` is the sum of
/// the files; and when `log.malformed` ran, it has exactly one violation per malformed line (none
/// skipped).
private func expectAccounting(
    _ report: [String: Any], sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let files = try #require(report["files"] as? [[String: Any]], sourceLocation: sourceLocation)
    let inputs = try #require(report["inputs"] as? [String: Any], sourceLocation: sourceLocation)
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
private func physicalLines(_ content: [UInt8]) -> (lines: Int, blank: Int) {
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

// MARK: - Logs: bytes that are not connlog

extension HostileInputTests {
    @Test func binaryGarbageIsMalformedLineByLineAndTheGoodLinesAroundItAreChecked() throws {
        try withScratch { dir in
            var random = SplitMix64(state: 0xC0FFEE)
            var garbage = random.bytes(64 * 1024)
            // Plenty of NULs, and never the gzip magic at the start of a line.
            for i in stride(from: 0, to: garbage.count, by: 97) { garbage[i] = 0 }
            let content = bytes(probe(1)) + newline + garbage + newline + bytes(probe(2)) + newline
            let log = try put(content, dir, "garbage.jsonl")
            let expected = physicalLines(content)
            #expect(expected.lines > 100, "the garbage should hold many newlines")

            let rules = try rulesDirectory(dir)
            let run = runCLI([log, "--rules", rules, "--format", "json"])
            #expect(run.code == 1, "\(run.err)")
            #expect(run.err.isEmpty, "\(run.err)")
            #expect(run.elapsed < timeLimit)
            let report = try parseReport(run.out)
            try expectAccounting(report)
            let counts = try fileCounts(report, log)
            #expect(
                counts
                    == FileCounts(
                        lines: expected.lines, events: 2,
                        malformed: expected.lines - 2 - expected.blank,
                        blank: expected.blank, error: nil))
            #expect(try violationLines(report, "probe.seen", file: log) == [1, expected.lines])
            let messages = try malformedMessages(report, file: log)
            #expect(
                messages[2]?.hasPrefix("not a valid connlog event: ") == true,
                "\(messages[2] ?? "nil")")
            #expect(
                messages.values.allSatisfy { !$0.contains("\u{0}") },
                "a reason echoes a NUL from the log")

            let text = runCLI([log, "--rules", rules])
            #expect(text.code == 1)
            #expect(text.out.contains("\(log):2\n    not a valid connlog event: "))
            #expect(text.out.contains("verdict: FAIL"))
        }
    }

    @Test func invalidUTF8InKeysAndValuesIsMalformedWithTheBytePosition() throws {
        try withScratch { dir in
            // (line prefix before the bad bytes, bad bytes, rest)
            let bad: [(String, [UInt8], String)] = [
                (#"{"t":2,"ev":"probe.hit","k"#, [0xFF], #"":1}"#),  // in a key
                (#"{"t":3,"ev":"probe.hit","v":"a"#, [0xC3, 0x28], #""}"#),  // bad continuation
                (#"{"t":4,"ev":"probe.hit","v":""#, [0xC0, 0xAF], #""}"#),  // overlong '/'
                // UTF-16 surrogate
                (#"{"t":5,"ev":"probe.hit","v":""#, [0xED, 0xA0, 0x80], #""}"#),
                // cut-off 4-byte sequence
                (#"{"t":6,"ev":"probe.hit","v":""#, [0xF0, 0x9F, 0x98], #""}"#),
                (#"{"t":7,"ev":"probe."#, [0xFE], #""}"#),  // in `ev`
                // above U+10FFFF
                (#"{"t":8,"ev":"probe.hit","v":""#, [0xF4, 0x90, 0x80, 0x80], #""}"#),
                (#"{"t":9,"ev":"probe.hit"}"#, [0x80], ""),  // after the object
                (#"{"t":10,"ev":"probe.hit","n":{"deep":[""#, [0xFF], #""]}}"#)  // nested
            ]
            var content = bytes(probe(1)) + newline
            for (prefix, invalid, rest) in bad {
                content += bytes(prefix) + invalid + bytes(rest) + newline
            }
            // A lone surrogate *escape* is valid JSON text: it decodes as U+FFFD (docs/connlog.md).
            content += bytes(#"{"t":11,"ev":"probe.hit","v":"\uD800"}"#) + newline
            content += bytes(probe(12)) + newline
            let log = try put(content, dir, "utf8.jsonl")

            let run = runCLI([log, "--rules", try rulesDirectory(dir), "--format", "json"])
            #expect(run.code == 1, "\(run.err)")
            #expect(run.elapsed < timeLimit)
            let report = try parseReport(run.out)
            try expectAccounting(report)
            #expect(
                try fileCounts(report, log)
                    == FileCounts(lines: 12, events: 3, malformed: 9, blank: 0))
            #expect(try violationLines(report, "probe.seen", file: log) == [1, 11, 12])
            let messages = try malformedMessages(report, file: log)
            for (index, (prefix, _, _)) in bad.enumerated() {
                let line = index + 2
                let byte = prefix.utf8.count + 1
                #expect(
                    messages[line] == "not a valid connlog event: not valid UTF-8 (byte \(byte))",
                    "line \(line): \(messages[line] ?? "not reported")")
            }
        }
    }

    @Test func aHundredMegabyteLineIsMeasuredSkippedAndTheNextLineIsChecked() throws {
        try withScratch { dir in
            let path = dir + "/huge.jsonl"
            let length = 100 * 1024 * 1024
            let head = bytes(#"{"t":2,"ev":"probe.hit","pad":""#)
            let tail = bytes(#""}"#)
            let file = try StreamingFile(path)
            try file.write(bytes(probe(1)) + newline)
            try file.write(head)
            let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20)
            var left = length - head.count - tail.count
            while left > 0 {
                let n = min(left, chunk.count)
                try file.write(n == chunk.count ? chunk : Array(chunk[..<n]))
                left -= n
            }
            try file.write(tail + newline + bytes(probe(3)) + newline)
            try file.close()

            // The same at the end of a file, with no newline at all.
            let cut = try StreamingFile(dir + "/cut.jsonl")
            try cut.write(bytes(probe(1)) + newline)
            for _ in 0..<3 { try cut.write(chunk) }
            try cut.close()

            let run = runCLI([
                path, cut.path, "--rules", try rulesDirectory(dir), "--format", "json"
            ])
            #expect(run.code == 1, "\(run.err)")
            #expect(run.elapsed < timeLimit, "took \(run.elapsed)")
            let report = try parseReport(run.out)
            try expectAccounting(report)
            #expect(
                try fileCounts(report, path)
                    == FileCounts(lines: 3, events: 2, malformed: 1, blank: 0))
            #expect(try violationLines(report, "probe.seen", file: path) == [1, 3])
            #expect(
                try malformedMessages(report, file: path)
                    == [2: "not a valid connlog event: line is longer than 1 MiB (\(length) bytes)"]
            )
            #expect(
                try fileCounts(report, cut.path)
                    == FileCounts(lines: 2, events: 1, malformed: 1, blank: 0))
            #expect(
                try malformedMessages(report, file: cut.path)[2]?.contains(
                    "line is longer than 1 MiB (3145728 bytes)") == true)
        }
    }

    /// A line too long to hold is still judged by `log.no-secrets` (default-pack.md: every line
    /// that parses as a JSON object): its bytes are scanned as they are skipped. One that is not a
    /// JSON object, or not UTF-8, is only malformed. No report prints what the line holds.
    @Test func aLineLongerThanOneMebibyteIsScannedForSecrets() throws {
        try withScratch { dir in
            let size = 2 << 20
            func long(_ head: String, _ tail: [UInt8]) -> [UInt8] {
                bytes(head)
                    + [UInt8](
                        repeating: UInt8(ascii: "a"), count: size - head.utf8.count - tail.count)
                    + tail
            }
            let secret = long(
                #"{"t":2,"ev":"probe.hit","auth":{"Password":"hunter2"},"pad":""#,
                bytes(#"","note":"Bearer SECRETabcdefgh"}"#))
            let notObject = long(#"[{"t":3,"password":"hunter2","pad":""#, bytes(#""}]"#))
            let badUTF8 = long(#"{"t":4,"password":"hunter2","pad":""#, [0xFF] + bytes(#""}"#))
            let log = try put(
                bytes(probe(1)) + newline + secret + newline + notObject + newline + badUTF8
                    + newline
                    + bytes(probe(5)) + newline, dir, "long.jsonl")

            for format in ["text", "json", "sarif"] {
                let run = runCLI([log, "--rules", try rulesDirectory(dir), "--format", format])
                #expect(run.code == 1, "\(format): \(run.err)")
                #expect(run.elapsed < timeLimit, "\(format) took \(run.elapsed)")
                for shown in ["hunter2", "SECRET", "aaaaaaaa"] {
                    #expect(
                        !run.out.contains(shown) && !run.err.contains(shown),
                        "\(format) prints \(shown)")
                }
                guard format == "json" else { continue }
                let report = try parseReport(run.out)
                try expectAccounting(report)
                #expect(
                    try fileCounts(report, log)
                        == FileCounts(lines: 5, events: 2, malformed: 3, blank: 0))
                #expect(try violationLines(report, "probe.seen", file: log) == [1, 5])
                #expect(
                    try malformedMessages(report, file: log) == [
                        2: "not a valid connlog event: line is longer than 1 MiB (\(size) bytes)",
                        3: "not a valid connlog event: line is longer than 1 MiB (\(size) bytes)",
                        4: "not a valid connlog event: line is longer than 1 MiB (\(size) bytes)"
                    ])
                let secrets = try violations(report, "log.no-secrets")
                #expect(secrets.map { $0["line"] as? Int } == [2, 2])
                let messages = secrets.compactMap { $0["message"] as? String }
                #expect(
                    messages.count == 2 && messages[0].contains("'auth.Password'")
                        && messages[1].contains("'note'"),
                    "\(messages)")
            }
        }
    }

    /// Runs with `--only log.malformed`: the point is the reader and its counts, not the pack (the
    /// whole pack adds about 30 % in a debug build).
    @Test func aMillionTinyLinesAreAllCounted() throws {
        try withScratch { dir in
            let path = dir + "/million.jsonl"
            let file = try StreamingFile(path)
            var buffer: [UInt8] = []
            buffer.reserveCapacity(1 << 20 + 64)
            for i in 0..<1_000_000 {
                // line 500,001
                if i == 500_000 { buffer.append(contentsOf: "{\"t\":500000}\n".utf8) }
                buffer.append(contentsOf: "{\"t\":\(i),\"ev\":\"x\"}\n".utf8)
                if buffer.count >= 1 << 20 {
                    try file.write(buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            try file.write(buffer)
            try file.close()

            let run = runCLI([path, "--only", "log.malformed", "--format", "json"])
            #expect(run.code == 1, "\(run.err)")
            #expect(run.elapsed < millionLineLimit, "took \(run.elapsed)")
            let report = try parseReport(run.out)
            try expectAccounting(report)
            #expect(
                try fileCounts(report, path)
                    == FileCounts(lines: 1_000_001, events: 1_000_000, malformed: 1, blank: 0))
            #expect(
                try malformedMessages(report, file: path) == [
                    500_001: #"not a valid connlog event: missing "ev""#
                ])
        }
    }

    @Test func jsonNestedAHundredThousandDeepIsMalformedNotAStackOverflow() throws {
        try withScratch { dir in
            let n = 100_000
            let lines: [[UInt8]] = [
                bytes(probe(1)),
                bytes(#"{"t":2,"ev":"probe.hit","n":"#) + [UInt8](repeating: 0x5B, count: n)
                    + [UInt8](repeating: 0x5D, count: n) + bytes("}"),
                bytes(#"{"t":3,"ev":"probe.hit","n":"#)
                    + Array(String(repeating: #"{"a":"#, count: n).utf8) + bytes("1")
                    + [UInt8](repeating: 0x7D, count: n) + bytes("}"),
                [UInt8](repeating: 0x5B, count: n) + [UInt8](repeating: 0x5D, count: n),
                // Exactly 512 levels (the object and 511 arrays) is allowed; 513 is not.
                bytes(#"{"t":5,"ev":"probe.hit","n":"#) + [UInt8](repeating: 0x5B, count: 511)
                    + [UInt8](repeating: 0x5D, count: 511) + bytes("}"),
                bytes(#"{"t":6,"ev":"probe.hit","n":"#) + [UInt8](repeating: 0x5B, count: 512)
                    + [UInt8](repeating: 0x5D, count: 512) + bytes("}"),
                bytes(probe(7))
            ]
            var content = Array(lines.joined(separator: newline))
            // a cut-off last line, 10^5 deep
            content += newline + [UInt8](repeating: 0x5B, count: n)
            // Two files and two jobs: the parser also runs on worker threads, with their smaller
            // stacks.
            let a = try put(content, dir, "deep-a.jsonl")
            let b = try put(content, dir, "deep-b.jsonl")

            let run = runCLI([
                a, b, "--jobs", "2", "--rules", try rulesDirectory(dir), "--format", "json"
            ])
            #expect(run.code == 1, "\(run.err)")
            #expect(run.elapsed < timeLimit)
            let report = try parseReport(run.out)
            try expectAccounting(report)
            for log in [a, b] {
                #expect(
                    try fileCounts(report, log)
                        == FileCounts(lines: 8, events: 3, malformed: 5, blank: 0))
                #expect(try violationLines(report, "probe.seen", file: log) == [1, 5, 7])
                let messages = try malformedMessages(report, file: log)
                #expect(messages.keys.sorted() == [2, 3, 4, 6, 8])
                for line in [2, 3, 4, 6] {
                    #expect(
                        messages[line]?.hasPrefix(
                            "not a valid connlog event: not valid JSON: nested deeper than 512 (byte "
                        ) == true,
                        "line \(line): \(messages[line] ?? "not reported")")
                }
                #expect(
                    messages[8]?.hasPrefix(
                        "not a valid connlog event: last line is cut off (no newline at the end): not valid JSON: nested deeper than 512"
                    ) == true,
                    "\(messages[8] ?? "not reported")")
            }
        }
    }

    @Test func hugeNumbersAreJudgedWithoutTrapping() throws {
        try withScratch { dir in
            let lines = [
                #"{"t":1e400,"ev":"probe.hit"}"#,  // 1: overflows to infinity
                // 2: past Int64, a finite double
                #"{"t":123456789012345678901234567890,"ev":"probe.hit"}"#,
                #"{"t":-1e400,"ev":"probe.hit"}"#,  // 3
                #"{"t":1.7976931348623157e308,"ev":"probe.hit"}"#,  // 4: the largest double
                // 5: Int64.max
                #"{"t":1.7976931348623157e308,"ev":"probe.hit","gen":9223372036854775807}"#,
                // 6: 2^63, a gen (up to 2^64 - 1)
                #"{"t":1.7976931348623157e308,"ev":"probe.hit","gen":9223372036854775808}"#,
                // 7: 2^64
                #"{"t":1.7976931348623157e308,"ev":"probe.hit","gen":18446744073709551616}"#,
                #"{"t":1.7976931348623157e308,"ev":"probe.hit","gen":-9223372036854775809}"#,  // 8
                #"{"t":1.7976931348623157e308,"ev":"probe.hit","gen":1e400}"#  // 9
            ]
            let log = try put(lines.joined(separator: "\n") + "\n", dir, "numbers.jsonl")
            let run = runCLI([log, "--rules", try rulesDirectory(dir), "--format", "json"])
            #expect(run.code == 1, "\(run.err)")
            #expect(run.elapsed < timeLimit)
            let report = try parseReport(run.out)
            try expectAccounting(report)
            #expect(
                try fileCounts(report, log)
                    == FileCounts(lines: 9, events: 4, malformed: 5, blank: 0))
            #expect(try violationLines(report, "probe.seen", file: log) == [2, 4, 5, 6])
            let probeT =
                try violations(report, "probe.seen").first { $0["line"] as? Int == 2 }?["t"]
                as? Double
            // Foundation's JSONSerialization on Linux parses the exponent form a few ulps off:
            // compare loosely, and the text exactly.
            #expect(
                abs((probeT ?? 0) - 1.2345678901234568e29) / 1.2345678901234568e29 < 1e-12,
                "\(probeT ?? -1)")
            #expect(run.out.contains(#""t": 1.2345678901234568e+29"#))
            let messages = try malformedMessages(report, file: log)
            #expect(messages[1] == #"not a valid connlog event: "t" is not a finite number"#)
            #expect(messages[3] == #"not a valid connlog event: "t" is not a finite number"#)
            #expect(messages[8]?.contains(#""gen" is"#) == true)
            #expect(messages[9]?.contains(#""gen" is not a non-negative integer"#) == true)
            #expect(messages[6] == nil)
            #expect(
                messages[7]
                    == #"not a valid connlog event: "gen" is too large (at most 18446744073709551615)"#
            )

            // The whole default pack over the extreme values: no arithmetic trap anywhere.
            let pack = try put(
                """
                {"t":0,"src":"d","ev":"ws.connect","gen":9223372036854775807,"interval_ms":9223372036854775807,"timeout_ms":9223372036854775807}
                {"t":0,"src":"d","ev":"ws.open","gen":9223372036854775807}
                {"t":1.7976931348623157e308,"src":"d","ev":"ws.ping","gen":9223372036854775807}
                {"t":1.7976931348623157e308,"src":"d","ev":"ws.ping","gen":18446744073709551615}
                {"t":1.7976931348623157e308,"src":"d","ev":"ws.close","gen":9223372036854775807,"reason":"pong_timeout"}
                {"t":1.7976931348623157e308,"src":"d","ev":"ws.reconnect","attempt":9223372036854775807,"delay_ms":-9223372036854775808}
                {"t":1.7976931348623157e308,"src":"d","ev":"sse.connect","last_event_id":123456789012345678901234567890}
                {"t":1.7976931348623157e308,"src":"d","ev":"path.update","gen":9223372036854775807,"status":"satisfied"}

                """, dir, "pack.jsonl")
            for format in ["text", "json"] {
                let full = runCLI([pack, "--format", format])
                #expect(full.code == 1, "\(full.err)")
                #expect(full.elapsed < timeLimit)
            }
        }
    }

    @Test func nulBytesInsideLinesAreMalformed() throws {
        try withScratch { dir in
            let lines: [[UInt8]] = [
                bytes(probe(1)),
                // raw NUL in a string
                bytes(#"{"t":2,"ev":"probe.hit","v":"a"#) + [0] + bytes(#"b"}"#),
                bytes(probe(3)) + [0],  // after the object
                [0] + bytes(probe(4)),  // before it
                [0, 0, 0, 0],  // only NULs: not blank
                bytes(#"{"t":6,"ev":"probe.hit","v":"\u0000"}"#),  // an escaped NUL is valid JSON
                bytes(#"{"t":7,"#) + [0] + bytes(#""ev":"probe.hit"}"#),
                bytes(probe(8))
            ]
            let log = try put(lines.joined(separator: newline) + newline, dir, "nul.jsonl")
            let run = runCLI([log, "--rules", try rulesDirectory(dir), "--format", "json"])
            #expect(run.code == 1, "\(run.err)")
            #expect(run.elapsed < timeLimit)
            let report = try parseReport(run.out)
            try expectAccounting(report)
            #expect(
                try fileCounts(report, log)
                    == FileCounts(lines: 8, events: 3, malformed: 5, blank: 0))
            #expect(try violationLines(report, "probe.seen", file: log) == [1, 6, 8])
            let messages = try malformedMessages(report, file: log)
            let nulAt = #"{"t":2,"ev":"probe.hit","v":"a"#.utf8.count + 1
            #expect(
                messages[2]
                    == "not a valid connlog event: not valid JSON: control character in string (byte \(nulAt))"
            )
            #expect(
                messages[3]
                    == "not a valid connlog event: text after the JSON object (byte \(probe(3).utf8.count + 1))"
            )
            #expect(messages[4]?.hasPrefix("not a valid connlog event: not valid JSON: ") == true)
            #expect(messages[5]?.hasPrefix("not a valid connlog event: not valid JSON: ") == true)
            #expect(messages[7]?.hasPrefix("not a valid connlog event: not valid JSON: ") == true)
            #expect(!run.out.contains("\u{0}"))
        }
    }
}

// MARK: - Logs: damaged gzip

extension HostileInputTests {
    /// 4,000 lines of source `d`, hard to compress so the damage lands mid-text, and the gzip of
    /// them.
    private static func gzipCorpus() -> (plain: [UInt8], gzip: [UInt8], lines: Int) {
        var random = SplitMix64(state: 42)
        var plain: [UInt8] = []
        let count = 4000
        for i in 1...count {
            plain +=
                bytes(#"{"t":\#(i),"src":"d","ev":"probe.hit","id":"\#(random.hex(32))"}"#)
                + newline
        }
        return (plain, Gzip.compress(plain), count)
    }

    enum GzipDamage: String, CaseIterable, Sendable {
        case corruptMember = "corrupt member"
        case trailingGarbage = "trailing garbage"
        case truncated = "truncated"
        case truncatedInHeader = "truncated in the header"
        case trailerCut = "the last line without a newline, and the gzip trailer cut"
    }

    @Test(arguments: GzipDamage.allCases)
    func damagedGzipKeepsTheLinesBeforeTheDamageAndExitsTwo(_ damage: GzipDamage) throws {
        try withScratch { dir in
            let corpus = Self.gzipCorpus()
            var gz = corpus.gzip
            switch damage {
            case .corruptMember:
                let middle = gz.count / 2
                for i in middle..<middle + 16 { gz[i] ^= 0xFF }
            case .trailingGarbage:
                gz += bytes("this is not gzip\n")
            case .truncated:
                gz = Array(gz[..<(gz.count * 6 / 10)])
            case .truncatedInHeader:
                gz = Array(gz[..<5])
            case .trailerCut:
                gz = Gzip.compress(Array(corpus.plain.dropLast()))
                gz = Array(gz[..<(gz.count - 6)])
            }
            let damaged = try put(gz, dir, "damaged.jsonl.gz")
            // Another file, with another source, is still checked; and one more file of source `d`,
            // so the damaged file is read again in the merge (it must still be named only once).
            let other = try put(
                probe(1, src: "other") + "\n" + probe(2, src: "other") + "\n", dir, "other.jsonl")
            let later = try put(probe(1_000_000, src: "d") + "\n", dir, "later.jsonl")

            let run = runCLI([
                damaged, other, later, "--rules", try rulesDirectory(dir), "--format", "json"
            ])
            #expect(run.code == 2, "\(damage): \(run.err)")
            #expect(run.elapsed < timeLimit)
            let report = try parseReport(run.out)
            try expectAccounting(report)
            #expect(report["complete"] as? Bool == false)
            let errors = try #require(report["input_errors"] as? [[String: Any]])
            #expect(errors.map { $0["path"] as? String } == [damaged], "named once: \(errors)")
            let reason = try #require(errors.first?["reason"] as? String)
            #expect(
                run.err.contains("conn-audit: error: could not read \(damaged): \(reason)\n"),
                "\(run.err)")

            let counts = try fileCounts(report, damaged)
            #expect(counts.error == reason)
            let checked = try violationLines(report, "probe.seen", file: damaged)
            switch damage {
            case .corruptMember:
                #expect(
                    reason.hasPrefix("corrupt gzip data: "), "the zlib reason is given: \(reason)")
                // Everything well before the damage (a third of the text) was checked.
                #expect(
                    Set(1...corpus.lines / 3).isSubset(of: Set(checked)),
                    "\(checked.count) lines checked")
            case .trailingGarbage:
                #expect(reason == "trailing garbage after gzip data")
                #expect(
                    counts
                        == FileCounts(
                            lines: corpus.lines, events: corpus.lines, malformed: 0, blank: 0,
                            error: reason))
                #expect(checked == Array(1...corpus.lines))
            case .truncated:
                #expect(reason == "truncated gzip data")
                #expect(
                    counts.lines >= corpus.lines / 2 && counts.lines < corpus.lines, "\(counts)")
                // The line the cut went through was decompressed before the error: it is reported
                // as cut off, not dropped.
                #expect(counts.malformed == 1)
                #expect(
                    try malformedMessages(report, file: damaged)[counts.lines]?.contains(
                        "last line is cut off") == true)
                #expect(checked == Array(1..<counts.lines))
            case .trailerCut:
                // The deflate data is whole: every line, the last one without its newline, is
                // checked.
                #expect(reason == "truncated gzip data")
                #expect(
                    counts
                        == FileCounts(
                            lines: corpus.lines, events: corpus.lines, malformed: 0, blank: 0,
                            error: reason))
                #expect(checked == Array(1...corpus.lines))
            case .truncatedInHeader:
                #expect(reason == "truncated gzip data")
                #expect(
                    counts == FileCounts(lines: 0, events: 0, malformed: 0, blank: 0, error: reason)
                )
            }
            #expect(try violationLines(report, "probe.seen", file: other) == [1, 2])
            #expect(try violationLines(report, "probe.seen", file: later) == [1])

            let text = runCLI([damaged, other, "--rules", try rulesDirectory(dir)])
            #expect(text.code == 2)
            #expect(text.out.contains("error: could not read \(damaged): \(reason)"))
            // The other files' violations fail the run; the unread input is named in the verdict.
            #expect(text.out.contains("verdict: FAIL"))
            #expect(text.out.contains("; 1 input could not be read\n"), "\(text.out)")
        }
    }
}

// MARK: - Logs: the file system moves under the reader

/// Counts opens per path, for openers that misbehave on a given open.
private final class OpenLog: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]

    func open(_ path: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        counts[path, default: 0] += 1
        return counts[path]!
    }
}

extension HostileInputTests {
    private static func probeRuleSet(_ dir: String) throws -> RuleSet {
        var set = try RuleLoader.load(paths: [try rulesDirectory(dir)])
        set.rules = set.rules.filter { ["log.malformed", "probe.seen"].contains($0.id) }
        return set
    }

    private static func render(_ report: AuditReport) throws -> [String: Any] {
        try parseReport(JSONReport.render(report))
    }

    @Test func aFileThatVanishesBeforeItIsReadIsNamedAndTheOthersAreChecked() throws {
        try withScratch { dir in
            let logs = dir + "/logs"
            let a = try put(probe(1, src: "a") + "\n", logs, "a.jsonl")
            let b = try put(probe(1, src: "b") + "\n", logs, "b.jsonl")
            let c = try put(probe(1, src: "c") + "\n" + probe(2, src: "c") + "\n", logs, "c.jsonl")
            let found = InputDiscovery.discover([logs])
            #expect(found.files.map(\.path) == [a, b, c])

            let auditor = Auditor(rules: try Self.probeRuleSet(dir), jobs: 2) {
                file throws(InputError) in
                if file.path == b { _ = unlink(file.path) }
                return try ByteSources.open(file)
            }
            var report: AuditReport?
            let elapsed = ContinuousClock().measure {
                report = auditor.run(found.files, discoveryErrors: found.errors)
            }
            let result = try #require(report)
            #expect(elapsed < timeLimit)
            #expect(result.exitCode == 2)
            #expect(
                result.inputErrors == [InputError(path: b, reason: "no such file or directory")])
            let json = try Self.render(result)
            try expectAccounting(json)
            #expect(
                try fileCounts(json, b)
                    == FileCounts(
                        lines: 0, events: 0, malformed: 0, blank: 0,
                        error: "no such file or directory"))
            #expect(try violationLines(json, "probe.seen", file: a) == [1])
            #expect(try violationLines(json, "probe.seen", file: c) == [1, 2])
            let text = TextReport().render(result)
            #expect(text.contains("could not read \(b): no such file or directory"))
            #expect(text.contains("verdict: FAIL"))
            #expect(text.contains("1 input could not be read"))
        }
    }

    @Test func aFileThatShrinksWhileBeingReadIsNamedAfterItsLinesAreChecked() throws {
        try withScratch { dir in
            let lines = (1...200).map { probe($0, src: "s") }
            let log = try put(lines.joined(separator: "\n") + "\n", dir, "rotated.jsonl")
            let size = lines.joined(separator: "\n").utf8.count + 1
            let auditor = Auditor(rules: try Self.probeRuleSet(dir), jobs: 1) {
                file throws(InputError) in
                let source = try ByteSources.open(file)
                // copy-and-truncate rotation, after the open
                _ = truncate(file.path, off_t(size / 2))
                return source
            }
            let report = auditor.run([InputFile(path: log)])
            #expect(report.exitCode == 2)
            #expect(
                report.inputErrors == [
                    InputError(path: log, reason: "file shrank while being read")
                ])
            let json = try Self.render(report)
            try expectAccounting(json)
            let counts = try fileCounts(json, log)
            #expect(counts.lines > 50 && counts.lines < 200, "\(counts)")
            // The line the truncation went through is handed on as far as it was read: cut off.
            let seen = try violationLines(json, "probe.seen", file: log)
            #expect(
                seen == Array(1...counts.lines)
                    || (seen == Array(1..<counts.lines) && counts.malformed == 1), "\(counts)")
        }
    }

    @Test func aFileThatCannotBeReadAgainForTheMergeIsNamed() throws {
        try withScratch { dir in
            // One source over two files: pass 2 reads both again to merge them by t.
            let first = try put(
                (0..<10).map { probe($0, src: "d") }.joined(separator: "\n") + "\n", dir, "m1.jsonl"
            )
            let second = try put(
                (10..<20).map { probe($0, src: "d") }.joined(separator: "\n") + "\n", dir,
                "m2.jsonl")
            let opens = OpenLog()
            let auditor = Auditor(rules: try Self.probeRuleSet(dir), jobs: 2) {
                file throws(InputError) in
                if file.path == second, opens.open(file.path) == 2 { _ = unlink(file.path) }
                return try ByteSources.open(file)
            }
            let report = auditor.run([InputFile(path: first), InputFile(path: second)])
            #expect(report.exitCode == 2)
            #expect(
                report.inputErrors == [
                    InputError(
                        path: second,
                        reason:
                            "could not be read again to merge its source: no such file or directory"
                    )
                ])
            let json = try Self.render(report)
            try expectAccounting(json)
            #expect(
                try fileCounts(json, second)
                    == FileCounts(lines: 10, events: 10, malformed: 0, blank: 0))
            #expect(try violationLines(json, "probe.seen", file: first) == Array(1...10))
        }
    }

    @Test func aDirectorySymlinkLoopEndsAndEachFileIsReadOnce() throws {
        try withScratch { dir in
            let logs = dir + "/logs"
            let a = try put(probe(1, src: "a") + "\n", logs, "a.jsonl")
            let b = try put(probe(1, src: "b") + "\n", logs, "sub/b.jsonl")
            let fm = FileManager.default
            try fm.createSymbolicLink(atPath: logs + "/sub/up", withDestinationPath: "..")
            try fm.createSymbolicLink(atPath: logs + "/self", withDestinationPath: ".")
            try fm.createSymbolicLink(
                atPath: logs + "/sub/deeper", withDestinationPath: logs + "/sub")
            try fm.createSymbolicLink(atPath: logs + "/alias.jsonl", withDestinationPath: "a.jsonl")
            let rules = try rulesDirectory(dir)

            let run = runCLI([logs, logs + "/", "--rules", rules, "--format", "json"])
            #expect(run.code == 1, "\(run.err)")
            #expect(run.elapsed < timeLimit)
            let report = try parseReport(run.out)
            try expectAccounting(report)
            let files = try #require(report["files"] as? [[String: Any]])
            #expect(files.map { $0["path"] as? String } == [a, b])
            #expect(try violationLines(report, "probe.seen", file: a) == [1])
            #expect(try violationLines(report, "probe.seen", file: b) == [1])

            // A loop of file links where a log is expected cannot be read: it is named, the rest is
            // checked.
            try fm.createSymbolicLink(atPath: logs + "/x.jsonl", withDestinationPath: "y.jsonl")
            try fm.createSymbolicLink(atPath: logs + "/y.jsonl", withDestinationPath: "x.jsonl")
            let looped = runCLI([logs, "--rules", rules, "--format", "json"])
            #expect(looped.code == 2)
            #expect(looped.elapsed < timeLimit)
            #expect(
                looped.err.contains(
                    "could not read \(logs)/x.jsonl: too many levels of symbolic links"),
                "\(looped.err)")
            let loopedReport = try parseReport(looped.out)
            #expect(try violationLines(loopedReport, "probe.seen", file: a) == [1])
            #expect(try violationLines(loopedReport, "probe.seen", file: b) == [1])
        }
    }

    @Test func anUnreadableFileOrDirectoryIsNamedAndTheOthersAreChecked() throws {
        try withScratch { dir in
            let good = try put(probe(1, src: "g") + "\n", dir, "logs/good.jsonl")
            let locked = try put(probe(1, src: "l") + "\n", dir, "logs/locked.jsonl")
            let lockedDir = dir + "/logs/private"
            try put(probe(1, src: "p") + "\n", lockedDir, "p.jsonl")
            defer { restorePermissions(dir) }
            #expect(chmod(locked, 0) == 0)
            #expect(chmod(lockedDir, 0) == 0)
            if access(locked, R_OK) == 0 {
                try Test.cancel("running as root: chmod 000 does not make a file unreadable")
            }

            let run = runCLI([dir + "/logs", "--rules", try rulesDirectory(dir), "--format", "json"]
            )
            #expect(run.code == 2, "\(run.err)")
            #expect(run.elapsed < timeLimit)
            #expect(run.err.contains("could not read \(locked): permission denied"), "\(run.err)")
            #expect(
                run.err.contains("could not read \(lockedDir): permission denied"), "\(run.err)")
            let report = try parseReport(run.out)
            try expectAccounting(report)
            #expect(try violationLines(report, "probe.seen", file: good) == [1])
        }
    }
}

// MARK: - Logs: edge shapes of an ordinary file

extension HostileInputTests {
    /// Counted line for line, and never a pass: a run that read no event judged nothing (exit 2).
    @Test func anEmptyFileAndABlankFileAreCountedAndAreNoVerdict() throws {
        try withScratch { dir in
            let empty = try put([], dir, "empty.jsonl")
            let emptyGzip = try put(Gzip.compress([]), dir, "empty.jsonl.gz")
            let blankContent = bom + bytes("\n   \n\t\t\n\r\n \t \r\n\n")
            let blank = try put(blankContent, dir, "blank.jsonl")
            #expect(physicalLines(blankContent) == (6, 6))

            let run = runCLI([
                empty, emptyGzip, blank, "--rules", try rulesDirectory(dir), "--format", "json"
            ])
            #expect(run.code == 2, "\(run.out)\(run.err)")
            #expect(
                run.err.hasSuffix(": no event in its 6 lines: nothing was judged\n"), "\(run.err)")
            #expect(run.elapsed < timeLimit)
            let report = try parseReport(run.out)
            try expectAccounting(report)
            #expect(
                try fileCounts(report, empty)
                    == FileCounts(lines: 0, events: 0, malformed: 0, blank: 0))
            #expect(
                try fileCounts(report, emptyGzip)
                    == FileCounts(lines: 0, events: 0, malformed: 0, blank: 0))
            #expect(
                try fileCounts(report, blank)
                    == FileCounts(lines: 6, events: 0, malformed: 0, blank: 6))
            #expect(report["verdict"] as? String == "incomplete")
        }
    }

    @Test func crlfEverywhereKeepsLineNumbersAndReasons() throws {
        try withScratch { dir in
            let content =
                [
                    probe(1),  // 1
                    "",  // 2: blank
                    "not json",  // 3
                    probe(4),  // 4
                    probe(5) + " x",  // 5: text after the object
                    "   ",  // 6: blank
                    probe(7)  // 7
                    // 8: no newline, but a \r: still an event
                ].joined(separator: "\r\n") + "\r\n" + probe(8) + "\r"
            let log = try put(content, dir, "crlf.jsonl")
            let run = runCLI([log, "--rules", try rulesDirectory(dir), "--format", "json"])
            #expect(run.code == 1)
            #expect(run.elapsed < timeLimit)
            let report = try parseReport(run.out)
            try expectAccounting(report)
            #expect(
                try fileCounts(report, log)
                    == FileCounts(lines: 8, events: 4, malformed: 2, blank: 2))
            #expect(try violationLines(report, "probe.seen", file: log) == [1, 4, 7, 8])
            let messages = try malformedMessages(report, file: log)
            #expect(messages[3]?.hasPrefix("not a valid connlog event: not valid JSON: ") == true)
            // `{"t":5,"ev":"probe.hit"} x`: the space is skipped, the `x` is the first byte after
            // the object.
            #expect(
                messages[5]
                    == "not a valid connlog event: text after the JSON object (byte \(probe(5).utf8.count + 2))"
            )
            #expect(messages.values.allSatisfy { !$0.contains("\r") })
        }
    }

    @Test func aByteOrderMarkInTheMiddleOfAFileIsAMalformedLine() throws {
        try withScratch { dir in
            let content =
                bom + bytes(probe(1)) + newline  // at the start: skipped
                + bom + bytes(probe(2)) + newline  // in the middle: not skipped
                + bytes(probe(3)) + newline
            let log = try put(content, dir, "bom.jsonl")
            let run = runCLI([log, "--rules", try rulesDirectory(dir), "--format", "json"])
            #expect(run.code == 1)
            #expect(run.elapsed < timeLimit)
            let report = try parseReport(run.out)
            try expectAccounting(report)
            #expect(
                try fileCounts(report, log)
                    == FileCounts(lines: 3, events: 2, malformed: 1, blank: 0))
            #expect(try violationLines(report, "probe.seen", file: log) == [1, 3])
            let messages = try malformedMessages(report, file: log)
            #expect(messages[2]?.hasPrefix("not a valid connlog event: ") == true, "\(messages)")
        }
    }
}

// MARK: - The accounting invariant on a mixed hostile file

extension HostileInputTests {
    /// A line of exactly `size` bytes that `probe.seen` reports.
    private static func paddedProbe(_ t: Int, size: Int) -> [UInt8] {
        let head = bytes(#"{"t":\#(t),"ev":"probe.hit","pad":""#)
        let tail = bytes(#""}"#)
        return head + [UInt8](repeating: UInt8(ascii: "a"), count: size - head.count - tail.count)
            + tail
    }

    @Test func everyPhysicalLineIsAnEventMalformedOrBlank() throws {
        try withScratch { dir in
            let mib = 1 << 20
            var random = SplitMix64(state: 7)
            let garbage = random.bytes(200).map { $0 == 0x0A ? 0 : $0 }
            let lines: [[UInt8]] = [
                bom + bytes(probe(1)),  // 1 event (BOM at the start skipped)
                [],  // 2 blank
                bytes("   \t"),  // 3 blank
                bytes(probe(4)) + [0x0D],  // 4 event (CRLF)
                [0x0D],  // 5 blank (CRLF)
                garbage,  // 6 malformed
                // 7 malformed
                bytes(#"{"t":7,"ev":"probe.hit","v":""#) + [0xFF, 0xFE] + bytes(#""}"#),
                bytes("[1,2]"),  // 8 malformed: not an object
                bytes(#"{"t":9}"#),  // 9 malformed: no ev
                // 10 malformed: NUL
                bytes(#"{"t":10,"ev":"probe.hit","v":"a"#) + [0] + bytes(#""}"#),
                // 11 malformed
                bytes(#"{"t":11,"ev":"probe.hit","n":"#) + [UInt8](repeating: 0x5B, count: 100_000),
                Self.paddedProbe(12, size: mib),  // 12 event: exactly 1 MiB is allowed
                Self.paddedProbe(13, size: mib + 1),  // 13 malformed: one byte over
                Self.paddedProbe(14, size: mib) + [0x0D],  // 14 event: 1 MiB plus its \r
                bom + bytes(probe(15)),  // 15 malformed: a BOM in the middle
                bytes(#"{"t":1e400,"ev":"probe.hit"}"#),  // 16 malformed: t not finite
                bytes(probe(17)),  // 17 event
                Self.paddedProbe(18, size: 3 * mib),  // 18 malformed: too long
                bytes(#"{"t":19,"ev":"probe.hit""#)  // 19 malformed: cut off, no newline
            ]
            let content = Array(lines.joined(separator: newline))
            let plain = try put(content, dir, "mixed.jsonl")
            let gzip = try put(Gzip.compress(content), dir, "mixed.jsonl.gz")
            let expectedMalformed = [6, 7, 8, 9, 10, 11, 13, 15, 16, 18, 19]
            let expectedEvents = [1, 4, 12, 14, 17]

            // The padding expands about 1,000 times gzipped, past the default --max-expansion.
            let run = runCLI([
                plain, gzip, "--rules", try rulesDirectory(dir), "--format", "json",
                "--max-expansion", "0"
            ])
            #expect(run.code == 1, "\(run.err)")
            #expect(run.elapsed < timeLimit)
            let report = try parseReport(run.out)
            try expectAccounting(report)
            for log in [plain, gzip] {
                #expect(
                    try fileCounts(report, log)
                        == FileCounts(lines: 19, events: 5, malformed: 11, blank: 3), "\(log)")
                #expect(
                    try violationLines(report, "probe.seen", file: log) == expectedEvents, "\(log)")
                let messages = try malformedMessages(report, file: log)
                #expect(messages.keys.sorted() == expectedMalformed, "\(log)")
                #expect(
                    messages[13]
                        == "not a valid connlog event: line is longer than 1 MiB (\(mib + 1) bytes)"
                )
                #expect(
                    messages[19]?.hasPrefix(
                        "not a valid connlog event: last line is cut off (no newline at the end): ")
                        == true)
            }
            let inputs = try #require(report["inputs"] as? [String: Any])
            #expect(inputs["lines"] as? Int == 38)
            #expect(inputs["events"] as? Int == 10)
            #expect(inputs["malformed"] as? Int == 22)
            #expect(inputs["blank"] as? Int == 6)

            // The text report's header says the same.
            let text = runCLI([
                plain, gzip, "--rules", try rulesDirectory(dir), "--max-expansion", "0"
            ])
            #expect(
                text.out.contains("inputs: 2 files, 38 lines, 10 events, 22 malformed, 6 blank;"),
                "\(text.out.prefix(300))")
        }
    }
}

// MARK: - Output that a log controls

extension HostileInputTests {
    /// A rule message shows a field's value; a log can put control characters in it with JSON
    /// escapes.
    @Test func controlCharactersFromALogDoNotReachTheReportRaw() throws {
        try withScratch { dir in
            let rules = try rulesDirectory(
                dir,
                extra: """
                    rules:
                      - id: probe.reason
                        title: Shows a reason
                        for: source
                        never: { ev: probe.hit }
                        message: "reason is {reason}"
                    """)
            let log = try put(
                #"""
                {"t":1,"ev":"probe.hit","reason":"a\u0000b"}
                {"t":2,"ev":"probe.hit","reason":"x\u001b[2J\nverdict: PASS"}

                """#, dir, "control.jsonl")
            for format in ["text", "github"] {
                let run = runCLI([log, "--rules", rules, "--format", format])
                #expect(run.code == 1)
                #expect(run.elapsed < timeLimit)
                // Console.standard writes with fputs: a NUL ends the whole report there (the
                // verdict is lost).
                #expect(!run.out.contains("\u{0}"), "\(format): a raw NUL in the report")
                #expect(!run.out.contains("\u{1B}"), "\(format): a raw ESC in the report")
                if format == "text" {
                    #expect(
                        !run.out.contains("\nverdict: PASS\n"), "a log line forges a verdict line")
                }

            }
        }
    }
}

// MARK: - Secrets

extension HostileInputTests {
    /// `eyJ` repeated with no dot is no JWT, but each `eyJ` once started a look-ahead to the end of
    /// the run: a line just under 1 MiB took six minutes. Now each run is read once. A JWT after
    /// such a run, and a key made of it, are still found.
    @Test func aLongRunOfJWTStartsIsScannedInLinearTime() throws {
        try withScratch { dir in
            let run = String(repeating: "eyJ", count: 340_000),
                half = String(repeating: "eyJ", count: 170_000)
            let lines = [
                #"{"t":1,"ev":"probe.hit","x":"\#(run)"}"#,  // 1: no token
                #"{"t":2,"ev":"probe.hit","x":"\#(run).eyJb.c"}"#,  // 2: a JWT (eyJ….eyJb.)
                #"{"t":3,"ev":"probe.hit","x":"\#(half).\#(half)"}"#  // 3: no second dot: no token
            ]
            let log = try put(lines.joined(separator: "\n") + "\n", dir, "eyj.jsonl")
            let run1 = runCLI([log, "--rules", try rulesDirectory(dir), "--format", "json"])
            #expect(run1.code == 1, "\(run1.err)")
            #expect(run1.elapsed < timeLimit)
            let report = try parseReport(run1.out)
            try expectAccounting(report)
            #expect(try violationLines(report, "log.no-secrets", file: log) == [2])
            #expect(try violationLines(report, "probe.seen", file: log) == [1, 2, 3])
        }
    }

    @Test func aTokenInAMalformedLineAppearsInNoOutputFormat() throws {
        try withScratch { dir in
            let rules = try rulesDirectory(
                dir,
                extra: """
                    rules:
                      - id: probe.auth
                        title: Probe lines carry no auth header
                        for: source
                        every: { ev: probe.hit }
                        expect: "auth == null"
                        message: "auth is {auth}, nested is {nested}"
                    """)
            // Every secret value holds "SECRET" (upper case appears nowhere else in a report).
            let token = "Bearer SECRETtoken1234567890abc"
            let lines = [
                #"{"ev":"probe.hit","auth":"\#(token)"}"#,  // 1: no t, and a bearer token
                #"{"t":2,"ev":"probe.hit","auth":"\#(token)"}"#,  // 2: valid; the rule reads auth
                #"{"t":3,"ev":"probe.hit","nested":{"x":"\#(token)"}}"#,  // 3: valid, nested
                #"{"t":"4","ev":"probe.hit","auth":"\#(token)"}"#,  // 4: t not a number
                // 5: JWT
                #"{"ev":"probe.hit","auth":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SECRETjwtSig"}"#,
                #"{"t":6,"ev":"\#(token)"}"#,  // 6: in ev
                #"{"t":7,"src":"\#(token)","ev":"probe.hit"}"#,  // 7: in src
                // 8: text after the object
                #"{"t":8,"ev":"probe.hit","auth":"\#(token)"} trailing"#,
                #"{"ev":"probe.hit","Authorization":"SECRETplainvalue99"}"#,  // 9: a secret key
                #"{"t":10,"ev":"probe.hit","auth":"\#(token)",}"#  // 10: not JSON
            ]
            let log = try put(lines.joined(separator: "\n") + "\n", dir, "secrets.jsonl")

            for format in ["text", "json", "junit", "sarif", "github"] {
                let run = runCLI([log, "--rules", rules, "--format", format])
                #expect(run.code == 1, "\(format): \(run.err)")
                #expect(run.elapsed < timeLimit)
                #expect(!run.out.contains("SECRET"), "\(format) prints a secret")
                #expect(!run.err.contains("SECRET"), "\(format) prints a secret on stderr")
                if format == "json" {
                    let report = try parseReport(run.out)
                    try expectAccounting(report)
                    // The malformed line with the token is both malformed and a secret finding.
                    #expect(
                        try malformedMessages(report, file: log)[1]
                            == #"not a valid connlog event: missing "t""#)
                    let secretLines = try violationLines(report, "log.no-secrets", file: log)
                    #expect(
                        Set([1, 2, 3, 4, 5, 6, 7, 9]).isSubset(of: Set(secretLines)),
                        "\(secretLines)")
                    #expect(secretLines.contains(8), "line 8 holds a bearer token: \(secretLines)")

                    #expect(try violationLines(report, "probe.auth", file: log).contains(2))
                }
            }
            for format in ["text", "json", "html"] {
                let timeline = runCLI(["timeline", log, "--rules", rules, "--format", format])
                #expect(timeline.code != 2, "timeline \(format): \(timeline.err)")
                #expect(timeline.elapsed < timeLimit)
                #expect(!timeline.out.contains("SECRET"), "timeline \(format) prints a secret")
                #expect(
                    !timeline.err.contains("SECRET"), "timeline \(format) prints a secret on stderr"
                )
            }
        }
    }
}

extension HostileInputTests {
    /// A line whose top-level keys each hold a secret: every list of a line's hidden keys is looked
    /// up through a set once it is long — in the parser, the reader's `[redacted]` fields, a
    /// finding's context, the timeline's text and JSON — where each was searched once per key or
    /// per field: 40,000 such keys took 3 s to check and 27 s to show as a timeline (release
    /// build). Half the keys hold a JWT (a hash of it is kept: the timeline decodes every field),
    /// half a secret key name inside; the line is just under 1 MiB.
    @Test func aLineOfFortyThousandFlaggedTopLevelKeysIsCheckedAndShownInLinearTime() throws {
        try withScratch { dir in
            let n = 40_000
            let keys = (0..<n).map { "k" + String($0, radix: 36) }
            let entries = keys.indices.map { i in
                i % 2 == 0
                    ? #""\#(keys[i])":"eyJSECRET.eyJ0.""# : #""\#(keys[i])":{"body":"SECRET"}"#
            }
            let line = #"{"t":1,"ev":"ws.open","gen":1,"# + entries.joined(separator: ",") + "}"
            try #require(line.utf8.count < 1 << 20)
            // The ws.close without a reason is a finding whose context shows the line before it.
            let log = try put(
                line + "\n" + #"{"t":2,"ev":"ws.close","gen":1}"# + "\n", dir, "keys.jsonl")

            for format in ["text", "json", "sarif"] {
                let run = runCLI([log, "--format", format])
                #expect(run.code == 1, "\(format): \(run.err)")
                #expect(run.elapsed < timeLimit, "\(format) took \(run.elapsed)")
                #expect(!run.out.contains("SECRET"), "\(format) prints a secret")
                guard format == "json" else { continue }
                let report = try parseReport(run.out)
                try expectAccounting(report)
                #expect(
                    try fileCounts(report, log)
                        == FileCounts(lines: 2, events: 2, malformed: 0, blank: 0))
                let secrets = try violations(report, "log.no-secrets")
                #expect(secrets.count == n)
                #expect(Set(secrets.compactMap { $0["message"] as? String }).count == n)
                #expect(secrets.allSatisfy { $0["line"] as? Int == 1 })
                // The context line of the line of secrets shows none of its hidden fields.
                let close = try #require(try violations(report, "ws.close-has-reason").first)
                let context = try #require(close["context"] as? [[String: Any]])
                #expect(
                    context.map { $0["event"] as? String } == [
                        "t=1 ws.open gen=1", "t=2 ws.close gen=1"
                    ])
            }

            for format in ["text", "json", "html"] {
                let run = runCLI(["timeline", log, "--format", format])
                #expect(run.code == 0, "timeline \(format): \(run.err)")
                #expect(run.elapsed < timeLimit, "timeline \(format) took \(run.elapsed)")
                #expect(!run.out.contains("SECRET"), "timeline \(format) prints a secret")
                if format == "text" {
                    #expect(run.out.contains(" k0=[redacted] k1=[redacted] "))
                    #expect(run.out.contains(" \(keys[n - 1])=[redacted]\n"))
                }
                guard format == "json" else { continue }
                let document = try parseReport(run.out)
                let sections = try #require(document["sections"] as? [[String: Any]])
                let entries = sections.flatMap { $0["entries"] as? [[String: Any]] ?? [] }
                let first = try #require(entries.first { $0["line"] as? Int == 1 })
                let fields = try #require(first["fields"] as? [String: Any])
                #expect(fields.count == n)
                #expect(fields.values.allSatisfy { $0 as? String == "[redacted]" })
                #expect((first["redacted"] as? [String]).map(Set.init) == Set(keys))
            }
        }
    }
}

// MARK: - Rules written by many people

extension HostileInputTests {
    private static let cleanLog = probe(0, src: "d") + "\n"

    /// Runs `check` and `rules --check` with one rules path; both must refuse it with exit 2.
    private func expectRulesRefused(
        _ rules: String, log: String, _ diagnostic: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for arguments in [[log, "--rules", rules], ["rules", "--rules", rules, "--check"]] {
            let run = runCLI(arguments)
            #expect(
                run.code == 2, "\(arguments.first!): \(run.out)", sourceLocation: sourceLocation)
            #expect(
                run.err.contains(diagnostic), "stderr was: \(run.err.prefix(600))",
                sourceLocation: sourceLocation)
            #expect(
                run.err.contains("error(s) in the rules; no verdict"),
                sourceLocation: sourceLocation)
            #expect(run.out.isEmpty || arguments.first == "rules", sourceLocation: sourceLocation)
            #expect(run.elapsed < timeLimit, sourceLocation: sourceLocation)
        }
    }

    @Test func aYAMLAliasBombIsRefusedFastWithItsPosition() throws {
        try withScratch { dir in
            var lines = [#"a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]"#]
            var previous = "a"
            for name in ["b", "c", "d", "e", "f", "g", "h", "i"] {
                lines.append(
                    "\(name): &\(name) [\(Array(repeating: "*" + previous, count: 9).joined(separator: ","))]"
                )
                previous = name
            }
            lines.append("rules: []")
            let rules = try put(lines.joined(separator: "\n") + "\n", dir, "bomb.yaml")
            let log = try put(Self.cleanLog, dir, "a.jsonl")
            // a: 10 nodes; b: 9 copies of a (90); c: 9 × 91 = 819; d: 9 × 820 = 7,380 — 8,289 so
            // far; the first *d of e (7,381 more) passes the 10,000-node limit, at line 5, column
            // 8.
            expectRulesRefused(
                rules, log: log,
                "\(rules):5:8: error: alias expansion exceeds 10000 nodes (possible alias bomb)\n"
                    + lines[4] + "\n" + String(repeating: " ", count: 7) + "^")
        }
    }

    @Test func yamlNestedTenThousandDeepIsRefused() throws {
        try withScratch { dir in
            let log = try put(Self.cleanLog, dir, "a.jsonl")
            let n = 10_000
            let flow = try put(
                "rules: " + String(repeating: "[", count: n) + String(repeating: "]", count: n)
                    + "\n", dir, "flow.yaml")
            expectRulesRefused(flow, log: log, "\(flow):1:71: error: nesting deeper than 64 levels")
            let map = try put(
                "rules: " + String(repeating: "{a: ", count: n) + "1"
                    + String(repeating: "}", count: n) + "\n", dir, "map.yaml")
            expectRulesRefused(map, log: log, "\(map):1:260: error: nesting deeper than 64 levels")
            let block = try put(
                "rules:\n  " + String(repeating: "- ", count: n) + "x\n", dir, "block.yaml")
            expectRulesRefused(
                block, log: log, "\(block):2:129: error: nesting deeper than 64 levels")
        }
    }

    @Test func aCatastrophicRegexOverALongStringFinishesFast() throws {
        try withScratch { dir in
            let rules = try put(
                """
                rules:
                  - id: probe.regex
                    title: A runaway pattern in a selector
                    for: source
                    never: { ev: probe.hit, v: { matches: "(a+)+$" } }
                  - id: probe.regex-expr
                    title: A runaway pattern in an expression
                    for: source
                    every: { ev: probe.hit }
                    expect: 'not matches(v, "(a+)+$")'
                """, dir, "regex.yaml")
            let a = String(repeating: "a", count: 100_000)
            let log = try put(
                """
                {"t":1,"ev":"probe.hit","v":"\(a)!"}
                {"t":2,"ev":"probe.hit","v":"\(a)"}
                {"t":3,"ev":"probe.hit","v":"\(a)!\(a)"}

                """, dir, "long.jsonl")
            let run = runCLI([log, "--rules", rules, "--format", "json"])
            #expect(run.code == 1, "\(run.err)")
            #expect(run.elapsed < timeLimit, "took \(run.elapsed)")
            let report = try parseReport(run.out)
            try expectAccounting(report)
            #expect(try violationLines(report, "probe.regex", file: log) == [2, 3])
            #expect(try violationLines(report, "probe.regex-expr", file: log) == [2, 3])
        }
    }

    @Test func aRulesFileThatIsNotYAMLIsRefused() throws {
        try withScratch { dir in
            let log = try put(Self.cleanLog, dir, "a.jsonl")
            var random = SplitMix64(state: 99)
            var binary = random.bytes(4096)
            binary[0] = 0xFF
            let notUTF8 = try put(binary, dir, "binary.yaml")
            expectRulesRefused(
                notUTF8, log: log, "\(notUTF8):1:1: error: rules file is not valid UTF-8")
            // Valid UTF-8, but control characters: libyaml's reader names the first one and where
            // it is.
            let control = try put(
                bytes("rules:\n  - id: a") + [1, 2, 0] + bytes("b\n"), dir, "control.yaml")
            expectRulesRefused(
                control, log: log,
                "\(control):2:10: error: control characters are not allowed (U+0001)")
            let run = runCLI([log, "--rules", control])
            // Console.standard writes with fputs: the NUL ends the diagnostic there (the caret line
            // is lost).
            #expect(!run.err.contains("\u{0}"), "a raw NUL on stderr")
            #expect(!run.err.contains("\u{1}"), "a raw U+0001 on stderr")

        }
    }

    @Test func anEmptyRulesDirectoryOrFileIsRefused() throws {
        try withScratch { dir in
            let log = try put(Self.cleanLog, dir, "a.jsonl")
            let empty = dir + "/rules-empty"
            try FileManager.default.createDirectory(
                atPath: empty, withIntermediateDirectories: true)
            expectRulesRefused(
                empty, log: log, "\(empty):1:1: error: no rule files (*.yaml, *.yml) found here")
            let other = dir + "/rules-other"
            try put("rules: []\n", other, "notes.txt")
            try put("rules: []\n", other, ".hidden.yaml")
            expectRulesRefused(
                other, log: log, "\(other):1:1: error: no rule files (*.yaml, *.yml) found here")
            let emptyFile = try put("", dir, "empty.yaml")
            expectRulesRefused(
                emptyFile, log: log,
                "\(emptyFile):1:1: error: empty rules file: expected a mapping with 'rules:'")
        }
    }

    @Test func aRulesFileWithAListAtTheTopIsRefused() throws {
        try withScratch { dir in
            let log = try put(Self.cleanLog, dir, "a.jsonl")
            let rules = try put("- id: x.y\n  title: T\n  never: { ev: a.b }\n", dir, "list.yaml")
            expectRulesRefused(
                rules, log: log,
                "\(rules):1:1: error: expected a mapping with 'rules:' at the top, found a sequence\n- id: x.y\n^"
            )
        }
    }

    /// An expression 10,000 levels deep, built from its name (so the test list shows the name, not
    /// the text).
    enum DeepExpression: String, CaseIterable, Sendable, CustomTestStringConvertible {
        // Nesting the expression parser counts.
        case parentheses, not, unaryMinus = "unary minus", listLiterals = "list literals",
            functionCalls = "function calls"
        // Flat chains: each builds a tree as deep as the chain is long (the parser refuses them;
        // see below).
        case or, and, plus, coalesce, member, index

        static let counted: [DeepExpression] = [
            .parentheses, .not, .unaryMinus, .listLiterals, .functionCalls
        ]
        static let chains: [DeepExpression] = [.or, .and, .plus, .coalesce, .member, .index]

        var testDescription: String { rawValue }

        var text: String {
            let n = 10_000
            func chain(_ term: String, _ op: String) -> String {
                Array(repeating: term, count: n).joined(separator: op)
            }
            switch self {
            case .parentheses:
                return String(repeating: "(", count: n) + "1" + String(repeating: ")", count: n)
                    + " == 1"
            case .not: return String(repeating: "not ", count: n) + "true"
            case .unaryMinus: return String(repeating: "-", count: n) + "1 < 5"
            case .listLiterals:
                return String(repeating: "[", count: n) + String(repeating: "]", count: n)
                    + " != null"
            case .functionCalls:
                return String(repeating: "abs(", count: n) + "1" + String(repeating: ")", count: n)
                    + " == 1"
            case .or: return chain("x == 1", " or ")
            case .and: return chain("x", " and ")
            case .plus: return chain("1", " + ") + " > 0"
            case .coalesce: return chain("x", " ?? ") + " == 1"
            case .member: return "x" + String(repeating: ".y", count: n) + " == 1"
            case .index: return "x" + String(repeating: "[0]", count: n) + " == 1"
            }
        }
    }

    private func expectDeepExpressionRefused(_ expression: DeepExpression) throws {
        try withScratch { dir in
            let log = try put(Self.cleanLog, dir, "a.jsonl")
            let rules = try put(
                """
                rules:
                  - id: probe.deep
                    title: Deep
                    every: { ev: probe.hit }
                    expect: "\(expression.text)"
                """, dir, "deep.yaml")
            // The error points into the expression on line 5 (file:line:column).
            expectRulesRefused(rules, log: log, "\(rules):5:")
            expectRulesRefused(rules, log: log, ": error: expression nested deeper than 100")
        }
    }

    @Test(arguments: DeepExpression.counted)
    func anExpressionNestedTenThousandDeepIsAnError(_ expression: DeepExpression) throws {
        try expectDeepExpressionRefused(expression)
    }

    // Long *flat* chains (a or b or c …, a.y.y.y …, x[0][0] …, a ?? b ?? …) build a tree as deep as
    // the chain is long; the parser refuses any expression deeper than its limit, measured without
    // recursion, so nothing downstream can overflow the stack.
    @Test(arguments: DeepExpression.chains)
    func aFlatChainOfTenThousandTermsIsAnError(_ expression: DeepExpression) throws {
        try expectDeepExpressionRefused(expression)
    }
}

// MARK: - Timelines name what they could not read

extension HostileInputTests {
    /// A postmortem page saved with `--output` must say a log is missing or cut short, not only
    /// stderr: inputs not found and gzip files that break off are in every timeline format.
    @Test func aTimelineListsTheInputsItCouldNotRead() throws {
        try withScratch { dir in
            let good = dir + "/a.jsonl"
            try Data("{\"t\":0,\"ev\":\"ws.connect\",\"gen\":1}\n".utf8).write(
                to: URL(fileURLWithPath: good))
            let cut = dir + "/cut.jsonl.gz"
            // A gzip header and nothing else: the stream breaks off.
            try Data([0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0x03]).write(
                to: URL(fileURLWithPath: cut))
            let missing = dir + "/gone.jsonl"
            for format in ["json", "text", "html"] {
                let run = runCLI(["timeline", good, cut, missing, "--format", format])
                #expect(run.code == 2, "\(format): \(run.err)")
                #expect(run.out.contains("gone.jsonl"), "\(format) does not name the missing input")
                #expect(run.out.contains("cut.jsonl.gz"), "\(format) does not name the broken gzip")
            }
        }
    }
}

extension HostileInputTests {
    /// An upload cut to zero bytes: `gzip -t` rejects it, so a gate must not pass it as an empty
    /// log. An empty plain file reads as an empty log, which judges nothing: no pass either.
    @Test func anEmptyGzipFileCannotBeReadButAnEmptyPlainFileIsAnEmptyLog() throws {
        try withScratch { dir in
            let gz = dir + "/upload.jsonl.gz"
            let plain = dir + "/empty.jsonl"
            try Data().write(to: URL(fileURLWithPath: gz))
            try Data().write(to: URL(fileURLWithPath: plain))
            let both = runCLI([gz, plain, "--only", "log.malformed", "--format", "json"])
            #expect(both.code == 2, "\(both.err)")
            #expect(
                both.err.contains("could not read \(gz): empty file, not gzip data"), "\(both.err)")
            let alone = runCLI([plain, "--only", "log.malformed", "--format", "json"])
            #expect(alone.code == 2, "\(alone.err)")
            #expect(
                alone.err.contains(
                    "conn-audit: error: \(plain): no event in it (no line at all): nothing was judged"
                ))
        }
    }
}

extension HostileInputTests {
    /// An upload named `.gz` that is not gzip — zlib or raw DEFLATE, as `NSData.compressed(using:
    /// .zlib)` makes — is a corrupt gzip: named, exit 2, not one cut-off line and a complete
    /// verdict. A plain log named `.gz` is still read as text, and binary named `.jsonl` is
    /// malformed lines.
    @Test func aGzNameOverDataThatIsNeitherGzipNorTextCannotBeRead() throws {
        let log = (0..<40).map { "{\"t\":\($0 * 10),\"ev\":\"ws.message\",\"gen\":1}\n" }.joined()
        let gzip = Gzip.compress(Array(log.utf8))
        // A gzip member without a name: a 10-byte header, the DEFLATE data, an 8-byte trailer.
        let raw = Array(gzip[10..<(gzip.count - 8)])
        let zlib = [0x78, 0x9C] + raw
        try withScratch { dir in
            let rawStart = raw.prefix(2).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }
                .joined(separator: " ")
            for (name, bytes, start) in [
                ("raw.jsonl.gz", raw, rawStart), ("zlib.jsonl.gz", zlib, "78 9c"),
                ("nul.jsonl.gz", [0, 0, 0, 0] + Array(log.utf8), "00 00")
            ] {
                let path = dir + "/" + name
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                let run = runCLI([path, "--only", "log.malformed", "--format", "json"])
                #expect(run.code == 2, "\(name): \(run.err)")
                #expect(
                    run.err.contains(
                        "could not read \(path): not gzip data, nor text: it starts with \(start) (gzip starts with 1f 8b)"
                    ),
                    "\(name): \(run.err)")
            }
            let plain = dir + "/plain.jsonl.gz"
            try Data(log.utf8).write(to: URL(fileURLWithPath: plain))
            let text = runCLI([plain, "--only", "log.malformed", "--format", "json"])
            #expect(text.code == 0, "\(text.err)")
            #expect(
                text.out.contains("\"events\":40") || text.out.contains("\"events\": 40"),
                "\(text.out)")
            // The name's case does not matter; a log line with a stray byte is still text.
            let upper = dir + "/ZLIB.JSONL.GZ"
            try Data(zlib).write(to: URL(fileURLWithPath: upper))
            #expect(runCLI([upper, "--only", "log.malformed"]).code == 2)
            let stray = dir + "/stray.jsonl.gz"
            try Data(
                [
                    0x7B, 0x22, 0x74, 0x22, 0x3A, 0x30, 0x2C, 0x22, 0x78, 0x22, 0x3A, 0x22, 0xFF,
                    0x22, 0x7D, 0x0A
                ] + Array(log.utf8)
            )
            .write(to: URL(fileURLWithPath: stray))
            let strayRun = runCLI([stray, "--only", "log.malformed", "--format", "json"])
            #expect(strayRun.code == 1, "\(strayRun.err)")
            #expect(
                strayRun.out.contains("\"events\":40") || strayRun.out.contains("\"events\": 40"),
                "\(strayRun.out)")
            let binary = dir + "/binary.jsonl"
            try Data(zlib).write(to: URL(fileURLWithPath: binary))
            let lines = runCLI([binary, "--only", "log.malformed", "--format", "json"])
            #expect(lines.code == 1, "\(lines.err)")
        }
    }
}

/// A raw source that gives at most `step` bytes per read, as a pipe may.
private final class TrickleSource: ByteSource {
    private let bytes: [UInt8]
    private let step: Int
    private var at = 0
    init(_ bytes: [UInt8], step: Int) {
        self.bytes = bytes
        self.step = step
    }
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        let n = min(step, buffer.count, bytes.count - at)
        for k in 0..<n { buffer[k] = bytes[at + k] }
        at += n
        return n
    }
}

extension HostileInputTests {
    /// zlib data that arrives two bytes at a time is judged on its first 512 bytes, not on two.
    @Test func aGzNameOverZlibDataIsRefusedHoweverItsBytesArrive() throws {
        let gzip = Gzip.compress(
            Array((0..<40).map { "{\"t\":\($0),\"ev\":\"x\"}\n" }.joined().utf8))
        let zlib = [0x78, 0x9C] + Array(gzip[10..<(gzip.count - 8)])
        for step in [1, 2, 3, 512, 1 << 20] {
            let source = ByteSources.decoding(TrickleSource(zlib, step: step), path: "up.jsonl.gz")
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 1)
            defer { buffer.deallocate() }
            var failure: InputError?
            do { _ = try source.read(into: buffer) } catch { failure = error }
            #expect(
                failure?.reason.hasPrefix("not gzip data, nor text") == true,
                "step \(step): \(String(describing: failure))")
            // The same bytes under another name are read as they are.
            let plain = ByteSources.decoding(TrickleSource(zlib, step: step), path: "up.jsonl")
            #expect((try? plain.read(into: buffer)).map { $0 > 0 } == true, "step \(step)")
        }
    }
}

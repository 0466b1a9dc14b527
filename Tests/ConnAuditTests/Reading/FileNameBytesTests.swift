import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

#if canImport(Glibc)
    import Glibc
#endif

// Linux file names are bytes, not text: a name that is not UTF-8 (a Latin-1 name copied from an
// old device, a name cut inside a character) is still a file to read and to name.

// MARK: - Helpers

/// Calls `body` with `path` as a C string (written here, not with the library's own helper, so the
/// tests below also run against a library that has none).
private func withPath<R>(_ path: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
    (path + [0]).withUnsafeBufferPointer { bytes in
        bytes.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
    }
}

private func makeDirectory(_ path: [UInt8]) throws {
    let code = withPath(path) { mkdir($0, 0o755) }
    try #require(code == 0, "mkdir failed: errno \(errno)")
}

private func create(_ path: [UInt8], _ text: String) throws {
    let fd = withPath(path) { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
    try #require(fd >= 0, "open failed: errno \(errno)")
    defer { close(fd) }
    let bytes = Array(text.utf8)
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    try #require(written == bytes.count)
}

/// The `file` of each violation of `rule` in a JSON report.
private func violationFiles(_ report: [String: Any], _ rule: String) throws -> [String] {
    let rules = try #require(report["rules"] as? [[String: Any]])
    let entry = try #require(rules.first { $0["id"] as? String == rule })
    return try #require(entry["violations"] as? [[String: Any]]).compactMap {
        $0["file"] as? String
    }
}

/// One event that fails `ws.close-has-reason` (the file is its source: no `src`).
private let closeWithoutReason = #"{"t":0,"ev":"ws.close","gen":1}"# + "\n"

/// `dir/logs/` with `a<FF>.jsonl` and `d<C3>/b.log` (a directory whose name is cut inside a
/// character), each one event; returns the names as every report shows them.
private func makeLogs(_ dir: String) throws -> [String] {
    let logs = Array((dir + "/logs").utf8)
    try makeDirectory(logs)
    try create(logs + Array("/a".utf8) + [0xFF] + Array(".jsonl".utf8), closeWithoutReason)
    try makeDirectory(logs + Array("/d".utf8) + [0xC3])
    try create(logs + Array("/d".utf8) + [0xC3] + Array("/b.log".utf8), closeWithoutReason)
    return [dir + #"/logs/a\x{FF}.jsonl"#, dir + #"/logs/d\x{C3}/b.log"#]
}

/// Runs the `conn-audit` built beside this test bundle with `argv` as bytes (no decoding on the
/// way).
private func spawnBinary(_ argv: [[UInt8]], stdout: String) throws -> Int32 {
    let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    let binary = (exe as NSString).deletingLastPathComponent + "/conn-audit"
    try #require(
        FileManager.default.isExecutableFile(atPath: binary),
        "no conn-audit at \(binary): swift build first")
    let all = [Array(binary.utf8)] + argv
    var pointers: [UnsafeMutablePointer<CChar>?] = all.map { bytes in
        let p = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        for (i, b) in bytes.enumerated() { p[i] = CChar(bitPattern: b) }
        p[bytes.count] = 0
        return p
    }
    pointers.append(nil)
    defer { for p in pointers { p?.deallocate() } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(
        &actions, 2, stdout + ".err", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    var pid = pid_t()
    let spawned = posix_spawn(&pid, binary, &actions, nil, pointers, environ)
    try #require(spawned == 0, "posix_spawn: \(spawned)")
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return (status >> 8) & 0xFF
}

/// Runs the binary with standard output a pipe nobody reads (its read end closed at once) and
/// standard error to `stderr`; returns the exit status.
private func spawnIntoClosedPipe(_ argv: [String], stderr: String) throws -> Int32 {
    let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    let binary = (exe as NSString).deletingLastPathComponent + "/conn-audit"
    try #require(
        FileManager.default.isExecutableFile(atPath: binary),
        "no conn-audit at \(binary): swift build first")
    var fds: [Int32] = [0, 0]
    try #require(pipe(&fds) == 0)
    var pointers: [UnsafeMutablePointer<CChar>?] = ([binary] + argv).map { strdup($0) }
    pointers.append(nil)
    defer { for p in pointers { free(p) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
    posix_spawn_file_actions_addclose(&actions, fds[0])
    posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    var pid = pid_t()
    let spawned = posix_spawn(&pid, binary, &actions, nil, pointers, environ)
    close(fds[0])
    close(fds[1])
    try #require(spawned == 0, "posix_spawn: \(spawned)")
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    // Killed by a signal (SIGPIPE) is not an exit status.
    return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
}

// MARK: - Tests

@Suite struct FileNameBytesTests {
    /// A directory's entries are bytes: the file named `a<FF>.jsonl` was left out (an input error,
    /// "file name is not valid utf-8"), and so was everything below `d<C3>/`.
    @Test func aDirectoryReadsFilesWhoseNamesAreNotUTF8() throws {
        try withScratchDirectory("names") { dir in
            let names = try makeLogs(dir)
            let run = CommandLineRun([dir + "/logs", "--format", "json"])
            #expect(run.err == "")
            #expect(run.code == 1, "\(run.err)")
            let report = try jsonObject(run.out)
            let inputs = try #require(report["inputs"] as? [String: Any])
            #expect(inputs["files"] as? Int == 2)
            #expect(inputs["events"] as? Int == 2)
            #expect(
                (report["input_errors"] as? [Any])?.isEmpty ?? true,
                "\(report["input_errors"] ?? "")")
            let files = try #require(report["files"] as? [[String: Any]])
            #expect(files.compactMap { $0["path"] as? String } == names)
            #expect(try violationFiles(report, "ws.close-has-reason") == names)
        }
    }

    /// A PATH argument is bytes too: Swift's `CommandLine.arguments` decodes argv with repair, so
    /// the 0xFF of `c<FE><FF>.txt` arrived as U+FFFD, another name: "no such file or directory".
    @Test func theCommandLineReadsAPathThatIsNotUTF8() throws {
        try withScratchDirectory("names") { dir in
            let names = try makeLogs(dir)
            let file = Array((dir + "/c").utf8) + [0xFE, 0xFF] + Array(".txt".utf8)
            try create(file, closeWithoutReason)
            let report = dir + "/report.json"
            let code = try spawnBinary(
                [Array((dir + "/logs").utf8), file, Array("--format=json".utf8)], stdout: report)
            let err = try String(contentsOfFile: report + ".err", encoding: .utf8)
            #expect(err == "")
            #expect(code == 1, "\(err)")
            let parsed = try jsonObject(String(contentsOfFile: report, encoding: .utf8))
            let inputs = try #require(parsed["inputs"] as? [String: Any])
            #expect(inputs["files"] as? Int == 3)
            #expect(inputs["events"] as? Int == 3)
            let shown = names + [dir + #"/c\x{FE}\x{FF}.txt"#]
            #expect(try violationFiles(parsed, "ws.close-has-reason") == shown)
            // The library's own entry point for argv, which the executable calls.
            let argv = CommandLineRun(argv: [file, Array("--format".utf8), Array("json".utf8)])
            #expect(argv.code == 1)
            #expect(
                try violationFiles(jsonObject(argv.out), "ws.close-has-reason") == [
                    dir + #"/c\x{FE}\x{FF}.txt"#
                ])
            // A missing one is named the same way.
            let missing = Array((dir + "/gone").utf8) + [0xFF]
            let gone = CommandLineRun(argv: [missing])
            #expect(gone.code == 2)
            #expect(
                gone.out.contains(dir + #"/gone\x{FF}: no such file or directory"#), "\(gone.out)")
        }
    }

    /// Every report shows the bytes one way, `\x{FF}`, under its own escapes.
    @Test func everyFormatShowsTheNameTheSameWay() throws {
        try withScratchDirectory("names") { dir in
            let names = try makeLogs(dir)
            let text = CommandLineRun([dir + "/logs", "--format", "text"])
            #expect(text.out.contains(names[0] + ":1"), "\(text.out)")
            #expect(text.out.contains(names[1] + ":1"), "\(text.out)")
            let junit = CommandLineRun([dir + "/logs", "--format", "junit"])
            #expect(junit.out.contains(names[0] + ":1"), "\(junit.out)")
            let github = CommandLineRun([dir + "/logs", "--format", "github"])
            #expect(github.out.contains("file=" + names[0] + ",line=1,"), "\(github.out)")
            let sarif = try jsonObject(CommandLineRun([dir + "/logs", "--format", "sarif"]).out)
            let runs = try #require(sarif["runs"] as? [[String: Any]])
            let results = try #require(runs.first?["results"] as? [[String: Any]])
            let uris = results.compactMap {
                (((($0["locations"] as? [[String: Any]])?.first?["physicalLocation"]
                    as? [String: Any])?["artifactLocation"]
                    as? [String: Any])?["uri"] as? String)
            }
            #expect(uris.contains { $0.hasSuffix("/logs/a%5Cx%7BFF%7D.jsonl") }, "\(uris)")
            #expect(uris.contains { $0.hasSuffix("/logs/d%5Cx%7BC3%7D/b.log") }, "\(uris)")
            let timeline = CommandLineRun(["timeline", dir + "/logs", "--format", "text"])
            #expect(timeline.code == 0, "\(timeline.err)")
            #expect(timeline.out.contains(#"a\x{FF}.jsonl:1"#), "\(timeline.out)")
            let timelineJSON = try jsonObject(
                CommandLineRun(["timeline", dir + "/logs", "--format", "json"]).out)
            let sections = try #require(timelineJSON["sections"] as? [[String: Any]])
            let files = sections.flatMap {
                ($0["entries"] as? [[String: Any]] ?? []).compactMap { $0["file"] as? String }
            }
            #expect(Set(files) == Set(names), "\(files)")
            // Each file is the source of its lines, under the same name.
            #expect(
                Set(
                    sections.compactMap {
                        $0["src_is_file"] as? Bool == true ? $0["src"] as? String : nil
                    }) == Set(names))
            let around = CommandLineRun(["timeline", dir + "/logs", "--around", names[0] + ":1"])
            #expect(around.code == 0, "\(around.err)")
            #expect(around.out.contains(">>"), "\(around.out)")
        }
    }

    /// A report sent to `/dev/stdout` beside the one printed there follows it, whole, when standard
    /// output is a file: it was written first and then overwritten by the printed one (a file
    /// opened on `/dev/stdout` truncated it, and standard output's buffer came out last).
    @Test func aReportToDevStdoutFollowsThePrintedOne() throws {
        try withScratchDirectory("names") { dir in
            let log = dir + "/one.jsonl"
            try create(Array(log.utf8), closeWithoutReason)
            let out = dir + "/out.txt"
            let args = [log, "--format", "text", "--color", "never", "--report", "json=/dev/stdout"]
            let code = try spawnBinary(args.map { Array($0.utf8) }, stdout: out)
            #expect(code == 1)
            let text = try String(contentsOfFile: out, encoding: .utf8)
            let brace = try #require(text.range(of: "\n{\n"))
            #expect(text[..<brace.lowerBound].contains("verdict: FAIL"))
            #expect(text.hasPrefix("conn-audit "), "\(text.prefix(200))")
            let report = try jsonObject("{\n" + text[brace.upperBound...])
            #expect(report["verdict"] as? String == "fail")
        }
    }

    /// Standard output whose reader went away (`| head -1`) ends the run quietly with the status
    /// its verdict gives, as grep and ruff do: no error, and not death by SIGPIPE (141 in a shell).
    @Test func aClosedPipeOnStandardOutputEndsQuietly() throws {
        try withScratchDirectory("names") { dir in
            // A report larger than a pipe's buffer, so the writes meet the closed end.
            var lines = [#"{"t":0,"ev":"ws.connect","gen":1}"#]
            for i in 1...1_000 { lines.append(#"{"t":\#(i * 10),"ev":"ws.ping","gen":1}"#) }
            let log = dir + "/pings.jsonl"
            try create(Array(log.utf8), lines.joined(separator: "\n") + "\n")
            let err = dir + "/err.txt"
            let code = try spawnIntoClosedPipe([log, "--format", "json"], stderr: err)
            let verdict = CommandLineTool.run(
                [log, "--format", "json"],
                console: Console(out: { _ in }, err: { _ in }, isTerminal: false))
            #expect(verdict == 1)
            #expect(code == verdict)
            let text = try String(contentsOfFile: err, encoding: .utf8)
            #expect(text.isEmpty, "\(text)")
        }
    }

    @Test(
        arguments: [
            (Array("plain é.jsonl".utf8), "plain é.jsonl"),
            ([0x61, 0xFF, 0x62], #"a\x{FF}b"#),
            ([0xE2, 0x82], #"\x{E2}\x{82}"#),  // cut inside a character
            ([0xC0, 0xAF, 0x2F], #"\x{C0}\x{AF}/"#),  // an overlong slash is not a slash
            ([0x01, 0xC3, 0xA9, 0x80], "\u{1}é" + #"\x{80}"#)
        ] as [([UInt8], String)])
    func shownNames(bytes: [UInt8], shown: String) {
        #expect(InputFile.shown(bytes) == shown)
        #expect(InputFile(bytes: bytes).bytes == bytes)
    }
}

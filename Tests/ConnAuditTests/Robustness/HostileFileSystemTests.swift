import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@testable import ConnAudit
import ConnAuditTestSupport

/// Inputs that vanish, shrink, loop or cannot be read: each is named, and the others are checked.
@Suite("Hostile input: the file system under the reader", .timeLimit(.minutes(10)))
struct HostileFileSystemTests {}

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

extension HostileFileSystemTests {
    private static func probeRuleSet(_ dir: String) throws -> RuleSet {
        var set = try RuleLoader.load(paths: [try Hostile.rulesDirectory(dir)])
        set.rules = set.rules.filter { ["log.malformed", "probe.seen"].contains($0.id) }
        return set
    }

    private static func render(_ report: AuditReport) throws -> [String: Any] {
        try Hostile.parseReport(JSONReport.render(report))
    }

    @Test func aFileThatVanishesBeforeItIsReadIsNamedAndTheOthersAreChecked() throws {
        try withScratchDirectory("hostile") { dir in
            let logs = dir + "/logs"
            let a = try Hostile.put(Hostile.probe(1, src: "a") + "\n", logs, "a.jsonl")
            let b = try Hostile.put(Hostile.probe(1, src: "b") + "\n", logs, "b.jsonl")
            let c = try Hostile.put(
                Hostile.probe(1, src: "c") + "\n" + Hostile.probe(2, src: "c") + "\n", logs,
                "c.jsonl")
            let found = InputDiscovery.discover([logs])
            #expect(found.files.map(\.path) == [a, b, c])

            let auditor = Auditor(
                rules: try Self.probeRuleSet(dir), jobs: 2,
                opener: {
                    file throws(InputError) in
                    if file.path == b { _ = unlink(file.path) }
                    return try ByteSources.open(file)
                })
            var report: AuditReport?
            let elapsed = ContinuousClock().measure {
                report = auditor.run(found.files, discoveryErrors: found.errors)
            }
            let result = try #require(report)
            #expect(elapsed < Hostile.timeLimit)
            #expect(result.exitCode == 2)
            #expect(
                result.inputErrors == [InputError(path: b, reason: "no such file or directory")])
            let json = try Self.render(result)
            try Hostile.expectAccounting(json)
            #expect(
                try Hostile.fileCounts(json, b)
                    == Hostile.FileCounts(
                        lines: 0, events: 0, malformed: 0, blank: 0,
                        error: "no such file or directory"))
            #expect(try Hostile.violationLines(json, "probe.seen", file: a) == [1])
            #expect(try Hostile.violationLines(json, "probe.seen", file: c) == [1, 2])
            let text = TextReport().render(result)
            #expect(text.contains("could not read \(b): no such file or directory"))
            #expect(text.contains("verdict: FAIL"))
            #expect(text.contains("1 input could not be read"))
        }
    }

    @Test func aFileThatShrinksWhileBeingReadIsNamedAfterItsLinesAreChecked() throws {
        try withScratchDirectory("hostile") { dir in
            let lines = (1...200).map { Hostile.probe($0, src: "s") }
            let log = try Hostile.put(lines.joined(separator: "\n") + "\n", dir, "rotated.jsonl")
            let size = lines.joined(separator: "\n").utf8.count + 1
            let auditor = Auditor(
                rules: try Self.probeRuleSet(dir), jobs: 1,
                opener: {
                    file throws(InputError) in
                    let source = try ByteSources.open(file)
                    // copy-and-truncate rotation, after the open
                    _ = truncate(file.path, off_t(size / 2))
                    return source
                })
            let report = auditor.run([InputFile(path: log)])
            #expect(report.exitCode == 2)
            #expect(
                report.inputErrors == [
                    InputError(path: log, reason: "file shrank while being read")
                ])
            let json = try Self.render(report)
            try Hostile.expectAccounting(json)
            let counts = try Hostile.fileCounts(json, log)
            #expect(counts.lines > 50 && counts.lines < 200, "\(counts)")
            // The line the truncation went through is handed on as far as it was read: cut off.
            let seen = try Hostile.violationLines(json, "probe.seen", file: log)
            #expect(
                seen == Array(1...counts.lines)
                    || (seen == Array(1..<counts.lines) && counts.malformed == 1), "\(counts)")
        }
    }

    @Test func aFileThatCannotBeReadAgainForTheMergeIsNamed() throws {
        try withScratchDirectory("hostile") { dir in
            // One source over two files: pass 2 reads both again to merge them by t.
            let first = try Hostile.put(
                (0..<10).map { Hostile.probe($0, src: "d") }.joined(separator: "\n") + "\n", dir,
                "m1.jsonl"
            )
            let second = try Hostile.put(
                (10..<20).map { Hostile.probe($0, src: "d") }.joined(separator: "\n") + "\n", dir,
                "m2.jsonl")
            let opens = OpenLog()
            let auditor = Auditor(
                rules: try Self.probeRuleSet(dir), jobs: 2,
                opener: {
                    file throws(InputError) in
                    if file.path == second, opens.open(file.path) == 2 { _ = unlink(file.path) }
                    return try ByteSources.open(file)
                })
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
            try Hostile.expectAccounting(json)
            #expect(
                try Hostile.fileCounts(json, second)
                    == Hostile.FileCounts(lines: 10, events: 10, malformed: 0, blank: 0))
            #expect(try Hostile.violationLines(json, "probe.seen", file: first) == Array(1...10))
        }
    }

    @Test func aDirectorySymlinkLoopEndsAndEachFileIsReadOnce() throws {
        try withScratchDirectory("hostile") { dir in
            let logs = dir + "/logs"
            let a = try Hostile.put(Hostile.probe(1, src: "a") + "\n", logs, "a.jsonl")
            let b = try Hostile.put(Hostile.probe(1, src: "b") + "\n", logs, "sub/b.jsonl")
            let fm = FileManager.default
            try fm.createSymbolicLink(atPath: logs + "/sub/up", withDestinationPath: "..")
            try fm.createSymbolicLink(atPath: logs + "/self", withDestinationPath: ".")
            try fm.createSymbolicLink(
                atPath: logs + "/sub/deeper", withDestinationPath: logs + "/sub")
            try fm.createSymbolicLink(atPath: logs + "/alias.jsonl", withDestinationPath: "a.jsonl")
            let rules = try Hostile.rulesDirectory(dir)

            let report = try Hostile.checkedJSONRun([logs, logs + "/", "--rules", rules]).report
            let files = try #require(report["files"] as? [[String: Any]])
            #expect(files.map { $0["path"] as? String } == [a, b])
            #expect(try Hostile.violationLines(report, "probe.seen", file: a) == [1])
            #expect(try Hostile.violationLines(report, "probe.seen", file: b) == [1])

            // A loop of file links where a log is expected cannot be read: it is named, the rest is
            // checked.
            try fm.createSymbolicLink(atPath: logs + "/x.jsonl", withDestinationPath: "y.jsonl")
            try fm.createSymbolicLink(atPath: logs + "/y.jsonl", withDestinationPath: "x.jsonl")
            let looped = Hostile.runCLI([logs, "--rules", rules, "--format", "json"])
            #expect(looped.code == 2)
            #expect(looped.elapsed < Hostile.timeLimit)
            #expect(
                looped.err.contains(
                    "could not read \(logs)/x.jsonl: too many levels of symbolic links"),
                "\(looped.err)")
            let loopedReport = try Hostile.parseReport(looped.out)
            #expect(try Hostile.violationLines(loopedReport, "probe.seen", file: a) == [1])
            #expect(try Hostile.violationLines(loopedReport, "probe.seen", file: b) == [1])
        }
    }

    @Test func anUnreadableFileOrDirectoryIsNamedAndTheOthersAreChecked() throws {
        try withScratchDirectory("hostile") { dir in
            let good = try Hostile.put(Hostile.probe(1, src: "g") + "\n", dir, "logs/good.jsonl")
            let locked = try Hostile.put(
                Hostile.probe(1, src: "l") + "\n", dir, "logs/locked.jsonl")
            let lockedDir = dir + "/logs/private"
            try Hostile.put(Hostile.probe(1, src: "p") + "\n", lockedDir, "p.jsonl")
            #expect(chmod(locked, 0) == 0)
            #expect(chmod(lockedDir, 0) == 0)
            if access(locked, R_OK) == 0 {
                try Test.cancel("running as root: chmod 000 does not make a file unreadable")
            }

            let run = Hostile.runCLI([
                dir + "/logs", "--rules", try Hostile.rulesDirectory(dir), "--format", "json"
            ]
            )
            #expect(run.code == 2, "\(run.err)")
            #expect(run.elapsed < Hostile.timeLimit)
            #expect(run.err.contains("could not read \(locked): permission denied"), "\(run.err)")
            #expect(
                run.err.contains("could not read \(lockedDir): permission denied"), "\(run.err)")
            let report = try Hostile.parseReport(run.out)
            try Hostile.expectAccounting(report)
            #expect(try Hostile.violationLines(report, "probe.seen", file: good) == [1])
        }
    }
}

// MARK: - Timelines name what they could not read

extension HostileFileSystemTests {
    /// A postmortem page saved with `--output` must say a log is missing or cut short, not only
    /// stderr: inputs not found and gzip files that break off are in every timeline format.
    @Test func aTimelineListsTheInputsItCouldNotRead() throws {
        try withScratchDirectory("hostile") { dir in
            let good = dir + "/a.jsonl"
            try Data("{\"t\":0,\"ev\":\"ws.connect\",\"gen\":1}\n".utf8).write(
                to: URL(fileURLWithPath: good))
            let cut = dir + "/cut.jsonl.gz"
            // A gzip header and nothing else: the stream breaks off.
            try Data([0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0x03]).write(
                to: URL(fileURLWithPath: cut))
            let missing = dir + "/gone.jsonl"
            for format in ["json", "text", "html"] {
                let run = Hostile.runCLI(["timeline", good, cut, missing, "--format", format])
                #expect(run.code == 2, "\(format): \(run.err)")
                #expect(run.out.contains("gone.jsonl"), "\(format) does not name the missing input")
                #expect(run.out.contains("cut.jsonl.gz"), "\(format) does not name the broken gzip")
            }
        }
    }
}

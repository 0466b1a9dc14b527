import Foundation
import Synchronization
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// `check --progress`: a line on standard error while a long run reads — drawn over itself and
/// erased on a terminal, never written into a log unless asked for — whose counts are the run's.
@Suite("Progress line")
struct ProgressLineTests {

    @Test func theLineSaysBytesFilesEventsRateAndTimeLeft() {
        let s = RunProgress.Snapshot(bytes: 312_400_000, events: 4_100_000, filesRead: 3)
        #expect(
            ProgressLine.text(s, total: 500_000_000, files: 10, seconds: 10)
                == "conn-audit: 312.4 MB of 500.0 MB (62%), 3 of 10 files, 4,100,000 events (410,000/s), about 7 s left"
        )
        // Standard input: no total, so no share and no time left.
        #expect(
            ProgressLine.text(s, total: nil, files: 1, seconds: 10)
                == "conn-audit: 312.4 MB, 3 of 1 file, 4,100,000 events (410,000/s)")
        let all = RunProgress.Snapshot(bytes: 500_000_000, events: 6_000_000, filesRead: 9)
        #expect(
            ProgressLine.text(all, total: 500_000_000, files: 10, seconds: 12).hasSuffix(
                ", finishing"))
        #expect(
            ProgressLine.summary(all, files: 10, seconds: 14.23)
                == "conn-audit: read 500.0 MB, 10 files, 6,000,000 events in 14.2 s")
    }

    @Test func durationsAndNumbersReadAsPeopleWriteThem() {
        #expect(ProgressLine.duration(0.2) == "1 s")
        #expect(ProgressLine.duration(59) == "59 s")
        #expect(ProgressLine.duration(185) == "3:05")
        #expect(ProgressLine.duration(3725) == "1:02:05")
        #expect(ProgressLine.grouped(0) == "0" && ProgressLine.grouped(999) == "999")
        #expect(
            ProgressLine.grouped(1000) == "1,000"
                && ProgressLine.grouped(-1_234_567) == "-1,234,567")
        #expect(
            ProgressLine.megabytes(0) == "0.0 MB" && ProgressLine.megabytes(1_950_000) == "2.0 MB")
    }

    /// Captures what the line writes, from its own thread.
    final class Written: Sendable {
        let parts = Mutex<[String]>([])
        func add(_ s: String) { parts.withLock { $0.append(s) } }
        var all: [String] { parts.withLock { $0 } }

        /// Waits (up to 10 s: a loaded machine) until `n` parts were written.
        func wait(for n: Int) {
            let deadline = Date().addingTimeInterval(10)
            while all.count < n, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        }
    }

    @Test func onATerminalTheLineIsDrawnOverItselfAndErased() throws {
        let progress = RunProgress(totalBytes: 1_000_000, files: 1)
        let written = Written()
        let line = ProgressLine(
            progress: progress, terminal: true, erases: true, write: written.add, delay: 0,
            interval: 0.005)
        progress.add(bytes: 250_000)
        progress.add(events: 3_000)
        line.start()
        written.wait(for: 2)
        line.stop()
        let parts = written.all
        #expect(parts.count >= 2, "\(parts)")
        for drawn in parts.dropLast() {
            #expect(
                drawn.hasPrefix("\rconn-audit: ") && drawn.hasSuffix("\u{1B}[K")
                    && !drawn.contains("\n"), "\(drawn)")
        }
        #expect(
            parts.dropLast().last?.contains("0.3 MB of 1.0 MB (25%), 0 of 1 file, 3,000 events")
                == true, "\(parts)")
        #expect(parts.last == "\r\u{1B}[K")
    }

    /// A line wider than the terminal would wrap, and `\r` would draw over its last row only: it is
    /// cut to one character less than the width.
    @Test func theLineNeverWrapsOnANarrowTerminal() throws {
        let progress = RunProgress(totalBytes: 500_000_000, files: 10)
        progress.add(bytes: 312_400_000)
        progress.add(events: 4_100_000)
        let written = Written()
        let line = ProgressLine(
            progress: progress, terminal: true, erases: true, write: written.add, width: 40,
            delay: 0, interval: 0.005)
        line.start()
        written.wait(for: 2)
        line.stop()
        let drawn = try #require(written.all.first)
        let text = drawn.dropFirst().replacingOccurrences(of: "\u{1B}[K", with: "")
        #expect(text == "conn-audit: 312.4 MB of 500.0 MB (62%)", "\(text)")
        #expect(ProgressLine.fitted("conn-audit: a, b, c", width: 16) == "conn-audit: a, b")
        #expect(ProgressLine.fitted("conn-audit: 312.4 MB", width: 10) == "conn-audit")
        #expect(ProgressLine.fitted("short", width: 10) == "short")
    }

    @Test func quietLeavesItOffUnlessAskedFor() throws {
        let console = Console(out: { _ in }, err: { _ in }, isTerminal: true, errIsTerminal: true)
        let files = [InputFile(path: Repository.samples + "/healthy/iphone-a.jsonl")]
        #expect(
            CommandLineTool.progressLine("auto", quiet: false, files: files, console: console)
                != nil)
        #expect(
            CommandLineTool.progressLine("auto", quiet: true, files: files, console: console) == nil
        )
        #expect(
            CommandLineTool.progressLine("always", quiet: true, files: files, console: console)
                != nil)
        #expect(
            CommandLineTool.progressLine("never", quiet: false, files: files, console: console)
                == nil)
    }

    @Test func aDumbTerminalIsErasedWithSpaces() throws {
        let progress = RunProgress(totalBytes: nil, files: 2)
        let written = Written()
        let line = ProgressLine(
            progress: progress, terminal: true, erases: false, write: written.add, delay: 0,
            interval: 0.005)
        line.start()
        written.wait(for: 2)
        line.stop()
        let parts = written.all
        let drawn = try #require(parts.first)
        #expect(!parts.joined().contains("\u{1B}"), "\(parts)")
        let width = drawn.utf8.count - 1
        #expect(parts.last == "\r" + String(repeating: " ", count: width) + "\r", "\(parts)")
    }

    @Test func aQuickRunOnATerminalWritesNothing() throws {
        let dir = try makeTemporaryDirectory([
            "a.jsonl": "{\"t\":1,\"ev\":\"app.scene\",\"phase\":\"active\"}\n"
        ])
        defer { removeTemporaryDirectory(dir) }
        let started = Date()
        let run = CommandLineRun([dir + "/a.jsonl", "--no-config", "-q"], errTerminal: true)
        #expect(run.code == 0)
        if Date().timeIntervalSince(started) < ProgressLine.terminalDelay * 0.9 {
            #expect(run.err.isEmpty, "\(run.err)")
        } else {
            // A machine so loaded that one line took about a second: the line was drawn, then
            // erased, or the run ended just before its delay. Nothing else is written.
            #expect(
                run.err.isEmpty
                    || (run.err.hasPrefix("\rconn-audit: ") && run.err.hasSuffix("\r\u{1B}[K")),
                "\(run.err)")
        }
    }

    @Test func askedForInALogItEndsWithWhatWasRead() throws {
        let log = (1...3).map { "{\"t\":\($0),\"ev\":\"app.scene\",\"phase\":\"active\"}\n" }
            .joined()
        let dir = try makeTemporaryDirectory(["a.jsonl": log, "b.jsonl": log])
        defer { removeTemporaryDirectory(dir) }
        let run = CommandLineRun([dir, "--no-config", "-q", "--progress", "always"])
        #expect(run.code == 0)
        #expect(run.err.hasPrefix("conn-audit: read 0.0 MB, 2 files, 6 events in "), "\(run.err)")
        #expect(run.err.hasSuffix(" s\n") && !run.err.contains("\r"))
        // Not asked for, and standard error no terminal: nothing.
        #expect(CommandLineRun([dir, "--no-config", "-q"]).err.isEmpty)
        #expect(
            CommandLineRun([dir, "--no-config", "-q", "--progress", "never"], errTerminal: true).err
                .isEmpty)
    }

    @Test func anUnknownModeIsAUsageError() {
        let run = CommandLineRun([Repository.samples, "--no-config", "--progress", "sometimes"])
        #expect(
            run.code == 2 && run.err.contains("--progress must be auto, always or never"),
            "\(run.err)")
    }

    /// A file with more sources than one pass keeps open is read again from its start: what the
    /// abandoned reading counted is taken back, so the counts are the input's, once.
    @Test func aFileReadAgainIsCountedOnce() throws {
        let sources = Auditor.maxOpenSources + 10
        let log = (0..<sources).map {
            "{\"t\":1,\"src\":\"d\($0)\",\"ev\":\"app.scene\",\"phase\":\"active\"}\n"
        }.joined()
        let dir = try makeTemporaryDirectory(["a.jsonl": log])
        defer { removeTemporaryDirectory(dir) }
        let input = InputFile(path: dir + "/a.jsonl")
        let total = try #require(Auditor.progressTotal(of: [input]))
        #expect(total == log.utf8.count)
        let progress = RunProgress(totalBytes: total, files: 1)
        let auditor = Auditor(
            rules: RuleLoader.builtin(), jobs: 1, readAheadFrom: Int.max, progress: progress)
        let report = auditor.run([input])
        #expect(report.inputs.events == sources)
        #expect(
            progress.snapshot == RunProgress.Snapshot(bytes: total, events: sources, filesRead: 1))
    }
}

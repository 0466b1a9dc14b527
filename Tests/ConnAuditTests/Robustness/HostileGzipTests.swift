import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// Hostile `.gz` uploads: damaged, empty, or not gzip at all. Each is named and exits 2; the
/// lines read before the damage are checked.
@Suite("Hostile input: damaged gzip", .timeLimit(.minutes(10)))
struct HostileGzipTests {}

// MARK: - Logs: damaged gzip

extension HostileGzipTests {
    /// 4,000 lines of source `d`, hard to compress so the damage lands mid-text, and the gzip of
    /// them.
    private static func gzipCorpus() -> (plain: [UInt8], gzip: [UInt8], lines: Int) {
        var random = SplitMix64(seed: 42)
        var plain: [UInt8] = []
        let count = 4000
        for i in 1...count {
            plain +=
                Hostile.bytes(#"{"t":\#(i),"src":"d","ev":"probe.hit","id":"\#(random.hex(32))"}"#)
                + Hostile.newline
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
        try withScratchDirectory("hostile") { dir in
            let corpus = Self.gzipCorpus()
            var gz = corpus.gzip
            switch damage {
            case .corruptMember:
                let middle = gz.count / 2
                for i in middle..<middle + 16 { gz[i] ^= 0xFF }
            case .trailingGarbage:
                gz += Hostile.bytes("this is not gzip\n")
            case .truncated:
                gz = Array(gz[..<(gz.count * 6 / 10)])
            case .truncatedInHeader:
                gz = Array(gz[..<5])
            case .trailerCut:
                gz = Gzip.compress(Array(corpus.plain.dropLast()))
                gz = Array(gz[..<(gz.count - 6)])
            }
            let damaged = try Hostile.put(gz, dir, "damaged.jsonl.gz")
            // Another file, with another source, is still checked; and one more file of source `d`,
            // so the damaged file is read again in the merge (it must still be named only once).
            let other = try Hostile.put(
                Hostile.probe(1, src: "other") + "\n" + Hostile.probe(2, src: "other") + "\n", dir,
                "other.jsonl")
            let later = try Hostile.put(
                Hostile.probe(1_000_000, src: "d") + "\n", dir, "later.jsonl")

            let (run, report) = try Hostile.checkedJSONRun(
                [damaged, other, later, "--rules", try Hostile.rulesDirectory(dir)], code: 2)
            #expect(report["complete"] as? Bool == false)
            let errors = try #require(report["input_errors"] as? [[String: Any]])
            #expect(errors.map { $0["path"] as? String } == [damaged], "named once: \(errors)")
            let reason = try #require(errors.first?["reason"] as? String)
            #expect(
                run.err.contains("conn-audit: error: could not read \(damaged): \(reason)\n"),
                "\(run.err)")

            let counts = try Hostile.fileCounts(report, damaged)
            #expect(counts.error == reason)
            let checked = try Hostile.violationLines(report, "probe.seen", file: damaged)
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
                        == Hostile.FileCounts(
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
                    try Hostile.malformedMessages(report, file: damaged)[counts.lines]?.contains(
                        "last line is cut off") == true)
                #expect(checked == Array(1..<counts.lines))
            case .trailerCut:
                // The deflate data is whole: every line, the last one without its newline, is
                // checked.
                #expect(reason == "truncated gzip data")
                #expect(
                    counts
                        == Hostile.FileCounts(
                            lines: corpus.lines, events: corpus.lines, malformed: 0, blank: 0,
                            error: reason))
                #expect(checked == Array(1...corpus.lines))
            case .truncatedInHeader:
                #expect(reason == "truncated gzip data")
                #expect(
                    counts
                        == Hostile.FileCounts(
                            lines: 0, events: 0, malformed: 0, blank: 0, error: reason)
                )
            }
            #expect(try Hostile.violationLines(report, "probe.seen", file: other) == [1, 2])
            #expect(try Hostile.violationLines(report, "probe.seen", file: later) == [1])

            let text = Hostile.runCLI([damaged, other, "--rules", try Hostile.rulesDirectory(dir)])
            #expect(text.code == 2)
            #expect(text.out.contains("error: could not read \(damaged): \(reason)"))
            // The other files' violations fail the run; the unread input is named in the verdict.
            #expect(text.out.contains("verdict: FAIL"))
            #expect(text.out.contains("; 1 input could not be read\n"), "\(text.out)")
        }
    }
}

// MARK: - Logs: a .gz name over data that is empty or not gzip

extension HostileGzipTests {
    /// An upload cut to zero bytes: `gzip -t` rejects it, so a gate must not pass it as an empty
    /// log. An empty plain file reads as an empty log, which judges nothing: no pass either.
    @Test func anEmptyGzipFileCannotBeReadButAnEmptyPlainFileIsAnEmptyLog() throws {
        try withScratchDirectory("hostile") { dir in
            let gz = dir + "/upload.jsonl.gz"
            let plain = dir + "/empty.jsonl"
            try Data().write(to: URL(fileURLWithPath: gz))
            try Data().write(to: URL(fileURLWithPath: plain))
            let both = Hostile.runCLI([gz, plain, "--only", "log.malformed", "--format", "json"])
            #expect(both.code == 2, "\(both.err)")
            #expect(
                both.err.contains("could not read \(gz): empty file, not gzip data"), "\(both.err)")
            let alone = Hostile.runCLI([plain, "--only", "log.malformed", "--format", "json"])
            #expect(alone.code == 2, "\(alone.err)")
            #expect(
                alone.err.contains(
                    "conn-audit: error: \(plain): no event in it (no line at all): nothing was judged"
                ))
        }
    }
}

extension HostileGzipTests {
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
        try withScratchDirectory("hostile") { dir in
            let rawStart = raw.prefix(2).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }
                .joined(separator: " ")
            for (name, bytes, start) in [
                ("raw.jsonl.gz", raw, rawStart), ("zlib.jsonl.gz", zlib, "78 9c"),
                ("nul.jsonl.gz", [0, 0, 0, 0] + Array(log.utf8), "00 00")
            ] {
                let path = dir + "/" + name
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                let run = Hostile.runCLI([path, "--only", "log.malformed", "--format", "json"])
                #expect(run.code == 2, "\(name): \(run.err)")
                #expect(
                    run.err.contains(
                        "could not read \(path): not gzip data, nor text: it starts with \(start) (gzip starts with 1f 8b)"
                    ),
                    "\(name): \(run.err)")
            }
            let plain = dir + "/plain.jsonl.gz"
            try Data(log.utf8).write(to: URL(fileURLWithPath: plain))
            let text = Hostile.runCLI([plain, "--only", "log.malformed", "--format", "json"])
            #expect(text.code == 0, "\(text.err)")
            #expect(
                text.out.contains("\"events\":40") || text.out.contains("\"events\": 40"),
                "\(text.out)")
            // The name's case does not matter; a log line with a stray byte is still text.
            let upper = dir + "/ZLIB.JSONL.GZ"
            try Data(zlib).write(to: URL(fileURLWithPath: upper))
            #expect(Hostile.runCLI([upper, "--only", "log.malformed"]).code == 2)
            let stray = dir + "/stray.jsonl.gz"
            try Data(
                [
                    0x7B, 0x22, 0x74, 0x22, 0x3A, 0x30, 0x2C, 0x22, 0x78, 0x22, 0x3A, 0x22, 0xFF,
                    0x22, 0x7D, 0x0A
                ] + Array(log.utf8)
            )
            .write(to: URL(fileURLWithPath: stray))
            let strayRun = Hostile.runCLI([stray, "--only", "log.malformed", "--format", "json"])
            #expect(strayRun.code == 1, "\(strayRun.err)")
            #expect(
                strayRun.out.contains("\"events\":40") || strayRun.out.contains("\"events\": 40"),
                "\(strayRun.out)")
            let binary = dir + "/binary.jsonl"
            try Data(zlib).write(to: URL(fileURLWithPath: binary))
            let lines = Hostile.runCLI([binary, "--only", "log.malformed", "--format", "json"])
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

extension HostileGzipTests {
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

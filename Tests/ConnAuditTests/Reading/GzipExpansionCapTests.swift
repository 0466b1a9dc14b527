import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A gzip input may expand to `--max-expansion` times the compressed bytes read (default 100),
/// plus 4 MiB: a bomb is refused early, named with the reason, after the lines before it were
/// checked; logs, even very repetitive ones, pass. Bombs are made here, streamed into zlib.
@Suite("Gzip expansion cap", .timeLimit(.minutes(10)))
struct GzipExpansionCapTests {
    enum Bomb: String, CaseIterable, Sendable {
        case newlines
        case zeros
        case oneLine = "one repeated line"

        /// 1 MiB of the bomb's content.
        var block: [UInt8] {
            switch self {
            case .newlines: return [UInt8](repeating: 0x0A, count: 1 << 20)
            case .zeros: return [UInt8](repeating: 0, count: 1 << 20)
            case .oneLine:
                let line = Array(#"{"t":1,"src":"d","ev":"ws.ping","gen":1}"#.utf8) + [0x0A]
                return Array([[UInt8]](repeating: line, count: (1 << 20) / line.count).joined())
            }
        }
    }

    /// Reads `source` to its end or its error, counting the bytes.
    private static func drain(_ source: any ByteSource) -> (count: Int, error: InputError?) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        var total = 0
        while true {
            do {
                let count = try source.read(into: buffer)
                if count == 0 { return (total, nil) }
                total += count
            } catch {
                return (total, error)
            }
        }
    }

    @Test(arguments: Bomb.allCases, [1, 6, 9])
    func aBombIsRefusedAfterTheAllowance(_ bomb: Bomb, level: Int) {
        // 32 MiB expanding 147 (one line, gzip -1) to 1,028 times (newlines or zeros, gzip -6).
        let packed = Gzip.compress(bomb.block, repeated: 32, level: level)
        let read = Self.drain(ByteSources.memory(packed, path: "bomb.jsonl.gz"))
        let reason = read.error?.reason ?? "none"
        #expect(read.error?.path == "bomb.jsonl.gz")
        #expect(reason.hasPrefix("gzip data expands more than 100 times ("), "\(reason)")
        #expect(
            reason.hasSuffix("): refused as a possible gzip bomb; --max-expansion raises the cap"))
        // Stopped within one read of the cap: 4 MiB plus 100 times what was read of the input.
        #expect(read.count > ByteSources.expansionAllowance)
        #expect(read.count < 13 << 20, "\(read.count) bytes decoded")
    }

    @Test func noCapDecodesTheWholeBomb() {
        let packed = Gzip.compress(Bomb.newlines.block, repeated: 32)
        let read = Self.drain(ByteSources.memory(packed, path: "bomb.jsonl.gz", maxExpansion: 0))
        #expect(read.error == nil)
        #expect(read.count == 32 << 20)
    }

    /// A client stuck in a loop, logging one error with only its time changing: about 50 times
    /// smaller gzipped, the most compressible real log measured.
    @Test(arguments: [1, 6, 9])
    func aRepetitiveLogPasses(level: Int) {
        var text = ""
        var t = 1_700_000_000_000
        while text.utf8.count < 1 << 20 {
            t += 1 + t % 3
            text +=
                #"{"t":\#(t),"src":"iphone-7F3A","session":"s9","ev":"ws.error","gen":412,"#
                + #""error":"NSURLErrorDomain Code=-1009 The Internet connection appears to be offline."}"#
                + "\n"
        }
        let block = Array(text.utf8)
        let packed = Gzip.compress(block, repeated: 16, level: level)
        #expect(
            packed.count * 30 < block.count * 16, "expands \(block.count * 16 / packed.count) times"
        )
        let read = Self.drain(ByteSources.memory(packed, path: "stuck.jsonl.gz"))
        #expect(read.error == nil)
        #expect(read.count == block.count * 16)
    }
}

// MARK: - Command line

extension GzipExpansionCapTests {
    private static let probeRules = """
        rules:
          - id: probe.seen
            title: Every probe line reaches the rules
            for: source
            never: { ev: probe.hit }
        """

    /// A fresh directory with the built-in `10-log.yaml` and `probe.seen` under `rules/`, and a
    /// gzip file `bomb.jsonl.gz`: 100 probe lines, then `zeros` bytes of zeros (one line longer
    /// than 1 MiB, skipped as it streams, so a debug build reads it fast).
    private static func withBomb(zeros: Int, _ body: (_ dir: String, _ bomb: String) throws -> Void)
        throws
    {
        try withScratchDirectory("gzip-cap") { dir in
            try FileManager.default.createDirectory(
                atPath: dir + "/rules", withIntermediateDirectories: false)
            let log = try #require(BuiltinPack.files.first { $0.name == "10-log.yaml" })
            try Data(log.text.utf8).write(to: URL(fileURLWithPath: dir + "/rules/10-log.yaml"))
            try Data(probeRules.utf8).write(to: URL(fileURLWithPath: dir + "/rules/90-probe.yaml"))
            let lines = (1...100).map { #"{"t":\#($0),"src":"d","ev":"probe.hit"}"# + "\n" }
                .joined()
            // The probe lines fill the first MiB-block's start; whole blocks of zeros follow.
            var first = Array(lines.utf8)
            first += [UInt8](repeating: 0, count: (1 << 20) - first.count)
            let packed = Gzip.compress(first)
            let rest = Gzip.compress(
                [UInt8](repeating: 0, count: 1 << 20), repeated: zeros / (1 << 20) - 1)
            try Data(packed + rest).write(to: URL(fileURLWithPath: dir + "/bomb.jsonl.gz"))
            try Data(#"{"t":1,"src":"other","ev":"probe.hit"}"#.utf8 + [0x0A])
                .write(to: URL(fileURLWithPath: dir + "/other.jsonl"))
            try body(dir, dir + "/bomb.jsonl.gz")
        }
    }

    private static func parse(_ text: String) throws -> [String: Any] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            "\(text.prefix(300))")
    }

    @Test func checkNamesTheBombAndChecksTheLinesBeforeIt() throws {
        try Self.withBomb(zeros: 64 << 20) { dir, bomb in
            let clock = ContinuousClock()
            let start = clock.now
            let run = CommandLineRun([
                bomb, dir + "/other.jsonl", "--rules", dir + "/rules", "--format", "json"
            ])
            #expect(clock.now - start < .seconds(20))
            #expect(run.code == 2, "\(run.err)")
            let report = try Self.parse(run.out)
            #expect(report["complete"] as? Bool == false)
            let errors = try #require(report["input_errors"] as? [[String: Any]])
            #expect(errors.map { $0["path"] as? String } == [bomb])
            let reason = try #require(errors.first?["reason"] as? String)
            #expect(reason.hasPrefix("gzip data expands more than 100 times ("), "\(reason)")
            #expect(
                run.err.contains("conn-audit: error: could not read \(bomb): \(reason)\n"),
                "\(run.err)")
            let files = try #require(report["files"] as? [[String: Any]])
            let entry = try #require(files.first { $0["path"] as? String == bomb })
            // The 100 lines before the zeros are events; the zeros are one line, cut off.
            #expect(entry["lines"] as? Int == 101)
            #expect(entry["events"] as? Int == 100)
            #expect(entry["malformed"] as? Int == 1)
            #expect(entry["error"] as? String == reason)
            let rules = try #require(report["rules"] as? [[String: Any]])
            let probe = try #require(rules.first { $0["id"] as? String == "probe.seen" })
            let seen = (probe["violations"] as? [[String: Any]] ?? []).map {
                "\($0["file"] as? String == bomb ? "bomb" : "other"):\($0["line"] as? Int ?? 0)"
            }
            #expect(seen.sorted() == ((1...100).map { "bomb:\($0)" } + ["other:1"]).sorted())
        }
    }

    @Test func timelineNamesTheBomb() throws {
        try Self.withBomb(zeros: 64 << 20) { dir, bomb in
            let run = CommandLineRun(["timeline", bomb, "--rules", dir + "/rules", "--src", "d"])
            #expect(run.code == 2, "\(run.err)")
            #expect(
                run.err.contains(
                    "conn-audit: error: could not read \(bomb): gzip data expands more than 100 times ("
                ),
                "\(run.err)")
            #expect(run.out.contains("probe.hit"))
        }
    }

    @Test func maxExpansionRaisesOrRemovesTheCap() throws {
        try Self.withBomb(zeros: 8 << 20) { dir, bomb in
            let capped = CommandLineRun([bomb, "--rules", dir + "/rules", "--quiet"])
            #expect(capped.code == 2)
            #expect(capped.err.contains("gzip data expands more than 100 times"), "\(capped.err)")
            for ratio in ["0", "2000"] {
                let run = CommandLineRun([
                    bomb, "--rules", dir + "/rules", "--format", "json", "--max-expansion", ratio
                ])
                // Read to its end: the long line of zeros is malformed (exit 1), nothing is unread.
                #expect(run.code == 1, "--max-expansion \(ratio): \(run.err)")
                #expect(run.err.isEmpty, "\(run.err)")
                let report = try Self.parse(run.out)
                #expect(report["complete"] as? Bool == true)
            }
            let timeline = CommandLineRun([
                "timeline", bomb, "--rules", dir + "/rules", "--max-expansion=0"
            ])
            #expect(timeline.code == 0, "\(timeline.err)")
            let stricter = CommandLineRun([
                bomb, "--rules", dir + "/rules", "--quiet", "--max-expansion", "2"
            ])
            #expect(stricter.err.contains("gzip data expands more than 2 times"), "\(stricter.err)")
        }
    }

    @Test(arguments: ["-1", "x", "1.5", "1000001"])
    func aBadRatioIsAUsageError(_ value: String) throws {
        try Self.withBomb(zeros: 2 << 20) { dir, bomb in
            let run = CommandLineRun([bomb, "--max-expansion", value])
            #expect(run.code == 2)
            #expect(
                run.err.contains(
                    "--max-expansion takes a whole number from 0 (no cap) to 1000000, not '\(value)'"
                ),
                "\(run.err)")
        }
    }
}

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

/// Ordinary files of odd shape (empty, blank, CRLF, a mid-file byte order mark) and a mixed
/// hostile file where every physical line is an event, malformed or blank.
@Suite("Hostile input: edge shapes of a log file", .timeLimit(.minutes(10)))
struct HostileLogShapesTests {}

// MARK: - Logs: edge shapes of an ordinary file

extension HostileLogShapesTests {
    /// Counted line for line, and never a pass: a run that read no event judged nothing (exit 2).
    @Test func anEmptyFileAndABlankFileAreCountedAndAreNoVerdict() throws {
        try withScratchDirectory("hostile") { dir in
            let empty = try Hostile.put([], dir, "empty.jsonl")
            let emptyGzip = try Hostile.put(Gzip.compress([]), dir, "empty.jsonl.gz")
            let blankContent = Hostile.bom + Hostile.bytes("\n   \n\t\t\n\r\n \t \r\n\n")
            let blank = try Hostile.put(blankContent, dir, "blank.jsonl")
            #expect(Hostile.physicalLines(blankContent) == (6, 6))

            let (run, report) = try Hostile.checkedJSONRun(
                [empty, emptyGzip, blank, "--rules", try Hostile.rulesDirectory(dir)], code: 2)
            #expect(
                run.err.hasSuffix(": no event in its 6 lines: nothing was judged\n"), "\(run.err)")
            #expect(
                try Hostile.fileCounts(report, empty)
                    == Hostile.FileCounts(lines: 0, events: 0, malformed: 0, blank: 0))
            #expect(
                try Hostile.fileCounts(report, emptyGzip)
                    == Hostile.FileCounts(lines: 0, events: 0, malformed: 0, blank: 0))
            #expect(
                try Hostile.fileCounts(report, blank)
                    == Hostile.FileCounts(lines: 6, events: 0, malformed: 0, blank: 6))
            #expect(report["verdict"] as? String == "incomplete")
        }
    }

    @Test func crlfEverywhereKeepsLineNumbersAndReasons() throws {
        try withScratchDirectory("hostile") { dir in
            let content =
                [
                    Hostile.probe(1),  // 1
                    "",  // 2: blank
                    "not json",  // 3
                    Hostile.probe(4),  // 4
                    Hostile.probe(5) + " x",  // 5: text after the object
                    "   ",  // 6: blank
                    Hostile.probe(7)  // 7
                    // 8: no newline, but a \r: still an event
                ].joined(separator: "\r\n") + "\r\n" + Hostile.probe(8) + "\r"
            let log = try Hostile.put(content, dir, "crlf.jsonl")
            let report = try Hostile.checkedJSONRun([
                log, "--rules", try Hostile.rulesDirectory(dir)
            ]).report
            #expect(
                try Hostile.fileCounts(report, log)
                    == Hostile.FileCounts(lines: 8, events: 4, malformed: 2, blank: 2))
            #expect(try Hostile.violationLines(report, "probe.seen", file: log) == [1, 4, 7, 8])
            let messages = try Hostile.malformedMessages(report, file: log)
            #expect(messages[3]?.hasPrefix("not a valid connlog event: not valid JSON: ") == true)
            // `{"t":5,"ev":"probe.hit"} x`: the space is skipped, the `x` is the first byte after
            // the object.
            #expect(
                messages[5]
                    == "not a valid connlog event: text after the JSON object (byte \(Hostile.probe(5).utf8.count + 2))"
            )
            #expect(messages.values.allSatisfy { !$0.contains("\r") })
        }
    }

    @Test func aByteOrderMarkInTheMiddleOfAFileIsAMalformedLine() throws {
        try withScratchDirectory("hostile") { dir in
            let content =
                // at the start: skipped
                Hostile.bom + Hostile.bytes(Hostile.probe(1)) + Hostile.newline
                // in the middle: not skipped
                + Hostile.bom + Hostile.bytes(Hostile.probe(2)) + Hostile.newline
                + Hostile.bytes(Hostile.probe(3)) + Hostile.newline
            let log = try Hostile.put(content, dir, "bom.jsonl")
            let report = try Hostile.checkedJSONRun([
                log, "--rules", try Hostile.rulesDirectory(dir)
            ]).report
            #expect(
                try Hostile.fileCounts(report, log)
                    == Hostile.FileCounts(lines: 3, events: 2, malformed: 1, blank: 0))
            #expect(try Hostile.violationLines(report, "probe.seen", file: log) == [1, 3])
            let messages = try Hostile.malformedMessages(report, file: log)
            #expect(messages[2]?.hasPrefix("not a valid connlog event: ") == true, "\(messages)")
        }
    }
}

// MARK: - The accounting invariant on a mixed hostile file

extension HostileLogShapesTests {
    /// A line of exactly `size` bytes that `probe.seen` reports.
    private static func paddedProbe(_ t: Int, size: Int) -> [UInt8] {
        let head = Hostile.bytes(#"{"t":\#(t),"ev":"probe.hit","pad":""#)
        let tail = Hostile.bytes(#""}"#)
        return head + [UInt8](repeating: UInt8(ascii: "a"), count: size - head.count - tail.count)
            + tail
    }

    @Test func everyPhysicalLineIsAnEventMalformedOrBlank() throws {
        try withScratchDirectory("hostile") { dir in
            let mib = 1 << 20
            var random = SplitMix64(seed: 7)
            let garbage = random.bytes(200).map { $0 == 0x0A ? 0 : $0 }
            let lines: [[UInt8]] = [
                // 1 event (BOM at the start skipped)
                Hostile.bom + Hostile.bytes(Hostile.probe(1)),
                [],  // 2 blank
                Hostile.bytes("   \t"),  // 3 blank
                Hostile.bytes(Hostile.probe(4)) + [0x0D],  // 4 event (CRLF)
                [0x0D],  // 5 blank (CRLF)
                garbage,  // 6 malformed
                // 7 malformed
                Hostile.bytes(#"{"t":7,"ev":"probe.hit","v":""#) + [0xFF, 0xFE]
                    + Hostile.bytes(#""}"#),
                Hostile.bytes("[1,2]"),  // 8 malformed: not an object
                Hostile.bytes(#"{"t":9}"#),  // 9 malformed: no ev
                // 10 malformed: NUL
                Hostile.bytes(#"{"t":10,"ev":"probe.hit","v":"a"#) + [0] + Hostile.bytes(#""}"#),
                // 11 malformed
                Hostile.bytes(#"{"t":11,"ev":"probe.hit","n":"#)
                    + [UInt8](repeating: 0x5B, count: 100_000),
                Self.paddedProbe(12, size: mib),  // 12 event: exactly 1 MiB is allowed
                Self.paddedProbe(13, size: mib + 1),  // 13 malformed: one byte over
                Self.paddedProbe(14, size: mib) + [0x0D],  // 14 event: 1 MiB plus its \r
                // 15 malformed: a BOM in the middle
                Hostile.bom + Hostile.bytes(Hostile.probe(15)),
                Hostile.bytes(#"{"t":1e400,"ev":"probe.hit"}"#),  // 16 malformed: t not finite
                Hostile.bytes(Hostile.probe(17)),  // 17 event
                Self.paddedProbe(18, size: 3 * mib),  // 18 malformed: too long
                Hostile.bytes(#"{"t":19,"ev":"probe.hit""#)  // 19 malformed: cut off, no newline
            ]
            let content = Array(lines.joined(separator: Hostile.newline))
            let plain = try Hostile.put(content, dir, "mixed.jsonl")
            let gzip = try Hostile.put(Gzip.compress(content), dir, "mixed.jsonl.gz")
            let expectedMalformed = [6, 7, 8, 9, 10, 11, 13, 15, 16, 18, 19]
            let expectedEvents = [1, 4, 12, 14, 17]

            // The padding expands about 1,000 times gzipped, past the default --max-expansion.
            let report = try Hostile.checkedJSONRun([
                plain, gzip, "--rules", try Hostile.rulesDirectory(dir), "--max-expansion", "0"
            ]).report
            for log in [plain, gzip] {
                #expect(
                    try Hostile.fileCounts(report, log)
                        == Hostile.FileCounts(lines: 19, events: 5, malformed: 11, blank: 3),
                    "\(log)")
                #expect(
                    try Hostile.violationLines(report, "probe.seen", file: log) == expectedEvents,
                    "\(log)")
                let messages = try Hostile.malformedMessages(report, file: log)
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
            let text = Hostile.runCLI([
                plain, gzip, "--rules", try Hostile.rulesDirectory(dir), "--max-expansion", "0"
            ])
            #expect(
                text.out.contains("inputs: 2 files, 38 lines, 10 events, 22 malformed, 6 blank;"),
                "\(text.out.prefix(300))")
        }
    }
}

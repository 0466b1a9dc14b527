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

/// Hostile logs whose lines are not connlog: garbage, invalid UTF-8, huge or deep lines, huge
/// numbers, NUL bytes. The damaged lines are malformed; the good lines around them are checked.
@Suite("Hostile input: bytes that are not connlog", .timeLimit(.minutes(10)))
struct HostileLogBytesTests {}

// MARK: - Logs: bytes that are not connlog

extension HostileLogBytesTests {
    @Test func binaryGarbageIsMalformedLineByLineAndTheGoodLinesAroundItAreChecked() throws {
        try withScratchDirectory("hostile") { dir in
            var random = SplitMix64(seed: 0xC0FFEE)
            var garbage = random.bytes(64 * 1024)
            // Plenty of NULs, and never the gzip magic at the start of a line.
            for i in stride(from: 0, to: garbage.count, by: 97) { garbage[i] = 0 }
            let content =
                Hostile.bytes(Hostile.probe(1)) + Hostile.newline + garbage + Hostile.newline
                + Hostile.bytes(Hostile.probe(2)) + Hostile.newline
            let log = try Hostile.put(content, dir, "garbage.jsonl")
            let expected = Hostile.physicalLines(content)
            #expect(expected.lines > 100, "the garbage should hold many newlines")

            let rules = try Hostile.rulesDirectory(dir)
            let (run, report) = try Hostile.checkedJSONRun([log, "--rules", rules])
            #expect(run.err.isEmpty, "\(run.err)")
            let counts = try Hostile.fileCounts(report, log)
            #expect(
                counts
                    == Hostile.FileCounts(
                        lines: expected.lines, events: 2,
                        malformed: expected.lines - 2 - expected.blank,
                        blank: expected.blank, error: nil))
            #expect(
                try Hostile.violationLines(report, "probe.seen", file: log) == [1, expected.lines])
            let messages = try Hostile.malformedMessages(report, file: log)
            #expect(
                messages[2]?.hasPrefix("not a valid connlog event: ") == true,
                "\(messages[2] ?? "nil")")
            #expect(
                messages.values.allSatisfy { !$0.contains("\u{0}") },
                "a reason echoes a NUL from the log")

            let text = Hostile.runCLI([log, "--rules", rules])
            #expect(text.code == 1)
            #expect(text.out.contains("\(log):2\n    not a valid connlog event: "))
            #expect(text.out.contains("verdict: FAIL"))
        }
    }

    @Test func invalidUTF8InKeysAndValuesIsMalformedWithTheBytePosition() throws {
        try withScratchDirectory("hostile") { dir in
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
            var content = Hostile.bytes(Hostile.probe(1)) + Hostile.newline
            for (prefix, invalid, rest) in bad {
                content += Hostile.bytes(prefix) + invalid + Hostile.bytes(rest) + Hostile.newline
            }
            // A lone surrogate *escape* is valid JSON text: it decodes as U+FFFD (docs/connlog.md).
            content += Hostile.bytes(#"{"t":11,"ev":"probe.hit","v":"\uD800"}"#) + Hostile.newline
            content += Hostile.bytes(Hostile.probe(12)) + Hostile.newline
            let log = try Hostile.put(content, dir, "utf8.jsonl")

            let report = try Hostile.checkedJSONRun([
                log, "--rules", try Hostile.rulesDirectory(dir)
            ]).report
            #expect(
                try Hostile.fileCounts(report, log)
                    == Hostile.FileCounts(lines: 12, events: 3, malformed: 9, blank: 0))
            #expect(try Hostile.violationLines(report, "probe.seen", file: log) == [1, 11, 12])
            let messages = try Hostile.malformedMessages(report, file: log)
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
        try withScratchDirectory("hostile") { dir in
            let path = dir + "/huge.jsonl"
            let length = 100 * 1024 * 1024
            let head = Hostile.bytes(#"{"t":2,"ev":"probe.hit","pad":""#)
            let tail = Hostile.bytes(#""}"#)
            let file = try Hostile.StreamingFile(path)
            try file.write(Hostile.bytes(Hostile.probe(1)) + Hostile.newline)
            try file.write(head)
            let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20)
            var left = length - head.count - tail.count
            while left > 0 {
                let n = min(left, chunk.count)
                try file.write(n == chunk.count ? chunk : Array(chunk[..<n]))
                left -= n
            }
            try file.write(
                tail + Hostile.newline + Hostile.bytes(Hostile.probe(3)) + Hostile.newline)
            try file.close()

            // The same at the end of a file, with no newline at all.
            let cut = try Hostile.StreamingFile(dir + "/cut.jsonl")
            try cut.write(Hostile.bytes(Hostile.probe(1)) + Hostile.newline)
            for _ in 0..<3 { try cut.write(chunk) }
            try cut.close()

            let report = try Hostile.checkedJSONRun([
                path, cut.path, "--rules", try Hostile.rulesDirectory(dir)
            ]).report
            #expect(
                try Hostile.fileCounts(report, path)
                    == Hostile.FileCounts(lines: 3, events: 2, malformed: 1, blank: 0))
            #expect(try Hostile.violationLines(report, "probe.seen", file: path) == [1, 3])
            #expect(
                try Hostile.malformedMessages(report, file: path)
                    == [2: "not a valid connlog event: line is longer than 1 MiB (\(length) bytes)"]
            )
            #expect(
                try Hostile.fileCounts(report, cut.path)
                    == Hostile.FileCounts(lines: 2, events: 1, malformed: 1, blank: 0))
            #expect(
                try Hostile.malformedMessages(report, file: cut.path)[2]?.contains(
                    "line is longer than 1 MiB (3145728 bytes)") == true)
        }
    }

    /// A line too long to hold is still judged by `log.no-secrets` (default-pack.md: every line
    /// that parses as a JSON object): its bytes are scanned as they are skipped. One that is not a
    /// JSON object, or not UTF-8, is only malformed. No report prints what the line holds.
    @Test func aLineLongerThanOneMebibyteIsScannedForSecrets() throws {
        try withScratchDirectory("hostile") { dir in
            let size = 2 << 20
            func long(_ head: String, _ tail: [UInt8]) -> [UInt8] {
                Hostile.bytes(head)
                    + [UInt8](
                        repeating: UInt8(ascii: "a"), count: size - head.utf8.count - tail.count)
                    + tail
            }
            let secret = long(
                #"{"t":2,"ev":"probe.hit","auth":{"Password":"hunter2"},"pad":""#,
                Hostile.bytes(#"","note":"Bearer SECRETabcdefgh"}"#))
            let notObject = long(#"[{"t":3,"password":"hunter2","pad":""#, Hostile.bytes(#""}]"#))
            let badUTF8 = long(
                #"{"t":4,"password":"hunter2","pad":""#, [0xFF] + Hostile.bytes(#""}"#))
            let log = try Hostile.put(
                Hostile.bytes(Hostile.probe(1)) + Hostile.newline + secret + Hostile.newline
                    + notObject + Hostile.newline + badUTF8
                    + Hostile.newline
                    + Hostile.bytes(Hostile.probe(5)) + Hostile.newline, dir, "long.jsonl")

            for format in ["text", "json", "sarif"] {
                let run = Hostile.runCLI([
                    log, "--rules", try Hostile.rulesDirectory(dir), "--format", format
                ])
                #expect(run.code == 1, "\(format): \(run.err)")
                #expect(run.elapsed < Hostile.timeLimit, "\(format) took \(run.elapsed)")
                for shown in ["hunter2", "SECRET", "aaaaaaaa"] {
                    #expect(
                        !run.out.contains(shown) && !run.err.contains(shown),
                        "\(format) prints \(shown)")
                }
                guard format == "json" else { continue }
                let report = try Hostile.parseReport(run.out)
                try Hostile.expectAccounting(report)
                #expect(
                    try Hostile.fileCounts(report, log)
                        == Hostile.FileCounts(lines: 5, events: 2, malformed: 3, blank: 0))
                #expect(try Hostile.violationLines(report, "probe.seen", file: log) == [1, 5])
                #expect(
                    try Hostile.malformedMessages(report, file: log) == [
                        2: "not a valid connlog event: line is longer than 1 MiB (\(size) bytes)",
                        3: "not a valid connlog event: line is longer than 1 MiB (\(size) bytes)",
                        4: "not a valid connlog event: line is longer than 1 MiB (\(size) bytes)"
                    ])
                let secrets = try Hostile.violations(report, "log.no-secrets")
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
        try withScratchDirectory("hostile") { dir in
            let path = dir + "/million.jsonl"
            let file = try Hostile.StreamingFile(path)
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

            let report = try Hostile.checkedJSONRun(
                [path, "--only", "log.malformed"], within: Hostile.millionLineLimit
            ).report
            #expect(
                try Hostile.fileCounts(report, path)
                    == Hostile.FileCounts(
                        lines: 1_000_001, events: 1_000_000, malformed: 1, blank: 0))
            #expect(
                try Hostile.malformedMessages(report, file: path) == [
                    500_001: #"not a valid connlog event: missing "ev""#
                ])
        }
    }

    @Test func jsonNestedAHundredThousandDeepIsMalformedNotAStackOverflow() throws {
        try withScratchDirectory("hostile") { dir in
            let n = 100_000
            let lines: [[UInt8]] = [
                Hostile.bytes(Hostile.probe(1)),
                Hostile.bytes(#"{"t":2,"ev":"probe.hit","n":"#) + [UInt8](repeating: 0x5B, count: n)
                    + [UInt8](repeating: 0x5D, count: n) + Hostile.bytes("}"),
                Hostile.bytes(#"{"t":3,"ev":"probe.hit","n":"#)
                    + Array(String(repeating: #"{"a":"#, count: n).utf8) + Hostile.bytes("1")
                    + [UInt8](repeating: 0x7D, count: n) + Hostile.bytes("}"),
                [UInt8](repeating: 0x5B, count: n) + [UInt8](repeating: 0x5D, count: n),
                // Exactly 512 levels (the object and 511 arrays) is allowed; 513 is not.
                Hostile.bytes(#"{"t":5,"ev":"probe.hit","n":"#)
                    + [UInt8](repeating: 0x5B, count: 511)
                    + [UInt8](repeating: 0x5D, count: 511) + Hostile.bytes("}"),
                Hostile.bytes(#"{"t":6,"ev":"probe.hit","n":"#)
                    + [UInt8](repeating: 0x5B, count: 512)
                    + [UInt8](repeating: 0x5D, count: 512) + Hostile.bytes("}"),
                Hostile.bytes(Hostile.probe(7))
            ]
            var content = Array(lines.joined(separator: Hostile.newline))
            // a cut-off last line, 10^5 deep
            content += Hostile.newline + [UInt8](repeating: 0x5B, count: n)
            // Two files and two jobs: the parser also runs on worker threads, with their smaller
            // stacks.
            let a = try Hostile.put(content, dir, "deep-a.jsonl")
            let b = try Hostile.put(content, dir, "deep-b.jsonl")

            let report = try Hostile.checkedJSONRun([
                a, b, "--jobs", "2", "--rules", try Hostile.rulesDirectory(dir)
            ]).report
            for log in [a, b] {
                #expect(
                    try Hostile.fileCounts(report, log)
                        == Hostile.FileCounts(lines: 8, events: 3, malformed: 5, blank: 0))
                #expect(try Hostile.violationLines(report, "probe.seen", file: log) == [1, 5, 7])
                let messages = try Hostile.malformedMessages(report, file: log)
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
        try withScratchDirectory("hostile") { dir in
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
            let log = try Hostile.put(lines.joined(separator: "\n") + "\n", dir, "numbers.jsonl")
            let (run, report) = try Hostile.checkedJSONRun([
                log, "--rules", try Hostile.rulesDirectory(dir)
            ])
            #expect(
                try Hostile.fileCounts(report, log)
                    == Hostile.FileCounts(lines: 9, events: 4, malformed: 5, blank: 0))
            #expect(try Hostile.violationLines(report, "probe.seen", file: log) == [2, 4, 5, 6])
            let probeT =
                try Hostile.violations(report, "probe.seen").first { $0["line"] as? Int == 2 }?["t"]
                as? Double
            // Foundation's JSONSerialization on Linux parses the exponent form a few ulps off:
            // compare loosely, and the text exactly.
            #expect(
                abs((probeT ?? 0) - 1.2345678901234568e29) / 1.2345678901234568e29 < 1e-12,
                "\(probeT ?? -1)")
            #expect(run.out.contains(#""t": 1.2345678901234568e+29"#))
            let messages = try Hostile.malformedMessages(report, file: log)
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
            let pack = try Hostile.put(
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
                let full = Hostile.runCLI([pack, "--format", format])
                #expect(full.code == 1, "\(full.err)")
                #expect(full.elapsed < Hostile.timeLimit)
            }
        }
    }

    @Test func nulBytesInsideLinesAreMalformed() throws {
        try withScratchDirectory("hostile") { dir in
            let lines: [[UInt8]] = [
                Hostile.bytes(Hostile.probe(1)),
                // raw NUL in a string
                Hostile.bytes(#"{"t":2,"ev":"probe.hit","v":"a"#) + [0] + Hostile.bytes(#"b"}"#),
                Hostile.bytes(Hostile.probe(3)) + [0],  // after the object
                [0] + Hostile.bytes(Hostile.probe(4)),  // before it
                [0, 0, 0, 0],  // only NULs: not blank
                // an escaped NUL is valid JSON
                Hostile.bytes(#"{"t":6,"ev":"probe.hit","v":"\u0000"}"#),
                Hostile.bytes(#"{"t":7,"#) + [0] + Hostile.bytes(#""ev":"probe.hit"}"#),
                Hostile.bytes(Hostile.probe(8))
            ]
            let log = try Hostile.put(
                lines.joined(separator: Hostile.newline) + Hostile.newline, dir, "nul.jsonl")
            let (run, report) = try Hostile.checkedJSONRun([
                log, "--rules", try Hostile.rulesDirectory(dir)
            ])
            #expect(
                try Hostile.fileCounts(report, log)
                    == Hostile.FileCounts(lines: 8, events: 3, malformed: 5, blank: 0))
            #expect(try Hostile.violationLines(report, "probe.seen", file: log) == [1, 6, 8])
            let messages = try Hostile.malformedMessages(report, file: log)
            let nulAt = #"{"t":2,"ev":"probe.hit","v":"a"#.utf8.count + 1
            #expect(
                messages[2]
                    == "not a valid connlog event: not valid JSON: control character in string (byte \(nulAt))"
            )
            #expect(
                messages[3]
                    == "not a valid connlog event: text after the JSON object (byte \(Hostile.probe(3).utf8.count + 1))"
            )
            #expect(messages[4]?.hasPrefix("not a valid connlog event: not valid JSON: ") == true)
            #expect(messages[5]?.hasPrefix("not a valid connlog event: not valid JSON: ") == true)
            #expect(messages[7]?.hasPrefix("not a valid connlog event: not valid JSON: ") == true)
            #expect(!run.out.contains("\u{0}"))
        }
    }
}

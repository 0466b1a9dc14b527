import Testing
#if canImport(Glibc)
    import Glibc
#endif

@testable import ConnAudit
import ConnAuditTestSupport

/// The reader: bytes → physical lines → connlog events, malformed lines and secret findings.
///
/// Everything goes through ``FileReader`` over an in-memory ``ByteSource`` (connlog.md, "Lines",
/// "Bad lines" and "Fine print"); the last suites run whole audits to check what reaches a report.
@Suite("Reader")
struct ReaderTests {
    // MARK: - Helpers

    /// One physical line as the reader handed it out, with the secrets found on it.
    struct Read {
        var item: LineItem
        var secrets: [Event]
        /// The key of the event's source, as the reader numbered it.
        var key: SourceKey?

        var isBlank: Bool {
            if case .blank = item { return true }
            return false
        }

        var event: Event? {
            if case .event(let e, _, _) = item { return e }
            return nil
        }

        var source: SourceKey? { key }

        var regression: Event? {
            if case .event(_, _, let r) = item { return r }
            return nil
        }

        var malformed: Event? {
            if case .malformed(let e) = item { return e }
            return nil
        }

        /// The `reason` of a malformed line.
        var reason: String? { malformed?.value(of: "reason")?.string }

        /// Key paths of the `$secret` findings of this line.
        var secretPaths: [String] { secrets.compactMap { $0.value(of: "path")?.string } }
    }

    /// Reads `source` to its end through a ``FileReader``.
    static func read(
        source: any ByteSource, path: String = "logs/test.jsonl", wanted: Set<String>? = nil
    ) -> (lines: [Read], stats: FileStats) {
        let reader = FileReader(index: 0, path: path, source: source, wantedFields: wanted)
        var lines: [Read] = []
        while let item = reader.next() {
            var key: SourceKey?
            if case .event(_, let id, _) = item { key = reader.key(of: id) }
            lines.append(Read(item: item, secrets: reader.secrets, key: key))
        }
        return (lines, reader.stats)
    }

    static func read(
        _ bytes: [UInt8], path: String = "logs/test.jsonl", wanted: Set<String>? = nil
    ) -> (lines: [Read], stats: FileStats) {
        read(source: ByteSources.memory(bytes, path: path), path: path, wanted: wanted)
    }

    static func read(
        _ text: String, path: String = "logs/test.jsonl", wanted: Set<String>? = nil
    ) -> (lines: [Read], stats: FileStats) {
        read(Array(text.utf8), path: path, wanted: wanted)
    }

    /// Reads one line (with a newline) and returns what it became.
    static func one(_ line: String, wanted: Set<String>? = nil) -> Read {
        let lines = read(line + "\n", wanted: wanted).lines
        precondition(lines.count == 1, "expected one line, got \(lines.count)")
        return lines[0]
    }

    /// A valid event line of exactly `size` bytes, padded with a long string field.
    static func paddedLine(size: Int, t: Int = 0) -> [UInt8] {
        let head = Array(#"{"t":\#(t),"ev":"x.pad","pad":""#.utf8)
        let tail = Array(#""}"#.utf8)
        return head + [UInt8](repeating: UInt8(ascii: "a"), count: size - head.count - tail.count)
            + tail
    }

    static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// A source that hands out its bytes in the read sizes it is told (then `rest` at a time), as a
    /// pipe or a gzip stream may.
    final class ChunkedSource: ByteSource {
        private let bytes: [UInt8]
        private var offset = 0
        private var plan: [Int]
        private let rest: Int

        init(_ bytes: [UInt8], plan: [Int] = [], rest: Int) {
            self.bytes = bytes
            self.plan = plan
            self.rest = rest
        }

        func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
            guard buffer.count > 0, offset < bytes.count else { return 0 }
            let want = plan.isEmpty ? rest : plan.removeFirst()
            let count = min(want, buffer.count, bytes.count - offset)
            bytes.withUnsafeBytes { source in
                buffer.copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: source[offset..<offset + count]))
            }
            offset += count
            return count
        }
    }
}

// MARK: - Malformed lines

/// One bad line of connlog.md's "Bad lines" and "Fine print", with a stable part of its reason.
struct BadLineCase: Sendable, CustomTestStringConvertible {
    var name: String
    var bytes: [UInt8]
    var reason: String

    init(_ name: String, _ text: String, _ reason: String) {
        self.name = name
        bytes = Array(text.utf8)
        self.reason = reason
    }

    init(_ name: String, bytes: [UInt8], _ reason: String) {
        self.name = name
        self.bytes = bytes
        self.reason = reason
    }

    var testDescription: String { name }
}

extension ReaderTests {
    static let badLines: [BadLineCase] = [
        // Not JSON / not an object.
        .init("not JSON", "not json", "not valid JSON"),
        .init("unterminated object", #"{"t":0,"ev":"x.y""#, "not valid JSON"),
        .init("trailing comma", #"{"t":0,"ev":"x.y",}"#, "not valid JSON"),
        .init("single quotes", #"{'t':0,'ev':'x.y'}"#, "not valid JSON"),
        .init("bare word value", #"{"t":0,"ev":x.y}"#, "not valid JSON"),
        .init("leading zero", #"{"t":01,"ev":"x.y"}"#, "not valid JSON"),
        .init("plus sign", #"{"t":+1,"ev":"x.y"}"#, "not valid JSON"),
        .init("fraction without digits", #"{"t":1.,"ev":"x.y"}"#, "not valid JSON"),
        .init("bad escape", #"{"t":0,"ev":"x\q"}"#, "not valid JSON: bad escape"),
        .init("bad \\u escape", #"{"t":0,"ev":"x\u00g1"}"#, "not valid JSON: bad \\u escape"),
        .init("raw tab in a string", "{\"t\":0,\"ev\":\"x\ty\"}", "control character in string"),
        .init("array", "[1,2]", "not a JSON object"),
        .init("array of an object", #"[{"t":0,"ev":"x.y"}]"#, "not a JSON object"),
        .init("number", "42", "not a JSON object"),
        .init("string", #""{\"t\":0,\"ev\":\"x.y\"}""#, "not a JSON object"),
        .init("null", "null", "not a JSON object"),
        .init("true", "true", "not a JSON object"),
        // UTF-8.
        .init(
            "invalid UTF-8 in a string value",
            bytes: Array(#"{"t":0,"ev":"x."#.utf8) + [0xFF] + Array(#""}"#.utf8),
            "not valid UTF-8"),
        .init(
            "invalid UTF-8 in a key",
            bytes: Array(#"{"t":0,"ev":"x.y",""#.utf8) + [0xC3, 0x28] + Array(#"":1}"#.utf8),
            "not valid UTF-8"),
        .init(
            "overlong encoding in a string",
            bytes: Array(#"{"t":0,"ev":"x."#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8),
            "not valid UTF-8"),
        .init(
            "UTF-8 encoded surrogate",
            bytes: Array(#"{"t":0,"ev":"x."#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8),
            "not valid UTF-8"),
        .init(
            "code point above U+10FFFF",
            bytes: Array(#"{"t":0,"ev":"x."#.utf8) + [0xF4, 0x90, 0x80, 0x80] + Array(#""}"#.utf8),
            "not valid UTF-8"),
        .init(
            "sequence cut by the closing quote",
            bytes: Array(#"{"t":0,"ev":"x."#.utf8) + [0xE2, 0x82] + Array(#""}"#.utf8),
            "not valid UTF-8"),
        .init(
            "invalid UTF-8 outside strings (a value)",
            bytes: Array(#"{"t":"#.utf8) + [0xFE] + Array(#","ev":"x.y"}"#.utf8),
            "not valid UTF-8"),
        .init(
            "invalid UTF-8 outside strings (before the object)",
            bytes: [0x80] + Array(#"{"t":0,"ev":"x.y"}"#.utf8),
            "not valid UTF-8"),
        .init(
            "invalid UTF-8 outside strings (after the object)",
            bytes: Array(#"{"t":0,"ev":"x.y"}"#.utf8) + [0xFF],
            "not valid UTF-8"),
        .init(
            "invalid UTF-8 in key position",
            bytes: Array(#"{"t":0,"#.utf8) + [0xFF] + Array(#""ev":"x.y"}"#.utf8),
            "not valid UTF-8"),
        // t.
        .init("missing t", #"{"ev":"x.y"}"#, #"missing "t""#),
        .init("empty object", "{}", #"missing "t""#),
        .init("t a string", #"{"t":"5","ev":"x.y"}"#, #""t" is not a number (string)"#),
        .init("t a boolean", #"{"t":true,"ev":"x.y"}"#, #""t" is not a number (bool)"#),
        .init("t null", #"{"t":null,"ev":"x.y"}"#, #""t" is not a number (null)"#),
        .init("t an array", #"{"t":[1],"ev":"x.y"}"#, #""t" is not a number (array)"#),
        .init("t negative", #"{"t":-1,"ev":"x.y"}"#, #""t" is negative"#),
        .init("t negative fraction", #"{"t":-0.5,"ev":"x.y"}"#, #""t" is negative"#),
        .init("t NaN", #"{"t":NaN,"ev":"x.y"}"#, "not valid JSON"),
        .init("t Infinity", #"{"t":Infinity,"ev":"x.y"}"#, "not valid JSON"),
        .init("t -Infinity", #"{"t":-Infinity,"ev":"x.y"}"#, "not valid JSON"),
        .init("t 1e400", #"{"t":1e400,"ev":"x.y"}"#, #""t" is not a finite number"#),
        .init("t -1e400", #"{"t":-1e400,"ev":"x.y"}"#, #""t" is not a finite number"#),
        // ev.
        .init("missing ev", #"{"t":0}"#, #"missing "ev""#),
        .init("ev a number", #"{"t":0,"ev":5}"#, #""ev" is not a string (int)"#),
        .init("ev null", #"{"t":0,"ev":null}"#, #""ev" is not a string (null)"#),
        .init("ev an object", #"{"t":0,"ev":{"a":1}}"#, #""ev" is not a string (object)"#),
        .init("ev empty", #"{"t":0,"ev":""}"#, #""ev" is empty"#),
        // gen.
        .init(
            "gen 1.0", #"{"t":0,"ev":"x.y","gen":1.0}"#,
            #""gen" is not a non-negative integer (number)"#),
        .init(
            "gen 1e0", #"{"t":0,"ev":"x.y","gen":1e0}"#,
            #""gen" is not a non-negative integer (number)"#),
        .init(
            "gen 1E+2", #"{"t":0,"ev":"x.y","gen":1E+2}"#,
            #""gen" is not a non-negative integer (number)"#),
        .init(
            "gen 1.5", #"{"t":0,"ev":"x.y","gen":1.5}"#,
            #""gen" is not a non-negative integer (number)"#),
        .init(
            "gen true", #"{"t":0,"ev":"x.y","gen":true}"#,
            #""gen" is not a non-negative integer (bool)"#),
        .init(
            "gen \"1\"", #"{"t":0,"ev":"x.y","gen":"1"}"#,
            #""gen" is not a non-negative integer (string)"#),
        .init(
            "gen null", #"{"t":0,"ev":"x.y","gen":null}"#,
            #""gen" is not a non-negative integer (null)"#),
        .init("gen -1", #"{"t":0,"ev":"x.y","gen":-1}"#, #""gen" is negative"#),
        .init(
            "gen beyond 64 bits", #"{"t":0,"ev":"x.y","gen":99999999999999999999}"#,
            #""gen" is too large (at most 18446744073709551615)"#),
        .init(
            "gen 2^64", #"{"t":0,"ev":"x.y","gen":18446744073709551616}"#,
            #""gen" is too large (at most 18446744073709551615)"#),
        .init(
            "gen -2^63 - 1", #"{"t":0,"ev":"x.y","gen":-9223372036854775809}"#,
            #""gen" is negative"#),
        // Text after the object.
        .init("a word after the object", #"{"t":0,"ev":"x.y"} x"#, "text after the JSON object"),
        .init(
            "a second object", #"{"t":0,"ev":"x.y"}{"t":1,"ev":"x.y"}"#,
            "text after the JSON object"),
        .init("a comma after the object", #"{"t":0,"ev":"x.y"},"#, "text after the JSON object"),
        .init("text after a non-object", "[1] 2", "text after the JSON value")
    ]

    /// The secret key names' lengths are written out as a constant (no lazy table per key): they
    /// are the names' lengths, and a name of each other length up to 63 bytes is not a secret key.
    @Test("the secret names' lengths are the names'")
    func secretLengthsAreTheNames() {
        let lengths = JSONLineParser.secretKeyNames.reduce(UInt64(0)) {
            $0 | (1 << UInt64($1.count))
        }
        #expect(JSONLineParser.secretLengths == lengths)
        for name in ["TOKEN", "Password", "payload", "Authorization", "refresh_token"] {
            #expect(JSONLineParser.isSecretKeyName(name), "\(name)")
        }
        for name in ["tokens", "passwd", "pay", "session", "gen", "src", "cookies"] {
            #expect(!JSONLineParser.isSecretKeyName(name), "\(name)")
        }
    }

    @Suite("Malformed lines")
    struct Malformed {
        @Test(
            "a bad line is malformed at its physical line, with a reason; its neighbours are read",
            arguments: ReaderTests.badLines)
        func badLine(_ bad: BadLineCase) throws {
            let bytes =
                Array("{\"t\":0,\"ev\":\"x.first\"}\n\n".utf8) + bad.bytes
                + Array("\n{\"t\":9,\"ev\":\"x.last\"}\n".utf8)
            let (lines, stats) = ReaderTests.read(bytes)
            try #require(lines.count == 4)
            #expect(lines[0].event?.line == 1)
            #expect(lines[1].isBlank)
            let malformed = try #require(
                lines[2].malformed, "line 3 should be malformed: \(lines[2].item)")
            #expect(malformed.line == 3)
            #expect(malformed.ev == "$malformed")
            let reason = try #require(lines[2].reason)
            #expect(reason.contains(bad.reason), "reason: \(reason)")
            #expect(!reason.contains("cut off"))
            #expect(lines[3].event?.line == 4)
            #expect(lines[3].event?.ev == "x.last")
            #expect(
                stats.lines == 4 && stats.events == 2 && stats.malformed == 1 && stats.blank == 1)
        }

        @Test("a UTF-8 reason names the byte where the bad sequence starts")
        func utf8ReasonNamesTheByte() throws {
            // {"t":0,"ev":"x.  is 15 bytes; the bad byte is the 16th.
            let line = Array(#"{"t":0,"ev":"x."#.utf8) + [0xFF] + Array(#""}"#.utf8)
            let read = try #require(ReaderTests.read(line + [0x0A]).lines.first)
            #expect(read.reason == "not valid UTF-8 (byte 16)")
        }

        @Test("each bad line's reason is its own, though the parser gives a repeated one again")
        func repeatedReasonsStayTheirLines() throws {
            // The parser hands out the last reason it made when a line breaks alike (the same
            // error at the same byte); a line that breaks otherwise, or at another byte, gets its
            // own.
            let lines: [[UInt8]] = [
                Array("x".utf8), Array("x".utf8), Array(" x".utf8), Array("x".utf8), [0xFF],
                Array("xx".utf8),
                Array("[1] x".utf8), Array("{} x".utf8), Array("{} y".utf8), Array("{}  y".utf8),
                [0x20, 0xFF],
                Array("{\"t\":1,\"ev\":".utf8), Array("{\"t\":1,\"ev\":".utf8),
                Array("{\"t\":1,\"ev\":x".utf8),
                Array("x".utf8)
            ]
            let read = ReaderTests.read(Array(lines.joined(separator: [0x0A])) + [0x0A]).lines
            #expect(
                read.map(\.reason) == [
                    "not valid JSON: unexpected character (byte 1)",
                    "not valid JSON: unexpected character (byte 1)",
                    "not valid JSON: unexpected character (byte 2)",
                    "not valid JSON: unexpected character (byte 1)",
                    "not valid UTF-8 (byte 1)", "not valid JSON: unexpected character (byte 1)",
                    "text after the JSON value (byte 5)", "text after the JSON object (byte 4)",
                    "text after the JSON object (byte 4)", "text after the JSON object (byte 5)",
                    "not valid UTF-8 (byte 2)",
                    "not valid JSON: unexpected end of line (byte 13)",
                    "not valid JSON: unexpected end of line (byte 13)",
                    "not valid JSON: unexpected character (byte 13)",
                    "not valid JSON: unexpected character (byte 1)"
                ])
        }

        @Test("valid multi-byte UTF-8 is accepted in keys and values")
        func validUTF8() throws {
            let read = ReaderTests.one(#"{"t":0,"ev":"x.é","naïve":"日本語 😀"}"#)
            let event = try #require(read.event)
            #expect(event.ev == "x.é")
            #expect(event.value(of: "naïve") == .string("日本語 😀"))
        }

        @Test(
            "a line of exactly 1 MiB is an event; one byte more is malformed and the next line is read"
        )
        func oneMebibyteLimit() throws {
            let exact = ReaderTests.paddedLine(size: 1_048_576, t: 1)
            let over = ReaderTests.paddedLine(size: 1_048_577, t: 2)
            #expect(exact.count == 1_048_576 && over.count == 1_048_577)
            let bytes =
                exact + [0x0A] + over + [0x0A] + Array("{\"t\":3,\"ev\":\"x.after\"}\n".utf8)
            let (lines, stats) = ReaderTests.read(bytes)
            try #require(lines.count == 3)
            let event = try #require(lines[0].event)
            #expect(event.line == 1 && event.ev == "x.pad" && event.t == 1)
            #expect(lines[1].malformed?.line == 2)
            let reason = try #require(lines[1].reason)
            #expect(reason.contains("1 MiB"), "reason: \(reason)")
            #expect(reason.contains("1048577"), "reason: \(reason)")
            #expect(lines[2].event?.line == 3 && lines[2].event?.ev == "x.after")
            #expect(stats.lines == 3 && stats.events == 2 && stats.malformed == 1)
        }

        @Test("the limit does not count a CRLF line end")
        func oneMebibyteWithCRLF() throws {
            let bytes =
                ReaderTests.paddedLine(size: 1_048_576) + [0x0D, 0x0A]
                + ReaderTests.paddedLine(size: 1_048_577) + [0x0D, 0x0A]
            let (lines, _) = ReaderTests.read(bytes)
            try #require(lines.count == 2)
            #expect(lines[0].event?.line == 1)
            #expect(lines[1].reason?.contains("1 MiB (1048577 bytes)") == true, "\(lines[1].item)")
        }

        @Test(
            "the 1 MiB limit holds whatever read sizes the input arrives in",
            arguments: [
                [Int](), [1_048_576, 1], [1_048_576, 2], [1_048_577, 1], [65_536], [1_000_003]
            ])
        func limitIndependentOfChunking(plan: [Int]) throws {
            let bytes =
                ReaderTests.paddedLine(size: 1_048_576) + [0x0D, 0x0A]
                + ReaderTests.paddedLine(size: 1_048_577) + [0x0A]
                + Array(#"{"t":5,"ev":"x.end"}"#.utf8)
            let source = ReaderTests.ChunkedSource(bytes, plan: plan, rest: plan.last ?? 1 << 20)
            let (lines, stats) = ReaderTests.read(source: source)
            try #require(lines.count == 3)
            #expect(lines[0].event?.line == 1)
            #expect(lines[1].reason?.contains("1 MiB (1048577 bytes)") == true, "\(lines[1].item)")
            #expect(lines[2].event?.line == 3)
            #expect(stats.lines == 3)
        }

        @Test(
            "a 3 MiB line without a newline at the end of the input is malformed, counted, not held"
        )
        func hugeUnterminatedLine() throws {
            let huge = [UInt8](repeating: UInt8(ascii: "x"), count: 3 * 1_048_576)
            let bytes = Array("{\"t\":0,\"ev\":\"x.before\"}\n".utf8) + huge
            let (lines, stats) = ReaderTests.read(bytes)
            try #require(lines.count == 2)
            #expect(lines[0].event?.line == 1)
            #expect(lines[1].malformed?.line == 2)
            let reason = try #require(lines[1].reason)
            #expect(reason.contains("1 MiB"), "reason: \(reason)")
            #expect(reason.contains("3145728 bytes"), "reason: \(reason)")
            #expect(stats.lines == 2 && stats.events == 1 && stats.malformed == 1)
            #expect(stats.bytes == bytes.count)
        }

        @Test("a 3 MiB line in the middle is skipped and the following lines keep their numbers")
        func hugeLineInTheMiddle() throws {
            let huge = [UInt8](repeating: UInt8(ascii: "{"), count: 3 * 1_048_576 + 17)
            let bytes =
                Array("{\"t\":0,\"ev\":\"x.a\"}\n".utf8) + huge + [0x0D, 0x0A]
                + Array("\n{\"t\":1,\"ev\":\"x.b\"}\n".utf8)
            let (lines, _) = ReaderTests.read(bytes)
            try #require(lines.count == 4)
            #expect(lines[1].reason?.contains("(3145745 bytes)") == true, "\(lines[1].item)")
            #expect(lines[2].isBlank)
            #expect(lines[3].event?.line == 4)
        }

        @Test("a cut-off last line that does not parse is malformed and says it is cut off")
        func cutOffLastLine() throws {
            let (lines, stats) = ReaderTests.read(
                "{\"t\":0,\"ev\":\"ws.connect\",\"gen\":1}\n{\"t\":1,\"ev\":\"ws.o")
            try #require(lines.count == 2)
            #expect(lines[0].event?.line == 1)
            #expect(lines[1].malformed?.line == 2)
            let reason = try #require(lines[1].reason)
            #expect(reason.contains("cut off"), "reason: \(reason)")
            #expect(reason.contains("not valid JSON"), "reason: \(reason)")
            #expect(stats.lines == 2 && stats.malformed == 1 && stats.events == 1)
        }

        @Test(
            "a last line without a newline that parses is a normal event",
            arguments: [
                "{\"t\":1,\"ev\":\"ws.open\",\"gen\":1}",
                "{\"t\":1,\"ev\":\"ws.open\",\"gen\":1}\r",
                "{\"t\":1,\"ev\":\"ws.open\",\"gen\":1}  "
            ])
        func unterminatedButComplete(last: String) throws {
            let (lines, stats) = ReaderTests.read(
                "{\"t\":0,\"ev\":\"ws.connect\",\"gen\":1}\n" + last)
            try #require(lines.count == 2)
            let event = try #require(lines[1].event)
            #expect(event.line == 2 && event.ev == "ws.open" && event.gen == 1 && event.t == 1)
            #expect(stats.lines == 2 && stats.events == 2 && stats.malformed == 0)
        }

        @Test(
            "a nesting 100,000 deep is malformed without crashing",
            arguments: [
                (#"{"t":0,"ev":"x.y","a":"#, "[", "]", "}"),
                (#"{"t":0,"ev":"x.y","a":"#, #"{"k":"#, "}", "}"),
                ("", "[", "]", "")
            ])
        func deepNesting(prefix: String, open: String, close: String, suffix: String) throws {
            let depth = 100_000
            let line =
                prefix + String(repeating: open, count: depth) + "1"
                + String(repeating: close, count: depth) + suffix
            let (lines, _) = ReaderTests.read(line + "\n{\"t\":1,\"ev\":\"x.after\"}\n")
            try #require(lines.count == 2)
            #expect(lines[0].malformed?.line == 1)
            let reason = try #require(lines[0].reason)
            #expect(reason.contains("nested deeper than"), "reason: \(reason)")
            #expect(lines[1].event?.line == 2)
        }

        @Test("ordinary nesting (100 levels) is accepted")
        func ordinaryNesting() throws {
            let line =
                #"{"t":0,"ev":"x.y","a":"# + String(repeating: "[", count: 100)
                + String(repeating: "]", count: 100) + "}"
            #expect(ReaderTests.one(line).event != nil)
        }

        @Test("a gen that is a 64-bit JSON integer beyond double precision is still an integer")
        func largeIntegerGen() throws {
            // 2^53 + 1 and Int64.max are JSON integers that fit in 64 bits (Value.int's contract),
            // but are not exactly representable as a Double.
            for text in ["9007199254740993", "1000000000000000001", "9223372036854775807"] {
                let read = ReaderTests.one(#"{"t":0,"ev":"x.y","gen":\#(text)}"#)
                #expect(read.event?.gen == UInt64(text), "gen \(text): \(read.item)")
                #expect(read.event?.value(of: "gen") == .int(Int64(text)!))
            }
        }

        @Test(
            "a gen past Int64, up to 2^64 - 1, is a generation (a UInt64 a client drew or hashed)")
        func unsignedGen() throws {
            for text in [
                "9223372036854775808", "9223372036854775809", "18446744073709551614",
                "18446744073709551615"
            ] {
                let read = ReaderTests.one(#"{"t":0,"ev":"x.y","gen":\#(text)}"#)
                #expect(read.event?.gen == UInt64(text), "gen \(text): \(read.item)")
                // Rules read it as they read any field holding that integer.
                #expect(read.event?.value(of: "gen") == .bigInt(text))
                #expect(read.event?.value(of: "gen", id: FieldNames.gen) == .bigInt(text))
            }
        }
    }
}

// MARK: - Line accounting

extension ReaderTests {
    @Suite("Line accounting")
    struct Accounting {
        @Test("a BOM at the start of the file is skipped")
        func bomSkipped() throws {
            let bytes =
                ReaderTests.bom
                + Array("{\"t\":0,\"ev\":\"x.first\"}\n{\"t\":1,\"ev\":\"x.second\"}\n".utf8)
            let (lines, stats) = ReaderTests.read(bytes)
            try #require(lines.count == 2)
            #expect(lines[0].event?.ev == "x.first" && lines[0].event?.line == 1)
            #expect(lines[1].event?.line == 2)
            #expect(stats.lines == 2 && stats.events == 2)
        }

        @Test(
            "a first line holding only a BOM (and maybe \\r) is blank",
            arguments: ["\n", "\r\n", ""])
        func bomOnlyLine(end: String) throws {
            let bytes =
                ReaderTests.bom + Array(end.utf8)
                + Array((end.isEmpty ? "" : "{\"t\":0,\"ev\":\"x.y\"}\n").utf8)
            let (lines, stats) = ReaderTests.read(bytes)
            #expect(lines.first?.isBlank == true)
            #expect(stats.blank == 1)
            #expect(stats.lines == (end.isEmpty ? 1 : 2))
        }

        @Test("a BOM anywhere else is not skipped")
        func bomLater() throws {
            let bytes =
                Array("{\"t\":0,\"ev\":\"x.y\"}\n".utf8) + ReaderTests.bom
                + Array("{\"t\":1,\"ev\":\"x.y\"}\n".utf8)
            let (lines, _) = ReaderTests.read(bytes)
            try #require(lines.count == 2)
            #expect(lines[1].malformed?.line == 2)
        }

        @Test(
            "a later line holding only a BOM and white space is blank (connlog: blank after removing \\r and a BOM)",
            arguments: ["", "\r", " \t", "\r\r"])
        func bomOnlyLaterLine(rest: String) throws {
            let bytes =
                Array("{\"t\":0,\"ev\":\"x.y\"}\n".utf8) + ReaderTests.bom + Array("\(rest)\n".utf8)
                + ReaderTests.bom + ReaderTests.bom + Array("\n".utf8)
            let (lines, stats) = ReaderTests.read(bytes)
            try #require(lines.count == 3)
            #expect(lines[1].isBlank)
            // Only one BOM is removed: two are not white space.
            #expect(lines[2].malformed?.line == 3)
            #expect(stats.blank == 1 && stats.malformed == 1 && stats.events == 1)
        }

        @Test(
            "a BOM before a 1 MiB first line does not count towards the limit, whatever the read sizes",
            arguments: [[Int](), [1_048_576, 2]])
        func bomBeforeMaximalLine(plan: [Int]) throws {
            let bytes =
                ReaderTests.bom + ReaderTests.paddedLine(size: 1_048_576) + [0x0A]
                + Array("{\"t\":1,\"ev\":\"x.y\"}\n".utf8)
            let source = ReaderTests.ChunkedSource(bytes, plan: plan, rest: 1 << 20)
            let (lines, _) = ReaderTests.read(source: source)
            try #require(lines.count == 2)
            #expect(lines[0].event?.line == 1, "\(lines[0].item)")
            #expect(lines[1].event?.line == 2)
        }

        @Test("CRLF and LF line ends, mixed, give the same events")
        func crlf() throws {
            let (lines, stats) = ReaderTests.read(
                "{\"t\":0,\"ev\":\"x.a\",\"s\":\"v\"}\r\n{\"t\":1,\"ev\":\"x.b\"}\n\r\n{\"t\":2,\"ev\":\"x.c\"}\r\n"
            )
            try #require(lines.count == 4)
            #expect(lines[0].event?.value(of: "s") == .string("v"))
            #expect(lines[1].event?.line == 2)
            #expect(lines[2].isBlank)
            #expect(lines[3].event?.line == 4 && lines[3].event?.ev == "x.c")
            #expect(
                stats.lines == 4 && stats.events == 3 && stats.blank == 1 && stats.malformed == 0)
        }

        @Test(
            "blank lines are counted as blank and numbered",
            arguments: ["", "   ", "\t\t", "\r", " \t \r", "\u{0B}\u{0C}"])
        func blankLines(blank: String) throws {
            let (lines, stats) = ReaderTests.read(
                "\(blank)\n{\"t\":0,\"ev\":\"x.y\"}\n\(blank)\n\(blank)\n{\"t\":1,\"ev\":\"x.z\"}\n"
            )
            try #require(lines.count == 5)
            #expect(lines.map(\.isBlank) == [true, false, true, true, false])
            #expect(lines[1].event?.line == 2)
            #expect(lines[4].event?.line == 5)
            #expect(stats.lines == 5 && stats.blank == 3 && stats.events == 2)
        }

        @Test("non-ASCII white space is not blank")
        func nonASCIIWhiteSpace() throws {
            let (lines, stats) = ReaderTests.read("\u{00A0}\n")
            #expect(lines.first?.malformed?.line == 1)
            #expect(stats.blank == 0)
        }

        @Test(
            "physical line numbers stay right after blank and bad lines; lines == events + malformed + blank"
        )
        func mixedFile() throws {
            let text = """
                {"t":0,"ev":"x.a"}

                not json
                   \t
                {"t":1,"ev":"x.b"}
                {"t":"bad","ev":"x.c"}
                \r
                [1]
                {"t":2,"ev":"x.d"}

                {"ev":"x.e"}
                {"t":3,"ev":"x.f"}
                """ + "\n{\"t\":4,\"ev\":\"x.g\""
            let (lines, stats) = ReaderTests.read(text)
            #expect(lines.count == 13)
            let events = lines.compactMap(\.event).map { "\($0.ev)@\($0.line)" }
            #expect(events == ["x.a@1", "x.b@5", "x.d@9", "x.f@12"])
            let malformed = lines.compactMap(\.malformed).map(\.line)
            #expect(malformed == [3, 6, 8, 11, 13])
            #expect(lines.indices.filter { lines[$0].isBlank }.map { $0 + 1 } == [2, 4, 7, 10])
            #expect(stats.lines == 13)
            #expect(stats.lines == stats.events + stats.malformed + stats.blank)
            #expect(stats.events == 4 && stats.malformed == 5 && stats.blank == 4)
            #expect(stats.bytes == text.utf8.count)
        }

        @Test("line splitting does not depend on read sizes", arguments: [1, 2, 3, 7, 64])
        func readSizes(size: Int) throws {
            let text =
                ReaderTests.bom
                + Array(
                    "{\"t\":0,\"ev\":\"x.a\"}\r\n\r\n  \nbad\n{\"t\":1,\"ev\":\"x.b\"}\r\n{\"t\":2,\"ev\":\"x.c\"}"
                        .utf8)
            let expected = ReaderTests.read(text)
            let chunked = ReaderTests.read(source: ReaderTests.ChunkedSource(text, rest: size))
            #expect(chunked.lines.map { "\($0.item)" } == expected.lines.map { "\($0.item)" })
            #expect(
                chunked.stats.lines == 6 && chunked.stats.events == 3 && chunked.stats.blank == 2)
            #expect(chunked.stats.malformed == 1)
        }

        @Test("an empty input has no lines; a lone newline is one blank line")
        func emptyInputs() {
            #expect(ReaderTests.read("").stats.lines == 0)
            let newline = ReaderTests.read("\n").stats
            #expect(newline.lines == 1 && newline.blank == 1)
        }
    }
}

// MARK: - JSON details

extension ReaderTests {
    @Suite("JSON details")
    struct JSONDetails {
        @Test("duplicate keys: the last wins")
        func duplicateKeys() throws {
            let event = try #require(
                ReaderTests.one(
                    #"{"t":0,"ev":"ws.open","gen":1,"gen":2,"reason":"a","reason":"b"}"#
                ).event)
            #expect(event.gen == 2)
            #expect(event.value(of: "reason") == .string("b"))

            // A bad value overridden by a good one is fine, and the other way round is not.
            #expect(
                ReaderTests.one(#"{"t":"x","t":5,"ev":"x.y","gen":"1","gen":3}"#).event?.gen == 3)
            #expect(
                ReaderTests.one(#"{"t":5,"ev":"x.y","gen":3,"gen":1.0}"#).reason?.contains("gen")
                    == true)
            #expect(
                ReaderTests.one(#"{"t":5,"t":-1,"ev":"x.y"}"#).reason?.contains("negative") == true)
            #expect(ReaderTests.one(#"{"t":5,"ev":"x.a","ev":"x.b"}"#).event?.ev == "x.b")
            #expect(ReaderTests.one(#"{"t":5,"ev":"x.a","src":"a","src":"b"}"#).source?.src == "b")
        }

        @Test("escapes in keys and values are decoded")
        func escapes() throws {
            let read = ReaderTests.one(
                #"{"\u0074":7,"\u0065v":"ws.\u006fpen","g\u0065n":3,"k\u0041":"\u0041\"\\\/\n\t","smile":"\ud83d\ude00"}"#
            )
            let event = try #require(read.event, "\(read.item)")
            #expect(event.t == 7)
            #expect(event.ev == "ws.open")
            #expect(event.gen == 3)
            #expect(event.value(of: "kA") == .string("A\"\\/\n\t"))
            #expect(event.value(of: "smile") == .string("😀"))
        }

        @Test("lone surrogate escapes become U+FFFD, not invalid text")
        func loneSurrogates() throws {
            let event = try #require(
                ReaderTests.one(
                    #"{"t":0,"ev":"x.y","a":"\ud83d","b":"\ude00x","c":"\ud83d\u0041"}"#
                ).event)
            #expect(event.value(of: "a") == .string("\u{FFFD}"))
            #expect(event.value(of: "b") == .string("\u{FFFD}x"))
            #expect(event.value(of: "c") == .string("\u{FFFD}A"))
        }

        @Test("white space around the object and between tokens is fine")
        func whiteSpace() throws {
            let read = ReaderTests.one("  \t{ \"t\" : 1 ,\t\"ev\" :\"x.y\" , \"gen\": 2 }\t  ")
            let event = try #require(read.event, "\(read.item)")
            #expect(event.t == 1 && event.ev == "x.y" && event.gen == 2)
        }

        @Test("numbers: integers keep their kind, fractions and exponents are doubles")
        func numbers() throws {
            let event = try #require(
                ReaderTests.one(#"{"t":1.5e3,"ev":"x.y","gen":0,"i":-12,"d":1.0,"e":2E-1}"#).event)
            #expect(event.t == 1500)
            #expect(event.gen == 0)
            #expect(event.value(of: "i") == .int(-12))
            #expect(event.value(of: "d") == .double(1.0))
            #expect(event.value(of: "e") == .double(0.2))
            #expect(ReaderTests.one(#"{"t":-0,"ev":"x.y"}"#).event?.t == 0)
        }

        @Test("only the wanted top-level fields are decoded")
        func wantedFields() throws {
            let event = try #require(
                ReaderTests.one(
                    #"{"t":0,"ev":"x.y","reason":"r","other":1,"src":"s"}"#,
                    wanted: ["reason"]
                ).event)
            #expect(event.fields.map(\.key) == ["reason"])
        }
    }
}

// MARK: - Secrets

/// A line and the key paths its secret scan must report.
struct SecretCase: Sendable, CustomTestStringConvertible {
    var name: String
    var line: String
    var paths: [String]
    var testDescription: String { name }
    init(_ name: String, _ line: String, _ paths: [String]) {
        self.name = name
        self.line = line
        self.paths = paths
    }
}

extension ReaderTests {
    static let secretCases: [SecretCase] = [
        .init("token", #"{"t":0,"ev":"x.y","token":"v"}"#, ["token"]),
        .init("TOKEN", #"{"t":0,"ev":"x.y","TOKEN":"v"}"#, ["TOKEN"]),
        .init("Access_Token", #"{"t":0,"ev":"x.y","Access_Token":1}"#, ["Access_Token"]),
        .init("REFRESH_TOKEN", #"{"t":0,"ev":"x.y","REFRESH_TOKEN":null}"#, ["REFRESH_TOKEN"]),
        .init("Authorization", #"{"t":0,"ev":"x.y","Authorization":"Basic x"}"#, ["Authorization"]),
        .init("PassWord", #"{"t":0,"ev":"x.y","PassWord":"x"}"#, ["PassWord"]),
        .init("Secret", #"{"t":0,"ev":"x.y","Secret":true}"#, ["Secret"]),
        .init("COOKIE", #"{"t":0,"ev":"x.y","COOKIE":["a"]}"#, ["COOKIE"]),
        .init("Body", #"{"t":0,"ev":"x.y","Body":{}}"#, ["Body"]),
        .init("payload", #"{"t":0,"ev":"x.y","payload":""}"#, ["payload"]),
        .init("escaped key name", #"{"t":0,"ev":"x.y","p\u0061ssword":"x"}"#, ["password"]),
        .init(
            "names that only look alike",
            #"{"t":0,"ev":"x.y","token_type":"bearer","tokens":1,"my_token":1,"secrets":1,"bodyguard":1}"#,
            []),
        .init("nested path", #"{"t":0,"ev":"x.y","a":{"b":[{"token":"v"}]}}"#, ["a.b[0].token"]),
        .init(
            "nested in arrays", #"{"t":0,"ev":"x.y","a":[[1,{"Cookie":"c"}]]}"#, ["a[0][1].Cookie"]),
        .init(
            "bearer with 8 token characters", #"{"t":0,"ev":"x.y","note":"Bearer abcdefgh"}"#,
            ["note"]),
        .init("bearer with 7 token characters", #"{"t":0,"ev":"x.y","note":"Bearer abcdefg"}"#, []),
        .init(
            "bearer, 7 characters then a non-token one",
            #"{"t":0,"ev":"x.y","note":"Bearer abcdefg!hijk"}"#, []),
        .init(
            "bearer in any case, several spaces",
            #"{"t":0,"ev":"x.y","note":"auth: BEARER    Ab.c_d~e+f/g=h-"}"#, ["note"]),
        .init("bearer then a tab", #"{"t":0,"ev":"x.y","note":"bearer\tabcdefgh"}"#, ["note"]),
        .init("bearer with no white space", #"{"t":0,"ev":"x.y","note":"bearerabcdefghijkl"}"#, []),
        .init(
            "bearer then a no-break space",
            "{\"t\":0,\"ev\":\"x.y\",\"note\":\"Bearer\u{A0}abcdefgh\"}", ["note"]),
        .init(
            "bearer then an em space and an ideographic space",
            "{\"t\":0,\"ev\":\"x.y\",\"note\":\"Bearer\u{2003}\u{3000}abcdefgh\"}", ["note"]),
        .init(
            "bearer then an escaped no-break space",
            #"{"t":0,"ev":"x.y","note":"Bearer\u00a0abcdefgh"}"#, ["note"]),
        .init(
            "bearer then a non-space letter beyond ASCII",
            "{\"t\":0,\"ev\":\"x.y\",\"note\":\"Bearer\u{E9}abcdefgh\"}", []),
        .init("bearer then a colon", #"{"t":0,"ev":"x.y","note":"Bearer:abcdefghijkl"}"#, []),
        .init(
            "bearer escaped", #"{"t":0,"ev":"x.y","note":"\u0042earer\u0020abcdefghij"}"#, ["note"]),
        .init(
            "bearer in an array item", #"{"t":0,"ev":"x.y","list":["ok","Bearer abcdefgh"]}"#,
            ["list[1]"]),
        .init("JWT", #"{"t":0,"ev":"x.y","jwt":"eyJhbGciOi.eyJzdWIiOi.sig"}"#, ["jwt"]),
        .init("JWT inside text", #"{"t":0,"ev":"x.y","m":"id=eyJh.eyJz. end"}"#, ["m"]),
        .init(
            "JWT without the second dot", #"{"t":0,"ev":"x.y","jwt":"eyJhbGciOi.eyJzdWIiOi"}"#, []),
        .init("JWT with empty parts", #"{"t":0,"ev":"x.y","jwt":"eyJ.eyJ.abcdefgh"}"#, []),
        .init(
            "a flagged key whose value holds a token counts once",
            #"{"t":0,"ev":"x.y","token":"Bearer abcdefghijkl"}"#, ["token"]),
        .init(
            "nested flagged keys count on their own",
            #"{"t":0,"ev":"http.request","ok":true,"body":{"token":"Bearer abcdefghijkl","x":"Bearer abcdefghijkl"}}"#,
            ["body", "body.token"]),
        .init(
            "several on one line, in line order",
            #"{"t":0,"ev":"x.y","a":"Bearer abcdefghij","h":{"Authorization":"x"},"password":"p"}"#,
            ["a", "h.Authorization", "password"]),
        .init(
            "a token in a key is no finding (it is redacted where shown)",
            #"{"t":0,"ev":"x.y","Bearer abcdefghijkl":1}"#, []),
        // The brief: one violation per offending key path. A key with a dot is not the nested key
        // its text reads like: each is its own path, and the paths read apart.
        .init(
            "a key with a dot and the nested key it reads like are two paths",
            #"{"t":0,"ev":"x.y","a.token":"Bearer abcdefghijk","a":{"token":"x"}}"#,
            [#"["a.token"]"#, "a.token"]),
        .init(
            "a key with a bracket and an array item are two paths",
            #"{"t":0,"ev":"x.y","x":{"b[0]":"Bearer abcdefghij"},"x":{"b":["Bearer abcdefghij"]}}"#,
            [#"x["b[0]"]"#, "x.b[0]"]),
        .init(
            "a key with a dot below a key with a dot",
            #"{"t":0,"ev":"x.y","a.b":{"c.d":{"token":1}}}"#, [#"["a.b"]["c.d"].token"#]),
        .init(
            "keys beyond letters, digits, _ and - are quoted: empty, a space, quotes, backslashes, escapes, not ASCII",
            #"{"t":0,"ev":"x.y","":{"token":1},"h":{"X Auth":"Bearer abcdefghij","q\"\\\u0001":"Bearer abcdefghij","clé":{"Cookie":1}},"x-y_Z9":{"body":1}}"#,
            [
                #"[""].token"#, #"h["X Auth"]"#, #"h["q\"\\\u0001"]"#, #"h["clé"].Cookie"#,
                "x-y_Z9.body"
            ]),
        .init(
            "a nested key given twice is one path",
            #"{"t":0,"ev":"x.y","a":{"token":1},"a":{"token":2,"token":3}}"#, ["a.token"]),
        .init(
            "a key spelled with escapes is the same key",
            #"{"t":0,"ev":"x.y","token":1,"t\u006fken":2}"#, ["token"]),
        .init(
            "a malformed line (no t) that is an object is scanned",
            #"{"ev":"x.y","password":"hunter2"}"#, ["password"]),
        .init(
            "a malformed line (bad gen) is scanned",
            #"{"t":0,"ev":"x.y","gen":-1,"n":"Bearer abcdefghijkl"}"#, ["n"]),
        .init("a line that is not JSON is not scanned", #"password: Bearer abcdefghijkl"#, []),
        .init("a broken object is not scanned", #"{"t":0,"ev":"x.y","password":"hunter2","#, []),
        .init("an array is not scanned", #"[{"password":"hunter2"}]"#, [])
    ]

    @Suite("Secrets")
    struct Secrets {
        @Test("the secret scan reports each offending key path", arguments: ReaderTests.secretCases)
        func scan(_ c: SecretCase) throws {
            let (lines, _) = ReaderTests.read(
                "{\"t\":0,\"ev\":\"x.before\"}\n" + c.line + "\n{\"t\":1,\"ev\":\"x.after\"}\n")
            try #require(lines.count == 3)
            #expect(lines[1].secretPaths == c.paths)
            for secret in lines[1].secrets {
                #expect(secret.ev == "$secret")
                #expect(secret.line == 2)
            }
            #expect(lines[0].secrets.isEmpty && lines[2].secrets.isEmpty)
        }

        @Test("a key path repeated by a duplicate key is one offending path")
        func duplicateFlaggedKey() throws {
            let read = ReaderTests.one(#"{"t":0,"ev":"x.y","token":"a","token":"b"}"#)
            #expect(read.secretPaths == ["token"])
        }

        @Test(
            "the value of a field holding a secret never reaches the event; tokens read as a hash of their text, secret key names as [redacted]"
        )
        func redactedFields() throws {
            let line =
                #"{"t":0,"ev":"ws.close","gen":1,"reason":"user","note":"x Bearer abcdefghijkl","#
                + #""headers":{"Authorization":"Basic zzz","x":1},"list":["eyJhbGciOi.eyJzdWIiOi.sig"],"ok":"fine"}"#
            for wanted in [nil, Set(["reason", "note", "headers", "ok"])] as [Set<String>?] {
                let read = ReaderTests.one(line, wanted: wanted)
                let event = try #require(read.event, "\(read.item)")
                #expect(read.secretPaths == ["note", "headers.Authorization", "list[0]"])
                for key in ["note", "headers", "list"] {
                    #expect(event.value(of: key)?.string?.hasPrefix("[redacted") == true, "\(key)")
                    #expect(event.isRedacted(key), "\(key)")
                }
                // A token (no secret key name in the value) keeps a hash of its text when rules
                // read the field; `headers` holds a key named Authorization: only [redacted].
                #expect(
                    event.value(of: "note")
                        == .string(FileReader.redactedName(.string("x Bearer abcdefghijkl"))))
                #expect(event.value(of: "headers") == .string("[redacted]"))
                #expect(
                    event.value(of: "list")
                        == .string(
                            wanted == nil
                                ? FileReader.redactedName(
                                    .array([.string("eyJhbGciOi.eyJzdWIiOi.sig")])) : "[redacted]"))
                #expect(event.value(of: "reason") == .string("user"))
                #expect(event.value(of: "ok") == .string("fine"))
                let shown = event.fields.map { $0.value.rendered(bare: false) }.joined(
                    separator: " ")
                for secret in ["abcdefghijkl", "zzz", "eyJ"] {
                    #expect(!shown.contains(secret), "\(secret) in \(shown)")
                }
            }
        }

        @Test("a flagged ev keeps its stream only when the whole token is after the first dot")
        func evRedaction() throws {
            let cases: [(ev: String, shown: String)] = [
                ("ws.x Bearer abcdefghijkl", "ws.[redacted]"),
                ("ws.eyJhbGciOi.eyJzdWIiOi.sig", "ws.[redacted]"),
                // The token starts before the dot (`.` is a token character): nothing of it is
                // shown.
                ("Bearer SEVNCHR.restoftoken", "[redacted]"),
                ("x Bearer ab.cdefghijkl", "[redacted]"),
                ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig", "[redacted]"),
                ("Bearer abcdefghijkl", "[redacted]")
            ]
            for c in cases {
                let event = try #require(
                    ReaderTests.one(#"{"t":0,"gen":1,"ev":"\#(c.ev)"}"#).event, "\(c.ev)")
                #expect(event.ev == c.shown, "\(c.ev)")
            }
        }

        @Test("a key given twice with a token reads [redacted], whichever occurrence held it")
        func duplicateTokenKeys() throws {
            for line in [
                #"{"t":0,"ev":"x.y","a":"Bearer SECRETAAAA9","a":"Bearer SECRETBBBB9"}"#,
                #"{"t":0,"ev":"x.y","a":"Bearer SECRETAAAA9","a":"plain"}"#,
                #"{"t":0,"ev":"x.y","a":"plain","a":"Bearer SECRETBBBB9"}"#
            ] {
                let event = try #require(ReaderTests.one(line, wanted: ["a"]).event)
                #expect(event.value(of: "a") == .string("[redacted]"), "\(line)")
            }
        }

        /// No hash of a value under a secret key name (it would help guess a weak password); the
        /// rest of the object stays, so two devices stay two sources.
        @Test(
            "a src or session holding a secret key name shows that value as [redacted], the rest as it is"
        )
        func sourceWithSecretKeyInside() throws {
            let read = ReaderTests.one(
                #"{"t":0,"ev":"x.y","src":{"id":1,"password":"SECRETPW17"},"session":"eyJa.eyJb.c"}"#
            )
            let source = try #require(read.source)
            #expect(source.src == #"{"id":1,"password":"[redacted]"}"#)
            #expect(source.srcIsJSON)
            #expect(source.session?.hasPrefix("[redacted ") == true)
            let other = try #require(
                ReaderTests.one(#"{"t":0,"ev":"x.y","src":{"id":2,"password":"SECRETPW17"}}"#)
                    .source)
            #expect(other != source)
            let nested = try #require(
                ReaderTests.one(
                    #"{"t":0,"ev":"x.y","src":["a",{"k":{"Token":"t1"},"n":"Bearer SECRETAAAA9"}]}"#
                ).source)
            #expect(
                nested.src.hasPrefix(#"["a",{"k":{"Token":"[redacted]"},"n":"[redacted "#),
                "\(nested.src)")
            #expect(!nested.src.contains("SECRET") && !nested.src.contains("t1"))
        }

        @Test(
            "the value of a top-level key flagged by its name never reaches the event",
            arguments: [
                #""password":"hunter2""#, #""Token":"hunter2""#, #""body":{"text":"hunter2"}"#,
                #""cookie":["hunter2"]"#
            ])
        func redactedFlaggedKey(field: String) throws {
            let key = String(field.dropFirst().prefix { $0 != "\"" })
            let read = ReaderTests.one(
                #"{"t":0,"ev":"x.y",\#(field),"ok":"fine"}"#, wanted: [key, "ok"])
            let event = try #require(read.event, "\(read.item)")
            #expect(read.secretPaths == [key])
            #expect(event.value(of: "ok") == .string("fine"))
            #expect(event.value(of: key) == .string("[redacted]"), "\(event.fields)")
            #expect(event.isRedacted(key))
            #expect(
                !event.fields.map { $0.value.rendered(bare: false) }.joined().contains("hunter2"))
        }

        /// The brief flags values, but keys are printed too (a field's name, a finding's path, the
        /// timeline): a key holding a token is never shown, and the value under it is not kept.
        @Test(
            "a key holding a token is shown as [redacted], at the top level, nested, and in a finding's path"
        )
        func keysHoldingTokens() throws {
            let line =
                #"{"t":0,"ev":"x.y","eyJhbGciOi.eyJzdWIiOi.sig":{"token":"a"},"#
                + #""x":{"Bearer abcdefghijkl":1},"src":{"eyJa.eyJb.c":2},"ok":"fine"}"#
            for wanted in [nil, Set(["x", "ok"])] as [Set<String>?] {
                let read = ReaderTests.one(line, wanted: wanted)
                let event = try #require(read.event, "\(read.item)")
                // Only the key named `token` is a finding; its path does not show the JWT above it,
                // only a hash of its text.
                #expect(
                    read.secretPaths == [
                        FileReader.redactedName(.string("eyJhbGciOi.eyJzdWIiOi.sig")) + ".token"
                    ])
                #expect(event.value(of: "x") == .string("[redacted]"))
                #expect(event.value(of: "[redacted]") == .string("[redacted]"))
                #expect(event.value(of: "ok") == .string("fine"))
                #expect(read.source?.src == #"{"[redacted]":"[redacted]"}"#)
                let shown = event.fields.map { $0.key + "=" + $0.value.rendered(bare: false) }
                    .joined(separator: " ")
                for secret in ["abcdefghijkl", "eyJ"] {
                    #expect(!shown.contains(secret), "\(secret) in \(shown)")
                }
            }
            // A key of fewer than ten bytes cannot hold a token; ordinary keys are untouched.
            let plain = try #require(ReaderTests.one(#"{"t":0,"ev":"x.y","x":{"eyJ":1}}"#).event)
            #expect(plain.value(of: "x") == .object([.init("eyJ", .int(1))]))
        }

        /// Two keys holding tokens are two key paths: a hash of each key's text tells them apart
        /// where `[redacted]` would print the same path twice.
        @Test("keys holding different tokens are different paths, each shown as a hash of its text")
        func pathsThroughTokenKeys() throws {
            let read = ReaderTests.one(
                #"{"t":0,"ev":"x.y","Bearer SECRETAAAA9":{"token":1},"Bearer SECRETBBBB9":{"token":1},"#
                    + #""x":{"Bearer SECRETAAAA9":{"token":1}}}"#)
            let a = FileReader.redactedName(.string("Bearer SECRETAAAA9"))
            let b = FileReader.redactedName(.string("Bearer SECRETBBBB9"))
            #expect(a != b)
            #expect(read.secretPaths == [a + ".token", b + ".token", "x" + a + ".token"])
            #expect(!read.secretPaths.joined().contains("SECRET"))
        }

        /// A finding's path is made only for findings, and looked up in a set: no quadratic work,
        /// also when each key must be quoted, and when one key path is repeated (one finding).
        @Test(
            "a line of 60,000 flagged keys is read quickly",
            arguments: [
                // 60,000 paths; one key path 60,000 times; 60,000 paths through a quoted key (under 1
                // MiB).
                (
                    #"{"t":0,"ev":"x.y","list":["#, #"{"token":1}"#, "]}", 60_000,
                    "list[59999].token"
                ),
                (#"{"t":0,"ev":"x.y","o":{"#, #""token":1"#, "}}", 1, "o.token"),
                (
                    #"{"t":0,"ev":"x.y","a.b":["#, #"{"body":1}"#, "]}", 60_000,
                    #"["a.b"][59999].body"#
                )
            ])
        func manyFlaggedKeys(head: String, item: String, tail: String, paths: Int, last: String)
            throws
        {
            let line = head + Array(repeating: item, count: 60_000).joined(separator: ",") + tail
            try #require(line.utf8.count < 1 << 20)
            var read: ReaderTests.Read?
            let elapsed = ContinuousClock().measure { read = ReaderTests.one(line) }
            let found = try #require(read).secretPaths
            #expect(found.count == paths)
            #expect(Set(found).count == paths)
            #expect(found.last == last)
            #expect(elapsed < .seconds(20), "took \(elapsed)")
        }

        @Test("a secret in ev, src or session is not kept either")
        func redactedFixedFields() throws {
            let read = ReaderTests.one(
                #"{"t":0,"ev":"x.Bearer abcdefghijkl","src":"Bearer abcdefghijkm","session":"eyJa.eyJb.c"}"#
            )
            let event = try #require(read.event)
            #expect(read.secretPaths == ["ev", "src", "session"])
            // The stream before the secret stays, so the event keeps its timeline.
            #expect(event.ev == "x.[redacted]")
            #expect(
                ReaderTests.one(#"{"t":0,"ev":"Bearer abcdefghijkl.x"}"#).event?.ev == "[redacted]")
            #expect(
                ReaderTests.one(#"{"t":0,"ev":"Bearer abcdefghijkl"}"#).event?.ev == "[redacted]")
            let source = try #require(read.source)
            // Redacted sources stay apart by a hash of the value, never the value itself.
            #expect(
                source.src.hasPrefix("[redacted ")
                    && source.session?.hasPrefix("[redacted ") == true)
            #expect(
                !source.src.contains("abcdefghijkm") && source.session?.contains("eyJ") == false)
            let other = ReaderTests.one(#"{"t":0,"ev":"x.y","src":"Bearer zzzzzzzzzzzz"}"#)
            #expect(other.source?.src.hasPrefix("[redacted ") == true)
            #expect(other.source?.src != source.src)
        }
    }
}

// MARK: - Source keys

extension ReaderTests {
    @Suite("Source keys")
    struct SourceKeys {
        /// The reader numbers a file's sources by first appearance: one number per key, whether a
        /// line's texts come through the plain path (one interned text per value) or the general
        /// parser (an escape), after other sources or not; `t` going back is judged per number.
        @Test func sourcesAreNumberedOncePerKey() throws {
            let text =
                [
                    #"{"t":5,"src":"ab","session":"s","ev":"x.y"}"#,
                    #"{"t":6,"src":"a\u0062","session":"s","ev":"x.y"}"#,
                    #"{"t":1,"src":"cd","ev":"x.y"}"#,
                    #"{"t":7,"src":"ab","session":"s","ev":"x.y"}"#,
                    #"{"t":4,"src":"ab","session":"s","ev":"x.y"}"#,
                    #"{"t":2,"src":42,"ev":"x.y"}"#,
                    #"{"t":3,"src":"42","ev":"x.y"}"#,
                    #"{"t":0,"src":"cd","ev":"x.y"}"#,
                    #"{"t":8,"src":"ab","ev":"x.y"}"#
                ].joined(separator: "\n") + "\n"
            let reader = FileReader(
                index: 0, path: "a.jsonl",
                source: ByteSources.memory(Array(text.utf8), path: "a.jsonl"),
                wantedFields: [])
            var ids: [Int32] = []
            var regressions: [Int] = []
            while let item = reader.next() {
                guard case .event(let e, let id, let regression) = item else { continue }
                ids.append(id)
                if regression != nil { regressions.append(e.line) }
            }
            #expect(ids == [0, 0, 1, 0, 0, 2, 3, 1, 4])
            #expect(reader.key(of: 0) == SourceKey(src: "ab", session: "s"))
            #expect(reader.key(of: 1) == SourceKey(src: "cd"))
            var json = SourceKey(src: "42")
            json.srcIsJSON = true
            #expect(reader.key(of: 2) == json && reader.key(of: 3) == SourceKey(src: "42"))
            #expect(reader.key(of: 4) == SourceKey(src: "ab"))
            // Line 5 goes back from 7 for "ab"/"s", line 8 from 1 for "cd"; line 3 ("cd" at 1
            // after "ab" at 6) is another source's.
            #expect(regressions == [5, 8])
        }

        @Test("src absent and src null both mean the file is the source")
        func fileIsTheSource() throws {
            let (lines, _) = ReaderTests.read(
                "{\"t\":0,\"ev\":\"x.y\"}\n{\"t\":1,\"ev\":\"x.y\",\"src\":null}\n{\"t\":2,\"ev\":\"x.y\",\"src\":\"logs/a.jsonl\"}\n",
                path: "logs/a.jsonl")
            let keys = lines.compactMap(\.source)
            try #require(keys.count == 3)
            #expect(keys[0] == SourceKey(src: "logs/a.jsonl", srcIsFile: true))
            #expect(keys[1] == keys[0])
            // A src that happens to spell the path is a named source, not the file.
            #expect(keys[2] == SourceKey(src: "logs/a.jsonl"))
            #expect(keys[2] != keys[0])
        }

        @Test(
            "a non-string src or session is keyed by its JSON text",
            arguments: [
                (#""src":42"#, "42", nil),
                (#""src":-1.5"#, "-1.5", nil),
                (#""src":true"#, "true", nil),
                (#""src":{"id":7}"#, #"{"id":7}"#, nil),
                (#""src":"a","session":3"#, "a", "3"),
                (#""src":"a","session":null"#, "a", "null")
            ] as [(String, String, String?)])
        func nonStringSource(fields: String, src: String, session: String?) throws {
            let read = ReaderTests.one(#"{"t":0,"ev":"x.y",\#(fields)}"#)
            let key = try #require(read.source, "\(read.item)")
            #expect(key.src == src)
            #expect(key.session == session)
            #expect(!key.srcIsFile)
        }

        @Test(
            "a null session is keyed by its JSON text: not the lines without a session, not the string \"null\""
        )
        func nullSession() throws {
            let none = try #require(ReaderTests.one(#"{"t":0,"ev":"x.y","src":"a"}"#).source)
            let null = try #require(
                ReaderTests.one(#"{"t":0,"ev":"x.y","src":"a","session":null}"#).source)
            let text = try #require(
                ReaderTests.one(#"{"t":0,"ev":"x.y","src":"a","session":"null"}"#).source)
            #expect(null.session == "null" && null.sessionIsJSON)
            #expect(null != none && null != text && none != text)
            // A null src is still the file (the brief's one exception).
            let file = try #require(ReaderTests.one(#"{"t":0,"ev":"x.y","src":null}"#).source)
            #expect(file.srcIsFile)
        }

        @Test("a numeric src and the string of its digits are different sources")
        func numericAndStringSources() throws {
            let number = try #require(ReaderTests.one(#"{"t":0,"ev":"x.y","src":42}"#).source)
            let text = try #require(ReaderTests.one(#"{"t":0,"ev":"x.y","src":"42"}"#).source)
            #expect(number.src == text.src)
            #expect(number != text)
        }

        @Test("session separates sources; time regressions are per source")
        func sessions() throws {
            let (lines, _) = ReaderTests.read(
                """
                {"t":100,"src":"a","session":"1","ev":"x.y"}
                {"t":5,"src":"a","session":"2","ev":"x.y"}
                {"t":50,"src":"a","ev":"x.y"}
                {"t":6,"src":"a","session":"2","ev":"x.y"}
                {"t":99,"src":"a","session":"1","ev":"x.y"}

                """)
            let keys = lines.compactMap(\.source)
            try #require(keys.count == 5)
            #expect(keys[0] == SourceKey(src: "a", session: "1"))
            #expect(keys[1] == SourceKey(src: "a", session: "2"))
            #expect(keys[2] == SourceKey(src: "a"))
            #expect(Set(keys).count == 3)
            #expect(lines.map { $0.regression != nil } == [false, false, false, false, true])
            #expect(lines[4].regression?.value(of: "previous_t") == .int(100))
            #expect(lines[4].regression?.line == 5)
        }

        @Test("a regression compares with the previous valid line of the source, not the maximum")
        func regressionAgainstPrevious() throws {
            let (lines, _) = ReaderTests.read(
                """
                {"t":10,"ev":"x.y"}
                {"t":50,"ev":"x.y"}
                {"t":1,"ev":"x.y","gen":-1}
                {"t":20,"ev":"x.y"}
                {"t":30,"ev":"x.y"}
                {"t":30,"ev":"x.y"}

                """)
            #expect(lines.map { $0.regression?.line } == [nil, nil, nil, 4, nil, nil])
            #expect(lines[3].regression?.value(of: "previous_t") == .int(50))
        }

        /// As doubles, integers from 2^53 up round alike: 2^53 after 2^53 + 1 was no regression (a
        /// `t` from a nanosecond clock), nor Int64.max - 1 after Int64.max.
        @Test("integer times compare exactly, all 64 bits")
        func regressionBeyond2To53() throws {
            let (lines, _) = ReaderTests.read(
                """
                {"t":9007199254740992,"src":"a","ev":"x.y"}
                {"t":9007199254740993,"src":"a","ev":"x.y"}
                {"t":9007199254740992,"src":"a","ev":"x.y"}
                {"t":9223372036854775807,"src":"b","ev":"x.y"}
                {"t":9223372036854775806,"src":"b","ev":"x.y"}
                {"t":9007199254740993,"src":"c","ev":"x.y"}
                {"t":9007199254740992.0,"src":"c","ev":"x.y"}
                {"t":9007199254740991.5,"src":"c","ev":"x.y"}
                {"t":9007199254740991,"src":"c","ev":"x.y"}
                {"t":9223372036854775808,"src":"d","ev":"x.y"}
                {"t":9223372036854775807,"src":"d","ev":"x.y"}
                {"t":9223372036854775808,"src":"d","ev":"x.y"}
                {"t":1e19,"src":"d","ev":"x.y"}

                """)
            #expect(
                lines.map { $0.regression?.line } == [
                    nil, nil, 3, nil, 5, nil, 7, nil, 9, nil, 11, nil, nil
                ])
            // Not an integer: the finding's `t` says it.
            #expect(lines[6].regression?.value(of: "t_exact") == nil)
            #expect(lines[2].regression?.value(of: "previous_t") == .int(9_007_199_254_740_993))
            #expect(lines[2].regression?.value(of: "t_exact") == .int(9_007_199_254_740_992))
            #expect(lines[4].regression?.value(of: "previous_t") == .int(Int64.max))
            #expect(lines[4].regression?.value(of: "t_exact") == .int(Int64.max - 1))
        }

        @Test(arguments: [
            (Int64(0), 0.5, true), (1, 0.5, false), (1, 1.0, false), (0, 1.0, true),
            (9_007_199_254_740_993, 0x1p53, false), (9_007_199_254_740_991, 0x1p53, true),
            (Int64.max, 0x1p63, true), (Int64.max, 9_223_372_036_854_774_784.0, false),
            (Int64.max - 1024, 9_223_372_036_854_774_784.0, true)
        ])
        func stampsCompareAnIntegerAndADoubleExactly(i: Int64, d: Double, below: Bool) {
            #expect(Stamp(t: Double(i), exact: i).isBefore(Stamp(t: d, exact: -1)) == below)
            #expect(
                Stamp(t: d, exact: -1).isBefore(Stamp(t: Double(i), exact: i))
                    == (!below && Double(exactly: i) != d))
        }
    }
}

// MARK: - Whole runs

extension ReaderTests {
    /// Runs an audit over in-memory files, in argument order.
    static func audit(
        _ files: [(path: String, text: String)], rules: RuleSet = RuleLoader.builtin()
    ) -> AuditReport {
        RuleRuns.audit(rules, files: files)
    }

    @Suite("Reader findings in a run")
    struct Runs {
        /// `src`, `session` and file names are told apart by their bytes: "café" written with é and
        /// with e + U+0301 are canonically equivalent (Swift's `==`), but two devices, or two
        /// files.
        @Test("sources differing only in Unicode normalization stay apart")
        func sourcesCompareByBytes() throws {
            let nfc = "caf\u{E9}", nfd = "cafe\u{301}"
            #expect(nfc == nfd)  // what String's == says
            let log = """
                {"t":10,"ev":"ws.connect","gen":1,"src":"\(nfc)"}
                {"t":5,"ev":"ws.connect","gen":1,"src":"\(nfd)"}
                {"t":10,"ev":"ws.connect","gen":1,"src":"x","session":"\u{C5}"}
                {"t":5,"ev":"ws.connect","gen":1,"src":"x","session":"\u{212B}"}

                """
            let line = #"{"t":10,"ev":"ws.connect","gen":1}"# + "\n"
            let report = ReaderTests.audit([
                ("logs/a.jsonl", log), ("logs/\(nfc).jsonl", line), ("logs/\(nfd).jsonl", line)
            ])
            #expect(report.inputs.sources == 6)
            for id in ["log.time-monotonic", "ws.generation-increases"] {
                let result = try #require(report.results.first { $0.rule.id == id })
                #expect(result.violations.isEmpty, "\(id): \(result.violations.map(\.message))")
            }
        }

        /// `hasSameBytes` answers "the same two words" at once (one storage shared, or one small
        /// text held inline); texts in different storage, or canonically equal ones, still go
        /// through the byte comparison.
        @Test("texts compare by their bytes, shared or not, small or large")
        func sameBytes() {
            let large = String(repeating: "device-", count: 4) + "\u{E9}"
            let shared = large
            let rebuilt = String(decoding: Array(large.utf8), as: UTF8.self)
            #expect(large.hasSameBytes(as: shared))
            #expect(large.hasSameBytes(as: rebuilt))
            #expect(
                "pixel-1".hasSameBytes(as: String(decoding: Array("pixel-1".utf8), as: UTF8.self)))
            #expect("".hasSameBytes(as: ""))
            let pairs = [
                ("caf\u{E9}", "cafe\u{301}"), (large, String(large.dropLast()) + "e\u{301}"),
                ("pixel-1", "pixel-2"), ("pixel-1", "pixel-10"), (large, large + "x"), ("", "x")
            ]
            for (a, b) in pairs {
                #expect(!a.hasSameBytes(as: b), "\(Array(a.utf8)) vs \(Array(b.utf8))")
                #expect(!b.hasSameBytes(as: a))
            }
        }

        @Test("log.malformed points at each bad line with its reason")
        func malformedFindings() throws {
            let report = ReaderTests.audit([
                (
                    "logs/a.jsonl",
                    "{\"t\":0,\"ev\":\"x.y\"}\n\nnot json\n{\"t\":-1,\"ev\":\"x.y\"}\n"
                ),
                (
                    "logs/b.jsonl",
                    "{\"ev\":\"x.y\"}\n{\"t\":0,\"ev\":\"x.y\",\"gen\":1.0}\n{\"t\":1,\"ev\":\"x"
                )
            ])
            let result = try #require(report.results.first { $0.rule.id == "log.malformed" })
            let found = result.violations.map { "\(report.files[Int($0.file!)].path):\($0.line!)" }
            #expect(
                found == [
                    "logs/a.jsonl:3", "logs/a.jsonl:4", "logs/b.jsonl:1", "logs/b.jsonl:2",
                    "logs/b.jsonl:3"
                ])
            let messages = result.violations.map(\.message)
            #expect(messages[0].contains("not valid JSON"))
            #expect(messages[1].contains(#""t" is negative"#))
            #expect(messages[2].contains(#"missing "t""#))
            #expect(messages[3].contains(#""gen" is not a non-negative integer"#))
            #expect(messages[4].contains("cut off"))
            #expect(
                report.inputs.lines == 7 && report.inputs.malformed == 5
                    && report.inputs.events == 1)
            #expect(
                report.inputs.lines == report.inputs.events + report.inputs.malformed
                    + report.inputs.blank)
        }

        static let probeRules = """
            rules:
              - id: probe.show-fields
                title: Every close shows its fields
                severity: warning
                for: source
                every: { ev: ws.close }
                expect: "false"
                message: "close reason={reason} note={note} password={password} headers={headers} token={token} cookie={cookie}"
            """

        @Test("no secret value appears in any finding, context, text report or JSON report")
        func secretsNeverPrinted() throws {
            let probe = try RuleLoader.load(files: [("probe.yaml", Self.probeRules)])
            let rules = RuleSet(rules: RuleLoader.builtin().rules + probe.rules)
            // Values behind a flagged top-level key say KEYLEAK (a known issue, below); every other
            // secret says SECRET.
            let log = """
                {"t":0,"src":"dev","ev":"ws.connect","gen":1,"note":"Bearer SECRETbearer1"}
                {"t":1,"src":"dev","ev":"ws.close","gen":1,"reason":"user","password":"hunter2-KEYLEAK","headers":{"Authorization":"Basic SECRETbasic"},"note":"eyJSECRETjwt.eyJpayload.sig"}
                {"t":2,"src":"dev","ev":"ws.close","gen":1,"reason":"Bearer SECRETreason9","token":"KEYLEAKtoken"}
                {"t":3,"src":"dev","ev":"ws.ping","gen":1,"cookie":"KEYLEAKcookie"}
                {"t":4,"src":"dev","ev":"x.Bearer SECRETevname","gen":1}
                {"ev":"no.t","password":"KEYLEAKmalformed","note":"Bearer SECRETmalformed"}
                {"t":5,"src":"Bearer SECRETsrcname","ev":"ws.close","gen":1,"reason":"user"}
                {"t":6,"src":"Bearer SECRETsrcname","ev":"ws.close","gen":1,"reason":"user"}
                {"t":7,"src":"dev","session":"eyJSECRETsess.eyJx.y","ev":"ws.close","gen":1}

                """
            let report = ReaderTests.audit([("logs/dev.jsonl", log)], rules: rules)

            // The run did see what it must not print.
            let secrets = try #require(report.results.first { $0.rule.id == "log.no-secrets" })
            #expect(secrets.violations.map(\.line) == [1, 2, 2, 2, 3, 3, 4, 5, 6, 6, 7, 8, 9])
            #expect(secrets.violations.allSatisfy { $0.message.contains("the value is not shown") })
            let probeResult = try #require(
                report.results.first { $0.rule.id == "probe.show-fields" })
            #expect(probeResult.violations.count == 5)
            #expect(probeResult.violations.contains { $0.message.contains("note=[redacted ") })
            #expect(probeResult.violations.contains { $0.message.contains("reason=[redacted ") })
            let single = try #require(report.results.first { $0.rule.id == "ws.single-close" })
            #expect(single.violations.contains { !$0.context.isEmpty })

            var texts: [String] = []
            for r in report.results {
                for f in r.violations + r.inconclusive {
                    texts.append(f.message)
                    texts += f.context.map(\.text)
                    texts.append(f.source?.description ?? "")
                }
            }
            texts.append(TextReport(color: false, limit: 1000).render(report))
            texts.append(TextReport(color: true).render(report))
            texts.append(JSONReport.render(report))
            for text in texts {
                #expect(!text.contains("SECRET"), "a secret leaked into: \(text)")
            }
            for text in texts where text.contains("KEYLEAK") {
                Issue.record("a secret leaked into: \(text)")
            }
            #expect(probeResult.violations.contains { $0.message.contains("password=[redacted]") })
        }
    }
}

// MARK: - Byte-level scanning

extension ReaderTests {
    /// The word-at-a-time string scan and the table that finds repeated `ev` / `src` / `session`
    /// texts by their bytes, each checked against a plain byte-by-byte reference.
    @Suite("Byte-level scanning")
    struct ByteLevel {
        static func isSpecial(_ b: UInt8) -> Bool {
            b == 0x22 || b == 0x5C || b < 0x20 || b >= 0x80
        }

        /// Index of the first byte the word mask marks, or nil.
        static func firstMarked(_ bytes: [UInt8]) -> Int? {
            let w = bytes.withUnsafeBytes {
                UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self))
            }
            let mask = Cursor.specialBytes(w)
            return mask == 0 ? nil : mask.trailingZeroBitCount >> 3
        }

        @Test("the word mask marks the first special byte, for every byte value at every position")
        func everyByteEveryPosition() {
            for filler: UInt8 in [0x20, 0x21, 0x23, 0x5B, 0x5D, 0x61, 0x7E, 0x7F] {
                for position in 0..<8 {
                    for value in 0...255 {
                        var bytes = [UInt8](repeating: filler, count: 8)
                        bytes[position] = UInt8(value)
                        let expected = Self.isSpecial(UInt8(value)) ? position : nil
                        #expect(
                            Self.firstMarked(bytes) == expected,
                            "filler \(filler) byte \(value) at \(position)")
                    }
                }
            }
        }

        @Test("the word mask agrees with a byte loop on random words")
        func randomWords() {
            var g = SplitMix64(state: 42)
            // Bytes drawn mostly around the edges that matter (0x1F/0x20, quote, backslash,
            // 0x7F/0x80).
            let pool: [UInt8] = [
                0x00, 0x01, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x61, 0x7F, 0x80, 0x81,
                0xA0, 0xFF
            ]
            for _ in 0..<200_000 {
                let bytes = (0..<8).map { _ in
                    Bool.random(using: &g)
                        ? pool.randomElement(using: &g)! : UInt8.random(in: 0x20...0x7E, using: &g)
                }
                #expect(
                    Self.firstMarked(bytes) == bytes.firstIndex(where: Self.isSpecial), "\(bytes)")
            }
        }

        /// The string scan as it was before it read words: one byte at a time.
        static func referenceScan(_ line: [UInt8]) -> Result<(Int, Int, Bool), JSONSyntaxError> {
            var i = 1
            let start = 1
            var escaped = false
            while i < line.count {
                let b = line[i]
                if b == 0x22 { return .success((start, i, escaped)) }
                if b == 0x5C {
                    escaped = true
                    guard i + 1 < line.count else { break }
                    switch line[i + 1] {
                    case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74: i += 2
                    case 0x75:
                        guard i + 5 < line.count else {
                            return .failure(.init(reason: "bad \\u escape", offset: i))
                        }
                        for k in 2...5 where Cursor.hexValue(line[i + k]) == nil {
                            return .failure(.init(reason: "bad \\u escape", offset: i))
                        }
                        i += 6
                    default: return .failure(.init(reason: "bad escape", offset: i))
                    }
                } else if b < 0x20 {
                    return .failure(.init(reason: "control character in string", offset: i))
                } else if b >= 0x80 {
                    let n = line.withUnsafeBufferPointer {
                        Cursor(base: $0.baseAddress!, count: $0.count).utf8SequenceLength(at: i)
                    }
                    guard n > 0 else {
                        return .failure(.init(reason: "not valid UTF-8", offset: i))
                    }
                    i += n
                } else {
                    i += 1
                }
            }
            return .failure(.init(reason: "unterminated string", offset: 0))
        }

        @Test(
            "scanning a string gives the byte loop's range, escape flag and error, on random strings"
        )
        func scanMatchesReference() {
            var g = SplitMix64(state: 7)
            let pieces: [[UInt8]] = [
                Array("a".utf8), Array("xyz0123".utf8), Array("ws.connect_failed".utf8), [0x22],
                [0x5C, 0x22], [0x5C, 0x5C],
                Array(#"\n"#.utf8), Array(#"\u00e9"#.utf8), Array(#"\u12"#.utf8), [0x5C, 0x71],
                [0x5C], Array("é".utf8),
                Array("😀".utf8), [0xC3], [0xE2, 0x82], [0xFF], [0x09], [0x1F], [0x7F], [0x20]
            ]
            for _ in 0..<50_000 {
                var line: [UInt8] = [0x22]
                for _ in 0..<Int.random(in: 0...12, using: &g) {
                    line += pieces.randomElement(using: &g)!
                }
                if Bool.random(using: &g) { line += Array(#"","k":1}"#.utf8) }
                let got: Result<(Int, Int, Bool), JSONSyntaxError> = line.withUnsafeBufferPointer {
                    buf in
                    var c = Cursor(base: buf.baseAddress!, count: buf.count)
                    do throws(JSONSyntaxError) { return .success(try c.scanString()) } catch {
                        return .failure(error)
                    }
                }
                switch (got, Self.referenceScan(line)) {
                case (.success(let a), .success(let b)):
                    #expect(a.0 == b.0 && a.1 == b.1 && a.2 == b.2, "\(line)")
                case (.failure(let a), .failure(let b)):
                    #expect(a.reason == b.reason, "\(line)")
                    if a.reason != "unterminated string" {
                        #expect(a.offset == b.offset, "\(line)")
                    }
                default:
                    Issue.record(
                        "scan and reference disagree on \(line): \(got) vs \(Self.referenceScan(line))"
                    )
                }
            }
        }

        @Test("decimals read without strtod give strtod's double, bit for bit; integers stay exact")
        func decimals() throws {
            var g = SplitMix64(state: 99)
            var texts = [
                "0.5", "-0.0", "0.1", "128.11", "1128.11", "999999999999999.9", "99999999999999.99",
                "0.000000000000001", "-123456789012.345", "9007199254740993.5",
                "1.0000000000000002",
                "12345678901234567890", "-9223372036854775808", "9223372036854775808", "1e3",
                "2.5E-3"
            ]
            for _ in 0..<20_000 {
                let whole = String(UInt64.random(in: 0...10_000_000_000_000, using: &g))
                let fraction = String(UInt64.random(in: 0...9_999_999, using: &g))
                texts.append((Bool.random(using: &g) ? "-" : "") + whole + "." + fraction)
            }
            for text in texts {
                let value = try JSONLineParser.parseDocument(Array(text.utf8))
                let expected = strtod(text, nil)
                switch value {
                case .double(let d):
                    #expect(d.bitPattern == expected.bitPattern, "\(text): \(d) vs \(expected)")
                case .int(let i):
                    #expect(
                        !text.contains(".") && !text.lowercased().contains("e")
                            && String(i) == text, "\(text)")
                // An integer beyond 64 bits keeps its digits; as a number it is strtod's double.
                case .bigInt(let digits):
                    #expect(digits == text, "\(text)")
                    #expect(value.number?.bitPattern == expected.bitPattern, "\(text)")
                default: Issue.record("\(text) read as \(value)")
                }
            }
        }

        static func lookup(_ table: ByteStringTable, _ key: [UInt8]) -> (
            string: String, tag: Int32
        )? {
            key.withUnsafeBufferPointer { table.lookup($0) }
        }

        @Test("the table finds every key it kept, and no key that differs in one byte or in length")
        func tableKeys() throws {
            var table = ByteStringTable(capacity: 400, maxLength: 64)
            var keys: [[UInt8]] = []
            for length in 0...40 {
                let base = (0..<length).map { UInt8(0x61 + ($0 % 26)) }
                keys.append(base)
                // Differences at the first byte, the last, and around the 8- and 16-byte words.
                for position in Set([0, length - 1, 7, 8, 15, 16])
                where position >= 0 && position < length {
                    var k = base
                    k[position] = 0x30
                    keys.append(k)
                }
            }
            for (i, k) in keys.enumerated() {
                k.withUnsafeBufferPointer {
                    table.add($0, string: String(decoding: k, as: UTF8.self), tag: Int32(i))
                }
            }
            #expect(table.count == keys.count)
            for (i, k) in keys.enumerated() {
                let hit = try #require(Self.lookup(table, k), "\(k)")
                #expect(hit.tag == Int32(i))
                #expect(hit.string == String(decoding: k, as: UTF8.self))
            }
            #expect(Self.lookup(table, Array("zzzz".utf8)) == nil)
            #expect(Self.lookup(table, Array("abcdefghijklmnopq".utf8) + [0x00]) == nil)
            // Adding a key again keeps the first entry.
            keys[3].withUnsafeBufferPointer { table.add($0, string: "other", tag: -7) }
            #expect(Self.lookup(table, keys[3])?.tag == 3)
        }

        @Test("the table is bounded: no key longer than its limit, no entry beyond its capacity")
        func tableBounds() {
            var table = ByteStringTable(capacity: 10, maxLength: 16)
            let long = [UInt8](repeating: 0x61, count: 17)
            long.withUnsafeBufferPointer { table.add($0, string: "long", tag: 1) }
            #expect(table.count == 0)
            #expect(Self.lookup(table, long) == nil)
            for i in 0..<50 {
                let k = Array("key\(i)".utf8)
                k.withUnsafeBufferPointer { table.add($0, string: "key\(i)", tag: Int32(i)) }
            }
            #expect(table.count == 10)
            #expect(Self.lookup(table, Array("key9".utf8))?.tag == 9)
            #expect(Self.lookup(table, Array("key10".utf8)) == nil)
            // It starts small and grows as it fills: every key kept is still found after each
            // growth.
            var growing = ByteStringTable(capacity: 1000, maxLength: 64)
            for i in 0..<1000 {
                let k = Array("k\(i)".utf8)
                k.withUnsafeBufferPointer { growing.add($0, string: "k\(i)", tag: Int32(i)) }
                if i % 97 == 0 {
                    for j in 0...i {
                        #expect(Self.lookup(growing, Array("k\(j)".utf8))?.tag == Int32(j))
                    }
                }
            }
            #expect(growing.count == 1000)
        }

        @Test("an ev name keeps its id however it is spelt, and the last ev of a line wins")
        func evIDs() throws {
            let open = EvNames.id("ws.open")
            let close = EvNames.id("ws.close")
            let lines = ReaderTests.read(
                """
                {"t":1,"ev":"ws.open"}
                {"t":2,"ev":"ws.\\u006fpen"}
                {"t":3,"ev":"ws.open","ev":"ws.close"}
                {"t":4,"ev":"ws.close","ev":"ws.\\u006fpen"}
                {"t":5,"ev":"ws.open","ev":7}
                {"t":6,"ev":"ws.open"}
                {"t":7,"ev":"x.never-named-by-a-rule"}
                {"t":8,"ev":"x.never-named-by-a-rule"}

                """
            ).lines
            #expect(lines.map { $0.event?.evID } == [open, open, close, open, nil, open, -1, -1])
            #expect(lines[4].reason?.contains("ev") == true)
        }

        @Test("a token in ev, src or session is found on every line it is on, not only the first")
        func tokensEveryTime() {
            let line =
                #"{"t":1,"ev":"x.Bearer abcdefghijkl","src":"Bearer abcdefghijkl","session":"eyJhbGciOi.eyJzdWIiOi.sig"}"#
            let lines = ReaderTests.read(line + "\n" + line + "\n").lines
            for read in lines {
                #expect(Set(read.secretPaths) == ["ev", "src", "session"])
                #expect(read.event?.ev == "x.[redacted]")
                #expect(read.source?.src.hasPrefix("[redacted ") == true)
            }
        }
    }
}

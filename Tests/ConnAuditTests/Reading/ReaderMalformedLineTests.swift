import Testing

@testable import ConnAudit

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

import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// The secret scan of lines too long to hold (``LongLineSecretScanner``): the same key paths as
/// ``JSONLineParser`` gives the same bytes, whatever chunks they arrive in.
///
/// The main check runs both on lines short enough for the parser — the reader's own table of
/// secret cases, and generated lines (secrets at every depth, escapes, surrogates, tokens and near
/// misses, keys holding tokens, duplicate keys, broken lines) — feeding the scanner the whole line
/// and in chunks of 1 to 7 bytes, so every token and escape is cut at every place.
@Suite("Long-line secret scan")
struct LongLineSecretScannerTests {
    // MARK: - Helpers

    /// What the parser reports for `line`: its secret paths when it is a JSON object.
    static func parserPaths(_ line: [UInt8]) -> [String] {
        var parser = JSONLineParser(wantedFields: nil)
        let parsed = line.withUnsafeBufferPointer { parser.parse($0) }
        return parsed.isObject ? parsed.secretPaths : []
    }

    /// What the scanner reports for `line` fed `chunk` bytes at a time (0: all at once).
    static func scannerPaths(_ line: [UInt8], chunk: Int = 0, scanner: inout LongLineSecretScanner)
        -> [String]
    {
        scanner.reset()
        line.withUnsafeBufferPointer { all in
            let size = chunk == 0 ? max(all.count, 1) : chunk
            var start = 0
            while start < all.count {
                let end = min(start + size, all.count)
                scanner.feed(UnsafeBufferPointer(rebasing: all[start..<end]))
                start = end
            }
        }
        return scanner.finish()
    }

    static func scannerPaths(_ line: [UInt8], chunk: Int = 0) -> [String] {
        var scanner = LongLineSecretScanner()
        return scannerPaths(line, chunk: chunk, scanner: &scanner)
    }

    /// Checks the scanner against the parser on `line`, whole and in chunks of 1 to 7 bytes, with
    /// one scanner reused (as the reader reuses it) and a fresh one.
    static func expectSame(
        _ line: [UInt8], _ scanner: inout LongLineSecretScanner, _ note: @autoclosure () -> String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let expected = parserPaths(line)
        for chunk in 0...7 {
            let got = scannerPaths(line, chunk: chunk, scanner: &scanner)
            if got != expected {
                Issue.record(
                    "chunk \(chunk): scanner \(got), parser \(expected) for \(note())",
                    sourceLocation: sourceLocation)
                return
            }
        }
    }

    // MARK: - The same paths as the parser

    @Test(
        "every case of the reader's secret table gives the parser's paths, whatever the chunks",
        arguments: ReaderTests.secretCases)
    func readerTable(_ c: SecretCase) {
        var scanner = LongLineSecretScanner()
        Self.expectSame(Array(c.line.utf8), &scanner, c.line)
        #expect(Self.scannerPaths(Array(c.line.utf8), chunk: 3) == c.paths)
    }

    static let handwritten: [String] = [
        // Flagged keys inside flagged keys; tokens under a flagged key count once.
        #"{"body":{"token":"Bearer abcdefghijkl","x":{"password":{"cookie":"eyJa.eyJb.c"}}},"y":"Bearer abcdefghij"}"#,
        #"{"a":[["Bearer abcdefgh",{"Secret":["eyJhb.eyJzd.sig"]}],"BEARER\u0020\u0020zzzzzzzz"]}"#,
        // Escaped key names, escaped tokens, a surrogate pair, lone surrogates.
        #"{"p\u0061ss\u0077ord":1,"\u0074OKEN":2,"v":"\u0042earer\tabcdefgh","w":"\ud83d\ude00 eyJ\u0061.eyJ\u0062."}"#,
        #"{"v":"Bearer\ud800 abcdefgh","w":"Bearer \ud800abcdefgh","x":"\ud800\ud800\udc00Bearer abcdefgh"}"#,
        #"{"v":"Bearer\ud800\u0020abcdefgh","w":"eyJa\udbff\u002eeyJb.","x":"Bearer \udc00abcdefgh","y":"Bearer\ud800\n12345678"}"#,
        #"{"\ud800\/":{"token":1},"\ud800\ud800\t":{"token":1},"\ud800\"":{"token":1},"\ud800\u0041":{"token":1}}"#,
        #"{"\ud800":{"token":1},"\udc00\ud800":{"token":1},"\ud83d\ude00":{"token":1}}"#,
        // Unicode white space after bearer, raw and escaped.
        "{\"a\":\"Bearer\u{85}abcdefgh\",\"b\":\"Bearer\u{1680}abcdefgh\",\"c\":\"bearer\u{205F}abcdefgh\",\"d\":\"Bearer\u{2028}abcdefgh\"}",
        #"{"a":"Bearer\u2029abcdefgh","b":"Bearer\u202fabcdefgh","c":"Bearer\u200aabcdefgh","d":"Bearer\u200babcdefgh"}"#,
        // Near misses: a bearer inside a token run, JWTs that restart.
        #"{"a":"bearer bearer abcdefgh","b":"Bearer abcBearer xyzxyzxy","c":"eyJa.eyJb","d":"eyJa.eeyJb.eyJc.","e":"eyJeyJa.eyJ.eyJb."}"#,
        #"{"a":"eyJa.xeyJb.eyJc.","b":"eyJ_-.eyJ-_.","c":"eyJa..eyJb.","d":"beareR\n12345678","e":"Bearer 1234567"}"#,
        // Keys holding tokens: paths through them read as a hash of the key.
        #"{"Bearer abcdefghijkl":{"token":1},"x":{"eyJa.eyJb.c":[{"password":1}]},"q":{"a b":{"body":1}}}"#,
        // Duplicate paths, a key with a dot, an index path.
        #"{"a":{"token":1},"a":{"token":2},"a.token":"Bearer abcdefghij","l":["Bearer abcdefghij","Bearer abcdefghij"]}"#,
        // Top-level ev, src and session holding tokens.
        #"{"t":1,"ev":"x.Bearer abcdefghij","src":"eyJa.eyJb.c","session":{"token":1}}"#,
        // Numbers and literals of every form around the secrets.
        #"{"n":[0,-0,1.5,-2e10,3E+2,4e-3,12345678901234567890],"b":[true,false,null],"token":{}}"#,
        // Text after the object does not matter; before it, it does.
        #"{"token":1} trailing"#, #"{"token":1}}"#, #"  {"token":1}"#, #"x{"token":1}"#,
        #"[{"token":1}]"#,
        // Broken lines: nothing counts.
        #"{"token":1,}"#, #"{"token":1"#, #"{"token" 1}"#, #"{"token":01}"#, #"{"token":1.}"#,
        #"{"token":-}"#,
        #"{"token":tru}"#, #"{"token":"\x"}"#, #"{"token":"\u12g4"}"#, #"{"token":[1,]}"#,
        #"{,"token":1}"#,
        #"{"token":1 "a":2}"#, #"{"a":[1 2],"token":1}"#, #"{"token":1e}"#, #"{"token":1e+}"#,
        #"{"token":nulls}"#,
        "", "   ", "{", "}", "{}"
    ]

    @Test("handwritten lines give the parser's paths, whatever the chunks")
    func handwrittenLines() {
        var scanner = LongLineSecretScanner()
        for line in Self.handwritten { Self.expectSame(Array(line.utf8), &scanner, line) }
    }

    @Test(
        "bytes that are not UTF-8 anywhere in the object leave nothing, after it they do not matter"
    )
    func invalidUTF8() {
        var scanner = LongLineSecretScanner()
        let bad: [[UInt8]] = [
            [0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF0, 0x9F, 0x98], [0xF4, 0x90, 0x80, 0x80],
            [0xE0, 0x80, 0x80], [0xC3], [0x80], [0xF5, 0x80, 0x80, 0x80]
        ]
        for b in bad {
            for line in [
                Array(#"{"token":""#.utf8) + b + Array(#""}"#.utf8),
                Array(#"{""#.utf8) + b + Array(#"":{"token":1}}"#.utf8),
                Array(#"{"token":1,"#.utf8) + b + Array("}".utf8),
                Array(#"{"token":1}"#.utf8) + b
            ] {
                Self.expectSame(line, &scanner, "\(line)")
            }
        }
    }

    @Test("nesting: 512 levels are judged, 513 are not")
    func depth() {
        var scanner = LongLineSecretScanner()
        for levels in [510, 511, 512, 513, 600] {
            for inner in ["{\"token\":1}", "[\"Bearer abcdefghij\"]"] {
                // `levels` containers in all: the top object, then `levels - 2` arrays, then
                // `inner`.
                let line =
                    "{\"a\":" + String(repeating: "[", count: levels - 2) + inner
                    + String(repeating: "]", count: levels - 2) + "}"
                let expected = Self.parserPaths(Array(line.utf8))
                #expect(expected.isEmpty == (levels > 512), "\(levels): \(expected.count)")
                Self.expectSame(Array(line.utf8), &scanner, "\(levels) levels")
            }
        }
    }

    @Test("generated lines give the parser's paths, whatever the chunks", arguments: 0..<8)
    func generated(_ batch: Int) {
        var scanner = LongLineSecretScanner()
        var random = SplitMix64(seed: UInt64(batch) &* 0x9E37_79B9_7F4A_7C15 &+ 1)
        var judged = 0, flagged = 0
        for n in 0..<300 {
            var generator = LineGenerator(random: random)
            var line = generator.line()
            random = generator.random
            if random.chance(30) { line = Self.mutated(line, &random) }
            let expected = Self.parserPaths(line)
            if !expected.isEmpty { flagged += 1 }
            if line.first == UInt8(ascii: "{") { judged += 1 }
            Self.expectSame(
                line, &scanner, "batch \(batch) line \(n): \(String(decoding: line, as: UTF8.self))"
            )
        }
        // The generator makes lines worth comparing: most with findings.
        #expect(flagged > 150, "\(flagged) lines with findings")
        #expect(judged > 250)
    }

    /// `line` broken in one of the ways lines break: cut, a byte replaced, text around it.
    static func mutated(_ line: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        var line = line
        let bytes: [UInt8] = Array(#""\{}[],:x0 "#.utf8) + [0xFF, 0x01, 0xC3, 0xE2, 0x80]
        switch random.below(5) {
        case 0: line = Array(line.prefix(random.below(line.count + 1)))
        case 1 where !line.isEmpty:
            line[random.below(line.count)] = bytes[random.below(bytes.count)]
        case 2: line.insert(bytes[random.below(bytes.count)], at: random.below(line.count + 1))
        case 3: line += random.chance(50) ? Array(" tail".utf8) : [0xFF]
        default: line = Array(" \t\r".utf8) + line
        }
        return line
    }

    // MARK: - Tokens

    @Test("the streaming token matcher finds what containsToken finds, on random text")
    func tokenMatcher() {
        var random = SplitMix64(seed: 42)
        let pieces: [[UInt8]] = [
            "b", "B", "e", "E", "a", "r", "R", "bearer", "Bearer", "eyJ", "y", "J", ".", "_", "-",
            " ",
            "\t", "\n", "x", "0", "~", "+", "/", "=", "!", ":", "abcdefgh", "\u{A0}", "\u{85}",
            "\u{2003}",
            "\u{3000}", "\u{1680}", "\u{2028}", "\u{205F}", "\u{202F}", "é", "\u{2030}", "日", "😀"
        ]
        .map { Array($0.utf8) }
        // What starts and ends tokens, more often.
        let likely: [[UInt8]] = ["Bearer", " ", "abcdefgh", "eyJ", "eyJa.", "a", "."].map {
            Array($0.utf8)
        }
        var found = 0
        for _ in 0..<50_000 {
            var text: [UInt8] = []
            for _ in 0..<random.below(14) {
                text +=
                    random.chance(40)
                    ? likely[random.below(likely.count)] : pieces[random.below(pieces.count)]
            }
            let expected = text.withUnsafeBufferPointer { JSONLineParser.containsToken($0) }
            var matcher = TokenMatcher()
            var got = false
            for b in text where !got { got = matcher.add(b) }
            #expect(got == expected, "\(String(decoding: text, as: UTF8.self).debugDescription)")
            if expected { found += 1 }
        }
        #expect(found > 2_000)
    }

    // MARK: - The bounds

    @Test(
        "a key past the path's bound reads as what was kept and …; one holding a token as the whole key's hash"
    )
    func cutKeys() {
        let bound = LongLineSecretScanner.maxPathKeyBytes
        let long = String(repeating: "k", count: bound + 500)
        #expect(
            Self.scannerPaths(Array("{\"\(long)\":{\"token\":1}}".utf8))
                == ["[\"" + String(repeating: "k", count: bound) + "\"…][\"\"…]"])
        // Kept bytes end at a whole character.
        let wide = String(repeating: "é", count: bound)
        #expect(
            Self.scannerPaths(Array("{\"a\":{\"\(wide)\":{\"body\":1}}}".utf8))
                == ["a[\"" + String(repeating: "é", count: (bound - 1) / 2) + "\"…][\"\"…]"])
        // A key within the bound, then one past it: the first reads as the parser reads it.
        let first = String(repeating: "a", count: bound - 8)
        #expect(
            Self.scannerPaths(
                Array("{\"\(first)\":{\"password\":1,\"xxxxxxxxxx\":{\"token\":1}}}".utf8))
                == [first + ".password", first + "[\"xxxxxxxx\"…][\"\"…]"])
        // A long key holding a token (escapes, quotes, U+2028 and controls in it): the hash the
        // parser gives the whole key, which it can still read whole.
        var scanner = LongLineSecretScanner()
        for tail in [#" \"q\" \\ \u2028 \u0001 \n \u007f é"#, ""] {
            let key = "x" + String(repeating: "y", count: bound) + " Bearer abcdefghijkl" + tail
            for line in [
                "{\"\(key)\":\"Bearer abcdefghij\"}", "{\"a\":[{\"\(key)\":\"eyJa.eyJb.\"}]}"
            ] {
                let expected = Self.parserPaths(Array(line.utf8))
                #expect(expected.count == 1 && expected[0].contains("[redacted "), "\(expected)")
                Self.expectSame(Array(line.utf8), &scanner, "a long key holding a token")
            }
        }
    }

    @Test("the parser and the scanner agree on long keys while a path's keys fit in the bound")
    func parserAgreesWhileKeysFit() {
        let bound = LongLineSecretScanner.maxPathKeyBytes
        var scanner = LongLineSecretScanner()
        let lines = [
            // Escapes that decode a long raw key below the bound.
            "{\"" + String(repeating: "\\u0061", count: bound / 2) + "\":{\"token\":1}}",
            // Outer keys that leave just the room the flagged key needs.
            "{\"a\":{\"" + String(repeating: "b", count: bound - 11) + "\":{\"password\":1}}}",
            // A value holding a token under a key that fills the bound exactly.
            "{\"" + String(repeating: "k", count: bound) + "\":\"Bearer abcdefghijkl\"}"
        ]
        for line in lines {
            let bytes = Array(line.utf8)
            #expect(!Self.parserPaths(bytes).isEmpty)
            Self.expectSame(bytes, &scanner, String(line.prefix(40)) + "…")
        }
    }

    @Test("on a short line a long key is cut, and the key a finding is about is still named")
    func parserNamesTheFlaggedKeyUnderALongOne() {
        let bound = LongLineSecretScanner.maxPathKeyBytes
        let long = String(repeating: "k", count: bound + 500)
        let cut = "[\"" + String(repeating: "k", count: bound) + "\"…]"
        func paths(_ line: String) -> [String] { Self.parserPaths(Array(line.utf8)) }
        #expect(
            paths("{\"\(long)\":{\"token\":1,\"password\":2}}") == [
                cut + ".token", cut + ".password"
            ])
        // Keys between the cut one and the last read as cut; the last is whole.
        #expect(paths("{\"\(long)\":{\"mid\":{\"cookie\":1}}}") == [cut + #"[""…].cookie"#])
        // A long key holding a token is the last key: its own bound, and its whole text's hash.
        let tokenKey = "x" + String(repeating: "y", count: bound) + " Bearer abcdefghijkl"
        let hashed = FileReader.redactedName(.string(tokenKey))
        #expect(paths("{\"a\":{\"\(tokenKey)\":\"Bearer abcdefghij\"}}") == ["a" + hashed])
        // Two keys alike in what is kept are still two paths, told apart by the whole key.
        #expect(
            paths("{\"\(long)a\":{\"token\":1},\"\(long)b\":{\"token\":1}}") == [
                cut + ".token", cut + ".token"
            ])
        // The same key twice is one path.
        #expect(paths("{\"\(long)\":{\"token\":1},\"\(long)\":{\"token\":2}}") == [cut + ".token"])
        // A flagged key longer than the bound itself (a value holding a token under it).
        let longFlag = String(repeating: "z", count: bound + 10)
        #expect(
            paths("{\"\(longFlag)\":[\"eyJa.eyJb.\"]}") == [
                "[\"" + String(repeating: "z", count: bound) + "\"…][0]"
            ])
    }

    @Test(
        "a short line of many findings under one long key, or deep in arrays, keeps little per finding"
    )
    func parserManyFindingsStayBounded() {
        // 90,000 findings under a 50 KB key ran a release build out of 6 GB (a copy of the key
        // per finding, in its path and its text).
        let key = String(repeating: "k", count: 50_000)
        let items = Array(repeating: #"{"body":0}"#, count: 90_000).joined(separator: ",")
        let line = Array("{\"t\":0,\"ev\":\"x.y\",\"\(key)\":[\(items)]}".utf8)
        #expect(line.count < LineReader.maxLineBytes)
        let paths = Self.parserPaths(line)
        #expect(paths.count == 90_000)
        let cut =
            "[\"" + String(repeating: "k", count: LongLineSecretScanner.maxPathKeyBytes) + "\"…]"
        #expect(
            paths.first == cut + "[0].body" && paths.last == cut + "[89999].body",
            "\(paths.first ?? "")")
        #expect(paths.allSatisfy { $0.utf8.count < 1_100 })
        // Deep in arrays: one finding per element, each its own path.
        let deep =
            "{\"a\":" + String(repeating: "[", count: 400)
            + Array(repeating: #"{"token":0}"#, count: 20_000)
            .joined(separator: ",") + String(repeating: "]", count: 400) + "}"
        let deepPaths = Self.parserPaths(Array(deep.utf8))
        #expect(deepPaths.count == 20_000 && Set(deepPaths).count == 20_000)
        #expect(deepPaths.last == "a" + String(repeating: "[0]", count: 399) + "[19999].token")
    }

    @Test("a line reports at most its first maxFindings key paths; a repeated path is still one")
    func findingsBound() {
        let limit = LongLineSecretScanner.maxFindings
        let items = (0..<(limit + 50)).map { _ in #"{"body":0}"# }.joined(separator: ",")
        let paths = Self.scannerPaths(
            Array(("{\"token\":1,\"l\":[" + items + "],\"token\":2}").utf8))
        #expect(paths.count == limit)
        #expect(
            paths.first == "token" && paths[1] == "l[0].body"
                && paths.last == "l[\(limit - 2)].body")
    }

    // MARK: - Through the reader

    /// A line of `size` bytes: `head`, padding in a string, `tail`.
    static func longLine(_ head: String, _ tail: String, size: Int = 2 << 20) -> [UInt8] {
        longLine(head, Array(tail.utf8), size: size)
    }

    static func longLine(_ head: String, _ tail: [UInt8], size: Int = 2 << 20) -> [UInt8] {
        let head = Array(head.utf8)
        return head + [UInt8](repeating: UInt8(ascii: "a"), count: size - head.count - tail.count)
            + tail
    }

    @Test(
        "a line over 1 MiB is malformed and its secrets are found, whatever the read sizes",
        arguments: [
            [Int](), [1_048_576, 1], [7], [1_000_003], [65_536]
        ])
    func throughTheReader(plan: [Int]) throws {
        let secret = Self.longLine(
            #"{"t":1,"ev":"x.y","h":{"Password":"hunter2"},"pad":""#,
            #"","note":"x Bearer abcdefghijkl","list":[1,"eyJa.eyJb.c"]}"#)
        let notObject = Self.longLine(#"[{"password":"hunter2","pad":""#, #""}]"#)
        let badUTF8 = Self.longLine(#"{"password":"hunter2","pad":""#, [0xFF] + Array(#""}"#.utf8))
        let cut = Self.longLine(#"{"password":"hunter2","pad":""#, #"""#)
        let bytes =
            secret + [0x0D, 0x0A] + notObject + [0x0A] + badUTF8 + [0x0A]
            + Array(#"{"t":2,"ev":"x.after","token":"t"}"#.utf8) + [0x0A] + cut
        let source = ReaderTests.ChunkedSource(bytes, plan: plan, rest: plan.last ?? 1 << 20)
        let (lines, stats) = ReaderTests.read(source: source)
        try #require(lines.count == 5)
        #expect(lines[0].reason == "line is longer than 1 MiB (\(secret.count) bytes)")
        #expect(lines[0].secretPaths == ["h.Password", "note", "list[1]"])
        #expect(lines[0].secrets.allSatisfy { $0.line == 1 && $0.ev == "$secret" && $0.t.isNaN })
        for k in 1...2 {
            #expect(lines[k].reason?.hasPrefix("line is longer than 1 MiB") == true)
            #expect(lines[k].secrets.isEmpty, "line \(k + 1): \(lines[k].secretPaths)")
        }
        #expect(lines[3].secretPaths == ["token"])
        #expect(lines[4].reason?.hasPrefix("line is longer than 1 MiB") == true)
        #expect(lines[4].secrets.isEmpty)
        #expect(stats.lines == 5 && stats.malformed == 4)
    }

    /// A line just over 1 MiB is found with its newline in the buffer (the reader measures it
    /// there); a longer one is skipped read by read. Both are scanned, after a BOM too.
    @Test("a long first line after a BOM, and a long line found with its newline in one read")
    func bomAndOneRead() throws {
        let short = Self.longLine(#"{"token":""#, #""}"#, size: (1 << 20) + 10)
        let long = Self.longLine(#"{"token":""#, #""}"#, size: 3 << 20)
        for plan in [[Int](), [(1 << 20) + 20]] {
            for (first, second) in [(short, long), (long, short)] {
                let bytes = ReaderTests.bom + first + [0x0A] + second + [0x0A]
                let (lines, _) = ReaderTests.read(
                    source: ReaderTests.ChunkedSource(bytes, plan: plan, rest: 1 << 20))
                try #require(lines.count == 2)
                #expect(lines[0].reason == "line is longer than 1 MiB (\(first.count) bytes)")
                #expect(lines[0].secretPaths == ["token"], "\(plan) \(first.count)")
                #expect(lines[1].secretPaths == ["token"], "\(plan) \(second.count)")
            }
        }
    }
}

// MARK: - Generated lines

/// Makes JSON object lines full of what `log.no-secrets` looks at, written the many ways JSON
/// allows: secret key names in any case and with escapes, tokens and near misses, escapes of
/// every kind, keys that need quoting or hold tokens, nesting and duplicates.
struct LineGenerator {
    var random: SplitMix64

    private static let keys: [String] = [
        "token", "TOKEN", "Token", "access_token", "Refresh_Token", "AUTHORIZATION", "password",
        "Secret", "cookie",
        "body", "PAYLOAD", #"p\u0061ssword"#, #"\u0074oken"#, #"\u0042ODY"#, #"to\u006Ben"#,
        "token_type", "tokens", "bodyguard",
        "a", "b", "x-y_Z9", "a.b", "X Auth", "", "clé", #"q\"\\"#, #"\u0001"#,
        "Bearer abcdefghijkl", "eyJa.eyJb.c",
        #"Bearer\u0020abcdefgh"#, "日本", #"\ud83d\ude00"#, "t", "ev", "src", "session", "gen"
    ]

    private static let pieces: [String] = [
        "Bearer ", "bearer", "BEARER", "beaRer", " ", "\\t", "\\n", "\\u0020", "\\u00a0", "\u{A0}",
        "\u{2003}", "\u{3000}",
        "\\u2028", "\u{2028}", "\u{1680}", "\\u1680", "abcdefgh", "abc", "1234", "._~+/=-", "\\/",
        "!", ":", "eyJ", "eyJhbGc",
        ".", "..", "eyJa.eyJb.", "eyJa.eyJb", "_-", "\\\"", "\\\\", "\\u0041", "\\ud83d\\ude00",
        "\\ud800", "\\udc00",
        "\\ud800\\ud800\\udc00", "é", "日本語", "😀", "x", "\\u0042earer", "\\u0065yJ", "e", "y", "J",
        "b", "B"
    ]

    init(random: SplitMix64) { self.random = random }

    mutating func line() -> [UInt8] {
        var text = "{"
        var first = true
        if random.chance(50) {
            text += #""t":\#(random.below(1000)),"ev":"\#(random.chance(20) ? string() : "x.y")""#
            first = false
        }
        for _ in 0..<random.below(6) {
            if !first { text += "," }
            first = false
            text += "\"" + Self.keys[random.below(Self.keys.count)] + "\":" + value(depth: 1)
        }
        return Array((text + "}").utf8)
    }

    private mutating func value(depth: Int) -> String {
        let kind = depth < 5 ? random.below(10) : random.below(5)
        switch kind {
        case 0:
            return ["0", "-1", "12.5", "-0.0e+3", "7E2", "123456789012345678901234"][
                random.below(6)]
        case 1: return ["true", "false", "null"][random.below(3)]
        case 2, 3, 4: return string()
        case 5, 6, 7:
            var text = "{"
            for k in 0..<random.below(4) {
                if k > 0 { text += "," }
                text +=
                    "\"" + Self.keys[random.below(Self.keys.count)] + "\":"
                    + value(depth: depth + 1)
            }
            return text + "}"
        default:
            var text = "["
            for k in 0..<random.below(4) {
                if k > 0 { text += random.chance(10) ? " , " : "," }
                text += value(depth: depth + 1)
            }
            return text + "]"
        }
    }

    private mutating func string() -> String {
        var text = "\""
        for _ in 0..<random.below(8) { text += Self.pieces[random.below(Self.pieces.count)] }
        return text + "\""
    }
}

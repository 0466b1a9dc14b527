import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// The pairs after a kept span that does not end the line are read in a loop of their own
/// (``JSONLineParser/readPairsAfterSpan(_:into:from:)``) when they are keys met before with plain
/// values: the line reads as the pair loop and the general parser read it, and any other rest is
/// left to the pair loop.
@Suite("Pairs after a span read alone")
struct PairsAfterSpanReadAloneTests {
    static let spans: [String] = [
        #""src":"pixel-000001","session":"s1","ev":"sse.event""#,
        #""src":"pixel-000001","session":"s1","ev":"ws.ping","gen":3"#,
        #""src":"pixel-000002","session":"s2","ev":"sse.processed""#,
        #""src":"pixel-000001","session":"s1","ev":"""#
    ]

    /// Pairs after the span: short and long keys, keys rules read or not, connlog's own keys
    /// again, plain and other values, tokens, escapes, white space.
    static let pairs: [String] = [
        #""id":"528694""#, #""id":"528695""#, #""ok":true"#, #""ok":false"#, #""ms":274"#,
        #""user":null"#, #""state":"connecting""#, #""status":200"#, #""code":-1"#,
        #""reason":"going away now""#, #""interval_ms":100"#, #""timeout_ms":1000"#,
        #""last_event_id":"528694""#, #""averyveryverylongkeyname_beyond16":1"#,
        #""ms":2.5"#, #""ms":1e3"#, #""ms":99999999999999999999"#, #""ms":01"#,
        #""id":"Bearer abcdefghijklmnop""#, #""id":"eyJhbGciOi.eyJzdWIiOi.sig""#,
        #""id":"a\"b""#, #""id":"caf\#u{E9}""#, #""id":[1]"#, #""id":{"a":1}"#, #""id":tru"#,
        #""token":"x""#, #""a\u0074":1"#, #""gen":4"#, #""ev":"ws.pong""#, #""src":"d""#,
        #""t":5"#, #""id" :"1""#, #""id": "1""#, #""":1"#, #""x":"""#
    ]

    static func line(_ rng: inout SplitMix64) -> String {
        let t = ["0", "17", "1234567890"][rng.below(3)]
        let count = 1 + rng.below(3)
        let rest = (0..<count).map { _ in pairs[rng.below(pairs.count)] }
        let text =
            #"{"t":"# + t + "," + spans[rng.below(spans.count)] + ","
            + rest.joined(separator: rng.chance(5) ? " ," : ",") + "}"
        return LinesReadThreeWays.spoilt(text, &rng, outOf: 30)
    }

    @Test(
        "a rest read alone reads as the pair loop and the general parser read it",
        arguments: [nil, Set(["id", "ok", "interval_ms"]), Set<String>()] as [Set<String>?])
    func readAlike(wanted: Set<String>?) {
        let evIDs: [String: Int32] = ["ws.ping": 3, "sse.event": 7]
        var ways = LinesReadThreeWays(wantedFields: wanted, evIDs: evIDs)
        var rng = SplitMix64(seed: 63_063)
        var scratch = ParsedLine()
        var differing: [String] = [], alone = 0, handedOn = 0
        for _ in 0..<20_000 {
            let text = Self.line(&rng)
            let alike = Array(text.utf8).withUnsafeBufferPointer { line in
                if case .started(let start) = ways.fast.readSpanned(line, into: &scratch),
                    start.slot >= 0
                {
                    var probe = ParsedLine()
                    if ways.fast.readPairsAfterSpan(line, into: &probe, from: start) {
                        alone += 1
                    } else {
                        handedOn += 1
                    }
                }
                return ways.readAlike(line)
            }
            if !alike, differing.count < 5 { differing.append(text) }
        }
        #expect(differing.isEmpty, "lines read otherwise: \(differing)")
        // Both ways were taken, unless rules read `src` or `session` (no span then).
        #expect((alone > 1_000 && handedOn > 1_000) || !ways.fast.tracksSourceSpan)
    }

    @Test("a rest read alone sets the span's values and the fields of its pairs")
    func restReadAlone() {
        var parser = JSONLineParser(wantedFields: ["id"], evIDs: ["sse.event": 7])
        var out = ParsedLine()
        let head = #"{"t":335,"src":"pixel-000001","session":"s1","ev":"sse.event","gen":2,"#
        func read(_ text: String) -> Bool {
            Array(text.utf8).withUnsafeBufferPointer { line in
                var alone = false
                if case .started(let start) = parser.readSpanned(line, into: &out),
                    start.slot >= 0
                {
                    var probe = ParsedLine()
                    alone = parser.readPairsAfterSpan(line, into: &probe, from: start)
                }
                parser.parse(line, into: &out)
                return alone
            }
        }
        // The first line keeps its span and its keys; the next one is read alone.
        #expect(!read(head + #""id":"528694","ok":true}"#))
        #expect(read(head + #""id":"528695","ok":false}"#))
        #expect(out.t == 335 && out.tExact == 335 && out.ev == "sse.event" && out.evID == 7)
        #expect(out.gen == 2 && out.fields.count == 1 && out.fields.first?.key == "id")
        #expect(out.fields.first?.value == .string("528695"))
        #expect(parser.sourceValues(of: out) == (.string("pixel-000001"), .string("s1")))
        // connlog's own key again, a key not met, white space: left to the pair loop.
        #expect(!read(head + #""id":"1","gen":9}"#))
        #expect(out.gen == 9)
        #expect(!read(head + #""fresh":1}"#))
        #expect(!read(head + #""id": "2"}"#))
        #expect(out.fields.first?.value == .string("2"))
    }

    @Test("a short text's words near the line's end are its words")
    func wordsBeforeEnd() {
        let bytes = Array("0123456789abcdefghijklmnopqrstu\"".utf8)
        bytes.withUnsafeBufferPointer { line in
            let p = line.baseAddress!
            for n in 16...line.count {
                for start in max(0, n - 16)..<n {
                    for length in 0...min(16, n - start) {
                        let text = UnsafeBufferPointer(start: p + start, count: length)
                        let words = JSONLineParser.shortWords(p, start, length, n)
                        #expect(words == ByteStringTable.words(text), "\(n) \(start) \(length)")
                    }
                }
            }
        }
    }

    @Test("a short key with its quote and colon in one word is found with its words")
    func shortKeyWithColon() {
        let cases: [(String, Int?)] = [
            (#"id":"528"#, 2), (#"":1,"abc"#, 0), (#"status":2"#, 6), (#"statuss":"#, nil),
            (#"id" :"5""#, nil), (#"abcdefgh"#, nil), (#"ok":true"#, 2), (#"a\":1,"x"#, 2)
        ]
        for (text, length) in cases {
            let bytes = Array(text.utf8)
            bytes.withUnsafeBufferPointer { line in
                let found = JSONLineParser.shortKeyWithColon(line.baseAddress!, from: 0, line.count)
                #expect(found?.length == length, "\(text)")
                if let found {
                    let words = JSONLineParser.shortWords(
                        line.baseAddress!, 0, found.length, line.count)
                    #expect(found.word == words.0 && words.1 == 0, "\(text)")
                }
            }
        }
        // Fewer than eight bytes: none.
        Array(#"id":1}"#.utf8).withUnsafeBufferPointer { line in
            #expect(JSONLineParser.shortKeyWithColon(line.baseAddress!, from: 0, line.count) == nil)
        }
    }
}

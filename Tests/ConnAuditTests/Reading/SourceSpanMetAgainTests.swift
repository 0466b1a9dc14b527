import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// The fast path takes the `src`, `session`, `ev` and `gen` pairs after a line's leading `t` in one
/// comparison when their bytes are an earlier line's (``SourceSpans``), and the line's closing
/// brace when the span ends the line: however the pairs are written, in
/// whichever order, repeated, near the line's end or too long to keep, whatever follows them, and
/// however many sources take turns, a line reads as the general parser reads it.
@Suite("Source spans met again")
struct SourceSpanMetAgainTests {
    /// `src` and `session` pairs as lines write them after `t`, a few bytes apart from each other.
    static let spans: [String] = [
        #""src":"pixel-000001","session":"s1""#, #""src":"pixel-000001","session":"s2""#,
        #""src":"pixel-000002","session":"s1""#, #""src":"pixel-000001""#,
        #""session":"s1","src":"pixel-000001""#, #""session":"s1""#,
        #""src" :"pixel-000001", "session":"s1""#, #""src":"a","src":"b""#,
        #""src":"pixel-000001","session":"s1","src":"pixel-000002""#,
        #""src":"\#(String(repeating: "long-", count: 12))","session":"s1""#,
        #""src":"","session":"""#, #""src":"Bearer abcdefghijklmnop""#, #""src":1"#,
        #""src":"pixel-000001","session":"s1","token":"x""#
    ]

    /// What follows the pairs: the line's other keys, its end, or text that breaks it.
    static let rests: [String] = [
        #","ev":"ws.ping","gen":1}"#, #","ev":"ws.pong"}"#, #","gen":2,"ev":"sse.event","id":"7"}"#,
        #","ev":"ws.ping","src":"other"}"#, #","ev":"ws.ping","session":"s9"}"#, #"}"#,
        #","ev":"ws.ping""#, #","ev":"ws.ping",}"#, #", "ev":"ws.ping"}"#, #","ev":"ws.ping"} x"#,
        #","ev":"a","state":"connecting"}"#, #","ev":"","gen":1,"state":"connecting"}"#,
        #","ev":"Bearer abcdefghijklmnop","gen":1}"#,
        // `gen` in a span, to the line's end or not, repeated, not an integer, or after text.
        #","ev":"ws.ping","gen":3}"#, #","ev":"ws.ping","gen":4}"#, #","ev":"ws.ping","gen":3} "#,
        #","ev":"ws.ping","gen":3}}"#, #","ev":"ws.ping","gen":3,"gen":5}"#,
        #","ev":"ws.ping","gen":3,"state":"x"}"#, #","gen":3,"ev":"ws.ping"}"#, #","gen":3}"#,
        #","ev":"ws.ping","gen":12345678901234567890}"#, #","ev":"ws.ping","gen":-1}"#,
        #","ev":"ws.ping","gen":1.5}"#, #","ev":"ws.ping","gen":"3"}"#,
        #","ev":"ws.ping","gen":9223372036854775807}"#, #","ev":"ws.ping","gen":3,"ev":"ws.pong"}"#
    ]

    static func line(_ rng: inout SplitMix64) -> String {
        let t = ["0", "17", "3.5", "123456789012345678"][rng.below(4)]
        let rest = rests[rng.below(rests.count)]
        // Mostly the previous line's pairs again; sometimes none, or `t` not first.
        switch rng.below(12) {
        case 0: return #"{"t":"# + t + rest
        case 1: return #"{"ev":"x","t":"# + t + "," + spans[rng.below(spans.count)] + rest
        default: return #"{"t":"# + t + "," + spans[rng.below(spans.count)] + rest
        }
    }

    @Test(
        "lines whose pairs after `t` are the previous line's read as the general parser reads them",
        arguments: [nil, Set(["state", "src"]), Set(["session"]), Set(["state"]), Set<String>()]
            as [Set<String>?])
    func spansMetAgainReadAlike(wanted: Set<String>?) {
        var both = JSONLineParser(wantedFields: wanted, evIDs: ["ws.ping": 3])
        var general = JSONLineParser(wantedFields: wanted, evIDs: ["ws.ping": 3])
        var rng = SplitMix64(seed: 52)
        var a = ParsedLine(), b = ParsedLine()
        var differing: [String] = []
        var previous = Self.line(&rng)
        for _ in 0..<20_000 {
            // The previous line again now and then; else any line (sources taking turns).
            let text = rng.chance(30) ? previous : Self.line(&rng)
            previous = text
            Array(text.utf8).withUnsafeBufferPointer { line in
                both.parse(line, into: &a)
                general.parseGeneral(line, into: &b)
            }
            if !PlainLinesReadAsGeneralParserTests.same(a, both, b, general), differing.count < 5 {
                differing.append(text)
            }
        }
        #expect(differing.isEmpty, "lines read otherwise: \(differing)")
        // A span was kept: the comparison took the span's way too (unless rules read `src` or
        // `session`, which no span stands for).
        #expect(both.sourceSpans.keptCount > 0 || !both.tracksSourceSpan)
    }

    @Test("a span is kept from one line and stands for the pairs of a later one")
    func spanKeptAndTaken() {
        var parser = JSONLineParser(wantedFields: [], evIDs: ["ws.ping": 3])
        var out = ParsedLine()
        func read(_ text: String) -> Bool {
            Array(text.utf8).withUnsafeBufferPointer { parser.parsePlain($0, into: &out) }
        }
        let tail = #","gen":1,"interval_ms":100}"#
        #expect(read(#"{"t":1,"src":"device-1","session":"s1","ev":"ws.ping""# + tail))
        #expect(parser.sourceSpans.keptCount == 1)
        #expect(read(#"{"t":2,"src":"device-1","session":"s1","ev":"ws.ping""# + tail))
        #expect(parser.sourceSpans.keptCount == 1)
        #expect(parser.sourceValues(of: out) == (.string("device-1"), .string("s1")))
        #expect(out.ev == "ws.ping" && out.evID == 3 && out.t == 2 && out.gen == 1)
        // Another source's pairs, and another name, are kept too; the first span is still known.
        #expect(read(#"{"t":3,"src":"device-2","session":"s1","ev":"ws.ping""# + tail))
        #expect(parser.sourceValues(of: out) == (.string("device-2"), .string("s1")))
        #expect(read(#"{"t":4,"src":"device-1","session":"s1","ev":"ws.pong""# + tail))
        #expect(out.ev == "ws.pong" && out.evID == -1)
        #expect(parser.sourceSpans.keptCount == 3)
        #expect(read(#"{"t":5,"src":"device-1","session":"s1","ev":"ws.ping""# + tail))
        #expect(parser.sourceValues(of: out) == (.string("device-1"), .string("s1")))
        #expect(out.ev == "ws.ping" && out.evID == 3 && out.t == 5)
        #expect(parser.sourceSpans.keptCount == 3)
        // A span through `gen` to the line's end: `gen` from the span, and the line read whole.
        #expect(read(#"{"t":8,"src":"device-1","session":"s1","ev":"ws.ping","gen":7}"#))
        #expect(read(#"{"t":9,"src":"device-1","session":"s1","ev":"ws.ping","gen":7}"#))
        #expect(out.ev == "ws.ping" && out.t == 9 && out.gen == 7)
        #expect(parser.sourceValues(of: out) == (.string("device-1"), .string("s1")))
        // An empty name in a span is still the general parser's to give its reason for.
        #expect(read(#"{"t":6,"src":"device-1","session":"s1","ev":"""# + tail) == false)
        #expect(read(#"{"t":7,"src":"device-1","session":"s1","ev":"""# + tail) == false)
    }

    @Test("a span that ends its line stands only for a line that ends with it")
    func spanToTheLineEnd() {
        var parser = JSONLineParser(wantedFields: [], evIDs: ["ws.ping": 3])
        var general = JSONLineParser(wantedFields: [], evIDs: ["ws.ping": 3])
        var out = ParsedLine(), want = ParsedLine()
        func readAlike(_ text: String) -> Bool {
            Array(text.utf8).withUnsafeBufferPointer {
                parser.parse($0, into: &out)
                general.parseGeneral($0, into: &want)
            }
            return PlainLinesReadAsGeneralParserTests.same(out, parser, want, general)
        }
        let head = #"{"t":1,"src":"device-000001","session":"s1","ev":"ws.ping","gen":7"#
        #expect(readAlike(head + "}"))
        #expect(parser.sourceSpans.keptCount == 1)
        // The same bytes, then more: the rest is read, and a `gen` after the span's wins.
        for rest in ["} ", "}}", #"} x"#, #","gen":8}"#, #","id":"1"}"#, #","gen":8,"gen":7}"#] {
            #expect(readAlike(head + rest), "\(rest)")
            #expect(readAlike(head + "}"), "after \(rest)")
        }
        #expect(out.gen == 7 && out.t == 1)
    }

    @Test(
        "a line whose rest is a kept span that ends it reads as parsePlain reads it",
        arguments: [nil, Set(["state"]), Set(["src"]), Set<String>()] as [Set<String>?])
    func lineReadWholeBySpan(wanted: Set<String>?) {
        var fast = JSONLineParser(wantedFields: wanted, evIDs: ["ws.ping": 3])
        var loop = JSONLineParser(wantedFields: wanted, evIDs: ["ws.ping": 3])
        var rng = SplitMix64(seed: 10_205)
        var a = ParsedLine(), b = ParsedLine()
        var differing: [String] = [], readWhole = 0
        var previous = Self.line(&rng)
        for _ in 0..<20_000 {
            let text = rng.chance(50) ? previous : Self.line(&rng)
            previous = text
            Array(text.utf8).withUnsafeBufferPointer { line in
                if fast.parseSpanned(line, into: &a) {
                    readWhole += 1
                } else {
                    fast.parse(line, into: &a)
                }
                if !loop.parsePlain(line, into: &b) { loop.parseGeneral(line, into: &b) }
            }
            if !PlainLinesReadAsGeneralParserTests.same(a, fast, b, loop), differing.count < 5 {
                differing.append(text)
            }
        }
        #expect(differing.isEmpty, "lines read otherwise: \(differing)")
        // Lines were read whole by a span, unless rules read `src` or `session`.
        #expect(readWhole > 100 || !fast.tracksSourceSpan, "\(readWhole) lines read whole")
    }
}

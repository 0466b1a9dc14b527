import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// The fast path steps over the value of a key no rule reads without making it: a string is
/// still checked for tokens as a decoded one is, a number or literal still read as JSON, so a
/// line reads as the general parser reads it, and one it cannot answer is still the general
/// parser's.
@Suite("Values no rule reads are stepped over")
struct ValuesNoRuleReadsAreSteppedOverTests {
    /// Values of every kind, valid or not, short and long, with and without a token.
    static let values: [String] = [
        #""""#, #""x""#, #""connecting""#, #""123456789""#, #""1234567890""#,
        #""Bearer abcdefghijklmnop""#, #""eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghij""#,
        #""bearer  abcdefghijk""#, #""a b c d e f g h""#, #""JJJJJJJJJJJJ""#, #""tab\there""#,
        #""é""#, "0", "7", "-3", "274", "123456789012345678", "1234567890123456789012",
        "-0.5e3", "1.5", "1e400", "01", "1.", "-", "--1", "1e", "true", "false", "null", "tru",
        "fals", "nul", "falsey", "nullx", "truex", "[1]", #"{"a":1}"#, "x"
    ]

    static func line(_ rng: inout SplitMix64) -> String {
        let value = values[rng.below(values.count)]
        let other = values[rng.below(values.count)]
        switch rng.below(4) {
        case 0: return #"{"t":1,"ev":"ws.ping","state":"# + value + "}"
        case 1: return #"{"t":1,"state":"# + value + #","ev":"ws.ping","id":"# + other + "}"
        case 2: return #"{"state":"# + value + #","t":2,"ev":"ws.ping"}"#
        default:
            return #"{"t":3,"src":"d1","ev":"ws.ping","a":"# + value + #", "b" : "# + other + "}"
        }
    }

    @Test(
        "a line whose other values are stepped over reads as the general parser reads it",
        arguments: [Set<String>(), Set(["id"]), Set(["src", "b"])] as [Set<String>?])
    func steppedOverAlike(wanted: Set<String>?) {
        var fast = JSONLineParser(wantedFields: wanted, evIDs: ["ws.ping": 3])
        var general = JSONLineParser(wantedFields: wanted, evIDs: ["ws.ping": 3])
        var rng = SplitMix64(seed: 4_077)
        var a = ParsedLine(), b = ParsedLine()
        var differing: [String] = [], plain = 0
        for _ in 0..<10_000 {
            let text = Self.line(&rng)
            Array(text.utf8).withUnsafeBufferPointer { line in
                if fast.parsePlain(line, into: &a) {
                    plain += 1
                } else {
                    fast.parseGeneral(line, into: &a)
                }
                general.parseGeneral(line, into: &b)
            }
            if !PlainLinesReadAsGeneralParserTests.same(a, fast, b, general), differing.count < 5 {
                differing.append(text)
            }
        }
        #expect(differing.isEmpty, "lines read otherwise: \(differing)")
        #expect(plain > 1_000)
    }

    @Test("a value no rule reads that is no plain JSON, or holds a token, is the general parser's")
    func notPlainIsTheGeneralParsers() {
        var parser = JSONLineParser(wantedFields: [], evIDs: ["ws.ping": 3])
        var out = ParsedLine()
        func plain(_ value: String) -> Bool {
            let text = #"{"t":1,"ev":"ws.ping","state":"# + value + "}"
            return Array(text.utf8).withUnsafeBufferPointer { parser.parsePlain($0, into: &out) }
        }
        for value in [#""connecting""#, "274", "-0.5e3", "true", "false", "null", #""123456789""#] {
            #expect(plain(value), "\(value)")
        }
        for value in [
            #""Bearer abcdefghijklmnop""#, #""eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghij""#,
            "01", "1.", "-", "tru", "fals", "nul", "falsey", "[1]", #""tab\there""#, #""é""#
        ] {
            #expect(!plain(value), "\(value)")
        }
    }
}

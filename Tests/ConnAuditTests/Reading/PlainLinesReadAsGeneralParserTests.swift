import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// The reader's fast path for plain lines (flat objects of plain keys and values) must make of a
/// line exactly what the general parser makes of it, and leave every other line to it.
@Suite("Plain lines read as the general parser reads them")
struct PlainLinesReadAsGeneralParserTests {
    /// Keys: connlog's own, names rules read, names they do not, secret names, keys holding a
    /// token, escaped and non-ASCII keys.
    static let keys: [String] = [
        "t", "t", "ev", "ev", "gen", "src", "session", "state", "reason", "code", "id", "x", "ms",
        "token", "Authorization", "Cookie", "payload", "a b", "a\\u0074", "caf\u{E9}", "",
        "Bearer abcdefghijklmn", "interval_ms", "last_event_id", "averyveryverylongkeyname_beyond16"
    ]

    /// Values: integers small and past 64 bits, negative, leading zeros, fractions, exponents,
    /// strings plain, with spaces, tokens, escapes and non-ASCII, literals, nested values, and
    /// text that is not JSON.
    static let values: [String] = [
        "0", "7", "17", "123456789012345678", "1234567890123456789", "99999999999999999999",
        "-1", "-0", "01", "1.5", "2.25e3", "1e400", "-3.5", "1.", "- 1",
        "\"ws.close\"", "\"ws.connect\"", "\"pixel-000001\"", "\"s1\"", "\"\"",
        "\"going away now\"",
        // Longer than the source table keeps: a `src` or `session` held as its own text.
        "\"" + String(repeating: "source-", count: 10) + "\"",
        "\"Bearer abcdefghijklmnop\"", "\"bearer  0123456789\"", "\"eyJhbGciOi.eyJzdWIiOi.sig\"",
        "\"JJJJJJJJJJJJ\"", "\"a\\\"b\"", "\"caf\u{E9}\"", "\"\\u00e9t\u{E9}\"", "\"tab\\there\"",
        "true", "false", "null", "tru", "[1,2]", "{\"a\":1}", "{\"token\":\"x\"}", "[]", "{}",
        "\"unterminated"
    ]

    /// A line: mostly a flat object of the keys and values above, sometimes broken.
    static func line(_ rng: inout SplitMix64) -> String {
        var entries: [String] = []
        let n = rng.below(7)
        if rng.chance(70) { entries.append("\"t\":" + ["1", "25", "3.5", "0"][rng.below(4)]) }
        if rng.chance(80) {
            entries.append(
                "\"ev\":" + ["\"ws.ping\"", "\"ws.pong\"", "\"sse.event\""][rng.below(3)])
        }
        for _ in 0..<n {
            let key = keys[rng.below(keys.count)]
            let value = values[rng.below(values.count)]
            let space = rng.chance(10) ? " " : ""
            entries.append("\"" + key + "\"" + space + ":" + space + value)
        }
        // `gen`, `t` or `src` last with a one-byte value: the key's bytes end near the line's.
        if rng.chance(15) {
            entries.append(["\"gen\":1", "\"t\":2", "\"src\":\"d\"", "\"ev\":\"e\""][rng.below(4)])
        }
        if rng.chance(20) { entries.shuffle(using: &rng) }
        var text = "{" + entries.joined(separator: rng.chance(10) ? ", " : ",") + "}"
        switch rng.below(40) {
        case 0: text += " x"
        case 1: text = " " + text + " "
        case 2: text.removeLast()
        case 3: text = "[" + text + "]"
        default: break
        }
        return text
    }

    /// Whether `a`, read by `p`, is `b`, read by `q` (`src` and `session` as values, however
    /// each parser handed them on).
    static func same(_ a: ParsedLine, _ p: JSONLineParser, _ b: ParsedLine, _ q: JSONLineParser)
        -> Bool
    {
        let (aSrc, aSession) = p.sourceValues(of: a), (bSrc, bSession) = q.sourceValues(of: b)
        return a.isObject == b.isObject && a.secretPaths == b.secretPaths
            && a.redactedKeys == b.redactedKeys
            && a.unhashableKeys == b.unhashableKeys && a.malformedReason == b.malformedReason
            && a.t.bitPattern == b.t.bitPattern && a.tExact == b.tExact
            && Array(a.ev.utf8) == Array(b.ev.utf8)
            && a.evID == b.evID && a.gen == b.gen && aSrc == bSrc && aSession == bSession
            && sameFields(a.fields, b.fields) && sameFields(a.redactedValues, b.redactedValues)
    }

    static func sameFields(_ a: [Event.Field], _ b: [Event.Field]) -> Bool {
        a.count == b.count
            && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value && $0.id == $1.id }
    }

    @Test(
        "every line, plain or not, parses to what the general parser makes of it",
        arguments: [
            nil,
            Set([
                "state", "reason", "code", "id", "src", "interval_ms",
                "averyveryverylongkeyname_beyond16"
            ]),
            Set<String>()
        ] as [Set<String>?])
    func everyLineParsesAlike(wanted: Set<String>?) {
        let evIDs = ["ws.ping": Int32(3), "ws.pong": 4]
        var both = JSONLineParser(wantedFields: wanted, evIDs: evIDs)
        var general = JSONLineParser(wantedFields: wanted, evIDs: evIDs)
        var plainOnly = JSONLineParser(wantedFields: wanted, evIDs: evIDs)
        var rng = SplitMix64(seed: 36)
        var fast = 0, slow = 0, differing: [String] = []
        var a = ParsedLine(), b = ParsedLine(), c = ParsedLine()
        for _ in 0..<20_000 {
            let text = Self.line(&rng)
            let bytes = Array(text.utf8)
            bytes.withUnsafeBufferPointer { line in
                both.parse(line, into: &a)
                general.parseGeneral(line, into: &b)
                if plainOnly.parsePlain(line, into: &c) { fast += 1 } else { slow += 1 }
            }
            if !Self.same(a, both, b, general), differing.count < 5 { differing.append(text) }
        }
        #expect(differing.isEmpty, "lines read otherwise by the fast path: \(differing)")
        // Both paths were taken, often: the comparison is not vacuous.
        #expect(fast > 2_000 && slow > 2_000, "plain \(fast), other \(slow)")
    }

    @Test("a plain line's values are read exactly")
    func plainValuesExactly() {
        var parser = JSONLineParser(wantedFields: ["code", "ok"], evIDs: ["ws.close": 9])
        var out = ParsedLine()
        let text =
            #"{"t":123456789012345678,"src":"d","session":"s","ev":"ws.close","gen":42,"code":1000,"ok":true,"n":1.5}"#
        let handled = Array(text.utf8).withUnsafeBufferPointer { parser.parsePlain($0, into: &out) }
        #expect(handled)
        #expect(out.malformedReason == nil)
        #expect(out.tExact == 123456789012345678)
        #expect(out.ev == "ws.close" && out.evID == 9 && out.gen == 42)
        #expect(parser.sourceValues(of: out) == (.string("d"), .string("s")))
        #expect(out.fields.map(\.key) == ["code", "ok"])
        #expect(out.fields.map(\.value) == [.int(1000), .bool(true)])
    }

    @Test("lines with a secret, a nested value or an escape go to the general parser")
    func otherLinesAreNotPlain() {
        var parser = JSONLineParser(wantedFields: [])
        var out = ParsedLine()
        for text in [
            #"{"t":1,"ev":"a","token":"x"}"#, #"{"t":1,"ev":"a","m":"Bearer abcdefghijkl"}"#,
            #"{"t":1,"ev":"a","m":{"b":1}}"#, #"{"t":1,"ev":"a\n"}"#, #"{"t":-1,"ev":"a"}"#,
            #"{"t":1,"ev":""}"#, #"{"t":1}"#, #"{"t":1,"ev":"a","gen":1.0}"#, #"{"t":1,"ev":"é"}"#
        ] {
            let handled = Array(text.utf8).withUnsafeBufferPointer {
                parser.parsePlain($0, into: &out)
            }
            #expect(!handled, "\(text)")
        }
    }
}

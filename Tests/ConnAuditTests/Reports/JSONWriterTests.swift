import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// The byte-level JSON writer the json, sarif and timeline reports use: its escaping agrees with
/// the rule written out scalar by scalar, and what it writes is JSON that reads back as written.
@Suite struct JSONWriterTests {
    /// The escaping rule, one scalar at a time (the writer's former implementation).
    static func reference(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 || u.value == 0x7F || u.value == 0x2028 || u.value == 0x2029 {
                    let hex = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }

    /// Scalars around every edge the escaper tests: controls, quote, backslash, DEL, C1 controls,
    /// the E2 lead byte of other three-byte scalars next to U+2028/U+2029, and four-byte scalars.
    static let pool: [Unicode.Scalar] = [
        "\u{0}", "\u{1}", "\u{8}", "\t", "\n", "\u{B}", "\r", "\u{1F}", " ", "!", "\"", "#", "/",
        "\\", "]",
        "a", "~", "\u{7F}", "\u{80}", "\u{9F}", "\u{A0}", "é", "\u{2027}", "\u{2028}", "\u{2029}",
        "\u{202A}",
        "\u{20AC}", "\u{FFFD}", "\u{1F600}"
    ]

    @Test func escapingAgreesWithTheScalarRule() {
        var rng = SplitMix64(seed: 2028)
        for _ in 0..<3_000 {
            var s = ""
            for _ in 0..<rng.below(24) {
                s.unicodeScalars.append(Self.pool[rng.below(Self.pool.count)])
            }
            #expect(Value.jsonString(s) == Self.reference(s), "\(Array(s.unicodeScalars))")
        }
        #expect(Value.jsonString("") == "\"\"")
        #expect(Value.jsonString("a\u{2028}b\u{2029}\u{7F}") == #""a\u2028b\u2029\u007f""#)
        // A lone E2 lead byte cannot occur in a String; an E2 scalar that is not a separator is
        // copied.
        #expect(Value.jsonString("\u{2030}") == "\"\u{2030}\"")
    }

    @Test func writtenDocumentsReadBack() throws {
        var rng = SplitMix64(seed: 7)
        for pretty in [true, false] {
            var w = JSONWriter(pretty: pretty)
            var texts: [String] = []
            w.beginObject()
            w.key("n", 42)
            w.key("b", false)
            w.key("x", number: 1.5)
            w.key("none", nil as String?)
            w.beginArray("texts")
            for _ in 0..<50 {
                var s = ""
                for _ in 0..<rng.below(12) {
                    s.unicodeScalars.append(Self.pool[rng.below(Self.pool.count)])
                }
                texts.append(s)
                w.value(s)
            }
            w.endArray()
            w.beginObject("empty")
            w.endObject()
            w.raw("raw", "[1,2]")
            w.endObject()
            let text = w.finish()
            #expect(text.hasSuffix("}\n"))
            let parsed = try #require(
                try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            #expect(parsed["n"] as? Int == 42)
            #expect(parsed["b"] as? Bool == false)
            #expect(parsed["x"] as? Double == 1.5)
            #expect(parsed["none"] is NSNull)
            #expect((parsed["empty"] as? [String: Any])?.isEmpty == true)
            #expect(parsed["raw"] as? [Int] == [1, 2])
            // Foundation reads strings back canonically composed or not: compare by scalars.
            let back = try #require(parsed["texts"] as? [String])
            #expect(back.map { Array($0.unicodeScalars) } == texts.map { Array($0.unicodeScalars) })
            #expect(pretty == text.contains("\n  \"n\": 42"))
        }
    }

    /// A writer given a flush hands its bytes over in chunks as it goes: together they are the
    /// document it writes without one, each chunk is whole UTF-8 text (standard output takes
    /// them as strings), and none but the last is left much past the flush size.
    @Test func aFlushedDocumentIsTheSameDocumentInWholeChunks() throws {
        final class Chunks { var all: [[UInt8]] = [] }
        func write(_ w: inout JSONWriter) -> String {
            var rng = SplitMix64(seed: 11)
            w.beginObject()
            w.beginArray("findings")
            // About 3 MB: three flushes and a rest, with multi-byte text around every boundary.
            for i in 0..<30_000 {
                w.beginObject()
                w.key("n", i)
                var s = ""
                for _ in 0..<rng.below(40) {
                    s.unicodeScalars.append(Self.pool[rng.below(Self.pool.count)])
                }
                w.key("text", s)
                w.endObject()
            }
            w.endArray()
            w.endObject()
            return w.finish()
        }
        var whole = JSONWriter()
        let expected = Array(write(&whole).utf8)
        let chunks = Chunks()
        var flushed = JSONWriter(flush: { chunks.all.append($0) })
        #expect(write(&flushed).isEmpty)
        #expect(chunks.all.count >= 3)
        #expect(Array(chunks.all.joined()) == expected)
        for (k, chunk) in chunks.all.enumerated() {
            #expect(
                Array(String(decoding: chunk, as: UTF8.self).utf8) == chunk,
                "chunk \(k) splits a character")
            if k < chunks.all.count - 1 {
                #expect(
                    chunk.count >= JSONWriter.flushSize
                        && chunk.count < JSONWriter.flushSize + 4_096)
                #expect(chunk.last == UInt8(ascii: "}") || chunk.last == UInt8(ascii: "]"))
            }
        }
    }
}

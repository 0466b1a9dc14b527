import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// A plain field's short text is made from its bytes' words (``ShortASCIIText``), and a rule's
/// short field name copied by its words: each is the very String decoding makes, word for word.
@Suite("Short plain texts made from their words")
struct ShortPlainTextsMadeFromWordsTests {
    static let alphabet = Array(" !#$%&'()*+,-./0123456789:;<=>?@AZaz[]^_`{|}~".utf8)

    @Test("a text made from its words is the decoded String, word for word")
    func madeAsDecoded() {
        guard ShortASCIIText.isAvailable else { return }
        var rng = SplitMix64(seed: 63)
        for _ in 0..<2_000 {
            let count = rng.below(16)
            let bytes = (0..<count).map { _ in Self.alphabet[rng.below(Self.alphabet.count)] }
            let (w0, w1) = bytes.withUnsafeBufferPointer { ByteStringTable.words($0) }
            let made = ShortASCIIText.make(w0, w1, count: count)
            let decoded = String(decoding: bytes, as: UTF8.self)
            #expect(made.words == decoded.words && made == decoded)
            #expect(Array(made.utf8) == bytes && made.hashValue == decoded.hashValue)
        }
    }

    @Test(
        "a plain line's short texts and names are the general parser's, word for word",
        arguments: [Set(["id", "state", "a_long_field_name"]), nil] as [Set<String>?])
    func fieldsAsDecoded(wanted: Set<String>?) {
        var fast = JSONLineParser(wantedFields: wanted)
        var general = JSONLineParser(wantedFields: wanted)
        var rng = SplitMix64(seed: 6_363)
        var a = ParsedLine(), b = ParsedLine(), plain = 0
        for _ in 0..<2_000 {
            let count = rng.below(20)
            let text = String(
                decoding: (0..<count).map { _ in
                    Self.alphabet[rng.below(Self.alphabet.count)]
                }, as: UTF8.self)
            let key = ["id", "state", "a_long_field_name", "other"][rng.below(4)]
            let line = #"{"t":1,"ev":"x",""# + key + #"":""# + text + #""}"#
            Array(line.utf8).withUnsafeBufferPointer { bytes in
                if fast.parsePlain(bytes, into: &a) {
                    plain += 1
                } else {
                    fast.parseGeneral(bytes, into: &a)
                }
                general.parseGeneral(bytes, into: &b)
            }
            #expect(a.fields.count == b.fields.count, "\(line)")
            for (x, y) in zip(a.fields, b.fields) {
                // A long name is its own storage in each: the same text, other words.
                if x.key.utf8.count <= 15 { #expect(x.key.words == y.key.words, "\(line)") }
                #expect(x.key == y.key && x.id == y.id, "\(line)")
                guard case .string(let s) = x.value, case .string(let t) = y.value else {
                    Issue.record("not a text: \(line)")
                    continue
                }
                if s.utf8.count <= 15 { #expect(s.words == t.words, "\(line)") }
                #expect(s == t, "\(line)")
            }
        }
        #expect(plain > 1_000)
    }
}

import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// The fast path knows a short `ev` name, key or `src` met before by the words of its bytes
/// (``ShortTextMemo``, ``JSONLineParser/shortWords(_:_:_:_:)``): whatever the name's length, where
/// it lies in the line and how near the line's end, and however many names push each other out,
/// a line reads as the general parser reads it.
@Suite("Short names and keys met again")
struct ShortTextsMetAgainTests {
    @Test("the words of up to sixteen bytes are the byte table's, wherever they lie")
    func wordsAsTheTableMakesThem() {
        var rng = SplitMix64(seed: 7)
        let bytes = (0..<48).map { _ in UInt8(0x21 + rng.below(0x5E)) }
        var differing: [String] = []
        bytes.withUnsafeBufferPointer { all in
            let p = all.baseAddress!
            // Every start and length, in lines that end at the text, just after it, or far on.
            for n in 1...all.count {
                for start in 0..<n {
                    for length in 0...min(16, n - start) {
                        let got = JSONLineParser.shortWords(p, start, length, n)
                        let want = ByteStringTable.words(
                            UnsafeBufferPointer(start: p + start, count: length))
                        if got != want, differing.count < 5 {
                            differing.append("n \(n) start \(start) length \(length)")
                        }
                    }
                }
            }
        }
        #expect(differing.isEmpty, "\(differing)")
    }

    /// Names of every length up to twenty, ten of each that differ only in their last byte, so a
    /// word that kept a byte too few or too many would mistake one for another.
    static let names: [String] = (1...20).flatMap { length in
        (0..<10).map { k in
            String(repeating: "n", count: length - 1) + String(UnicodeScalar(UInt8(0x61 + k)))
        }
    }

    @Test(
        "names and keys of every length, at every alignment, met again after others",
        arguments: [nil, Set(["nnd", "nnnnnnnnnnnnnnnc", "state"]), Set<String>()] as [Set<String>?]
    )
    func namesMetAgainReadAlike(wanted: Set<String>?) {
        let evIDs = ["nnnna": Int32(5), "nnnnnnnnnnnnnnnb": 6]
        var both = JSONLineParser(wantedFields: wanted, evIDs: evIDs)
        var general = JSONLineParser(wantedFields: wanted, evIDs: evIDs)
        var rng = SplitMix64(seed: 61)
        var plain = 0, differing: [String] = []
        var a = ParsedLine(), b = ParsedLine()
        // 200 names in the memos' 128 sets of two: each round pushes names out of full sets and
        // brings them back.
        for _ in 0..<6 {
            for name in Self.names.shuffled(using: &rng) {
                let key = Self.names[rng.below(Self.names.count)]
                let pad = String(repeating: "p", count: rng.below(17))
                let source = Self.names[rng.below(Self.names.count)]
                // The name first, last (its bytes end near the line's), or as a key's value.
                let text: String
                switch rng.below(3) {
                case 0:
                    text = #"{"t":1,"x":"\#(pad)","ev":"\#(name)","\#(key)":7,"src":"\#(source)"}"#
                case 1: text = #"{"t":1,"\#(key)":"\#(pad)","src":"\#(source)","ev":"\#(name)"}"#
                default: text = #"{"\#(pad)":1,"ev":"\#(key)","t":2,"\#(name)":"\#(source)"}"#
                }
                let handled = Array(text.utf8).withUnsafeBufferPointer { line in
                    general.parseGeneral(line, into: &b)
                    return both.parsePlain(line, into: &a)
                }
                if handled { plain += 1 }
                if !handled || !PlainLinesReadAsGeneralParserTests.same(a, both, b, general),
                    differing.count < 5
                {
                    differing.append(text)
                }
            }
        }
        // Every such line is plain: the fast path answered each, as the general parser does.
        #expect(differing.isEmpty, "lines read otherwise by the fast path: \(differing)")
        #expect(plain == 6 * Self.names.count)
    }
}

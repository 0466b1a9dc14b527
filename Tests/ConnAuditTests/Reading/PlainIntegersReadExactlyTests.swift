import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// The fast path reads an integer's first eight bytes as one word
/// (``JSONLineParser/plainInteger(_:_:_:)``) and, near the line's end, byte by byte: both take
/// the same integers, to the same value, and leave the same texts to the general parser.
@Suite("Plain integers read exactly")
struct PlainIntegersReadExactlyTests {
    @Test("every digit count, with every kind of byte after, read alike word-wise and bytewise")
    func integersReadAlike() {
        var rng = SplitMix64(seed: 18)
        let after = [",", "}", ".", "e", "E", " ", "x", "-", ""]
        var differing: [String] = [], plain = 0
        for _ in 0..<20 {
            for digits in 1...21 {
                for tail in after {
                    var text = (0..<digits).map { _ in String(rng.below(10)) }.joined()
                    // Leading zeros too, and the largest values of each length.
                    if rng.chance(20) { text = "0" + text.dropFirst() }
                    if rng.chance(20) { text = String(repeating: "9", count: digits) }
                    let padding = String(repeating: "}", count: rng.below(10))
                    let line = Array((text + tail + padding).utf8)
                    let (word, bytes) = line.withUnsafeBufferPointer { b in
                        let p = b.baseAddress!
                        var i = 0, j = 0
                        let word = JSONLineParser.plainInteger(p, &i, b.count)
                        let bytes = JSONLineParser.plainIntegerNearEnd(p, &j, b.count)
                        return ((word, i), (bytes, j))
                    }
                    // Plain: at most 18 digits, no leading zero, no fraction or exponent after.
                    let isPlain =
                        digits <= 18 && (digits == 1 || text.first != "0")
                        && ![".", "e", "E"].contains(tail)
                    let want = isPlain ? Int64(text) : nil
                    if word.0 != want || bytes.0 != want || word.1 != bytes.1
                        || word.1 != (want == nil ? 0 : digits)
                    {
                        if differing.count < 5 { differing.append(text + tail + padding) }
                    }
                    if want != nil { plain += 1 }
                }
            }
        }
        #expect(differing.isEmpty, "integers read otherwise: \(differing)")
        #expect(plain > 1_000)
    }
}

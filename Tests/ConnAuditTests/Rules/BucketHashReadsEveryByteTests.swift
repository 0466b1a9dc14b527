import Testing

@testable import ConnAudit

/// ``BucketHash`` reads a string's bytes in whole words that overlap at the end. Every byte must
/// be in a word: one left out would not tell two keys apart, and a non-ASCII byte left out of
/// the ASCII test would hash a string by its bytes where its NFC form is due, so that a
/// precomposed "é" and a decomposed one (one key to `==`) fell into different buckets.
@Suite struct BucketHashReadsEveryByteTests {
    /// Strings of every length up to three words, differing in one byte anywhere, hash apart;
    /// copies of one string hash alike.
    @Test func aByteChangedAnywhereChangesTheHash() {
        for n in 0...24 {
            let base = String(repeating: "a", count: n)
            let copy = String(decoding: Array(base.utf8), as: UTF8.self)
            #expect(BucketHash.hash(.string(base)) == BucketHash.hash(.string(copy)))
            for i in 0..<n {
                var bytes = Array(base.utf8)
                bytes[i] = UInt8(ascii: "b")
                let changed = String(decoding: bytes, as: UTF8.self)
                #expect(
                    BucketHash.hash(.string(changed)) != BucketHash.hash(.string(base)),
                    "length \(n), byte \(i)")
            }
        }
    }

    /// A non-ASCII character at any place of a string of any length is seen: the precomposed
    /// and the decomposed "é" give one hash, and one bucket.
    @Test func canonicallyEquivalentStringsHashAlikeWhereverTheirAccentIs() {
        for n in 0...20 {
            for i in 0...n {
                let head = String(repeating: "x", count: i)
                let tail = String(repeating: "y", count: n - i)
                let composed = head + "\u{E9}" + tail
                let decomposed = head + "e\u{301}" + tail
                #expect(composed == decomposed)
                #expect(
                    BucketHash.hash(.string(composed)) == BucketHash.hash(.string(decomposed)),
                    "\(n) ASCII bytes, the accent after \(i)")
                var buckets = SeqBuckets()
                buckets.append(1, for: .string(composed))
                #expect(buckets.count(for: .string(decomposed)) == 1)
            }
        }
    }
}

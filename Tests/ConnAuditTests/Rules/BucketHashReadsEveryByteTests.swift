import Testing

@testable import ConnAudit

/// ``BucketHash`` reads a string's bytes in whole words that overlap at the end. Every byte must
/// be in a word: one left out would not tell two keys apart. (That every byte is in the ASCII
/// test as well: `BucketHashSeesNonASCIIAnywhereTests`.)
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
}

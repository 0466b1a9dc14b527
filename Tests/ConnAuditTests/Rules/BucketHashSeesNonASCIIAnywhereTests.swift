import Testing

@testable import ConnAudit

/// ``BucketHash`` hashes a string's bytes as they are only when every byte is ASCII, and tests
/// that as it hashes them, eight at a time and then the tail. A non-ASCII byte it missed, in a
/// word or in the tail, would hash a decomposed string by its own bytes, apart from its
/// precomposed twin: two keys that are `==` would land in two buckets.
@Suite struct BucketHashSeesNonASCIIAnywhereTests {
    @Test func aDecomposedStringIsItsTwinsKeyWhereverItsAccentIs() {
        for length in 1...20 {
            for at in 0..<length {
                let before = String(repeating: "a", count: at)
                let after = String(repeating: "b", count: length - at - 1)
                let composed = before + "\u{E9}" + after
                let decomposed = before + "e\u{301}" + after
                #expect(
                    BucketHash.hash(.string(composed)) == BucketHash.hash(.string(decomposed)),
                    "length \(length), at \(at)")
                // The Kelvin sign's NFC form is ASCII: it hashes as the letter K does.
                let kelvin = before + "\u{212A}" + after
                #expect(
                    BucketHash.hash(.string(kelvin))
                        == BucketHash.hash(.string(before + "K" + after)),
                    "length \(length), at \(at)")
            }
        }
    }
}

import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// ``ShortTextMemo`` keeps the last two strings of each set: two strings met one after the other
/// are both found, whatever sets their words pick, and a string kept again does not push out the
/// other one of its set.
@Suite("Short texts sharing a set kept")
struct ShortTextsSharingASetKeptTests {
    static func words(_ text: [UInt8]) -> (UInt64, UInt64) {
        text.withUnsafeBufferPointer { ByteStringTable.words($0) }
    }

    @Test("the last two strings kept are both found, and what each was kept with")
    func lastTwoFound() {
        var rng = SplitMix64(seed: 64_064)
        var lost = 0, found = 0
        for round in 0..<4_000 {
            var memo = ShortTextMemo<Int32>()
            let texts = (0..<3).map { _ in
                (0..<(1 + rng.below(16))).map { _ in UInt8(0x21 + rng.below(0x5E)) }
            }
            guard Set(texts).count == 3 else { continue }
            let (a, b, c) = (Self.words(texts[0]), Self.words(texts[1]), Self.words(texts[2]))
            let (la, lb, lc) = (texts[0].count, texts[1].count, texts[2].count)
            memo.keep(a.0, a.1, la, 1)
            memo.keep(b.0, b.1, lb, 2)
            #expect(memo.find(a.0, a.1, la) == 1 && memo.find(b.0, b.1, lb) == 2, "\(round)")
            // Kept again, `a` does not push `b` out.
            memo.keep(a.0, a.1, la, 1)
            #expect(memo.find(b.0, b.1, lb) == 2, "\(round)")
            memo.keep(c.0, c.1, lc, 3)
            #expect(memo.find(c.0, c.1, lc) == 3 && memo.find(a.0, a.1, la) == 1, "\(round)")
            // `b` is found, or lost when the three share a set.
            if let x = memo.find(b.0, b.1, lb) {
                #expect(x == 2)
                found += 1
            } else {
                lost += 1
            }
            // Another length, or one word changed: not found.
            #expect(memo.find(a.0, a.1, la == 16 ? 15 : la + 1) == nil)
            if (a.0 ^ 1, a.1, la) != (b.0, b.1, lb), (a.0 ^ 1, a.1, la) != (c.0, c.1, lc) {
                #expect(memo.find(a.0 ^ 1, a.1, la) == nil)
            }
        }
        #expect(found > 3_000 && lost < 10)
    }
}

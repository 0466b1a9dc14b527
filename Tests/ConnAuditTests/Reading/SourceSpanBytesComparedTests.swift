import Testing

@testable import ConnAudit

/// A kept span matches a line's bytes only when every one of its bytes is the line's, whatever
/// its length (8 to ``SpanMemo/capacity``), whatever an earlier, longer span left in its slot,
/// and only when the line holds the whole span.
@Suite("SourceSpan bytes compared")
struct SourceSpanBytesComparedTests {
    /// Bytes `seed` picks, none of them alike in neighbouring seeds.
    static func bytes(_ count: Int, _ seed: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 31 &+ seed &* 7) % 251 &+ 1) }
    }

    @Test("a span matches exactly its own bytes, each byte counting, and never past the line")
    func eachByteCounts() {
        let capacity = SourceSpans.capacity
        for length in 8...capacity {
            var memo = SourceSpans()
            // A longer span first, so the slot holds other bytes past the span's end.
            let older = Self.bytes(capacity, 1)
            older.withUnsafeBufferPointer {
                memo.keep(5, $0.baseAddress!, count: capacity, span: PlainSpan())
            }
            let span = Self.bytes(length, 2)
            span.withUnsafeBufferPointer {
                memo.keep(5, $0.baseAddress!, count: length, span: PlainSpan())
            }
            // The span at a line's end, after a few other bytes.
            var line = [UInt8](repeating: 0x20, count: 3) + span
            line.withUnsafeBufferPointer {
                #expect(memo.match(5, $0.baseAddress!, 3, $0.count) == 5)
                #expect(memo[5].length == length)
                #expect(memo.match(5, $0.baseAddress!, 3, $0.count &- 1) == -1)
                #expect(memo.match(4, $0.baseAddress!, 3, $0.count) == -1)
            }
            for k in 0..<length {
                line[3 + k] ^= 0x40
                line.withUnsafeBufferPointer {
                    #expect(
                        memo.match(5, $0.baseAddress!, 3, $0.count) == -1, "byte \(k) of \(length)"
                    )
                }
                line[3 + k] ^= 0x40
            }
        }
    }
}

/// The bytes of plain lines from the key after their leading `t` to the opening quote of the key
/// after their `src` and `session` (`"src":"pixel-1","session":"s1","`), with the numbers of the
/// texts they set: the fast path's memo of the spans met, in 32 slots.
///
/// A source's lines are written alike, so a line mostly holds the very same bytes there as an
/// earlier line of its source. What those bytes make is fixed by the bytes alone: the keys `src`
/// and `session` (neither a secret name), each with a text ``JSONLineParser/sourceTexts`` keeps
/// under a fixed number (kept texts hold no token), and the next key's quote. A line that holds a
/// kept span after its `t` is read as if it had been scanned pair by pair, in one comparison.
///
/// Direct-mapped: a span's slot is picked by its first 24 bytes (the line's, for a span shorter
/// than that), so devices interleaved in one file each keep theirs, and the memo stays small
/// whatever the input. A span pushed out, or never kept, is only read the long way.
struct SourceSpans {
    static let slotCount = 32
    /// The longest span kept, in bytes (eight words a slot).
    static let capacity = 64
    /// Bytes a line must hold from a span's start for the span to be looked up or kept.
    static let lookahead = 24

    /// Each slot's bytes, eight words a slot.
    private var words = ContiguousArray<UInt64>(repeating: 0, count: slotCount * 8)
    /// Each slot's length in bytes (0: empty; at least eight when one is kept) and the numbers of
    /// the `src` and `session` texts its span sets (-1: absent).
    private var spans = ContiguousArray<Span>(
        repeating: Span(length: 0, src: -1, session: -1), count: slotCount)

    struct Span {
        var length: Int
        var src: Int32
        var session: Int32
    }

    /// The slot of a span starting at `i` (``lookahead`` bytes from `i` lie in the line).
    @inline(__always)
    static func slot(_ p: UnsafePointer<UInt8>, _ i: Int) -> Int {
        let raw = UnsafeRawPointer(p + i)
        let h =
            raw.loadUnaligned(as: UInt64.self)
            ^ raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self) &* 0x9E37_79B9
            ^ raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
        return Int(truncatingIfNeeded: (h &* 0x9E37_79B9_7F4A_7C15) >> 59)
    }

    /// The span kept in `slot` when the line's bytes from `i` are its bytes (wholly within the
    /// line's `n` bytes).
    @inline(__always)
    func match(_ slot: Int, _ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int) -> Span? {
        let span = spans.withUnsafeBufferPointer { $0[slot] }
        let length = span.length
        guard length != 0, i &+ length <= n else { return nil }
        let same = words.withUnsafeBufferPointer { words in
            let kept = UnsafeRawPointer(words.baseAddress! + slot &* 8)
            let line = UnsafeRawPointer(p + i)
            var k = 0
            while k &+ 8 < length {
                guard
                    line.loadUnaligned(fromByteOffset: k, as: UInt64.self)
                        == kept.load(fromByteOffset: k, as: UInt64.self)
                else { return false }
                k &+= 8
            }
            // The last eight bytes, which may overlap the word before them.
            return line.loadUnaligned(fromByteOffset: length &- 8, as: UInt64.self)
                == kept.loadUnaligned(fromByteOffset: length &- 8, as: UInt64.self)
        }
        return same ? span : nil
    }

    /// Keeps the `count` bytes at `start` (from 8 to ``capacity``) as `slot`'s span, which sets
    /// `src` and `session` to these numbers.
    mutating func keep(
        _ slot: Int, _ start: UnsafePointer<UInt8>, count: Int, src: Int32, session: Int32
    ) {
        precondition(count >= 8 && count <= Self.capacity && slot >= 0 && slot < Self.slotCount)
        words.withUnsafeMutableBufferPointer { words in
            UnsafeMutableRawPointer(words.baseAddress! + slot * 8).copyMemory(
                from: start, byteCount: count)
        }
        spans[slot] = Span(length: count, src: src, session: session)
    }

    /// How many slots hold a span (for tests).
    var keptCount: Int { spans.count { $0.length != 0 } }
}

/// The bytes of a plain line from the key after its leading `t` to the opening quote of the key
/// after its `src` and `session` (`"src":"pixel-1","session":"s1","`), with the numbers of the
/// texts they set: the fast path's memo of the previous such line.
///
/// A source's lines usually come together and are written alike, so the next line often holds
/// the very same bytes there. What those bytes make is fixed by the bytes alone: the keys `src`
/// and `session` (neither a secret name), each with a text ``JSONLineParser/sourceTexts`` keeps
/// under a fixed number (kept texts hold no token), and the next key's quote. A line that holds
/// them after its `t` is read as if it had been scanned pair by pair, in one comparison.
struct SourceSpan {
    /// At most ``capacity`` bytes, in eight words.
    private var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
        (0, 0, 0, 0, 0, 0, 0, 0)
    /// The span's length in bytes (0: none kept yet); at least eight when one is kept.
    private(set) var length = 0
    /// The numbers of the `src` and `session` texts the span sets (-1: absent).
    private(set) var src: Int32 = -1
    private(set) var session: Int32 = -1

    static let capacity = 64

    /// Whether the line's bytes from `i` are the span's (wholly within the line's `n` bytes).
    ///
    /// Mutating only to reach the words where they lie, not a copy of them.
    @inline(__always)
    mutating func matches(_ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int) -> Bool {
        let length = self.length
        guard length != 0, i &+ length <= n else { return false }
        return withUnsafeBytes(of: &words) { kept in
            let line = UnsafeRawPointer(p + i)
            var k = 0
            while k &+ 8 < length {
                guard
                    line.loadUnaligned(fromByteOffset: k, as: UInt64.self)
                        == kept.loadUnaligned(fromByteOffset: k, as: UInt64.self)
                else { return false }
                k &+= 8
            }
            // The last eight bytes, which may overlap the word before them.
            return line.loadUnaligned(fromByteOffset: length &- 8, as: UInt64.self)
                == kept.loadUnaligned(fromByteOffset: length &- 8, as: UInt64.self)
        }
    }

    /// Keeps the `count` bytes at `start` (from 8 to ``capacity``) as the span, setting `src` and
    /// `session` to these numbers.
    mutating func keep(_ start: UnsafePointer<UInt8>, count: Int, src: Int32, session: Int32) {
        precondition(count >= 8 && count <= Self.capacity)
        withUnsafeMutableBytes(of: &words) { kept in
            kept.baseAddress!.copyMemory(from: start, byteCount: count)
        }
        length = count
        self.src = src
        self.session = session
    }
}

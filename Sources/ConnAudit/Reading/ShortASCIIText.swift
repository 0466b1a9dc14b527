/// A short ASCII text made from its bytes as words, without the standard library's decoding.
///
/// A String of at most fifteen bytes is held inline in its two words: the bytes, then in the
/// second word's top byte a mark of an immortal, inline, ASCII text and the count. The fast path
/// knows its plain strings' bytes as words already (``JSONLineParser/shortWords(_:_:_:_:)``)
/// and that they are ASCII, so such a String is those words with the top byte set.
/// ``isAvailable`` checks once that Strings are laid out so here; where they are not, texts are
/// decoded.
enum ShortASCIIText {
    /// Whether ``make(_:_:count:)`` makes the very String decoding would: the layout above holds
    /// for every count from 0 to 15.
    static let isAvailable: Bool = {
        guard String.isTwoWords else { return false }
        let sample = Array("0123456789abcde".utf8)
        for count in 0...15 {
            let text = String(decoding: sample[0..<count], as: UTF8.self)
            var w0: UInt64 = 0, w1: UInt64 = 0
            for (k, byte) in sample[0..<count].enumerated() {
                if k < 8 {
                    w0 |= UInt64(byte) << UInt64(8 * k)
                } else {
                    w1 |= UInt64(byte) << UInt64(8 * (k - 8))
                }
            }
            let made = make(w0, w1, count: count)
            guard text.words == (w0, w1 | (0xE0 | UInt64(count)) << 56), made == text,
                Array(made.utf8) == Array(sample[0..<count])
            else { return false }
        }
        return true
    }()

    /// The String of the `count` (at most fifteen) ASCII bytes whose words are `w0` and `w1`,
    /// zero above them. Only where ``isAvailable``.
    ///
    /// The words are written over an immortal String the caller then owns: a String cast from
    /// words would be copied, with a call to count a reference the runtime skips anyway.
    @inline(__always)
    static func make(_ w0: UInt64, _ w1: UInt64, count: Int) -> String {
        var text = ""
        withUnsafeMutableBytes(of: &text) {
            $0.storeBytes(of: w0, as: UInt64.self)
            $0.storeBytes(
                of: w1 | (0xE0 | UInt64(truncatingIfNeeded: count)) &<< 56, toByteOffset: 8,
                as: UInt64.self)
        }
        return text
    }
}

/// What a reader made of short byte strings (at most sixteen bytes) it meets line after line,
/// found again by one comparison of two words, without hashing them through a table.
///
/// Direct-mapped: 64 slots, each string in the one its words pick, a string taking its slot
/// from the one there. So it stays small whatever the input, and a string it lost is made
/// again by whoever kept it (``keep(_:_:_:_:)`` is only told what a string always makes).
struct ShortTextMemo<Payload> {
    private struct Slot {
        var w0: UInt64
        var w1: UInt64
        /// -1: empty.
        var length: Int
        var payload: Payload?
    }

    private var slots = [Slot](repeating: Slot(w0: 0, w1: 0, length: -1, payload: nil), count: 64)

    @inline(__always)
    private static func slot(_ w0: UInt64, _ w1: UInt64, _ length: Int) -> Int {
        let h = (w0 ^ (w1 &* 0x9E37_79B9) ^ UInt64(length)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: h >> 58)
    }

    /// What was kept for the string of `length` bytes whose words
    /// (``ByteStringTable/words(_:)``) are `w0` and `w1`, if it is still here.
    @inline(__always)
    func find(_ w0: UInt64, _ w1: UInt64, _ length: Int) -> Payload? {
        slots.withUnsafeBufferPointer { slots in
            let s = slots[Self.slot(w0, w1, length)]
            return s.length == length && s.w0 == w0 && s.w1 == w1 ? s.payload : nil
        }
    }

    /// Keeps `payload` for the string of `length` (at most sixteen) bytes with words `w0`, `w1`.
    mutating func keep(_ w0: UInt64, _ w1: UInt64, _ length: Int, _ payload: Payload) {
        precondition(length >= 0 && length <= 16)
        slots[Self.slot(w0, w1, length)] = Slot(w0: w0, w1: w1, length: length, payload: payload)
    }
}

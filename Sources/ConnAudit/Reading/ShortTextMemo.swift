/// What a reader made of short byte strings (at most sixteen bytes) it meets line after line,
/// found again by one or two comparisons of two words, without hashing them through a table.
///
/// Two-way: 128 sets of two slots, each string in the set its words pick, the newest first; a
/// string met takes the first slot of its set and moves the one there to the second, whose
/// string is let go. Two strings whose words pick the same set are both kept (in one slot each
/// set, some twenty keys of a log would keep pushing each other out, and each line with one of
/// them would be read the long way). It stays small whatever the input, and a string it lost is
/// made again by whoever kept it (``keep(_:_:_:_:)`` is only told what a string always makes).
struct ShortTextMemo<Payload> {
    private struct Slot {
        var w0: UInt64
        var w1: UInt64
        /// -1: empty.
        var length: Int
        var payload: Payload?
    }

    @inline(__always) static var setCount: Int { 128 }

    private var slots = [Slot](
        repeating: Slot(w0: 0, w1: 0, length: -1, payload: nil), count: 2 * setCount)

    /// The first slot of the string's set (the second is the next one).
    @inline(__always)
    private static func slot(_ w0: UInt64, _ w1: UInt64, _ length: Int) -> Int {
        let h = (w0 ^ (w1 &* 0x9E37_79B9) ^ UInt64(length)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: h >> 57) &<< 1
    }

    /// What was kept for the string of `length` bytes whose words
    /// (``ByteStringTable/words(_:)``) are `w0` and `w1`, if it is still here.
    @inline(__always)
    func find(_ w0: UInt64, _ w1: UInt64, _ length: Int) -> Payload? {
        slots.withUnsafeBufferPointer { slots in
            let k = Self.slot(w0, w1, length)
            let s = slots[k]
            if s.length == length && s.w0 == w0 && s.w1 == w1 { return s.payload }
            let t = slots[k &+ 1]
            return t.length == length && t.w0 == w0 && t.w1 == w1 ? t.payload : nil
        }
    }

    /// Keeps `payload` for the string of `length` (at most sixteen) bytes with words `w0`, `w1`,
    /// in the first slot of its set: the string there moves to the second unless it is this one.
    mutating func keep(_ w0: UInt64, _ w1: UInt64, _ length: Int, _ payload: Payload) {
        precondition(length >= 0 && length <= 16)
        let k = Self.slot(w0, w1, length)
        let s = slots[k]
        if !(s.length == length && s.w0 == w0 && s.w1 == w1) { slots[k &+ 1] = s }
        slots[k] = Slot(w0: w0, w1: w1, length: length, payload: payload)
    }
}

/// The slots of a hash table with open addressing (``KeyBuckets``, ``ShortTextNumbers``): per
/// slot an entry's index + 1, 0 when empty, probed linearly from the entry's hash masked to a
/// power-of-two count.
enum OpenSlots {
    /// `count` slots (a power of two) holding entries `0..<entries`, each filed from
    /// `hash(i)`: what a table's slots become when it grows.
    @inline(__always) static func filed(
        _ entries: Int, count: Int, hash: (Int) -> UInt64
    ) -> [Int32] {
        var slots = [Int32](repeating: 0, count: count)
        let mask = count - 1
        slots.withUnsafeMutableBufferPointer { slots in
            for i in 0..<entries {
                var s = Int(truncatingIfNeeded: hash(i)) & mask
                while slots[s] != 0 { s = (s &+ 1) & mask }
                slots[s] = Int32(i + 1)
            }
        }
        return slots
    }
}

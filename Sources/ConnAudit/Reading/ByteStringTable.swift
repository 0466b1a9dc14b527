#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Strings a reader meets on line after line (`ev` names, `src`, `session`), found again by
/// their bytes: a repeated one is neither decoded into a new `String` nor hashed as one.
///
/// Each entry also carries a small number (`tag`) chosen by whoever added it — the reader keeps
/// an `ev` name's id there. Bounded: at most ``capacity`` entries of at most ``maxLength`` bytes;
/// once full it adds nothing more (lookups still work), so hostile input cannot grow it.
struct ByteStringTable {
    /// Longest byte string kept.
    let maxLength: Int
    /// Most entries kept.
    let capacity: Int

    private struct Entry {
        var hash: UInt64
        /// The first sixteen bytes, zero-padded (all of a short key: then no byte comparison).
        var w0: UInt64
        var w1: UInt64
        var offset: Int
        var length: Int
        var string: String
        var tag: Int32
    }

    /// Open addressing: an index into `entries`, or -1; a power of two, at least twice the
    /// entries (it starts small and doubles up to twice `capacity`: a reader of a one-line file
    /// costs little).
    private var slots: [Int32]
    private let maxSlots: Int
    private var entries: [Entry] = []
    /// The bytes of keys longer than sixteen, one after another.
    private var bytes: [UInt8] = []

    init(capacity: Int = 512, maxLength: Int = 64) {
        self.capacity = capacity
        self.maxLength = maxLength
        var size = 16
        while size < capacity * 2 { size *= 2 }
        maxSlots = size
        slots = Array(repeating: -1, count: 16)
    }

    /// Doubles the slots and places every entry again (by its kept hash).
    private mutating func grow() {
        slots = Array(repeating: -1, count: slots.count * 2)
        let mask = slots.count - 1
        for (i, e) in entries.enumerated() {
            var s = Int(truncatingIfNeeded: e.hash) & mask
            while slots[s] >= 0 { s = (s + 1) & mask }
            slots[s] = Int32(i)
        }
    }

    var count: Int { entries.count }

    /// The string and tag kept for `key`, if any.
    func lookup(_ key: UnsafeBufferPointer<UInt8>) -> (string: String, tag: Int32)? {
        guard key.count <= maxLength else { return nil }
        let (w0, w1) = Self.words(key)
        guard let e = probe(key, w0, w1, Self.hash(key, w0, w1)).entry else { return nil }
        return (entries[e].string, entries[e].tag)
    }

    /// The tag kept for `key`, if any (no string is handed out).
    @inline(__always) func tag(of key: UnsafeBufferPointer<UInt8>) -> Int32? {
        guard key.count <= maxLength else { return nil }
        let (w0, w1) = Self.words(key)
        guard let e = probe(key, w0, w1, Self.hash(key, w0, w1)).entry else { return nil }
        return entries.withUnsafeBufferPointer { $0[e].tag }
    }

    /// Keeps `string` (which must be `key` decoded) and `tag` for `key`, unless the table is full,
    /// the key too long, or the key already kept.
    mutating func add(_ key: UnsafeBufferPointer<UInt8>, string: String, tag: Int32) {
        guard key.count <= maxLength, entries.count < capacity else { return }
        if (entries.count + 1) * 2 > slots.count, slots.count < maxSlots { grow() }
        let (w0, w1) = Self.words(key)
        let h = Self.hash(key, w0, w1)
        let (slot, found) = probe(key, w0, w1, h)
        guard found == nil else { return }
        slots[slot] = Int32(entries.count)
        entries.append(
            Entry(
                hash: h, w0: w0, w1: w1, offset: bytes.count, length: key.count, string: string,
                tag: tag))
        if key.count > 16 { bytes.append(contentsOf: key) }
    }

    /// Where `key` (with its words and hash) is kept, or the free slot where it would go.
    /// Ends: at most half the slots are taken.
    @inline(__always) private func probe(
        _ key: UnsafeBufferPointer<UInt8>, _ w0: UInt64, _ w1: UInt64, _ h: UInt64
    ) -> (slot: Int, entry: Int?) {
        let mask = slots.count - 1
        var s = Int(truncatingIfNeeded: h) & mask
        return entries.withUnsafeBufferPointer { entries in
            while true {
                let e = Int(slots[s])
                if e < 0 { return (s, nil) }
                if entries[e].hash == h, entries[e].length == key.count, entries[e].w0 == w0,
                    entries[e].w1 == w1,
                    key.count <= 16 || longMatches(entries[e].offset, key)
                {
                    return (s, e)
                }
                s = (s + 1) & mask
            }
        }
    }

    private func longMatches(_ offset: Int, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.withUnsafeBufferPointer {
            memcmp($0.baseAddress! + offset, key.baseAddress!, key.count) == 0
        }
    }

    /// The first sixteen bytes of `key` as two little-endian words, zero-padded; read with at most
    /// four loads that stay inside the key.
    @inline(__always) static func words(_ key: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64) {
        let n = key.count
        guard let p = key.baseAddress, n > 0 else { return (0, 0) }
        let raw = UnsafeRawPointer(p)
        @inline(__always) func load64(_ at: Int) -> UInt64 {
            UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self))
        }
        @inline(__always) func load32(_ at: Int) -> UInt64 {
            UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
        }
        if n >= 16 { return (load64(0), load64(8)) }
        if n > 8 { return (load64(0), load64(n - 8) >> UInt64(8 * (16 - n))) }
        if n == 8 { return (load64(0), 0) }
        if n >= 4 { return (load32(0) | (load32(n - 4) >> UInt64(8 * (8 - n))) << 32, 0) }
        var w = UInt64(p[0])
        if n > 1 { w |= UInt64(p[1]) << 8 }
        if n > 2 { w |= UInt64(p[2]) << 16 }
        return (w, 0)
    }

    /// A multiplicative hash of the length, the first sixteen bytes and (for a longer key) the
    /// rest eight at a time. Not built against chosen collisions: the table is bounded, so a
    /// probe passes at most ``capacity`` entries.
    @inline(__always) static func hash(
        _ key: UnsafeBufferPointer<UInt8>, _ w0: UInt64, _ w1: UInt64
    ) -> UInt64 {
        let k: UInt64 = 0x9E37_79B9_7F4A_7C15
        var h = (UInt64(key.count) ^ w0) &* k
        h = (h ^ (h >> 29) ^ w1) &* k
        if key.count > 16, let base = key.baseAddress {
            var i = 16
            while i < key.count {
                let w: UInt64
                if i + 8 <= key.count {
                    w = UInt64(
                        littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
                } else {
                    w = UInt64(base[i])
                }
                h = (h ^ (h >> 29) ^ w) &* k
                i += i + 8 <= key.count ? 8 : 1
            }
        }
        return h ^ (h >> 32)
    }
}

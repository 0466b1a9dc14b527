/// The buckets of a ``KeyedIndex``: events grouped by a value (`Value`'s `==`), in the order they
/// were added.
///
/// Not a `Dictionary<Value, [Event]>`: its lookups spend most of their time in `Value.hash(into:)`
/// (a `String` is hashed by its normalized scalars) and SipHash's rounds, and a history call keyed
/// by `text(id)` asks once per event. Here a value is hashed once, by its bytes, with a seeded
/// multiply-mix (wyhash's), and found by linear probing in a table kept at most half full.
///
/// Equal values land in one bucket, as in a dictionary: an integer by its bits; a string by its
/// bytes when it is ASCII, else by the bytes of its NFC form (`String`'s `==` is canonical
/// equivalence: "é" precomposed and decomposed are one key, and so are "K" and the Kelvin sign);
/// any other value through `Hasher`. The seed is random per process, so a log cannot be written to
/// make its keys collide (each collision would cost every later lookup of that key a comparison).
///
/// Generic over what a bucket holds: events (``ValueBuckets``, a ``KeyedIndex``'s), numbers
/// (a `count … by:`'s counts of keys that are not short texts, ``KeyCounts``), or nothing
/// (``CountedKeys``, whose keys' positions number them).
struct KeyBuckets<Element> {
    /// Per slot: an entry's index + 1, 0 when empty. Its count is a power of two (or 0).
    private var slots: [Int32] = []
    /// The keys in the order they came, each with its hash and its elements: one array, so that
    /// a new key costs one append (one uniqueness check), and a found key one write.
    private var entries: [Entry] = []
    /// Per entry with more than one element: all of them (most keys, an SSE id in one list, have
    /// one: no array is made for those).
    private var rest: [[Element]] = []
    /// The one-element list a lookup of a key with one event answers with (written in place when
    /// the previous answer is gone, as it is after each history call).
    private var single: [Element] = []

    private struct Entry {
        let hash: UInt64
        let key: Value
        /// The entry's first element (a count's count).
        var first: Element
        /// The index + 1 of its elements in ``rest`` when it has more than one; 0 otherwise.
        var more: Int32 = 0
    }

    /// How many distinct keys there are.
    var count: Int { entries.count }

    /// The events added with a key equal to `key`, oldest first; nil when there are none.
    mutating func events(for key: Value) -> ArraySlice<Element>? { events(for: HashedKey(key)) }

    /// ``events(for:)`` of a key hashed already.
    mutating func events(for key: HashedKey) -> ArraySlice<Element>? {
        guard let i = lookup(key) else { return nil }
        let m = Int(entries[i].more)
        if m != 0 { return rest[m - 1][...] }
        if single.isEmpty { single = [entries[i].first] } else { single[0] = entries[i].first }
        return single[...]
    }

    /// How many elements were added with a key equal to `key`. (Mutating, as ``events(for:)``:
    /// called on the buckets an object holds, a non-mutating method is given a copy of them,
    /// each of their arrays retained.)
    mutating func count(for key: Value) -> Int { count(for: HashedKey(key)) }

    /// ``count(for:)`` of a key hashed already.
    mutating func count(for key: HashedKey) -> Int {
        guard let i = lookup(key) else { return 0 }
        let m = Int(entries[i].more)
        return m != 0 ? rest[m - 1].count : 1
    }

    /// The entry of a key equal to `key`; nil when there is none.
    @inline(__always) private func lookup(_ key: HashedKey) -> Int? {
        guard !slots.isEmpty, case .found(let i) = find(key.value, key.hash) else { return nil }
        return i
    }

    /// The position of the key equal to `key` among the keys in the order they came; nil when
    /// there is none. A key keeps its position: none is ever removed.
    mutating func position(of key: HashedKey) -> Int? { lookup(key) }

    /// ``position(of:)`` of `key`, added with `first` as its first element when it is new.
    mutating func position(adding key: consuming HashedKey, first: Element) -> Int {
        var free = -1
        if !slots.isEmpty {
            switch find(key.value, key.hash) {
            case .found(let i): return i
            case .absent(let slot): free = slot
            }
        }
        addEntry(key.value, hash: key.hash, first: first, free: free)
        return entries.count - 1
    }

    /// Adds `e` under `key`.
    mutating func append(_ e: Element, for key: Value) { append(e, for: HashedKey(key)) }

    /// ``append(_:for:)`` under a key hashed already.
    mutating func append(_ e: Element, for key: consuming HashedKey) {
        var free = -1
        if !slots.isEmpty {
            switch find(key.value, key.hash) {
            case .found(let i):
                appendTo(i, e)
                return
            case .absent(let slot): free = slot
            }
        }
        addEntry(key.value, hash: key.hash, first: e, free: free)
    }

    /// Adds `e` to entry `i`'s elements.
    @inline(__always) private mutating func appendTo(_ i: Int, _ e: Element) {
        let m = Int(entries[i].more)
        if m != 0 {
            rest[m - 1].append(e)
        } else {
            rest.append([entries[i].first, e])
            entries[i].more = Int32(rest.count)
        }
    }

    /// A new key, with its first element. `free`: the empty slot where a search for the key
    /// ended (-1: none), where the key goes unless the table grows first.
    private mutating func addEntry(
        _ key: consuming Value, hash h: UInt64, first: Element, free: Int = -1
    ) {
        entries.append(Entry(hash: h, key: key, first: first))
        let n = entries.count
        if n * 2 > slots.count {
            grow()
        } else if free >= 0 {
            slots[free] = Int32(n)
        } else {
            insert(entry: n - 1, hash: h)
        }
    }

    /// Where a search for a key ended: at its entry, or at the empty slot where it would go.
    private enum Probe {
        case found(Int)
        case absent(Int)
    }

    @inline(__always) private func find(_ key: Value, _ h: UInt64) -> Probe {
        slots.withUnsafeBufferPointer { slots in
            entries.withUnsafeBufferPointer { entries in
                let mask = slots.count - 1
                var s = Int(truncatingIfNeeded: h) & mask
                while true {
                    let entry = Int(slots[s])
                    if entry == 0 { return .absent(s) }
                    if entries[entry - 1].hash == h, entries[entry - 1].key == key {
                        return .found(entry - 1)
                    }
                    s = (s + 1) & mask
                }
            }
        }
    }

    private mutating func insert(entry: Int, hash h: UInt64) {
        let mask = slots.count - 1
        var s = Int(truncatingIfNeeded: h) & mask
        while slots[s] != 0 { s = (s + 1) & mask }
        slots[s] = Int32(entry + 1)
    }

    /// Doubles the slots and files every entry again (``OpenSlots``): growing is
    /// most of what a table of ids, one new key per event, costs.
    private mutating func grow() {
        slots = entries.withUnsafeBufferPointer { entries in
            OpenSlots.filed(entries.count, count: max(8, slots.count * 2)) { entries[$0].hash }
        }
    }

    /// A value's hash: equal values (`==`) hash alike (``BucketHash/hash(_:)``).
    static func hash(_ v: Value) -> UInt64 { BucketHash.hash(v) }
}

/// A key with its hash (``BucketHash/hash(_:)``), taken once however many tables look it up.
struct HashedKey {
    let value: Value
    let hash: UInt64

    @inline(__always) init(_ value: Value) {
        self.value = value
        hash = BucketHash.hash(value)
    }
}

typealias ValueBuckets = KeyBuckets<Event>

/// Counts by key (a `count … by:`'s): each key's count is its one element.
extension KeyBuckets where Element == Int {
    /// Adds one to `key`'s count and returns the new count.
    mutating func increment(_ key: consuming Value) -> Int {
        let h = Self.hash(key)
        var free = -1
        if !slots.isEmpty {
            switch find(key, h) {
            case .found(let i):
                entries[i].first += 1
                return entries[i].first
            case .absent(let slot): free = slot
            }
        }
        addEntry(key, hash: h, first: 1, free: free)
        return 1
    }

    /// Every key with its count, in the order the keys came.
    var counts: [(key: Value, count: Int)] { entries.map { ($0.key, $0.first) } }
}

/// How ``KeyBuckets`` hash their keys.
enum BucketHash {
    /// Per process: the seed and the two secrets of the mix.
    private static let seed: (UInt64, UInt64, UInt64) = {
        var g = SystemRandomNumberGenerator()
        return (g.next(), g.next() | 1, g.next() | 1)
    }()

    /// A value's hash: equal values (`==`) hash alike.
    static func hash(_ v: Value) -> UInt64 {
        switch v {
        case .int(let i):
            return mix(UInt64(bitPattern: i) ^ seed.1, seed.0 ^ 0x01)
        case .string(let s):
            // The bytes are read where they are (a native string's always can be): a copy of the
            // string to read them through would be retained and released.
            let ascii: UInt64?? = s.utf8.withContiguousStorageIfAvailable(asciiHash)
            if let ascii = ascii ?? asciiHash(copying: s) { return ascii }
            var nfc: [UInt8] = []
            nfc.reserveCapacity(s.utf8.count)
            s._withNFCCodeUnits { nfc.append($0) }
            return nfc.withUnsafeBytes { hash(bytes: $0) }
        default:
            return mix(UInt64(bitPattern: Int64(v.hashValue)) ^ seed.1, seed.0 ^ 0x03)
        }
    }

    /// The hash of `bytes` when they are all ASCII; nil otherwise. (Checked as they are hashed:
    /// a second pass over them would cost as much again.)
    private static func asciiHash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64? {
        let (h, or) = hashAndOr(bytes: UnsafeRawBufferPointer(bytes))
        return or & 0x8080_8080_8080_8080 == 0 ? h : nil
    }

    /// ``asciiHash(_:)`` of `s`'s bytes read through a copy of `s` (for a string whose bytes are
    /// not stored contiguously, such as a bridged one).
    private static func asciiHash(copying s: String) -> UInt64? {
        var s = s
        return s.withUTF8(asciiHash)
    }

    /// wyhash's mix: the two halves of a 128-bit product, xored.
    @inline(__always) private static func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (high, low) = a.multipliedFullWidth(by: b)
        return high ^ low
    }

    /// The bytes of a string (tagged apart from integers and other values), eight at a time.
    static func hash(bytes: UnsafeRawBufferPointer) -> UInt64 { hashAndOr(bytes: bytes).hash }

    /// ``hash(bytes:)``, and every byte or-ed into one word (a byte at 0x80 or above sets a high
    /// bit of one of its bytes).
    ///
    /// Every byte is read in a word: past eight bytes, the last word overlaps the one before;
    /// four to seven bytes are the first four and the last four; one to three are the first,
    /// the middle and the last (wyhash's reads). With the length mixed in, the words determine
    /// the bytes, so equal bytes hash alike and no byte is read one at a time (most keys, ids
    /// and generations, are a few bytes long).
    @inline(__always) private static func hashAndOr(
        bytes: UnsafeRawBufferPointer
    ) -> (hash: UInt64, or: UInt64) {
        let (s0, s1, s2) = seed
        let n = bytes.count
        var h = s0 ^ 0x02 ^ UInt64(n) &* s2
        var or: UInt64 = 0
        if n >= 8 {
            var i = 0
            while i + 8 < n {
                let word = bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                or |= word
                h = mix(word ^ s1, h ^ s2)
                i += 8
            }
            let last = bytes.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
            or |= last
            h = mix(last ^ s1, h ^ s2)
        } else if n >= 4 {
            let first = UInt64(bytes.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
            let last = UInt64(bytes.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self))
            or = first | last
            h = mix((first | last << 32) ^ s1, h ^ s2)
        } else if n > 0 {
            let word = UInt64(bytes[0]) | UInt64(bytes[n / 2]) << 8 | UInt64(bytes[n - 1]) << 16
            or = word
            h = mix(word ^ s1, h ^ s2)
        }
        return (mix(h ^ s1, s2), or)
    }
}

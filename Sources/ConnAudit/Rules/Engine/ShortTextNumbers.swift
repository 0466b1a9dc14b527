/// Numbers given to short ASCII texts, found by the text packed in two words: a table of plain
/// integers, where ``KeyBuckets`` keeps each key as a ``Value`` (hashed by its bytes through a
/// closure, copied as the table grows, destroyed one by one when it goes).
///
/// A text whose NFC form is ASCII of at most 15 bytes is one 128-bit ``Key``: those bytes in
/// order, zero padded, and in the last byte their length with a mark, so that no key is all
/// zeros. Two such texts are `==` (canonically equivalent) exactly when their keys are equal:
/// their NFC forms are, byte for byte. Any other text has no key here (``key(of:words:)`` is
/// nil), and is `==` to no text that has one.
///
/// A String that holds such a text in place (a small ASCII string) is made of that key on the
/// 64-bit targets conn-audit builds for: its two words are read as they are. Whether they are is
/// checked once per process against keys packed from the bytes (``wordsAreKeys``); where they
/// are not, every key is packed from the bytes.
///
/// Keys are hashed with a multiply-mix seeded per process at random (so a log cannot be written
/// to make its keys collide) and found by linear probing in a table kept at most half full.
///
/// The slots and entries are kept in plain storage owned by one object (``Storage``), written
/// in place: no copy-on-write check, bounds check or array growth per key. A copy of the struct
/// shares that storage; its owners (``CountedKeys``, ``KeyCounts``) keep one and never copy it.
struct ShortTextNumbers {
    struct Key: Equatable {
        let low: UInt64
        let high: UInt64
    }

    /// A key and what it was given: its number, or its count (``increment(_:)``).
    fileprivate struct Entry {
        let key: Key
        var value: Int
    }

    /// The table's storage: per slot an entry's index + 1, 0 when empty (``slotCount`` slots, a
    /// power of two, or none), and the entries in the order their keys came (``PlainEntries``).
    /// Both hold plain integers: nothing in them is counted or destroyed.
    fileprivate final class Storage {
        var slots: UnsafeMutablePointer<Int32>?
        var slotCount = 0
        var entries = PlainEntries<Entry>()

        deinit {
            slots?.deallocate()
            entries.free()
        }
    }

    private let storage = Storage()
    /// ``wordsAreKeys`` and the seed, copied here: each read of a global is a check that it
    /// was set.
    private let readsWords = ShortTextNumbers.wordsAreKeys
    private let seed = ShortTextNumbers.seed

    /// How many keys have a number.
    var count: Int { storage.entries.count }

    /// Forgets every key, as a new table: the entries' storage is kept when it is small (at
    /// most ``Runner/listCapacityKept`` keys), so a set-back runner holds no more than a short
    /// generation's. The slots go (the first key files them anew). The seed and
    /// ``wordsAreKeys`` are the process's, as a new table's.
    mutating func setBack() {
        let storage = storage
        storage.entries.removeAll(keepingUpTo: Runner.listCapacityKept)
        storage.slots?.deallocate()
        storage.slots = nil
        storage.slotCount = 0
    }

    /// The key of `text`, whose two words (``Swift/String/words``) are `words`; nil when its
    /// NFC form is not ASCII or longer than 15 bytes (``packed(_:)``).
    @inline(__always) func key(of text: String, words: (UInt64, UInt64)) -> Key? {
        if isSmallASCII(words) { return Key(low: words.0, high: words.1) }
        return Self.packed(text)
    }

    /// Whether the String of `words` is a small ASCII string, whose words are its key: the top
    /// four bits of its second word are 1110.
    @inline(__always) func isSmallASCII(_ words: (UInt64, UInt64)) -> Bool {
        readsWords && words.1 >> 60 == 0xE
    }

    /// The number of `key`; nil when it has none.
    func number(of key: Key) -> Int32? {
        guard storage.slotCount != 0, case .found(let i) = find(key) else { return nil }
        return Int32(truncatingIfNeeded: storage.entries.start[i].value)
    }

    /// The number of `key` (-1: none), and when it has none, the empty slot where the search
    /// for it ended (-1 when the table has no slots): ``add(_:number:free:)`` files it there
    /// while no other key is added.
    @inline(__always) func search(_ key: Key) -> (number: Int32, free: Int) {
        guard storage.slotCount != 0 else { return (-1, -1) }
        switch find(key) {
        case .found(let i):
            return (Int32(truncatingIfNeeded: storage.entries.start[i].value), -1)
        case .absent(let slot): return (-1, slot)
        }
    }

    /// Gives `key`, which has no number, the number `number`; `free` is the slot
    /// ``search(_:)`` gave it, with no key added since.
    mutating func add(_ key: Key, number: Int32, free: Int) {
        add(key, Int(number), free: free)
    }

    /// The number of `key`, given `next` when it has none.
    mutating func number(adding key: Key, next: Int32) -> Int32 {
        var free = -1
        if storage.slotCount != 0 {
            switch find(key) {
            case .found(let i):
                return Int32(truncatingIfNeeded: storage.entries.start[i].value)
            case .absent(let slot): free = slot
            }
        }
        add(key, Int(next), free: free)
        return next
    }

    /// Adds one to `key`'s count (one when it is new) and returns the new count. A table is
    /// used for counts or for numbers, never both.
    mutating func increment(_ key: Key) -> Int {
        var free = -1
        if storage.slotCount != 0 {
            switch find(key) {
            case .found(let i):
                let entry = storage.entries.start + i
                entry.pointee.value += 1
                return entry.pointee.value
            case .absent(let slot): free = slot
            }
        }
        add(key, 1, free: free)
        return 1
    }

    /// The count of the key that came `position`th (0 first).
    func count(at position: Int) -> Int {
        precondition(position >= 0 && position < storage.entries.count)
        return storage.entries.start[position].value
    }

    /// A new key, given `value`. `free`: the empty slot where the search for it ended.
    @inline(__always) private mutating func add(_ key: Key, _ value: Int, free: Int) {
        let storage = storage
        if storage.entries.count == storage.entries.capacity {
            storage.entries.grow(toHold: storage.entries.count + 1)
        }
        (storage.entries.start + storage.entries.count).initialize(
            to: Entry(key: key, value: value))
        storage.entries.count += 1
        let n = storage.entries.count
        if n * 2 > storage.slotCount {
            grow()
        } else {
            storage.slots.unsafelyUnwrapped[free] = Int32(n)
        }
    }

    /// The text of the key that came `position`th (0 first): the bytes ``packed(_:)`` packed.
    func text(at position: Int) -> String {
        precondition(position >= 0 && position < storage.entries.count)
        let key = storage.entries.start[position].key
        let count = Int(key.high >> 56 & 0x0F)
        return withUnsafeBytes(of: (key.low.littleEndian, key.high.littleEndian)) {
            String(decoding: $0.prefix(count), as: UTF8.self)
        }
    }

    private enum Probe {
        case found(Int)
        case absent(Int)
    }

    @inline(__always) private func find(_ key: Key) -> Probe {
        let slots = storage.slots.unsafelyUnwrapped
        let entries = storage.entries.start
        let mask = storage.slotCount - 1
        var s = Int(truncatingIfNeeded: hash(key)) & mask
        while true {
            let entry = Int(slots[s])
            if entry == 0 { return .absent(s) }
            if entries[entry - 1].key == key { return .found(entry - 1) }
            s = (s &+ 1) & mask
        }
    }

    /// Doubles the slots (at least 8) and files every entry again.
    @inline(never) private func grow() {
        let storage = storage
        let count = max(8, storage.slotCount * 2)
        let slots = UnsafeMutablePointer<Int32>.allocate(capacity: count)
        slots.initialize(repeating: 0, count: count)
        let entries = storage.entries.start
        let mask = count - 1
        for i in 0..<storage.entries.count {
            var s = Int(truncatingIfNeeded: hash(entries[i].key)) & mask
            while slots[s] != 0 { s = (s &+ 1) & mask }
            slots[s] = Int32(i + 1)
        }
        storage.slots?.deallocate()
        storage.slots = slots
        storage.slotCount = count
    }

    @inline(__always) private func hash(_ key: Key) -> UInt64 {
        let h = Self.mix(key.low ^ seed.0, key.high ^ seed.1)
        return Self.mix(h ^ seed.2, seed.1)
    }

    /// wyhash's mix: the two halves of a 128-bit product, xored.
    @inline(__always) private static func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (high, low) = a.multipliedFullWidth(by: b)
        return high ^ low
    }

    /// Per process: the three secrets of the hash (odd, so no product is zero for want of one).
    private static let seed: (UInt64, UInt64, UInt64) = {
        var g = SystemRandomNumberGenerator()
        return (g.next() | 1, g.next() | 1, g.next() | 1)
    }()

    /// The key of `text` packed from the bytes of its NFC form: the bytes little-endian in the
    /// two words, and 0xE0 plus the length in the top byte (the layout of a small ASCII
    /// string). Nil when that form is not ASCII or longer than 15 bytes.
    ///
    /// An ASCII text is its own NFC form. A text that is not ASCII may have one that is (the
    /// Kelvin sign is "K", the Greek question mark ";"), and is then `==` to it: it gets its
    /// key. No ASCII character is a composition of others, so each scalar of such a text maps
    /// to one ASCII byte of the form: the text has at most 15 scalars, of at most four bytes
    /// each.
    static func packed(_ text: String) -> Key? {
        var text = text
        guard text.utf8.count <= 60 else { return nil }
        enum Packed {
            case key(Key)
            case tooLong
            case notASCII
        }
        switch text.withUTF8({ bytes -> Packed in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return .notASCII }
            return pack(bytes).map(Packed.key) ?? .tooLong
        }) {
        case .key(let key): return key
        case .tooLong: return nil
        case .notASCII: break
        }
        var nfc: [UInt8] = []
        text._withNFCCodeUnits { nfc.append($0) }
        guard nfc.allSatisfy({ $0 < 0x80 }) else { return nil }
        return nfc.withUnsafeBufferPointer(pack)
    }

    /// The key of ASCII `bytes`; nil when there are more than 15.
    private static func pack(_ bytes: UnsafeBufferPointer<UInt8>) -> Key? {
        guard bytes.count <= 15 else { return nil }
        var low: UInt64 = 0
        var high = UInt64(0xE0 | bytes.count) << 56
        for (i, b) in bytes.enumerated() {
            if i < 8 {
                low |= UInt64(b) << (8 * UInt64(i))
            } else {
                high |= UInt64(b) << (8 * UInt64(i - 8))
            }
        }
        return Key(low: low, high: high)
    }

    /// Whether a small ASCII string's two words are its packed key here: checked on texts of
    /// each length, made at run time.
    static let wordsAreKeys: Bool = {
        guard String.isTwoWords else { return false }
        let sample = "0123456789abcdef"
        for n in 0...15 {
            let text = String(decoding: Array(sample.utf8.prefix(n)), as: UTF8.self)
            let words = text.words
            guard words.1 >> 60 == 0xE, let key = packed(text),
                key == Key(low: words.0, high: words.1)
            else { return false }
        }
        // A text that is not ASCII is never taken for one that is.
        let accented = String(decoding: Array("caf\u{E9}".utf8), as: UTF8.self)
        return accented.words.1 >> 60 != 0xE
    }()
}

/// FNV-1a over a key's text as ``Value/jsonString(_:)`` writes it, fed the key's bytes (valid
/// UTF-8) one at a time: the hash ``FileReader/redactedName(_:)`` gives the key, without the key.
struct RenderedKeyHasher {
    private var hash: UInt32 = 2_166_136_261
    /// A character beyond ASCII under way: its bytes so far, and how many it has.
    private var pending: [UInt8] = []
    private var width = 0

    init() { mix(0x22) }

    private mutating func mix(_ b: UInt8) { hash = (hash ^ UInt32(b)) &* 16_777_619 }
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 0x30 + nibble : 0x57 + nibble
    }
    private mutating func mix(_ s: StaticString) {
        for k in 0..<s.utf8CodeUnitCount { mix(s.utf8Start[k]) }
    }

    mutating func add(_ b: UInt8) {
        if width > 0 {
            pending.append(b)
            guard pending.count == width else { return }
            // U+2028 and U+2029 are escaped; any other character is written as it is.
            if pending == [0xE2, 0x80, 0xA8] {
                mix("\\u2028")
            } else if pending == [0xE2, 0x80, 0xA9] {
                mix("\\u2029")
            } else {
                for p in pending { mix(p) }
            }
            pending.removeAll(keepingCapacity: true)
            width = 0
            return
        }
        switch b {
        case 0x22: mix("\\\"")
        case 0x5C: mix("\\\\")
        case 0x0A: mix("\\n")
        case 0x0D: mix("\\r")
        case 0x09: mix("\\t")
        case 0..<0x20, 0x7F:
            mix("\\u00")
            // Lower-case hex digits, as `Value.jsonString` writes them.
            mix(Self.hexDigit(b >> 4))
            mix(Self.hexDigit(b & 0xF))
        case 0x80...:
            width = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2
            pending = [b]
        default: mix(b)
        }
    }

    /// The hash, the closing quote included.
    mutating func finish() -> UInt32 {
        mix(0x22)
        return hash
    }
}

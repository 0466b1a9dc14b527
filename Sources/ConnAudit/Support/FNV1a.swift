/// FNV-1a, 64 bits: small, stable across runs and platforms (unlike `Hasher`). Fingerprints of
/// findings, and a secret key path's cut key told apart by the hash of its whole text.
enum FNV1a {
    static func hash64<Bytes: Swift.Sequence<UInt8>>(bytes: Bytes) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01B3
        }
        return h
    }
}

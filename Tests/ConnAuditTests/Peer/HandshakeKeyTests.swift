import ConnPeer
import Testing

/// The opening handshake's accept key is base64(SHA-1(key + GUID)): both pieces are written here,
/// so each is checked against published vectors (FIPS 180 examples, RFC 4648 section 10, lengths
/// around SHA-1's 64-byte block checked with coreutils' sha1sum) and the example of RFC 6455.
@Suite("WebSocket handshake keys")
struct HandshakeKeyTests {
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map {
            String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16)
        }
        .joined()
    }

    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
        ),
        ("The quick brown fox jumps over the lazy dog", "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12")
    ])
    func sha1MatchesPublishedVectors(message: String, digest: String) {
        #expect(Self.hex(SHA1.digest(Array(message.utf8))) == digest)
    }

    /// Padding crosses into a second block at 56 bytes: lengths on both sides of each boundary.
    @Test(arguments: [
        (55, "c1c8bbdc22796e28c0e15163d20899b65621d65a"),
        (56, "c2db330f6083854c99d4b5bfb6e8f29f201be699"),
        (63, "03f09f5b158a7a8cdad920bddc29b81c18a551f5"),
        (64, "0098ba824b5c16427bd7a1122a5a442a25ec644d"),
        (65, "11655326c708d70319be2610e8a57d9a5b959d3b"),
        (119, "ee971065aaa017e0632a8ca6c77bb3bf8b1dfc56"),
        (120, "f34c1488385346a55709ba056ddd08280dd4c6d6")
    ])
    func sha1IsRightAroundBlockBoundaries(length: Int, digest: String) {
        #expect(Self.hex(SHA1.digest(Array(repeating: UInt8(ascii: "a"), count: length))) == digest)
    }

    @Test(arguments: [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="),
        ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy")
    ])
    func base64MatchesRFC4648(plain: String, encoded: String) {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
        #expect(Base64.decode(encoded) == Array(plain.utf8))
    }

    @Test func base64RoundTripsEveryByte() {
        let bytes = (0...255).map { UInt8($0) }
        for n in 0...bytes.count {
            #expect(Base64.decode(Base64.encode(Array(bytes.prefix(n)))) == Array(bytes.prefix(n)))
        }
    }

    @Test(arguments: ["Zg=", "Zg", "Z===", "Zm9v!A==", "=Zg=", "Zg==Zg==", "Zm 9"])
    func base64RefusesWhatIsNotPaddedBase64(text: String) {
        #expect(Base64.decode(text) == nil)
    }

    /// RFC 6455 section 1.3.
    @Test func acceptKeyIsTheRFC6455Example() {
        #expect(
            WebSocketHandshake.acceptKey(for: "dGhlIHNhbXBsZSBub25jZQ==")
                == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }
}

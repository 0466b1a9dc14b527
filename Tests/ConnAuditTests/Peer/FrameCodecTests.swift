import ConnPeer
import Testing

/// Frames encode to RFC 6455's bytes and decode back, at every length form, masked or not, however
/// the bytes are cut into reads.
@Suite("WebSocket frame codec")
struct FrameCodecTests {
    /// All frames in `bytes`, fed `chunk` bytes at a time.
    static func decode(_ bytes: [UInt8], chunk: Int, requireMask: Bool = false) throws -> [Frame] {
        var decoder = FrameDecoder(requireMask: requireMask, maxPayload: 1 << 17)
        var frames: [Frame] = []
        for start in stride(from: 0, to: bytes.count, by: chunk) {
            decoder.append(bytes[start..<min(bytes.count, start + chunk)])
            while let frame = try decoder.next() { frames.append(frame) }
        }
        #expect(decoder.pendingBytes == 0)
        return frames
    }

    /// The examples of RFC 6455 section 5.7.
    @Test func encodingMatchesTheRFCExamples() {
        let hello = Array("Hello".utf8)
        #expect(
            Frame(opcode: .text, payload: hello).encoded() == [
                0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f
            ])
        #expect(
            Frame(opcode: .text, payload: hello).encoded(maskKey: [0x37, 0xfa, 0x21, 0x3d])
                == [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58])
        #expect(
            Frame(fin: false, opcode: .text, payload: Array("Hel".utf8)).encoded()
                == [0x01, 0x03, 0x48, 0x65, 0x6c])
        #expect(
            Frame(opcode: .continuation, payload: Array("lo".utf8)).encoded() == [
                0x80, 0x02, 0x6c, 0x6f
            ])
        #expect(
            Frame(opcode: .ping, payload: hello).encoded() == [
                0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f
            ])
        let twoFiftySix = Frame(opcode: .binary, payload: Array(repeating: 7, count: 256)).encoded()
        #expect(Array(twoFiftySix.prefix(4)) == [0x82, 0x7E, 0x01, 0x00])
        let sixtyFourK = Frame(opcode: .binary, payload: Array(repeating: 7, count: 65_536))
            .encoded()
        #expect(Array(sixtyFourK.prefix(10)) == [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0])
    }

    @Test(arguments: [0, 1, 125, 126, 127, 65_535, 65_536, 70_000])
    func framesRoundTripAtEveryLengthForm(length: Int) throws {
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        for mask in [nil, [UInt8(0x01), 0x80, 0xFF, 0x5A]] {
            let frame = Frame(opcode: .binary, payload: payload)
            let bytes = frame.encoded(maskKey: mask)
            let headerBytes =
                (length <= 125 ? 2 : length <= 65_535 ? 4 : 10) + (mask == nil ? 0 : 4)
            #expect(bytes.count == headerBytes + length)
            for chunk in [1, 7, bytes.count] where chunk == bytes.count || length < 300 {
                #expect(try Self.decode(bytes, chunk: chunk, requireMask: mask != nil) == [frame])
            }
        }
    }

    @Test func maskingIsItsOwnInverse() {
        let key: [UInt8] = [0xDE, 0xAD, 0xBE, 0xEF]
        let data = Array("masking keeps proxies from reading frames as HTTP".utf8)
        let masked = Frame.masked(data, with: key)
        #expect(masked != data)
        #expect(masked[0] == data[0] ^ 0xDE && masked[5] == data[5] ^ 0xAD)
        #expect(Frame.masked(masked, with: key) == data)
    }

    @Test func severalFramesInOneReadComeOutInOrder() throws {
        let frames = [
            Frame(opcode: .ping, payload: [1]), Frame(opcode: .text, payload: Array("a".utf8)),
            Frame.close(code: 1000, reason: "bye")
        ]
        let bytes = frames.flatMap { $0.encoded(maskKey: [9, 8, 7, 6]) }
        #expect(try Self.decode(bytes, chunk: bytes.count, requireMask: true) == frames)
    }
}

/// The decoder's buffer stays bounded when a client's reads never end on a frame boundary.
@Suite("Frame decoder buffer")
struct FrameDecoderBufferTests {
    @Test func readsThatAlwaysEndMidFrameKeepTheBufferSmall() throws {
        var decoder = FrameDecoder(requireMask: true)
        let frame = Frame(opcode: .binary, payload: Array(repeating: 7, count: 100))
            .encoded(maskKey: [1, 2, 3, 4])
        // Half a frame, then again and again the rest of one and half of the next.
        decoder.append(frame[..<50])
        var taken = 0
        for _ in 0..<5_000 {
            decoder.append(frame[50...] + frame[..<50])
            while let next = try decoder.next() {
                #expect(next.payload.count == 100)
                taken += 1
            }
            #expect(decoder.pendingBytes == 50)
        }
        #expect(taken == 5_000)
        // Without compaction the buffer would hold every byte ever read (over 500 KB).
        #expect(decoder.storedBytes <= 4 * frame.count)
    }

    @Test func aLargePrefixIsDroppedEvenBesideALargePendingFrame() throws {
        var decoder = FrameDecoder(requireMask: false, maxPayload: 1 << 20)
        let small = Frame(opcode: .binary, payload: Array(repeating: 1, count: 1_000)).encoded()
        let big = Frame(opcode: .binary, payload: Array(repeating: 2, count: 500_000)).encoded()
        // Many small frames taken, then a big one that arrives slowly.
        for _ in 0..<100 { decoder.append(small) }
        while try decoder.next() != nil {}
        decoder.append(big[..<200_000])
        #expect(try decoder.next() == nil)
        decoder.append(big[200_000..<400_000])
        #expect(decoder.storedBytes <= FrameDecoder.compactionBytes + 400_000)
        decoder.append(big[400_000...])
        #expect(try decoder.next()?.payload.count == 500_000)
    }

    /// A frame's declared length is checked before its payload is waited for: a header that
    /// announces 2^40 bytes is refused at once, with nothing buffered for it.
    @Test func anOversizedLengthIsRefusedBeforeItsPayload() {
        var decoder = FrameDecoder(requireMask: false, maxPayload: 1 << 20)
        decoder.append([0x82, 0x7F, 0, 0, 0x01, 0, 0, 0, 0, 0])
        #expect(throws: ProtocolViolation.self) { try decoder.next() }
    }
}

import ConnPeer
import Testing

/// A frame or frame sequence that breaks RFC 6455 is refused with the close code the peer then
/// sends: 1002 for protocol errors, 1007 for text that is not UTF-8, 1009 for what is too big.
@Suite("Bad WebSocket frames")
struct BadFrameTests {
    static let mask: [UInt8] = [1, 2, 3, 4]

    static func firstViolation(_ bytes: [UInt8], requireMask: Bool = true) -> ProtocolViolation? {
        var decoder = FrameDecoder(requireMask: requireMask, maxPayload: 1024)
        var assembler = MessageAssembler(maxMessage: 2048)
        decoder.append(bytes)
        do {
            while let frame = try decoder.next() { _ = try assembler.accept(frame) }
        } catch {
            return error
        }
        return nil
    }

    static func masked(_ frame: Frame) -> [UInt8] { frame.encoded(maskKey: mask) }

    @Test(arguments: [
        ("unmasked client frame", Frame(opcode: .text, payload: [0x61]).encoded(), UInt16(1002)),
        ("reserved bit", masked(Frame(opcode: .text, payload: [0x61], reserved: 0x40)), 1002),
        ("unknown opcode 3", [0x83, 0x80] + mask, 1002),
        ("fragmented ping", masked(Frame(fin: false, opcode: .ping)), 1002),
        (
            "ping of 126 bytes",
            masked(Frame(opcode: .ping, payload: Array(repeating: 0, count: 126))), 1002
        ),
        ("16-bit length under 126", [0x82, 0xFE, 0x00, 0x05] + mask + [1, 2, 3, 4, 5], 1002),
        ("64-bit length under 65,536", [0x82, 0xFF, 0, 0, 0, 0, 0, 0, 0x01, 0x00] + mask, 1002),
        ("64-bit length with its top bit", [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0] + mask, 1002),
        ("frame over the limit", [0x82, 0xFE, 0x04, 0x01] + mask, 1009),
        ("continuation first", masked(Frame(opcode: .continuation, payload: [0x61])), 1002),
        (
            "new message inside a fragmented one",
            masked(Frame(fin: false, opcode: .text, payload: [0x61]))
                + masked(Frame(opcode: .text)), 1002
        ),
        (
            "fragmented message over the limit",
            masked(Frame(fin: false, opcode: .binary, payload: Array(repeating: 0, count: 1024)))
                + masked(
                    Frame(
                        fin: false, opcode: .continuation, payload: Array(repeating: 0, count: 1024)
                    ))
                + masked(Frame(opcode: .continuation, payload: [0])), 1009
        ),
        ("text not UTF-8", masked(Frame(opcode: .text, payload: [0xC3, 0x28])), 1007),
        ("close payload of 1 byte", masked(Frame(opcode: .close, payload: [0x03])), 1002),
        ("close code 1005", masked(Frame.close(code: 1005)), 1002),
        ("close code 999", masked(Frame.close(code: 999)), 1002),
        ("close code 2999", masked(Frame.close(code: 2999)), 1002),
        ("close reason not UTF-8", masked(Frame(opcode: .close, payload: [0x03, 0xE8, 0xFF])), 1007)
    ])
    func aBadFrameGetsItsCloseCode(what: String, bytes: [UInt8], code: UInt16) {
        #expect(Self.firstViolation(bytes)?.code == code, "\(what)")
    }

    /// The registered codes (RFC 6455 and the IANA registry: 1012-1014 too) and the
    /// application ranges pass; the reserved ones and those never sent do not.
    @Test(arguments: [
        (UInt16(1000), true), (1001, true), (1003, true), (1007, true), (1011, true), (1012, true),
        (1013, true), (1014, true), (3000, true), (4999, true), (1004, false), (1005, false),
        (1006, false), (1015, false), (1016, false), (2999, false), (5000, false)
    ])
    func aCloseCodeIsCheckedAgainstTheRegistry(code: UInt16, valid: Bool) {
        #expect(CloseCode.isValidOnWire(code) == valid)
        #expect((Self.firstViolation(Self.masked(Frame.close(code: code))) == nil) == valid)
    }

    @Test func aServerSideDecoderTakesUnmaskedFrames() {
        #expect(
            Self.firstViolation(Frame(opcode: .text, payload: [0x61]).encoded(), requireMask: false)
                == nil)
    }
}

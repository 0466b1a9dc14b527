/// One WebSocket frame (RFC 6455 section 5.2) and its encoding.
///
/// The encoder picks the shortest length form: 7 bits up to 125 bytes, 16 bits up to 65,535,
/// 64 bits beyond. A mask key, when given, is written and applied to the payload (clients mask,
/// servers do not).
public struct Frame: Sendable, Equatable {
    public enum Opcode: UInt8, Sendable {
        case continuation = 0x0, text = 0x1, binary = 0x2, close = 0x8, ping = 0x9, pong = 0xA

        /// Close, ping and pong: never fragmented, at most 125 bytes of payload.
        public var isControl: Bool { rawValue & 0x8 != 0 }
    }

    public var fin: Bool
    public var opcode: Opcode
    public var payload: [UInt8]
    /// The three reserved bits (RSV1..3) as the top bits of the first byte: 0 unless an
    /// extension was negotiated, and the peer negotiates none.
    public var reserved: UInt8

    public init(fin: Bool = true, opcode: Opcode, payload: [UInt8] = [], reserved: UInt8 = 0) {
        self.fin = fin
        self.opcode = opcode
        self.payload = payload
        self.reserved = reserved
    }

    /// A close frame: the code (big-endian) and a UTF-8 reason; no payload without a code.
    public static func close(code: UInt16?, reason: String = "") -> Frame {
        guard let code else { return Frame(opcode: .close) }
        return Frame(
            opcode: .close, payload: [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8))
    }

    /// The frame on the wire, masked with `maskKey` (4 bytes) when one is given.
    public func encoded(maskKey: [UInt8]? = nil) -> [UInt8] {
        var out: [UInt8] = [(fin ? 0x80 : 0) | (reserved & 0x70) | opcode.rawValue]
        let maskBit: UInt8 = maskKey == nil ? 0 : 0x80
        let n = payload.count
        if n <= 125 {
            out.append(maskBit | UInt8(n))
        } else if n <= 0xFFFF {
            out.append(maskBit | 126)
            out += [UInt8(n >> 8), UInt8(n & 0xFF)]
        } else {
            out.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: UInt64(n) >> UInt64(shift)))
            }
        }
        if let maskKey {
            precondition(maskKey.count == 4, "a mask key is 4 bytes")
            out += maskKey
            out += Frame.masked(payload, with: maskKey)
        } else {
            out += payload
        }
        return out
    }

    /// `bytes` XOR the mask key, byte i with key byte i mod 4 (masking and unmasking are one).
    public static func masked(_ bytes: [UInt8], with key: [UInt8]) -> [UInt8] {
        var out = bytes
        for i in out.indices { out[i] ^= key[i & 3] }
        return out
    }
}

/// A frame or message that breaks RFC 6455: the peer answers with a close frame of `code`.
public struct ProtocolViolation: Error, Sendable, Equatable, CustomStringConvertible {
    /// The close code to send: 1002 protocol error, 1007 invalid data, 1009 too big.
    public var code: UInt16
    public var reason: String

    public init(code: UInt16, reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code) \(reason)" }
}

/// Close codes the peer uses and checks (RFC 6455 section 7.4).
public enum CloseCode {
    public static let normal: UInt16 = 1000
    public static let goingAway: UInt16 = 1001
    public static let protocolError: UInt16 = 1002
    public static let invalidData: UInt16 = 1007
    public static let tooBig: UInt16 = 1009
    public static let internalError: UInt16 = 1011

    /// True for a code a close frame may carry: 1000-1003, 1007-1014 (the IANA registry adds
    /// 1012 service restart, 1013 try again later, 1014 bad gateway to RFC 6455's) and
    /// 3000-4999. 1005, 1006 and 1015 stand for "no code", "no close frame" and "TLS failure" and
    /// are never sent; 1004 and the rest of 1016-2999 are reserved.
    public static func isValidOnWire(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }
}

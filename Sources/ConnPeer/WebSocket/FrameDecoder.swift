/// Cuts frames out of the bytes a connection delivers, in any chunks, and rejects bad ones.
///
/// A frame is rejected (``ProtocolViolation``) when a reserved bit is set, its opcode is unknown,
/// a control frame is fragmented or longer than 125 bytes, its length is not in the shortest form
/// or has the top bit set, it is unmasked where masking is required or masked where it is
/// forbidden, or its payload is over the limit (1009). Once a violation is thrown the connection is to be closed: the decoder keeps no
/// state worth resuming.
public struct FrameDecoder: Sendable {
    /// Frames from clients must be masked (RFC 6455 section 5.1).
    public var requireMask: Bool
    /// Frames from servers must not be masked (RFC 6455 section 5.1): a client sets this.
    public var forbidMask: Bool
    /// The largest payload accepted, in bytes.
    public var maxPayload: Int
    private var buffer: [UInt8] = []
    private var start = 0

    public init(requireMask: Bool = true, forbidMask: Bool = false, maxPayload: Int = 1 << 20) {
        self.requireMask = requireMask
        self.forbidMask = forbidMask
        self.maxPayload = maxPayload
    }

    /// Bytes received but not yet part of a whole frame.
    public var pendingBytes: Int { buffer.count - start }

    /// Bytes held, the frames already taken included. At an append the consumed prefix is kept
    /// only while it is at most ``compactionBytes`` and at most the pending bytes, however the
    /// reads fall.
    public var storedBytes: Int { buffer.count }

    /// A consumed prefix larger than this is dropped at the next append.
    public static let compactionBytes = 65_536

    /// Adds bytes from the connection. The bytes of frames already taken are dropped once they
    /// are over ``compactionBytes`` or over half the buffer, so a client whose reads always end
    /// mid-frame cannot make the buffer grow for ever; each byte moves at most once per halving.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        if start > 0 && (start > Self.compactionBytes || start * 2 > buffer.count) {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole frame, unmasked; nil when more bytes are needed.
    public mutating func next() throws(ProtocolViolation) -> Frame? {
        let available = buffer.count - start
        guard available >= 2 else { return nil }
        let b0 = buffer[start]
        let b1 = buffer[start + 1]
        let reserved = b0 & 0x70
        guard reserved == 0 else { throw violation("reserved bits set without an extension") }
        guard let opcode = Frame.Opcode(rawValue: b0 & 0x0F) else {
            throw violation("unknown opcode \(b0 & 0x0F)")
        }
        let fin = b0 & 0x80 != 0
        let masked = b1 & 0x80 != 0
        if opcode.isControl && !fin { throw violation("fragmented control frame") }
        if requireMask && !masked { throw violation("unmasked client frame") }
        if forbidMask && masked { throw violation("masked server frame") }
        var header = 2
        var length = UInt64(b1 & 0x7F)
        if length == 126 {
            guard available >= 4 else { return nil }
            length = UInt64(buffer[start + 2]) << 8 | UInt64(buffer[start + 3])
            header = 4
            guard length > 125 else { throw violation("length not in its shortest form") }
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = 0
            for i in 0..<8 { length = length << 8 | UInt64(buffer[start + 2 + i]) }
            header = 10
            guard length >> 63 == 0 else { throw violation("length with its top bit set") }
            guard length > 0xFFFF else { throw violation("length not in its shortest form") }
        }
        if opcode.isControl && length > 125 { throw violation("control frame over 125 bytes") }
        guard length <= UInt64(maxPayload) else {
            throw ProtocolViolation(
                code: CloseCode.tooBig, reason: "frame over \(maxPayload) bytes")
        }
        let maskBytes = masked ? 4 : 0
        let total = header + maskBytes + Int(length)
        guard available >= total else { return nil }
        let payloadStart = start + header + maskBytes
        var payload = Array(buffer[payloadStart..<(start + total)])
        if masked {
            let key = Array(buffer[(start + header)..<payloadStart])
            payload = Frame.masked(payload, with: key)
        }
        start += total
        return Frame(fin: fin, opcode: opcode, payload: payload)
    }

    private func violation(_ reason: String) -> ProtocolViolation {
        ProtocolViolation(code: CloseCode.protocolError, reason: reason)
    }
}

/// What a connection receives once frames are put together: whole messages and control frames.
public enum Incoming: Sendable, Equatable {
    case text(String)
    case binary([UInt8])
    case ping([UInt8])
    case pong([UInt8])
    /// A close frame: its code (nil when it had no payload) and reason.
    case close(code: UInt16?, reason: String)
}

/// Joins fragmented messages (a first frame, continuations, a final frame) and checks what RFC
/// 6455 requires of the frame sequence.
///
/// Control frames may come between the fragments of a message and are handed on at once. A
/// continuation with no message started, a new message before the last one ended, a message over
/// the limit (1009), text that is not UTF-8 (1007) and a close frame with a bad code or payload
/// are violations.
public struct MessageAssembler: Sendable {
    public var maxMessage: Int
    private var partial: (opcode: Frame.Opcode, payload: [UInt8])?

    public init(maxMessage: Int = 1 << 20) { self.maxMessage = maxMessage }

    /// True while a fragmented message has begun and not ended.
    public var isInsideMessage: Bool { partial != nil }

    /// Takes one frame; returns what it completes, or nil when a message continues.
    public mutating func accept(_ frame: Frame) throws(ProtocolViolation) -> Incoming? {
        switch frame.opcode {
        case .ping: return .ping(frame.payload)
        case .pong: return .pong(frame.payload)
        case .close: return try Self.close(frame.payload)
        case .text, .binary:
            guard partial == nil else {
                throw ProtocolViolation(
                    code: CloseCode.protocolError, reason: "new message inside a fragmented one")
            }
            if frame.fin { return try Self.message(frame.opcode, frame.payload) }
            try checkSize(frame.payload.count)
            partial = (frame.opcode, frame.payload)
            return nil
        case .continuation:
            guard var (opcode, payload) = partial else {
                throw ProtocolViolation(
                    code: CloseCode.protocolError, reason: "continuation with no message started")
            }
            try checkSize(payload.count + frame.payload.count)
            payload += frame.payload
            if !frame.fin {
                partial = (opcode, payload)
                return nil
            }
            partial = nil
            opcode = opcode == .text ? .text : .binary
            return try Self.message(opcode, payload)
        }
    }

    private func checkSize(_ count: Int) throws(ProtocolViolation) {
        guard count <= maxMessage else {
            throw ProtocolViolation(
                code: CloseCode.tooBig, reason: "message over \(maxMessage) bytes")
        }
    }

    private static func message(
        _ opcode: Frame.Opcode, _ payload: [UInt8]
    ) throws(ProtocolViolation) -> Incoming {
        guard opcode == .text else { return .binary(payload) }
        guard let text = String(validating: payload, as: UTF8.self) else {
            throw ProtocolViolation(
                code: CloseCode.invalidData, reason: "text message is not UTF-8")
        }
        return .text(text)
    }

    private static func close(_ payload: [UInt8]) throws(ProtocolViolation) -> Incoming {
        if payload.isEmpty { return .close(code: nil, reason: "") }
        guard payload.count >= 2 else {
            throw ProtocolViolation(
                code: CloseCode.protocolError, reason: "close payload of 1 byte")
        }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        guard CloseCode.isValidOnWire(code) else {
            throw ProtocolViolation(
                code: CloseCode.protocolError, reason: "close code \(code) not allowed")
        }
        guard let reason = String(validating: payload[2...], as: UTF8.self) else {
            throw ProtocolViolation(
                code: CloseCode.invalidData, reason: "close reason is not UTF-8")
        }
        return .close(code: code, reason: reason)
    }
}

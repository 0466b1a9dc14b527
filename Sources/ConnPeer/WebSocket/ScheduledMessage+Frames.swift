extension ScheduledMessage {
    /// The frames that carry the message: one text frame, or a first text frame and
    /// continuations of nearly equal size (never more frames than bytes).
    public var frames: [Frame] {
        let bytes = Array(text.utf8)
        let count = max(1, min(fragments, bytes.count))
        guard count > 1 else { return [Frame(opcode: .text, payload: bytes)] }
        let size = (bytes.count + count - 1) / count
        return stride(from: 0, to: bytes.count, by: size).enumerated().map { index, start in
            Frame(
                fin: start + size >= bytes.count, opcode: index == 0 ? .text : .continuation,
                payload: Array(bytes[start..<min(bytes.count, start + size)]))
        }
    }
}

/// Cuts `text/event-stream` bytes into events: field lines up to a blank line.
///
/// A line ends at CR, LF or CRLF, as the SSE spec says, so no id can hold a line break. An id
/// with a NUL is ignored, as the spec says: the id goes into a `Last-Event-ID` header.
struct EventStreamParser {
    struct Event: Equatable {
        var id: String?
        var data: [String] = []
        var retryMs: Int?
    }

    /// The longest line taken; a longer one breaks the stream.
    static let maxLine = 65_536

    private var line: [UInt8] = []
    private var pending = Event()
    private var hasFields = false
    /// True right after a CR: an LF then is the rest of a CRLF, not a blank line.
    private var afterCR = false
    /// True once a line ran past ``maxLine``: the stream is to be dropped.
    private(set) var overflowed = false

    /// The events the bytes complete; a partial line or event waits for more.
    mutating func feed(_ bytes: [UInt8]) -> [Event] {
        var out: [Event] = []
        for byte in bytes {
            let wasAfterCR = afterCR
            afterCR = byte == UInt8(ascii: "\r")
            if byte == UInt8(ascii: "\n") && wasAfterCR { continue }
            guard byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") else {
                guard line.count < Self.maxLine else {
                    overflowed = true
                    return out
                }
                line.append(byte)
                continue
            }
            let text = String(decoding: line, as: UTF8.self)
            line = []
            if text.isEmpty {
                if hasFields { out.append(pending) }
                pending = Event()
                hasFields = false
                continue
            }
            if text.hasPrefix(":") { continue }
            let name = text.prefix { $0 != ":" }
            var value = text.dropFirst(name.count).dropFirst()
            if value.first == " " { value = value.dropFirst() }
            switch name {
            case "id" where !value.contains("\0"): pending.id = String(value)
            case "data": pending.data.append(String(value))
            case "retry": pending.retryMs = Int(value)
            default: break
            }
            hasFields = true
        }
        return out
    }
}

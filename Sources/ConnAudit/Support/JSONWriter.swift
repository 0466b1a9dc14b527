/// A small JSON writer: objects keep the order keys are written in, so output is stable.
///
/// It writes UTF-8 bytes into one buffer (``finish()`` makes the string once, at the end): a report
/// of many findings is mostly short keys and escaped strings, and building each piece as a
/// `String` and appending it would cost several times what the text report does per finding.
///
/// Given a `flush`, the writer hands its bytes over whenever an object or array it closes leaves
/// ``flushSize`` or more of them, and keeps none: a report of a million findings is written as it
/// is made (an 850 MB JSON report was held whole, then copied twice, and peaked at 2.5 GB). A chunk
/// always ends with the `}` or `]` just written, so it is whole UTF-8 text.
struct JSONWriter {
    private var bytes: [UInt8] = []
    private var needsComma: [Bool] = [false]
    private let pretty: Bool
    private var depth: Int { needsComma.count - 1 }
    private let flush: (([UInt8]) -> Void)?
    static let flushSize = 1 << 20

    init(pretty: Bool = true, flush: (([UInt8]) -> Void)? = nil) {
        self.pretty = pretty
        self.flush = flush
    }

    /// What was written and a final newline, as text (the bytes are given up, not copied twice).
    /// With a `flush`, the rest is handed over and the text is empty.
    mutating func finish() -> String {
        bytes.append(UInt8(ascii: "\n"))
        defer { bytes = [] }
        if let flush {
            flush(bytes)
            return ""
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private mutating func separator() {
        if needsComma[needsComma.count - 1] { bytes.append(UInt8(ascii: ",")) }
        needsComma[needsComma.count - 1] = true
        if pretty && depth > 0 { newline() }
    }

    private mutating func newline() {
        bytes.append(UInt8(ascii: "\n"))
        for _ in 0..<(2 * depth) { bytes.append(UInt8(ascii: " ")) }
    }

    mutating func beginObject(_ key: String? = nil) { open(key, UInt8(ascii: "{")) }
    mutating func endObject() { close(UInt8(ascii: "}")) }
    mutating func beginArray(_ key: String? = nil) { open(key, UInt8(ascii: "[")) }
    mutating func endArray() { close(UInt8(ascii: "]")) }

    private mutating func open(_ key: String?, _ bracket: UInt8) {
        separator()
        if let key { writeKey(key) }
        bytes.append(bracket)
        needsComma.append(false)
    }

    private mutating func close(_ bracket: UInt8) {
        let hadItems = needsComma.removeLast()
        if pretty && hadItems { newline() }
        bytes.append(bracket)
        if let flush, bytes.count >= Self.flushSize {
            flush(bytes)
            bytes.removeAll(keepingCapacity: true)
        }
    }

    private mutating func writeKey(_ key: String) {
        JSONEscape.appendQuoted(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        if pretty { bytes.append(UInt8(ascii: " ")) }
    }

    mutating func key(_ key: String, _ value: String?) {
        separator()
        writeKey(key)
        if let value {
            JSONEscape.appendQuoted(value, to: &bytes)
        } else {
            bytes.append(contentsOf: "null".utf8)
        }
    }
    mutating func key(_ key: String, _ value: Int) { raw(key, String(value)) }
    mutating func key(_ key: String, _ value: Bool) { raw(key, value ? "true" : "false") }
    mutating func key(_ key: String, number: Double?) {
        raw(key, number.map(NumberText.json) ?? "null")
    }
    mutating func value(_ s: String) {
        separator()
        JSONEscape.appendQuoted(s, to: &bytes)
    }

    /// `json`, which must be JSON text already, under `key` (or as an array element).
    mutating func raw(_ key: String?, _ json: String) {
        separator()
        if let key { writeKey(key) }
        bytes.append(contentsOf: json.utf8)
    }
}

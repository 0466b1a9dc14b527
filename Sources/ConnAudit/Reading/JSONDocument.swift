/// Strict JSON (RFC 8259, UTF-8) decoded whole into a ``Value``: files conn-audit reads itself
/// (baselines, partial results) and JSON values inside other text (``SecretRedaction``).
///
/// It reads with the log parser's ``Cursor`` and number reader, so a document breaks with the
/// reason and at the byte a log line would. It scans nothing for secrets and knows nothing of
/// connlog: that is the log parser's job (``JSONLineParser``). Nesting is bounded by
/// ``JSONLineParser/maxDepth``, so a hostile file cannot exhaust the stack.
enum JSONDocument {
    /// The one JSON value `bytes` hold, with white space and newlines allowed around it.
    static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> Value {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONSyntaxError) -> Value in
            guard let base = buffer.baseAddress, buffer.count > 0 else {
                throw JSONSyntaxError(reason: "empty", offset: 0)
            }
            var c = Cursor(base: base, count: buffer.count)
            c.skipWhitespace()
            guard c.i < c.count else { throw JSONSyntaxError(reason: "empty", offset: 0) }
            let v = try value(&c, depth: 0)
            c.skipWhitespace()
            if c.i < c.count { throw .textAfterValue(at: c.i) }
            return v
        }
    }

    /// The JSON value at the start of `bytes` (white space before it skipped), and the offset just
    /// past it: text may follow. Nil when no value parses there.
    static func parsePrefix(_ bytes: UnsafeBufferPointer<UInt8>) -> (value: Value, end: Int)? {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return nil }
        var c = Cursor(base: base, count: bytes.count)
        c.skipWhitespace()
        guard c.i < c.count, let v = try? value(&c, depth: 0) else { return nil }
        return (v, c.i)
    }

    private static func value(_ c: inout Cursor, depth: Int) throws(JSONSyntaxError) -> Value {
        guard c.i < c.count else {
            throw JSONSyntaxError(reason: "unexpected end of line", offset: c.i)
        }
        switch c.peek {
        case UInt8(ascii: "\""):
            return .string(try string(&c))
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let maxDepth = JSONLineParser.maxDepth
            guard depth < maxDepth else {
                throw JSONSyntaxError(reason: "nested deeper than \(maxDepth)", offset: c.i)
            }
            if c.peek == UInt8(ascii: "{") { return try object(&c, depth: depth + 1) }
            return try array(&c, depth: depth + 1)
        case UInt8(ascii: "t"):
            try c.expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try c.expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try c.expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try JSONLineParser.parseNumber(&c, decode: true) ?? .null
        default:
            if c.peek >= 0x80, !c.validUTF8Sequence(at: c.i) {
                throw .notUTF8(at: c.i)
            }
            throw JSONSyntaxError(reason: "unexpected character", offset: c.i)
        }
    }

    private static func object(_ c: inout Cursor, depth: Int) throws(JSONSyntaxError) -> Value {
        if c.opensEmpty(closing: UInt8(ascii: "}")) { return .object([]) }
        var entries: [Value.ObjectEntry] = []
        repeat {
            try c.startOfKey()
            let key = try string(&c)
            try c.pastColon()
            entries.append(.init(key, try value(&c, depth: depth)))
        } while try !c.endOfMember(closing: UInt8(ascii: "}"))
        return .object(entries)
    }

    private static func array(_ c: inout Cursor, depth: Int) throws(JSONSyntaxError) -> Value {
        if c.opensEmpty(closing: UInt8(ascii: "]")) { return .array([]) }
        var items: [Value] = []
        repeat {
            c.skipWhitespace()
            items.append(try value(&c, depth: depth))
        } while try !c.endOfMember(closing: UInt8(ascii: "]"))
        return .array(items)
    }

    /// A string or key at the cursor's opening quote, decoded.
    private static func string(_ c: inout Cursor) throws(JSONSyntaxError) -> String {
        let (start, end, escaped) = try c.scanString()
        guard escaped else {
            return String(
                decoding: UnsafeBufferPointer(start: c.base + start, count: end - start),
                as: UTF8.self)
        }
        var bytes: [UInt8] = []
        try Cursor.unescape(c.base, start, end, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

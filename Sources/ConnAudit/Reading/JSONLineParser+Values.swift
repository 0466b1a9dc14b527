#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension JSONLineParser {
    /// Parses any JSON value; returns it decoded when `decode`, else nil (validated only).
    mutating func parseValue(
        _ c: inout Cursor, depth: Int, decode: Bool, flagged: Bool, out: inout ParsedLine
    ) throws(JSONSyntaxError) -> Value? {
        guard c.i < c.count else {
            throw JSONSyntaxError(reason: "unexpected end of line", offset: c.i)
        }
        switch c.peek {
        case UInt8(ascii: "\""):
            return try parseStringValue(&c, decode: decode, flagged: flagged, out: &out)
        case UInt8(ascii: "{"):
            guard depth < Self.maxDepth else {
                throw JSONSyntaxError(reason: "nested deeper than \(Self.maxDepth)", offset: c.i)
            }
            return try parseObject(
                &c, depth: depth + 1, decode: decode, flagged: flagged, out: &out)
        case UInt8(ascii: "["):
            guard depth < Self.maxDepth else {
                throw JSONSyntaxError(reason: "nested deeper than \(Self.maxDepth)", offset: c.i)
            }
            return try parseArray(&c, depth: depth + 1, decode: decode, flagged: flagged, out: &out)
        case UInt8(ascii: "t"):
            try c.expectLiteral("true")
            return decode ? .bool(true) : nil
        case UInt8(ascii: "f"):
            try c.expectLiteral("false")
            return decode ? .bool(false) : nil
        case UInt8(ascii: "n"):
            try c.expectLiteral("null")
            return decode ? .null : nil
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try Self.parseNumber(&c, decode: decode)
        default:
            if c.peek >= 0x80, !c.validUTF8Sequence(at: c.i) {
                throw .notUTF8(at: c.i)
            }
            throw JSONSyntaxError(reason: "unexpected character", offset: c.i)
        }
    }

    mutating func parseObject(
        _ c: inout Cursor, depth: Int, decode: Bool, flagged: Bool, out: inout ParsedLine
    ) throws(JSONSyntaxError) -> Value? {
        if c.opensEmpty(closing: UInt8(ascii: "}")) { return decode ? .object([]) : nil }
        var entries: [Value.ObjectEntry] = []
        while true {
            try c.startOfKey()
            let component = try parseKey(&c)
            try c.pastColon()
            let keyFlagged = keyBytes.withUnsafeBufferPointer { Self.isSecretKey($0) }
            if keyBytes.withUnsafeBufferPointer({ Self.keyHoldsToken($0) }) {
                keyTokenInside = true
            }
            let keyString = decode ? String(decoding: keyBytes, as: UTF8.self) : ""
            path.append(component)
            if keyFlagged {
                recordSecret(&out)
                secretKeyInside = true
            }
            let v = try parseValue(
                &c, depth: depth, decode: decode, flagged: flagged || keyFlagged, out: &out)
            path.removeLast()
            if decode, let v { entries.append(.init(keyString, v)) }
            if try c.endOfMember(closing: UInt8(ascii: "}")) { break }
        }
        return decode ? .object(entries) : nil
    }

    mutating func parseArray(
        _ c: inout Cursor, depth: Int, decode: Bool, flagged: Bool, out: inout ParsedLine
    ) throws(JSONSyntaxError) -> Value? {
        if c.opensEmpty(closing: UInt8(ascii: "]")) { return decode ? .array([]) : nil }
        var items: [Value] = []
        var index = 0
        while true {
            c.skipWhitespace()
            path.append(.index(index))
            let v = try parseValue(&c, depth: depth, decode: decode, flagged: flagged, out: &out)
            path.removeLast()
            if decode, let v { items.append(v) }
            index += 1
            if try c.endOfMember(closing: UInt8(ascii: "]")) { break }
        }
        return decode ? .array(items) : nil
    }

    /// A key: its raw range in the line, and its decoded bytes in ``keyBytes``.
    mutating func parseKey(_ c: inout Cursor) throws(JSONSyntaxError) -> PathComponent {
        let (start, end, escaped) = try c.scanString()
        keyBytes.removeAll(keepingCapacity: true)
        if escaped {
            try Cursor.unescape(c.base, start, end, into: &keyBytes)
        } else {
            keyBytes.append(
                contentsOf: UnsafeBufferPointer(start: c.base + start, count: end - start))
        }
        return .key(start: start, end: end, escaped: escaped)
    }

    mutating func parseStringValue(
        _ c: inout Cursor, decode: Bool, flagged: Bool, out: inout ParsedLine
    ) throws(JSONSyntaxError) -> Value? {
        let (start, end, escaped) = try c.scanString()
        if !escaped {
            let bytes = UnsafeBufferPointer(start: c.base + start, count: end - start)
            if !flagged, Self.containsToken(bytes) { recordSecret(&out) }
            return decode ? .string(String(decoding: bytes, as: UTF8.self)) : nil
        }
        scratch.removeAll(keepingCapacity: true)
        try Cursor.unescape(c.base, start, end, into: &scratch)
        let leaks = scratch.withUnsafeBufferPointer { Self.containsToken($0) }
        if !flagged, leaks { recordSecret(&out) }
        return decode ? .string(String(decoding: scratch, as: UTF8.self)) : nil
    }

    /// A top-level `ev`, `src` or `session` string, read through its table: a text met before is
    /// neither decoded nor scanned for tokens again. Sets ``ParsedLine/evID`` for an `ev` found
    /// or added; an escaped text takes the ordinary path.
    mutating func parseTableString(
        _ c: inout Cursor, ev: Bool, flagged: Bool, out: inout ParsedLine
    ) throws(JSONSyntaxError) -> Value? {
        let before = c.i
        let (start, end, escaped) = try c.scanString()
        if escaped {
            c.i = before
            return try parseStringValue(&c, decode: true, flagged: flagged, out: &out)
        }
        let bytes = UnsafeBufferPointer(start: c.base + start, count: end - start)
        if let hit = ev ? evTable.lookup(bytes) : sourceTable.lookup(bytes) {
            if ev { out.evID = evNameIDs[Int(hit.tag)] }
            return .string(hit.string)
        }
        let text = String(decoding: bytes, as: UTF8.self)
        if Self.containsToken(bytes) {
            if !flagged { recordSecret(&out) }
            return .string(text)
        }
        if ev {
            let id = loggedEvID(text)
            out.evID = id
            keepEvName(bytes, text, id: id)
        } else {
            _ = addSourceText(bytes, text)
        }
        return .string(text)
    }

    /// A line's `src` and `session` as values, whether it handed them on as texts' numbers
    /// (``ParsedLine/sourceTexts``) or as values.
    func sourceValues(of line: ParsedLine) -> (src: Value?, session: Value?) {
        guard let texts = line.sourceTexts else { return (line.src, line.session) }
        return (
            texts.src >= 0 ? .string(sourceTexts[Int(texts.src)]) : nil,
            texts.session >= 0 ? .string(sourceTexts[Int(texts.session)]) : nil
        )
    }

    /// Keeps a `src` or `session` text (free of tokens) in ``sourceTable`` and ``sourceTexts``;
    /// its number there, or nil when the table keeps no more or the text is too long for it.
    mutating func addSourceText(_ bytes: UnsafeBufferPointer<UInt8>, _ text: String) -> Int32? {
        guard bytes.count <= sourceTable.maxLength, sourceTable.count < sourceTable.capacity else {
            return nil
        }
        let id = Int32(sourceTexts.count)
        sourceTable.add(bytes, string: text, tag: id)
        sourceTexts.append(text)
        return id
    }

    /// 10^0 … 10^15, each exact in a double.
    static let powersOfTen: [Double] = (0...15).map { k in
        (0..<k).reduce(1.0) { acc, _ in acc * 10 }
    }

    static func parseNumber(_ c: inout Cursor, decode: Bool) throws(JSONSyntaxError) -> Value? {
        let start = c.i
        var isInteger = true
        let negative = c.peek == UInt8(ascii: "-")
        if negative { c.i += 1 }
        guard c.i < c.count else { throw JSONSyntaxError(reason: "bad number", offset: start) }
        // The integer part is read and accumulated in one pass (most numbers are small integers).
        var value: Int64 = 0
        var overflow = false
        if c.peek == UInt8(ascii: "0") {
            c.i += 1
        } else if c.peek >= UInt8(ascii: "1") && c.peek <= UInt8(ascii: "9") {
            while c.i < c.count {
                let digit = c.peek &- 0x30
                guard digit <= 9 else { break }
                if !overflow {
                    let (m, o1) = value.multipliedReportingOverflow(by: 10)
                    let (a, o2) =
                        negative
                        ? m.subtractingReportingOverflow(Int64(digit))
                        : m.addingReportingOverflow(Int64(digit))
                    if o1 || o2 { overflow = true } else { value = a }
                }
                c.i += 1
            }
        } else {
            throw JSONSyntaxError(reason: "bad number", offset: start)
        }
        var fractionDigits = 0
        if c.i < c.count, c.peek == UInt8(ascii: ".") {
            isInteger = false
            c.i += 1
            let digits = c.i
            while c.i < c.count, c.peek >= 0x30, c.peek <= 0x39 { c.i += 1 }
            if c.i == digits { throw JSONSyntaxError(reason: "bad number", offset: start) }
            fractionDigits = c.i - digits
        }
        var hasExponent = false
        if c.i < c.count, c.peek == UInt8(ascii: "e") || c.peek == UInt8(ascii: "E") {
            isInteger = false
            hasExponent = true
            c.i += 1
            if c.i < c.count, c.peek == UInt8(ascii: "+") || c.peek == UInt8(ascii: "-") {
                c.i += 1
            }
            let digits = c.i
            while c.i < c.count, c.peek >= 0x30, c.peek <= 0x39 { c.i += 1 }
            if c.i == digits { throw JSONSyntaxError(reason: "bad number", offset: start) }
        }
        guard decode else { return nil }
        let len = c.i - start
        // Exact 64-bit integers; on overflow the number is kept as a double.
        if isInteger, !overflow { return .int(value) }
        // A JSON integer beyond 64 bits keeps its digits: it compares as its decimal text.
        if isInteger {
            return .bigInt(
                String(
                    decoding: UnsafeBufferPointer(start: c.base + start, count: len), as: UTF8.self)
            )
        }
        // A decimal of at most 15 digits without an exponent: its digits as an integer are exact
        // in a double, and so is the power of ten, so one division rounds correctly (as strtod).
        let digitCount = len - (negative ? 1 : 0) - (fractionDigits > 0 ? 1 : 0)
        if !hasExponent, fractionDigits > 0, digitCount <= 15 {
            var mantissa: UInt64 = 0
            for k in start..<c.i
            where c.base[k] != UInt8(ascii: "-") && c.base[k] != UInt8(ascii: ".") {
                mantissa = mantissa * 10 + UInt64(c.base[k] &- 0x30)
            }
            let d = Double(mantissa) / Self.powersOfTen[fractionDigits]
            return .double(negative ? -d : d)
        }
        // Long integers and other decimals: strtod on a NUL-terminated copy.
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: len + 1) { copy in
            for k in 0..<len { copy[k] = CChar(bitPattern: c.base[start + k]) }
            copy[len] = 0
            return .double(strtod(copy.baseAddress!, nil))
        }
    }
}

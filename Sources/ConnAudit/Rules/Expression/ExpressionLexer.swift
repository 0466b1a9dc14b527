/// Splits an expression's text into tokens for ``ExpressionParser``.
struct ExpressionLexer {
    let text: [UInt8]
    var i = 0

    init(_ text: [UInt8]) { self.text = text }

    mutating func tokenize() throws(ExpressionError) -> [ExpressionParser.Token] {
        var out: [ExpressionParser.Token] = []
        while true {
            while i < text.count,
                text[i] == 0x20 || text[i] == 0x09 || text[i] == 0x0A || text[i] == 0x0D
            { i += 1 }
            guard i < text.count else {
                out.append(.init(kind: .end, offset: i, endOffset: i))
                return out
            }
            let start = i
            let b = text[i]
            if isIdentStart(b) {
                i += 1
                while i < text.count, isIdentPart(text[i]) { i += 1 }
                out.append(
                    .init(
                        kind: .ident(String(decoding: text[start..<i], as: UTF8.self)),
                        offset: start, endOffset: i))
            } else if b >= 0x30 && b <= 0x39 {
                out.append(try number(start))
            } else if b == 0x22 || b == 0x27 {
                out.append(try string(start, quote: b))
            } else {
                let two = i + 1 < text.count ? String(decoding: text[i...i + 1], as: UTF8.self) : ""
                if ["==", "!=", "<=", ">=", "??"].contains(two) {
                    i += 2
                    out.append(.init(kind: .punct(two), offset: start, endOffset: i))
                } else if "()[]{},.:+-*/%<>".utf8.contains(b) {
                    i += 1
                    out.append(
                        .init(kind: .punct(String(UnicodeScalar(b))), offset: start, endOffset: i))
                } else if b == UInt8(ascii: "=") {
                    throw ExpressionError(
                        message: "'=' is not an operator; use '==' to compare", offset: start)
                } else if b == UInt8(ascii: "&") || b == UInt8(ascii: "|") || b == UInt8(ascii: "!")
                {
                    throw ExpressionError(
                        message: "use 'and', 'or', 'not' instead of '\(UnicodeScalar(b))'",
                        offset: start)
                } else {
                    // The whole character, not its first byte (é is two bytes).
                    var end = i + 1
                    while end < text.count, text[end] & 0xC0 == 0x80 { end += 1 }
                    let shown = String(decoding: text[i..<end], as: UTF8.self).visibleControls
                    throw ExpressionError(message: "unexpected character '\(shown)'", offset: start)
                }
            }
        }
    }

    private func isIdentStart(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F || b == 0x24
    }
    private func isIdentPart(_ b: UInt8) -> Bool { isIdentStart(b) || (b >= 0x30 && b <= 0x39) }

    private mutating func number(_ start: Int) throws(ExpressionError) -> ExpressionParser.Token {
        var isInt = true
        while i < text.count, text[i] >= 0x30, text[i] <= 0x39 { i += 1 }
        if i + 1 < text.count, text[i] == 0x2E, text[i + 1] >= 0x30, text[i + 1] <= 0x39 {
            isInt = false
            i += 1
            while i < text.count, text[i] >= 0x30, text[i] <= 0x39 { i += 1 }
        }
        if i < text.count, text[i] == 0x65 || text[i] == 0x45 {
            var j = i + 1
            if j < text.count, text[j] == 0x2B || text[j] == 0x2D { j += 1 }
            if j < text.count, text[j] >= 0x30, text[j] <= 0x39 {
                isInt = false
                i = j
                while i < text.count, text[i] >= 0x30, text[i] <= 0x39 { i += 1 }
            }
        }
        let spelled = String(decoding: text[start..<i], as: UTF8.self)
        if isInt, let v = Int64(spelled) {
            return .init(kind: .number(.int(v)), offset: start, endOffset: i)
        }
        guard let d = Double(spelled), d.isFinite else {
            throw ExpressionError(message: "bad number '\(spelled)'", offset: start)
        }
        return .init(kind: .number(.double(d)), offset: start, endOffset: i)
    }

    private mutating func string(_ start: Int, quote: UInt8) throws(ExpressionError)
        -> ExpressionParser.Token
    {
        i += 1
        var bytes: [UInt8] = []
        while i < text.count {
            let b = text[i]
            if b == quote {
                i += 1
                return .init(
                    kind: .string(String(decoding: bytes, as: UTF8.self)), offset: start,
                    endOffset: i)
            }
            if b == 0x5C, i + 1 < text.count {
                let e = text[i + 1]
                switch e {
                case UInt8(ascii: "n"): bytes.append(0x0A)
                case UInt8(ascii: "t"): bytes.append(0x09)
                case 0x5C, 0x27, 0x22: bytes.append(e)
                // Any other escape is kept as written, so regexes read naturally: '\.' stays \.
                default: bytes.append(0x5C); bytes.append(e)
                }
                i += 2
                continue
            }
            bytes.append(b)
            i += 1
        }
        throw ExpressionError(message: "unterminated string", offset: start)
    }
}

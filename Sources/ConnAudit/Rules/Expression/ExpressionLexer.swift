/// Splits an expression's text into tokens for ``ExpressionParser``.
struct ExpressionLexer {
    let text: [UInt8]
    var i = 0

    init(_ text: [UInt8]) { self.text = text }

    mutating func tokenize() throws(ExpressionError) -> [ExpressionParser.Token] {
        var out: [ExpressionParser.Token] = []
        // About as many tokens as an expression of the pack has (a token and a space are
        // two bytes); more only grow the array.
        out.reserveCapacity(text.count / 2 + 2)
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
                        offset: start, endOffset: i, word: Self.word(text[start..<i])))
            } else if b >= 0x30 && b <= 0x39 {
                out.append(try number(start))
            } else if b == 0x22 || b == 0x27 {
                out.append(try string(start, quote: b))
            } else {
                let next = i + 1 < text.count ? text[i + 1] : 0
                if let p = Self.twoBytePunct(b, next) {
                    i += 2
                    out.append(.init(kind: .punct(p), offset: start, endOffset: i))
                } else if let p = Self.oneBytePunct(b) {
                    i += 1
                    out.append(.init(kind: .punct(p), offset: start, endOffset: i))
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

    /// `==`, `!=`, `<=`, `>=` or `??` as the bytes `b`, `next`.
    private static func twoBytePunct(_ b: UInt8, _ next: UInt8) -> ExpressionParser.Punct? {
        switch (b, next) {
        case (0x3D, 0x3D): return .equal
        case (0x21, 0x3D): return .notEqual
        case (0x3C, 0x3D): return .lessEqual
        case (0x3E, 0x3D): return .greaterEqual
        case (0x3F, 0x3F): return .coalesce
        default: return nil
        }
    }

    /// One of `()[]{},.:+-*/%<>` as the byte `b`.
    private static func oneBytePunct(_ b: UInt8) -> ExpressionParser.Punct? {
        switch b {
        case UInt8(ascii: "("): return .openParen
        case UInt8(ascii: ")"): return .closeParen
        case UInt8(ascii: "["): return .openBracket
        case UInt8(ascii: "]"): return .closeBracket
        case UInt8(ascii: "{"): return .openBrace
        case UInt8(ascii: "}"): return .closeBrace
        case UInt8(ascii: ","): return .comma
        case UInt8(ascii: "."): return .dot
        case UInt8(ascii: ":"): return .colon
        case UInt8(ascii: "+"): return .plus
        case UInt8(ascii: "-"): return .minus
        case UInt8(ascii: "*"): return .star
        case UInt8(ascii: "/"): return .slash
        case UInt8(ascii: "%"): return .percent
        case UInt8(ascii: "<"): return .less
        case UInt8(ascii: ">"): return .greater
        default: return nil
        }
    }

    /// The word the grammar gives a meaning to that `name` spells, if any.
    private static func word(_ name: ArraySlice<UInt8>) -> ExpressionParser.Word {
        guard let first = name.first, name.count <= 5 else { return .other }
        func spells(_ w: StaticString) -> Bool {
            name.count == w.utf8CodeUnitCount && w.withUTF8Buffer { name.elementsEqual($0) }
        }
        switch first {
        case UInt8(ascii: "a"): return spells("and") ? .and : .other
        case UInt8(ascii: "o"): return spells("or") ? .or : .other
        case UInt8(ascii: "i"): return spells("in") ? .isIn : spells("if") ? .if : .other
        case UInt8(ascii: "n"): return spells("not") ? .not : spells("null") ? .null : .other
        case UInt8(ascii: "t"): return spells("then") ? .then : spells("true") ? .true : .other
        case UInt8(ascii: "e"): return spells("else") ? .else : .other
        case UInt8(ascii: "s"): return spells("since") ? .since : .other
        case UInt8(ascii: "f"): return spells("false") ? .false : .other
        default: return .other
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

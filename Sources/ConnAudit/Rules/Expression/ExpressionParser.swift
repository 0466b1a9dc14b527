/// A parse error inside an expression string: `offset` is a byte offset into the expression.
public struct ExpressionError: Error, Sendable {
    public var message: String
    public var offset: Int
}

/// Parses expression strings into ``Expr``.
///
/// Precedence, loosest first: `if … then … else`, `or`, `and`, `not`, comparisons and `in`,
/// `??`, `+ -`, `* / %`, unary `-`, then postfix `.name`, `[index]` and calls.
/// History functions take a selector written as a flow map (`count({ev: ws.ping, where: "…"})`);
/// the map's text is handed to `compileSelector`, which the rule loader supplies (it parses it as
/// YAML so selectors read the same everywhere).
public struct ExpressionParser {
    public typealias SelectorCompiler = (_ text: String, _ offset: Int) throws(ExpressionError) -> Selector

    private let text: [UInt8]
    private var tokens: [Token] = []
    private var position = 0
    private let compileSelector: SelectorCompiler

    /// Nesting bound: a hostile expression cannot exhaust the stack.
    static let maxDepth = 100
    private var depth = 0

    public init(_ source: String, compileSelector: @escaping SelectorCompiler) {
        text = Array(source.utf8)
        self.compileSelector = compileSelector
    }

    public static func parse(
        _ source: String, compileSelector: @escaping SelectorCompiler
    ) throws(ExpressionError) -> Expr {
        var parser = ExpressionParser(source, compileSelector: compileSelector)
        let e = try parser.parseAll()
        return e
    }

    public mutating func parseAll() throws(ExpressionError) -> Expr {
        var lexer = Lexer(text)
        tokens = try lexer.tokenize()
        position = 0
        let e = try parseExpr()
        guard case .end = current.kind else {
            throw ExpressionError(message: "unexpected \(current.kind.describe) after the expression", offset: current.offset)
        }
        // Long flat chains (a or b or c …) nest as deep as they are long; everything that walks
        // an expression recurses, so the depth is bounded whatever the shape.
        if Self.depth(of: e, limit: Self.maxDepth) > Self.maxDepth {
            throw ExpressionError(message: "expression nested deeper than \(Self.maxDepth) (split a long chain of and/or/+ into let: bindings)", offset: 0)
        }
        return e
    }

    /// The depth of an expression tree, measured without recursion; stops counting past `limit`.
    static func depth(of root: Expr, limit: Int) -> Int {
        var stack: [(Expr, Int)] = [(root, 1)]
        var deepest = 0
        while let (e, d) = stack.popLast() {
            deepest = max(deepest, d)
            if deepest > limit { return deepest }
            switch e {
            case .literal, .name, .field: break
            case .member(let b, _, _, _): stack.append((b, d + 1))
            case .index(let a, let b): stack.append((a, d + 1)); stack.append((b, d + 1))
            case .list(let items): for i in items { stack.append((i, d + 1)) }
            case .map(let entries): for (_, v) in entries { stack.append((v, d + 1)) }
            case .unary(_, let a): stack.append((a, d + 1))
            case .binary(_, let a, let b, _): stack.append((a, d + 1)); stack.append((b, d + 1))
            case .conditional(let a, let b, let c): stack.append((a, d + 1)); stack.append((b, d + 1)); stack.append((c, d + 1))
            case .call(_, let args, _): for a in args { stack.append((a, d + 1)) }
            case .regex(let a, _): stack.append((a, d + 1))
            case .history(let call): if let v = call.value { stack.append((v, d + 1)) }
            }
        }
        return deepest
    }

    // MARK: - Tokens

    struct Token {
        enum Kind: Equatable {
            case number(Value)
            case string(String)
            case ident(String)
            case punct(String)
            case end

            var describe: String {
                switch self {
                case .number(let v): return "number \(v.rendered())"
                case .string(let s): return "string '\(s)'"
                case .ident(let s): return "'\(s)'"
                case .punct(let p): return "'\(p)'"
                case .end: return "end of expression"
                }
            }
        }
        var kind: Kind
        var offset: Int
        var endOffset: Int
    }

    private var current: Token { tokens[position] }

    private mutating func advance() -> Token {
        let t = tokens[position]
        if position < tokens.count - 1 { position += 1 }
        return t
    }

    private func isPunct(_ p: String) -> Bool { current.kind == .punct(p) }
    private func isWord(_ w: String) -> Bool { current.kind == .ident(w) }

    private mutating func expectPunct(_ p: String) throws(ExpressionError) {
        guard isPunct(p) else {
            throw ExpressionError(message: "expected '\(p)' but found \(current.kind.describe)", offset: current.offset)
        }
        _ = advance()
    }

    /// A list written with literals only (`['int', 'number']`) is one literal value, made once
    /// here instead of as a new array each time it is evaluated; the same for a map. Evaluating
    /// either gives the same value as the items one by one would.
    static func folded(list items: [Expr]) -> Expr {
        var values: [Value] = []
        values.reserveCapacity(items.count)
        for item in items {
            guard case .literal(let v) = item else { return .list(items) }
            values.append(v)
        }
        return .literal(.array(values))
    }

    static func folded(map entries: [(String, Expr)]) -> Expr {
        var out: [Value.ObjectEntry] = []
        out.reserveCapacity(entries.count)
        for (key, item) in entries {
            guard case .literal(let v) = item else { return .map(entries) }
            out.append(.init(key, v))
        }
        return .literal(.object(out))
    }

    // MARK: - Grammar

    private mutating func parseExpr() throws(ExpressionError) -> Expr {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else {
            throw ExpressionError(message: "expression nested deeper than \(Self.maxDepth)", offset: current.offset)
        }
        if isWord("if") {
            _ = advance()
            let condition = try parseExpr()
            guard isWord("then") else {
                throw ExpressionError(message: "expected 'then' but found \(current.kind.describe)", offset: current.offset)
            }
            _ = advance()
            let a = try parseExpr()
            guard isWord("else") else {
                throw ExpressionError(message: "expected 'else' but found \(current.kind.describe)", offset: current.offset)
            }
            _ = advance()
            let b = try parseExpr()
            return .conditional(condition, a, b)
        }
        return try parseOr()
    }

    private mutating func parseOr() throws(ExpressionError) -> Expr {
        var left = try parseAnd()
        while isWord("or") {
            let at = advance().offset
            left = .binary(.or, left, try parseAnd(), at: at)
        }
        return left
    }

    private mutating func parseAnd() throws(ExpressionError) -> Expr {
        var left = try parseNot()
        while isWord("and") {
            let at = advance().offset
            left = .binary(.and, left, try parseNot(), at: at)
        }
        return left
    }

    private mutating func parseNot() throws(ExpressionError) -> Expr {
        if isWord("not") {
            _ = advance()
            depth += 1
            defer { depth -= 1 }
            guard depth <= Self.maxDepth else {
                throw ExpressionError(message: "expression nested deeper than \(Self.maxDepth)", offset: current.offset)
            }
            return .unary(.not, try parseNot())
        }
        return try parseComparison()
    }

    private mutating func parseComparison() throws(ExpressionError) -> Expr {
        let left = try parseCoalesce()
        let ops: [String: Expr.BinaryOp] = [
            "==": .equal, "!=": .notEqual, "<": .less, "<=": .lessEqual, ">": .greater, ">=": .greaterEqual,
        ]
        if case .punct(let p) = current.kind, let op = ops[p] {
            let at = advance().offset
            return .binary(op, left, try parseCoalesce(), at: at)
        }
        if isWord("in") {
            let at = advance().offset
            return .binary(.isIn, left, try parseCoalesce(), at: at)
        }
        if isWord("not"), position + 1 < tokens.count, tokens[position + 1].kind == .ident("in") {
            let at = advance().offset
            _ = advance()
            return .binary(.notIn, left, try parseCoalesce(), at: at)
        }
        return left
    }

    private mutating func parseCoalesce() throws(ExpressionError) -> Expr {
        // Right-associative, built without recursion: a ?? b ?? c is a ?? (b ?? c).
        var operands = [try parseAdditive()]
        var offsets: [Int] = []
        while isPunct("??") {
            offsets.append(advance().offset)
            operands.append(try parseAdditive())
        }
        var e = operands.removeLast()
        while let left = operands.popLast() {
            e = .binary(.coalesce, left, e, at: offsets.removeLast())
        }
        return e
    }

    private mutating func parseAdditive() throws(ExpressionError) -> Expr {
        var left = try parseMultiplicative()
        while isPunct("+") || isPunct("-") {
            let token = advance()
            let op: Expr.BinaryOp = token.kind == .punct("+") ? .add : .subtract
            left = .binary(op, left, try parseMultiplicative(), at: token.offset)
        }
        return left
    }

    private mutating func parseMultiplicative() throws(ExpressionError) -> Expr {
        var left = try parseUnary()
        while isPunct("*") || isPunct("/") || isPunct("%") {
            let token = advance()
            let op: Expr.BinaryOp = token.kind == .punct("*") ? .multiply : token.kind == .punct("/") ? .divide : .remainder
            left = .binary(op, left, try parseUnary(), at: token.offset)
        }
        return left
    }

    private mutating func parseUnary() throws(ExpressionError) -> Expr {
        if isPunct("-") {
            _ = advance()
            depth += 1
            defer { depth -= 1 }
            guard depth <= Self.maxDepth else {
                throw ExpressionError(message: "expression nested deeper than \(Self.maxDepth)", offset: current.offset)
            }
            return .unary(.negate, try parseUnary())
        }
        return try parsePostfix()
    }

    private mutating func parsePostfix() throws(ExpressionError) -> Expr {
        var e = try parsePrimary()
        while true {
            if isPunct(".") {
                _ = advance()
                guard case .ident(let name) = current.kind else {
                    throw ExpressionError(message: "expected a field name after '.'", offset: current.offset)
                }
                let at = advance().offset
                e = .member(e, name, id: -1, at: at)
            } else if isPunct("[") {
                _ = advance()
                let index = try parseExpr()
                try expectPunct("]")
                e = .index(e, index)
            } else {
                return e
            }
        }
    }

    static let valueFunctions: [String: ClosedRange<Int>] = [
        "min": 1...16, "max": 1...16, "abs": 1...1, "pow": 2...2, "text": 1...1, "is_int": 1...1,
        "type": 1...1, "matches": 2...2, "len": 1...1, "str": 1...1, "json": 1...1,
    ]

    private mutating func parsePrimary() throws(ExpressionError) -> Expr {
        let token = advance()
        switch token.kind {
        case .number(let v): return .literal(v)
        case .string(let s): return .literal(.string(s))
        case .ident(let word):
            switch word {
            case "true": return .literal(.bool(true))
            case "false": return .literal(.bool(false))
            case "null": return .literal(.null)
            case "and", "or", "not", "in", "if", "then", "else":
                throw ExpressionError(message: "unexpected '\(word)'", offset: token.offset)
            default: break
            }
            if isPunct("(") {
                if let kind = HistoryCall.Kind(rawValue: word) { return try parseHistory(kind, at: token.offset) }
                guard let arity = Self.valueFunctions[word] else {
                    throw ExpressionError(message: "unknown function '\(word)'", offset: token.offset)
                }
                _ = advance()
                var args: [Expr] = []
                if !isPunct(")") {
                    while true {
                        args.append(try parseExpr())
                        if isPunct(",") { _ = advance(); continue }
                        break
                    }
                }
                try expectPunct(")")
                guard arity.contains(args.count) else {
                    let want = arity.lowerBound == arity.upperBound ? "\(arity.lowerBound)" : "\(arity.lowerBound) to \(arity.upperBound)"
                    throw ExpressionError(message: "\(word)() takes \(want) argument(s), not \(args.count)", offset: token.offset)
                }
                if word == "matches" {
                    guard case .literal(.string(let pattern)) = args[1] else {
                        throw ExpressionError(message: "matches() takes a quoted regular expression as its second argument", offset: token.offset)
                    }
                    do throws(RegexSyntaxError) {
                        return .regex(args[0], try BoundedRegex(pattern))
                    } catch {
                        throw ExpressionError(message: "bad regular expression: \(error.message)", offset: token.offset)
                    }
                }
                guard let function = Expr.Function(rawValue: word) else {
                    throw ExpressionError(message: "unknown function '\(word)'", offset: token.offset)
                }
                return .call(function, args, at: token.offset)
            }
            return .name(word, at: token.offset)
        case .punct("("):
            let e = try parseExpr()
            try expectPunct(")")
            return e
        case .punct("["):
            var items: [Expr] = []
            if !isPunct("]") {
                while true {
                    items.append(try parseExpr())
                    if isPunct(",") { _ = advance(); continue }
                    break
                }
            }
            try expectPunct("]")
            return Self.folded(list: items)
        case .punct("{"):
            var entries: [(String, Expr)] = []
            if !isPunct("}") {
                while true {
                    let keyToken = advance()
                    let key: String
                    switch keyToken.kind {
                    case .ident(let k): key = k
                    case .string(let k): key = k
                    case .number(let v): key = v.rendered()
                    default:
                        throw ExpressionError(message: "expected a key in the map", offset: keyToken.offset)
                    }
                    try expectPunct(":")
                    entries.append((key, try parseExpr()))
                    if isPunct(",") { _ = advance(); continue }
                    break
                }
            }
            try expectPunct("}")
            return Self.folded(map: entries)
        case .end:
            throw ExpressionError(message: "unexpected end of expression", offset: token.offset)
        default:
            throw ExpressionError(message: "unexpected \(token.kind.describe)", offset: token.offset)
        }
    }

    /// `first(SEL)`, `count(SEL, since: SEL-or-capture)`: SEL is a flow map, compiled by the loader.
    private mutating func parseHistory(_ kind: HistoryCall.Kind, at: Int) throws(ExpressionError) -> Expr {
        try expectPunct("(")
        let selector = try parseSelectorArgument(for: kind.rawValue)
        var value: Expr?
        if kind == .maxof || kind == .minof {
            guard isPunct(",") else {
                throw ExpressionError(message: "\(kind.rawValue)() takes a selector and a value: \(kind.rawValue)({ev: ws.connect}, gen)", offset: current.offset)
            }
            _ = advance()
            value = try parseExpr()
        }
        var since: HistoryCall.Since?
        if isPunct(",") {
            _ = advance()
            guard isWord("since") else {
                throw ExpressionError(message: "expected 'since:' but found \(current.kind.describe)", offset: current.offset)
            }
            _ = advance()
            try expectPunct(":")
            if case .ident(let capture) = current.kind {
                _ = advance()
                since = .capture(capture)
            } else {
                since = .selector(try parseSelectorArgument(for: "since"))
            }
        }
        try expectPunct(")")
        return .history(HistoryCall(kind: kind, selector: selector, value: value, since: since, slot: HistoryCall.nextSlot(), at: at))
    }

    private mutating func parseSelectorArgument(for function: String) throws(ExpressionError) -> Selector {
        guard isPunct("{") || isPunct("[") else {
            throw ExpressionError(message: "\(function)() takes a selector such as {ev: ws.ping}", offset: current.offset)
        }
        let open = current
        let closing = open.kind == .punct("{") ? "}" : "]"
        let opening = open.kind == .punct("{") ? "{" : "["
        // Find the matching close token, then hand the raw text to the selector compiler.
        var level = 0
        var index = position
        while index < tokens.count {
            let k = tokens[index].kind
            if k == .punct("{") || k == .punct("[") { level += 1 }
            if k == .punct("}") || k == .punct("]") {
                level -= 1
                if level == 0 { break }
            }
            if k == .end { break }
            index += 1
        }
        guard index < tokens.count, tokens[index].kind == .punct(closing) else {
            throw ExpressionError(message: "unclosed '\(opening)' in the selector", offset: open.offset)
        }
        let endOffset = tokens[index].endOffset
        let slice = String(decoding: text[open.offset..<endOffset], as: UTF8.self)
        position = index
        _ = advance()
        return try compileSelector(slice, open.offset)
    }
}

// MARK: - Lexer

private struct Lexer {
    let text: [UInt8]
    var i = 0

    init(_ text: [UInt8]) { self.text = text }

    mutating func tokenize() throws(ExpressionError) -> [ExpressionParser.Token] {
        var out: [ExpressionParser.Token] = []
        while true {
            while i < text.count, text[i] == 0x20 || text[i] == 0x09 || text[i] == 0x0A || text[i] == 0x0D { i += 1 }
            guard i < text.count else {
                out.append(.init(kind: .end, offset: i, endOffset: i))
                return out
            }
            let start = i
            let b = text[i]
            if isIdentStart(b) {
                i += 1
                while i < text.count, isIdentPart(text[i]) { i += 1 }
                out.append(.init(kind: .ident(String(decoding: text[start..<i], as: UTF8.self)), offset: start, endOffset: i))
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
                    out.append(.init(kind: .punct(String(UnicodeScalar(b))), offset: start, endOffset: i))
                } else if b == UInt8(ascii: "=") {
                    throw ExpressionError(message: "'=' is not an operator; use '==' to compare", offset: start)
                } else if b == UInt8(ascii: "&") || b == UInt8(ascii: "|") || b == UInt8(ascii: "!") {
                    throw ExpressionError(message: "use 'and', 'or', 'not' instead of '\(UnicodeScalar(b))'", offset: start)
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

    private mutating func string(_ start: Int, quote: UInt8) throws(ExpressionError) -> ExpressionParser.Token {
        i += 1
        var bytes: [UInt8] = []
        while i < text.count {
            let b = text[i]
            if b == quote {
                i += 1
                return .init(kind: .string(String(decoding: bytes, as: UTF8.self)), offset: start, endOffset: i)
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

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
    /// Compiles the selector of a history call from its text; `depth` is the nesting the call
    /// stands at, from which the `where:` expressions inside the selector go on counting.
    public typealias SelectorCompiler = (_ text: String, _ offset: Int, _ depth: Int)
        throws(ExpressionError) -> Selector

    private let text: [UInt8]
    private var tokens: [Token] = []
    private var position = 0
    private let compileSelector: SelectorCompiler

    /// Nesting bound: a hostile expression cannot exhaust the stack, in parsing it or in anything
    /// that walks, evaluates or frees its tree.
    static let maxDepth = 100
    /// How deep the parser has recursed (`parseExpr`, `not`, unary minus): its own stack.
    private var depth: Int
    /// Nodes certain to enclose what is being parsed: each whose operator or opening was read
    /// (the binary node of a right operand, a call's node, …). With the height of a node just
    /// built, it bounds the finished tree's depth from below, so a tree that will be too deep
    /// is refused where it passes the limit, before it is any deeper.
    private var enclosing: Int

    /// `depth` is where the expression starts: 0 for one of its own, the depth a history call
    /// stands at (``SelectorCompiler``) for a `where:` inside the call's selector.
    public init(_ source: String, depth: Int = 0, compileSelector: @escaping SelectorCompiler) {
        text = Array(source.utf8)
        self.compileSelector = compileSelector
        self.depth = depth
        enclosing = depth
    }

    public static func parse(
        _ source: String, depth: Int = 0, compileSelector: @escaping SelectorCompiler
    ) throws(ExpressionError) -> Expr {
        var parser = ExpressionParser(source, depth: depth, compileSelector: compileSelector)
        let e = try parser.parseAll()
        return e
    }

    public mutating func parseAll() throws(ExpressionError) -> Expr {
        var lexer = ExpressionLexer(text)
        tokens = try lexer.tokenize()
        position = 0
        let e = try parseExpr()
        guard case .end = current.kind else {
            throw ExpressionError(
                message: "unexpected \(current.kind.describe) after the expression",
                offset: current.offset)
        }
        return e.expr
    }

    /// A sub-expression and the height of its tree (1 for a leaf), as the evaluator and every
    /// walk recurse over it: a history call's selector is not part of it (its `where:`
    /// expressions are parsed on their own, from the call's depth on).
    private struct Parsed {
        var expr: Expr
        var height: Int
    }

    private static let tooDeepMessage =
        "expression nested deeper than \(maxDepth) (split a long chain of and/or/+ into let: bindings)"

    /// `expr`, whose tree is `height` high, unless the whole tree is then certain to be deeper
    /// than the limit. Long flat chains (a or b or c …) nest as deep as they are long: each link
    /// is measured as it is built, so no tree deeper than the limit is ever built (nor freed,
    /// which recurses too).
    private func node(_ expr: Expr, height: Int, at offset: Int) throws(ExpressionError) -> Parsed {
        try check(height: height, at: offset)
        return Parsed(expr: expr, height: height)
    }

    /// Refuses a node `height` high here when the tree is then certain to be deeper than the limit.
    private func check(height: Int, at offset: Int) throws(ExpressionError) {
        guard enclosing + height <= Self.maxDepth else {
            throw ExpressionError(message: Self.tooDeepMessage, offset: offset)
        }
    }

    // MARK: - Tokens

    struct Token {
        enum Kind: Equatable {
            case number(Value)
            case string(String)
            case ident(String)
            case punct(Punct)
            case end

            var describe: String {
                switch self {
                case .number(let v): return "number \(v.rendered())"
                case .string(let s): return "string '\(s)'"
                case .ident(let s): return "'\(s)'"
                case .punct(let p): return "'\(p.rawValue)'"
                case .end: return "end of expression"
                }
            }
        }
        var kind: Kind
        var offset: Int
        var endOffset: Int
        /// The grammar's meaning of an identifier's spelling (``Word/other`` for a name).
        var word: Word = .other
    }

    /// The operators and brackets, as spelled.
    enum Punct: String {
        case equal = "==", notEqual = "!=", lessEqual = "<=", greaterEqual = ">=", coalesce = "??"
        case openParen = "(", closeParen = ")", openBracket = "[", closeBracket = "]"
        case openBrace = "{", closeBrace = "}", comma = ",", dot = ".", colon = ":"
        case plus = "+", minus = "-", star = "*", slash = "/", percent = "%"
        case less = "<", greater = ">"
    }

    /// The identifiers the grammar reads as words of its own.
    enum Word: String {
        case other = ""
        case and, or, not, isIn = "in", `if`, then, `else`, since, `true`, `false`, null
    }

    private var current: Token { tokens[position] }

    private mutating func advance() -> Token {
        let t = tokens[position]
        if position < tokens.count - 1 { position += 1 }
        return t
    }

    private func isPunct(_ p: Punct) -> Bool {
        if case .punct(let q) = current.kind { return q == p }
        return false
    }
    private func isWord(_ w: Word) -> Bool { current.word == w }

    private mutating func expectPunct(_ p: Punct) throws(ExpressionError) {
        guard isPunct(p) else {
            throw ExpressionError(
                message: "expected '\(p.rawValue)' but found \(current.kind.describe)",
                offset: current.offset)
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

    // `enclosing` goes up by one around what a node read so far is certain to hold, and down
    // again after it; an error ends the parse, so it is not restored on the way out.

    private mutating func parseExpr() throws(ExpressionError) -> Parsed {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else {
            throw ExpressionError(
                message: "expression nested deeper than \(Self.maxDepth)", offset: current.offset)
        }
        if isWord(.if) {
            let at = advance().offset
            enclosing += 1
            let condition = try parseExpr()
            guard isWord(.then) else {
                throw ExpressionError(
                    message: "expected 'then' but found \(current.kind.describe)",
                    offset: current.offset)
            }
            _ = advance()
            let a = try parseExpr()
            guard isWord(.else) else {
                throw ExpressionError(
                    message: "expected 'else' but found \(current.kind.describe)",
                    offset: current.offset)
            }
            _ = advance()
            let b = try parseExpr()
            enclosing -= 1
            return try node(
                .conditional(condition.expr, a.expr, b.expr),
                height: 1 + max(condition.height, a.height, b.height), at: at)
        }
        return try parseOr()
    }

    /// `left OP right` for a right operand read by `operand` (the node encloses it).
    private mutating func binary(
        _ op: Expr.BinaryOp, _ left: Parsed, at: Int,
        _ operand: (inout Self) throws(ExpressionError) -> Parsed
    ) throws(ExpressionError) -> Parsed {
        enclosing += 1
        let right = try operand(&self)
        enclosing -= 1
        return try node(
            .binary(op, left.expr, right.expr, at: at), height: 1 + max(left.height, right.height),
            at: at)
    }

    /// A prefix operator (`not`, `-`) at the current token and its operand, which `operand`
    /// parses one level deeper: a chain of them is bounded by ``maxDepth`` like any nesting.
    private mutating func prefix(
        _ op: Expr.UnaryOp, _ operand: (inout Self) throws(ExpressionError) -> Parsed
    ) throws(ExpressionError) -> Parsed {
        let at = advance().offset
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else {
            throw ExpressionError(
                message: "expression nested deeper than \(Self.maxDepth)", offset: current.offset)
        }
        enclosing += 1
        let parsed = try operand(&self)
        enclosing -= 1
        return try node(.unary(op, parsed.expr), height: 1 + parsed.height, at: at)
    }

    private mutating func parseOr() throws(ExpressionError) -> Parsed {
        var left = try parseAnd()
        while isWord(.or) {
            let at = advance().offset
            left = try binary(.or, left, at: at) { p throws(ExpressionError) in try p.parseAnd() }
        }
        return left
    }

    private mutating func parseAnd() throws(ExpressionError) -> Parsed {
        var left = try parseNot()
        while isWord(.and) {
            let at = advance().offset
            left = try binary(.and, left, at: at) { p throws(ExpressionError) in try p.parseNot() }
        }
        return left
    }

    private mutating func parseNot() throws(ExpressionError) -> Parsed {
        if isWord(.not) {
            return try prefix(.not) { p throws(ExpressionError) in try p.parseNot() }
        }
        return try parseComparison()
    }

    private mutating func parseComparison() throws(ExpressionError) -> Parsed {
        let left = try parseCoalesce()
        if case .punct(let p) = current.kind, let op = Self.comparison(p) {
            let at = advance().offset
            return try binary(op, left, at: at) { p throws(ExpressionError) in try p.parseCoalesce()
            }
        }
        if isWord(.isIn) {
            let at = advance().offset
            return try binary(.isIn, left, at: at) { p throws(ExpressionError) in
                try p.parseCoalesce()
            }
        }
        if isWord(.not), position + 1 < tokens.count, tokens[position + 1].word == .isIn {
            let at = advance().offset
            _ = advance()
            return try binary(.notIn, left, at: at) { p throws(ExpressionError) in
                try p.parseCoalesce()
            }
        }
        return left
    }

    private mutating func parseCoalesce() throws(ExpressionError) -> Parsed {
        // Right-associative, built without recursion: a ?? b ?? c is a ?? (b ?? c). The k-th
        // `??` (from 0) makes a node k levels below the first, with the operand before it as
        // its left side: the tree's depth is known as the chain is read, and the operand after
        // the k-th `??` is parsed inside k + 1 nodes.
        let base = enclosing
        var operands = [try parseAdditive()]
        var offsets: [Int] = []
        while isPunct(.coalesce) {
            let at = advance().offset
            let left = operands[operands.count - 1]
            enclosing = base + offsets.count
            try check(height: 1 + max(left.height, 1), at: at)
            offsets.append(at)
            enclosing = base + offsets.count
            operands.append(try parseAdditive())
        }
        enclosing = base
        var e = operands.removeLast()
        while let left = operands.popLast() {
            let at = offsets.removeLast()
            enclosing = base + offsets.count
            e = try node(
                .binary(.coalesce, left.expr, e.expr, at: at),
                height: 1 + max(left.height, e.height), at: at)
        }
        enclosing = base
        return e
    }

    private mutating func parseAdditive() throws(ExpressionError) -> Parsed {
        var left = try parseMultiplicative()
        while isPunct(.plus) || isPunct(.minus) {
            let token = advance()
            let op: Expr.BinaryOp = token.kind == .punct(.plus) ? .add : .subtract
            left = try binary(op, left, at: token.offset) { p throws(ExpressionError) in
                try p.parseMultiplicative()
            }
        }
        return left
    }

    private mutating func parseMultiplicative() throws(ExpressionError) -> Parsed {
        var left = try parseUnary()
        while isPunct(.star) || isPunct(.slash) || isPunct(.percent) {
            let token = advance()
            let op: Expr.BinaryOp =
                token.kind == .punct(.star)
                ? .multiply : token.kind == .punct(.slash) ? .divide : .remainder
            left = try binary(op, left, at: token.offset) { p throws(ExpressionError) in
                try p.parseUnary()
            }
        }
        return left
    }

    private mutating func parseUnary() throws(ExpressionError) -> Parsed {
        if isPunct(.minus) {
            return try prefix(.negate) { p throws(ExpressionError) in try p.parseUnary() }
        }
        return try parsePostfix()
    }

    private mutating func parsePostfix() throws(ExpressionError) -> Parsed {
        var e = try parsePrimary()
        while true {
            if isPunct(.dot) {
                _ = advance()
                guard case .ident(let name) = current.kind else {
                    throw ExpressionError(
                        message: "expected a field name after '.'", offset: current.offset)
                }
                let at = advance().offset
                e = try node(.member(e.expr, name, id: -1, at: at), height: 1 + e.height, at: at)
            } else if isPunct(.openBracket) {
                let at = advance().offset
                enclosing += 1
                let index = try parseExpr()
                enclosing -= 1
                try expectPunct(.closeBracket)
                e = try node(
                    .index(e.expr, index.expr), height: 1 + max(e.height, index.height), at: at)
            } else {
                return e
            }
        }
    }

    static func comparison(_ p: Punct) -> Expr.BinaryOp? {
        switch p {
        case .equal: return .equal
        case .notEqual: return .notEqual
        case .less: return .less
        case .lessEqual: return .lessEqual
        case .greater: return .greater
        case .greaterEqual: return .greaterEqual
        default: return nil
        }
    }

    static let valueFunctions: [String: ClosedRange<Int>] = [
        "min": 1...16, "max": 1...16, "abs": 1...1, "pow": 2...2, "text": 1...1, "is_int": 1...1,
        "type": 1...1, "matches": 2...2, "len": 1...1, "str": 1...1, "json": 1...1
    ]

    /// Items up to `closing` (a list's, or a call's arguments), separated by commas.
    private mutating func items(until closing: Punct) throws(ExpressionError) -> [Parsed] {
        var items: [Parsed] = []
        if !isPunct(closing) {
            while true {
                items.append(try parseExpr())
                if isPunct(.comma) { _ = advance(); continue }
                break
            }
        }
        try expectPunct(closing)
        return items
    }

    private static func height(of items: [Parsed]) -> Int {
        1 + items.reduce(0) { max($0, $1.height) }
    }

    private mutating func parsePrimary() throws(ExpressionError) -> Parsed {
        let token = advance()
        switch token.kind {
        case .number(let v): return Parsed(expr: .literal(v), height: 1)
        case .string(let s): return Parsed(expr: .literal(.string(s)), height: 1)
        case .ident(let word):
            switch token.word {
            case .true: return Parsed(expr: .literal(.bool(true)), height: 1)
            case .false: return Parsed(expr: .literal(.bool(false)), height: 1)
            case .null: return Parsed(expr: .literal(.null), height: 1)
            case .and, .or, .not, .isIn, .if, .then, .else:
                throw ExpressionError(message: "unexpected '\(word)'", offset: token.offset)
            case .since, .other: break
            }
            if isPunct(.openParen) {
                if let kind = HistoryCall.Kind(rawValue: word) {
                    return try parseHistory(kind, at: token.offset)
                }
                guard let arity = Self.valueFunctions[word] else {
                    throw ExpressionError(
                        message: "unknown function '\(word)'", offset: token.offset)
                }
                _ = advance()
                // The call's node holds its arguments (`matches` keeps its first one, and its
                // second is a literal no deeper than the first).
                enclosing += 1
                let args = try items(until: .closeParen)
                enclosing -= 1
                guard arity.contains(args.count) else {
                    let want =
                        arity.lowerBound == arity.upperBound
                        ? "\(arity.lowerBound)" : "\(arity.lowerBound) to \(arity.upperBound)"
                    throw ExpressionError(
                        message: "\(word)() takes \(want) argument(s), not \(args.count)",
                        offset: token.offset)
                }
                if word == "matches" {
                    guard case .literal(.string(let pattern)) = args[1].expr else {
                        throw ExpressionError(
                            message:
                                "matches() takes a quoted regular expression as its second argument",
                            offset: token.offset)
                    }
                    let regex: BoundedRegex
                    do throws(RegexSyntaxError) {
                        regex = try BoundedRegex(pattern)
                    } catch {
                        throw ExpressionError(
                            message: "bad regular expression: \(error.message)",
                            offset: token.offset)
                    }
                    return try node(
                        .regex(args[0].expr, regex), height: 1 + args[0].height, at: token.offset)
                }
                guard let function = Expr.Function(rawValue: word) else {
                    throw ExpressionError(
                        message: "unknown function '\(word)'", offset: token.offset)
                }
                return try node(
                    .call(function, args.map(\.expr), at: token.offset),
                    height: Self.height(of: args), at: token.offset)
            }
            return Parsed(expr: .name(word, at: token.offset), height: 1)
        case .punct(.openParen):
            let e = try parseExpr()
            try expectPunct(.closeParen)
            return e
        case .punct(.openBracket):
            // Not counted as enclosing its items: a list of literals folds to one literal.
            let items = try items(until: .closeBracket)
            let folded = Self.folded(list: items.map(\.expr))
            if case .literal = folded { return Parsed(expr: folded, height: 1) }
            return try node(folded, height: Self.height(of: items), at: token.offset)
        case .punct(.openBrace):
            var entries: [(String, Parsed)] = []
            if !isPunct(.closeBrace) {
                while true {
                    let keyToken = advance()
                    let key: String
                    switch keyToken.kind {
                    case .ident(let k): key = k
                    case .string(let k): key = k
                    case .number(let v): key = v.rendered()
                    default:
                        throw ExpressionError(
                            message: "expected a key in the map", offset: keyToken.offset)
                    }
                    try expectPunct(.colon)
                    entries.append((key, try parseExpr()))
                    if isPunct(.comma) { _ = advance(); continue }
                    break
                }
            }
            try expectPunct(.closeBrace)
            let folded = Self.folded(map: entries.map { ($0.0, $0.1.expr) })
            if case .literal = folded { return Parsed(expr: folded, height: 1) }
            return try node(folded, height: Self.height(of: entries.map(\.1)), at: token.offset)
        case .end:
            throw ExpressionError(message: "unexpected end of expression", offset: token.offset)
        default:
            throw ExpressionError(
                message: "unexpected \(token.kind.describe)", offset: token.offset)
        }
    }

    /// `first(SEL)`, `count(SEL, since: SEL-or-capture)`: SEL is a flow map, compiled by the
    /// loader.
    private mutating func parseHistory(_ kind: HistoryCall.Kind, at: Int) throws(ExpressionError)
        -> Parsed
    {
        try expectPunct(.openParen)
        // The call's node encloses its value; the `where:` of its selectors goes on from the
        // nesting the call stands at, so a chain of calls inside selectors is bounded too.
        enclosing += 1
        let selectorDepth = max(depth, enclosing)
        let selector = try parseSelectorArgument(for: kind.rawValue, depth: selectorDepth)
        var value: Parsed?
        if kind == .maxof || kind == .minof {
            guard isPunct(.comma) else {
                throw ExpressionError(
                    message:
                        "\(kind.rawValue)() takes a selector and a value: \(kind.rawValue)({ev: ws.connect}, gen)",
                    offset: current.offset)
            }
            _ = advance()
            value = try parseExpr()
        }
        var since: HistoryCall.Since?
        if isPunct(.comma) {
            _ = advance()
            guard isWord(.since) else {
                throw ExpressionError(
                    message: "expected 'since:' but found \(current.kind.describe)",
                    offset: current.offset)
            }
            _ = advance()
            try expectPunct(.colon)
            if case .ident(let capture) = current.kind {
                _ = advance()
                since = .capture(capture)
            } else {
                since = .selector(try parseSelectorArgument(for: "since", depth: selectorDepth))
            }
        }
        try expectPunct(.closeParen)
        enclosing -= 1
        let call = HistoryCall(
            kind: kind, selector: selector, value: value?.expr, since: since,
            slot: HistoryCall.nextSlot(), at: at)
        return try node(.history(call), height: 1 + (value?.height ?? 0), at: at)
    }

    private mutating func parseSelectorArgument(for function: String, depth: Int)
        throws(ExpressionError) -> Selector
    {
        guard isPunct(.openBrace) || isPunct(.openBracket) else {
            throw ExpressionError(
                message: "\(function)() takes a selector such as {ev: ws.ping}",
                offset: current.offset)
        }
        let open = current
        let closing: Punct = open.kind == .punct(.openBrace) ? .closeBrace : .closeBracket
        let opening = open.kind == .punct(.openBrace) ? "{" : "["
        // Find the matching close token, then hand the raw text to the selector compiler.
        var level = 0
        var index = position
        while index < tokens.count {
            let k = tokens[index].kind
            if k == .punct(.openBrace) || k == .punct(.openBracket) { level += 1 }
            if k == .punct(.closeBrace) || k == .punct(.closeBracket) {
                level -= 1
                if level == 0 { break }
            }
            if k == .end { break }
            index += 1
        }
        guard index < tokens.count, tokens[index].kind == .punct(closing) else {
            throw ExpressionError(
                message: "unclosed '\(opening)' in the selector", offset: open.offset)
        }
        let endOffset = tokens[index].endOffset
        let slice = String(decoding: text[open.offset..<endOffset], as: UTF8.self)
        position = index
        _ = advance()
        return try compileSelector(slice, open.offset, depth)
    }
}

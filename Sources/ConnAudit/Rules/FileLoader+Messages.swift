#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension FileLoader {
    mutating func template(_ node: YamlNode, context: NameContext) -> MessageTemplate? {
        guard case .scalar(let s, let style) = node.kind else {
            error(node, "'message' must be text")
            return nil
        }
        var parts: [MessageTemplate.Part] = []
        let pieces = Self.templatePieces(s)
        // Where each hole's text starts in the file (after the `{`), in any scalar style: its
        // errors are placed from there. The holes come in order, so one walk places them all.
        var holeStarts = scalarPositions(
            node, source: s, style: style,
            offsets: pieces.compactMap {
                if case .hole(_, let offset) = $0 { return offset }
                return nil
            }
        )[...]
        for piece in pieces {
            switch piece {
            case .text(let literal):
                parts.append(.text(literal))
            case .unclosed(let offset):
                errors.append(
                    expressionDiagnostic(
                        node, source: s, style: style, offset: offset,
                        message: "unclosed '{' in message"))
                return nil
            case .hole(let inner, _):
                let start = holeStarts.removeFirst()
                let fake = YamlNode(
                    .scalar(inner, style: .plain), line: start.line, column: start.column)
                guard let e = expression(fake, context: context) else { return nil }
                parts.append(.expr(e))
            }
        }
        return MessageTemplate(parts: parts)
    }

    /// One piece of a message's text: literal text (`{{` and `}}` read as braces), a hole's
    /// expression with the UTF-8 offset where it starts, or an unclosed `{` at its offset.
    enum TemplatePiece: Equatable {
        case text(String)
        case hole(String, offset: Int)
        case unclosed(offset: Int)
    }

    /// The pieces of a message's text, up to the first unclosed `{`. Braces are characters: a
    /// brace with a combining mark on it is no brace. ASCII text is read as bytes, which are its
    /// characters (CR LF is one character, and neither a brace).
    static func templatePieces(_ s: String) -> [TemplatePiece] {
        let bytes = Array(s.utf8)
        if bytes.allSatisfy({ $0 < 0x80 }) { return asciiTemplatePieces(bytes) }
        return characterTemplatePieces(s)
    }

    /// ``templatePieces(_:)`` of any text, read character by character.
    static func characterTemplatePieces(_ s: String) -> [TemplatePiece] {
        var pieces: [TemplatePiece] = []
        var literal = ""
        // Characters, walked by index; offsets are UTF-8 bytes from the scalar's start.
        func offset(_ i: String.Index) -> Int { s.utf8.distance(from: s.startIndex, to: i) }
        var i = s.startIndex
        while i < s.endIndex {
            let c = s[i]
            let next = s.index(after: i)
            if c == "{", next < s.endIndex, s[next] == "{" {
                literal.append("{"); i = s.index(after: next); continue
            }
            if c == "}", next < s.endIndex, s[next] == "}" {
                literal.append("}"); i = s.index(after: next); continue
            }
            if c == "{" {
                var depth = 1
                var j = next
                while j < s.endIndex {
                    if s[j] == "{" { depth += 1 }
                    if s[j] == "}" { depth -= 1 }
                    if depth == 0 { break }
                    j = s.index(after: j)
                }
                guard j < s.endIndex else {
                    pieces.append(.unclosed(offset: offset(i)))
                    return pieces
                }
                if !literal.isEmpty { pieces.append(.text(literal)); literal = "" }
                pieces.append(.hole(String(s[next..<j]), offset: offset(next)))
                i = s.index(after: j)
                continue
            }
            literal.append(c)
            i = next
        }
        if !literal.isEmpty { pieces.append(.text(literal)) }
        return pieces
    }

    /// ``templatePieces(_:)`` of ASCII text. Bytes between braces are copied as runs: a message
    /// is loaded once a run, and most of it is literal text.
    static func asciiTemplatePieces(_ b: [UInt8]) -> [TemplatePiece] {
        let open = UInt8(ascii: "{")
        let close = UInt8(ascii: "}")
        var pieces: [TemplatePiece] = []
        var literal: [UInt8] = []
        func text(_ r: Range<Int>) -> String { String(decoding: b[r], as: UTF8.self) }
        var i = 0
        // Where the literal bytes not yet in `literal` start.
        var run = 0
        while i < b.count {
            let c = b[i]
            if c != open, c != close {
                i += 1
                continue
            }
            literal.append(contentsOf: b[run..<i])
            if i + 1 < b.count, b[i + 1] == c {
                literal.append(c)
                i += 2
                run = i
                continue
            }
            if c == open {
                var depth = 1
                var j = i + 1
                while j < b.count {
                    if b[j] == open { depth += 1 }
                    if b[j] == close { depth -= 1 }
                    if depth == 0 { break }
                    j += 1
                }
                guard j < b.count else {
                    pieces.append(.unclosed(offset: i))
                    return pieces
                }
                if !literal.isEmpty {
                    pieces.append(.text(String(decoding: literal, as: UTF8.self)))
                    literal = []
                }
                pieces.append(.hole(text(i + 1..<j), offset: i + 1))
                i = j + 1
                run = i
                continue
            }
            literal.append(c)
            i += 1
            run = i
        }
        literal.append(contentsOf: b[run..<b.count])
        if !literal.isEmpty { pieces.append(.text(String(decoding: literal, as: UTF8.self))) }
        return pieces
    }

    /// A rule's `tests:`; `params` are the rule's, which a fixture's `params:` may set.
    mutating func fixtures(_ node: YamlNode, params ruleParams: [String: Value])
        -> [Fixture]
    {
        guard let items = node.sequenceItems else {
            error(node, "'tests' must be a list of fixtures")
            return []
        }
        var out: [Fixture] = []
        for item in items {
            guard item.mappingPairs != nil else {
                error(item, "a fixture must be a map with name, log and expect")
                continue
            }
            for pair in item.mappingPairs! {
                let key = pair.key.scalar ?? ""
                if !["name", "log", "expect", "violations", "params"].contains(key) {
                    error(
                        pair.key,
                        "unknown key '\(key)' in a fixture (expected name, log, expect, violations, params)"
                    )
                }
            }
            let name = item["name"]?.scalar ?? "fixture at line \(item.line)"
            guard let log = item["log"]?.scalar else {
                error(item, "fixture '\(name)': missing 'log'")
                continue
            }
            guard let e = item["expect"], let s = e.scalar,
                let expected = Fixture.Expected(rawValue: s)
            else {
                error(
                    item["expect"] ?? item,
                    "fixture '\(name)': 'expect' must be pass, fail, inconclusive or not_applicable"
                )
                continue
            }
            var violations: Int?
            if let v = item["violations"] {
                violations = count(v, "violations")
                // Only a failing fixture has violations: any other expectation with some never
                // holds.
                if let n = violations, n > 0, expected != .fail {
                    error(
                        v,
                        "fixture '\(name)': 'violations: \(n)' with 'expect: \(expected.rawValue)' can never hold (violations make a rule fail)"
                    )
                }
            }
            let logNode = item["log"]!
            var fixture = Fixture(
                name: name, log: log, expect: expected, violations: violations, line: item.line,
                logStartLine: logNode.line, logIsLiteralBlock: logNode.scalarStyle == .literal)
            if let p = item["params"] {
                fixture.params = fixtureParams(p, fixture: name, rule: ruleParams)
            }
            out.append(fixture)
        }
        return out
    }

    /// A fixture's `params:`: each a param of the rule, of its default's kind (a number for a
    /// number, a boolean for a boolean; a whole number >= 0 for a count's bound), as `--param`
    /// takes them.
    mutating func fixtureParams(_ node: YamlNode, fixture: String, rule: [String: Value])
        -> [String: Value]
    {
        var out = params(node)
        for pair in node.mappingPairs ?? [] {
            guard let name = pair.key.scalar, let value = out[name] else { continue }
            guard let given = rule[name] else {
                let known = rule.keys.sorted().joined(separator: ", ")
                error(
                    pair.key,
                    "fixture '\(fixture)': '\(name)' is not a param of the rule (\(known.isEmpty ? "it has none" : "its params: " + known))"
                )
                out[name] = nil
                continue
            }
            let sameKind: Bool
            switch given {
            case .int, .double: sameKind = value.number != nil
            case .bool: if case .bool = value { sameKind = true } else { sameKind = false }
            default: sameKind = true
            }
            if !sameKind {
                error(
                    pair.value,
                    "fixture '\(fixture)': param '\(name)' must be of its default's kind (default \(given.rendered()))"
                )
                out[name] = nil
            } else if pendingBoundParams.values.contains(name), Self.wholeCount(value) == nil {
                error(
                    pair.value,
                    "fixture '\(fixture)': the rule counts with param '\(name)': it needs a whole number >= 0"
                )
                out[name] = nil
            }
        }
        return out
    }
}

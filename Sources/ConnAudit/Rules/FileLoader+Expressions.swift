#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension FileLoader {
    /// Names in scope where an expression is written.
    struct NameContext {
        /// Params the rule defines; nil where params are not known yet (file-level `let:`).
        var params: [String: Value]?
        var lets: Set<String>
        /// Captures bound so far (visible here).
        var captures: Set<String> = []
        /// Every capture the rule binds somewhere (to report one used before it is bound).
        var allCaptures: Set<String> = []
        /// Whether `next(SEL)` (look-ahead) may be written here: only in the `expect:` of an
        /// `every` check and in its message, outside nested selectors.
        var allowsLookAhead = false
        /// Params read so far (shared through a box, so nested contexts count too).
        var paramsReadBox = ParamsRead()
        /// The nesting an expression written here starts at: 0 in the rules file, and inside an
        /// expression (a history call's selector) the depth of the call, plus one per `not:`
        /// around the term. Expression depth is bounded across selectors, so nothing that walks
        /// a rule recurses deeper than ``ExpressionParser/maxDepth`` levels of expressions.
        var depth = 0
        var paramsRead: Set<String> { paramsReadBox.names }
    }

    final class ParamsRead {
        var names = Set<String>()
    }

    /// Parses an expression scalar, reporting errors at the column inside the string.
    mutating func expression(_ node: YamlNode, context: NameContext) -> Expr? {
        guard case .scalar(let source, let style) = node.kind else {
            error(node, "expected an expression string, found a \(node.kindName)")
            return nil
        }
        let literal = typed(node)
        if style == .plain, let literal, literal.string == nil { return .literal(literal) }
        var nested: [Diagnostic] = []
        let selectorCompiler: ExpressionParser.SelectorCompiler = {
            text, offset, depth throws(ExpressionError) in
            var innerContext = context
            innerContext.allowsLookAhead = false
            innerContext.depth = depth
            return try FileLoader.compileSelector(
                text, offset: offset, context: &innerContext, warnings: &nested)
        }
        do {
            let expr = try ExpressionParser.parse(
                source, depth: context.depth, compileSelector: selectorCompiler)
            validateNames(expr, at: node, context: context, source: source, style: style)
            // A file-level let is read by rules whose captures it cannot know.
            if lint, context.params != nil {
                noteMemberNames(expr, at: node, source: source, style: style)
            }
            return expr
        } catch {
            errors.append(
                expressionDiagnostic(
                    node, source: source, style: style, offset: error.offset, message: error.message
                ))
            return nil
        }
    }

    /// Compiles a selector written inside an expression (a history function's first argument):
    /// its text as YAML (``FlowSelectorText`` for the usual shapes, else libyaml), then the
    /// loader's selector rules. Errors point at `offset` plus their
    /// column in `text`; warnings are appended to `warnings`.
    static func compileSelector(
        _ text: String, offset: Int, context: inout NameContext, warnings: inout [Diagnostic]
    ) throws(ExpressionError) -> Selector {
        var inner = FileLoader(path: "<selector>", text: text)
        let root: YamlNode
        if let node = FlowSelectorText.parse(text) {
            root = node
        } else {
            let docs: [YamlNode]
            do throws(Diagnostic) { docs = try YamlLoader.load(text, path: "<selector>") } catch {
                throw ExpressionError(
                    message: "bad selector: \(error.message)",
                    offset: offset + max(0, error.column - 1))
            }
            guard let first = docs.first else {
                throw ExpressionError(message: "empty selector", offset: offset)
            }
            root = first
        }
        let compiled = inner.selector(root, context: &context)
        if let first = inner.errors.first {
            throw ExpressionError(message: first.message, offset: offset + max(0, first.column - 1))
        }
        warnings += inner.warnings
        guard let compiled else { throw ExpressionError(message: "bad selector", offset: offset) }
        return compiled
    }

    /// Compiles a selector with no params or lets in scope, for callers outside a rule file
    /// (tests, the expression fuzz target); `depth` as in ``ExpressionParser/SelectorCompiler``.
    static func compileSelector(_ text: String, _ offset: Int, _ depth: Int = 0)
        throws(ExpressionError) -> Selector
    {
        var context = NameContext(params: nil, lets: [])
        context.depth = depth
        var warnings: [Diagnostic] = []
        return try compileSelector(text, offset: offset, context: &context, warnings: &warnings)
    }

    /// Maps a byte offset inside a scalar to the file's line and column.
    func expressionDiagnostic(
        _ node: YamlNode, source: String, style: YamlNode.ScalarStyle, offset: Int, message: String
    ) -> Diagnostic {
        let (line, column) = scalarPositions(node, source: source, style: style, offsets: [offset])[
            0]
        return Diagnostic(
            path: path, line: line, column: column, message: message, sourceLine: sourceLine(line))
    }

    /// The file's line and column of each byte offset inside a scalar, `offsets` in ascending
    /// order: one walk of the scalar's lines serves them all (a message's holes), and each answer
    /// is the one a walk to that offset alone gives.
    func scalarPositions(
        _ node: YamlNode, source: String, style: YamlNode.ScalarStyle, offsets: [Int]
    ) -> [(line: Int, column: Int)] {
        let size = source.utf8.count
        let targets = offsets.map { min(max(0, $0), size) }
        var out = Array(repeating: (line: node.line, column: node.column), count: targets.count)
        var k = 0
        switch style {
        case .literal, .folded:
            // Each content line of a block scalar decodes to its text plus one byte (a newline, or
            // the space a folded break becomes), so decoded offsets can be walked line by line.
            var fileLine = node.line + 1
            var position = 0
            var blockIndent: Int?
            for i in out.indices { out[i].line = fileLine }
            while fileLine <= lineCount, k < targets.count {
                let raw = Array(sourceLine(fileLine).unicodeScalars)
                let blank = raw.allSatisfy { $0 == " " }
                if blockIndent == nil, !blank {
                    blockIndent = raw.prefix(while: { $0 == " " }).count
                }
                let indent = blockIndent ?? 0
                let content = blank ? [] : Array(raw.dropFirst(indent))
                let length = content.reduce(0) { $0 + Self.utf8Length($1) }
                while k < targets.count, targets[k] <= position + length || fileLine == lineCount {
                    out[k] = (
                        fileLine,
                        indent + 1 + Self.scalars(in: content, forBytes: targets[k] - position)
                    )
                    k += 1
                }
                // A folded break followed by blank lines is dropped (the blank lines are the
                // breaks).
                let nextBlank =
                    fileLine < lineCount && sourceLine(fileLine + 1).allSatisfy { $0 == " " }
                position += length + (style == .folded && !blank && nextBlank ? 0 : 1)
                fileLine += 1
            }
        case .plain, .singleQuoted, .doubleQuoted:
            // Walk the raw text (after the opening quote), decoding escapes, until each target's
            // bytes. A flow scalar may go on over several lines: each line break, with the next
            // line's indentation, folds to one space.
            var fileLine = node.line
            var raw = Array(sourceLine(fileLine).unicodeScalars)
            var i = style == .plain ? node.column - 1 : node.column  // 0-based index of the text
            var decoded = 0
            /// Where the line's text ends before a break: trailing white space folds away with it.
            func textEnd(_ raw: [Unicode.Scalar]) -> Int {
                var end = raw.count
                while end > 0, raw[end - 1] == " " || raw[end - 1] == "\t" { end -= 1 }
                return end
            }
            var end = fileLine < lineCount ? textEnd(raw) : raw.count
            while k < targets.count {
                let target = targets[k]
                while decoded < target {
                    if i >= end {
                        guard fileLine < lineCount else { break }
                        // A break folds to one space; a break followed by blank lines, to one
                        // newline per blank line.
                        var blanks = 0
                        fileLine += 1
                        while fileLine < lineCount,
                            textEnd(Array(sourceLine(fileLine).unicodeScalars)) == 0
                        {
                            blanks += 1
                            fileLine += 1
                        }
                        raw = Array(sourceLine(fileLine).unicodeScalars)
                        end = fileLine < lineCount ? textEnd(raw) : raw.count
                        i = raw.prefix(while: { $0 == " " || $0 == "\t" }).count
                        decoded += max(1, blanks)
                        continue
                    }
                    let c = raw[i]
                    if style == .doubleQuoted, c == "\\", i + 1 == raw.count, fileLine < lineCount {
                        // An escaped line break: it and the next line's indentation decode to
                        // nothing.
                        fileLine += 1
                        raw = Array(sourceLine(fileLine).unicodeScalars)
                        end = fileLine < lineCount ? textEnd(raw) : raw.count
                        i = raw.prefix(while: { $0 == " " || $0 == "\t" }).count
                        continue
                    }
                    if style == .doubleQuoted, c == "\\", i + 1 < raw.count {
                        switch raw[i + 1] {
                        case "x": i += 4; decoded += 1
                        case "u": i += 6; decoded += 2
                        case "U": i += 10; decoded += 3
                        default: i += 2; decoded += 1
                        }
                    } else if style == .singleQuoted, c == "'", i + 1 < raw.count, raw[i + 1] == "'"
                    {
                        i += 2
                        decoded += 1
                    } else {
                        i += 1
                        decoded += Self.utf8Length(c)
                    }
                }
                out[k] = (fileLine, i + 1)
                k += 1
            }
        }
        return out
    }

    /// How many bytes `scalar` takes in UTF-8.
    static func utf8Length(_ scalar: Unicode.Scalar) -> Int {
        switch scalar.value {
        case ..<0x80: return 1
        case ..<0x800: return 2
        case ..<0x1_0000: return 3
        default: return 4
        }
    }

    /// How many scalars of `text` hold its first `bytes` UTF-8 bytes.
    static func scalars(in text: [Unicode.Scalar], forBytes bytes: Int) -> Int {
        var n = 0
        var used = 0
        while n < text.count, used < bytes {
            used += utf8Length(text[n])
            n += 1
        }
        return n + max(0, bytes - used)
    }

    /// Checks `params.x` names against the rule's params, and captures used before they are bound.
    mutating func validateNames(
        _ expr: Expr, at node: YamlNode, context: NameContext, source: String? = nil,
        style: YamlNode.ScalarStyle = .plain
    ) {
        var problems: [(String, Int)] = []
        NameWalker.walk(expr, intoSelectors: false) { e in
            switch e {
            case .name(let name, let at, _):
                if context.allCaptures.contains(name), !context.captures.contains(name),
                    !context.lets.contains(name)
                {
                    problems.append(
                        (
                            "capture '\(name)' is used before it is bound (as: \(name) comes later)",
                            at
                        ))
                }
            case .member(.name("params", _, _), let name, _, let at):
                context.paramsReadBox.names.insert(name)
                if let params = context.params, params[name] == nil,
                    !context.lets.contains("params")
                {
                    let known =
                        params.isEmpty
                        ? "this rule defines no params"
                        : "this rule defines: \(params.keys.sorted().joined(separator: ", "))"
                    problems.append(("unknown param '\(name)' (\(known))", at))
                }
            case .history(let call):
                if call.kind == .next, !context.allowsLookAhead {
                    problems.append(
                        (
                            "next() (look-ahead) can be used only in the expect: of an every check and in its message; elsewhere use each/followed_by",
                            call.at
                        ))
                } else if call.kind == .next, call.since != nil {
                    problems.append(
                        ("next() looks forward from the current event: it takes no since:", call.at)
                    )
                }
                if case .capture(let name)? = call.since, !context.captures.contains(name) {
                    problems.append(("'since: \(name)' names no capture bound before it", call.at))
                }
            default: break
            }
        }
        for (message, at) in problems {
            if let source {
                errors.append(
                    expressionDiagnostic(
                        node, source: source, style: style, offset: at, message: message))
            } else {
                error(node, message)
            }
        }
    }
}

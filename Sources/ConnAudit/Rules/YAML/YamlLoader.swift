internal import CYaml

/// Bounds on what one YAML text may expand to, so hostile input fails fast instead of hanging.
public struct YamlLimits: Sendable {
    /// Most collections (sequences and mappings) nested inside one another.
    public var maxDepth = 64
    /// Most nodes that alias expansion may produce, over the whole stream.
    public var maxAliasNodes = 10_000
    /// Most nodes in the whole stream, alias copies included.
    public var maxNodes = 1_000_000

    public static let `default` = YamlLimits()

    public init(maxDepth: Int = 64, maxAliasNodes: Int = 10_000, maxNodes: Int = 1_000_000) {
        self.maxDepth = maxDepth
        self.maxAliasNodes = maxAliasNodes
        self.maxNodes = maxNodes
    }
}

/// Turns YAML text into ``YamlNode`` trees, using libyaml's event parser.
///
/// This is the only file that sees libyaml; nothing of it leaks into the public API.
public enum YamlLoader {
    /// All documents of the stream (an empty file gives []).
    ///
    /// - Parameters:
    ///   - text: The whole text of the file.
    ///   - path: The file's path, used in diagnostics only.
    ///   - limits: Bounds on nesting, alias expansion and size.
    /// - Throws: A ``Diagnostic`` at the first problem: a syntax error (libyaml's own message),
    ///   a duplicate mapping key, an undefined or recursive alias, or a limit exceeded.
    /// - Complexity: O(n) in the size of the text; an alias copy shares storage with its anchor.
    public static func load(
        _ text: String, path: String, limits: YamlLimits = .default
    ) throws(Diagnostic) -> [YamlNode] {
        let bytes = Array(text.utf8)
        // libyaml wants a non-null input pointer; an empty text holds no document anyway.
        guard !bytes.isEmpty else { return [] }
        var builder = TreeBuilder(path: path, text: text, limits: limits)
        try bytes.withUnsafeBufferPointer { (input) throws(Diagnostic) in
            try parse(input, into: &builder)
        }
        return builder.documents
    }

    // MARK: - Driving libyaml

    /// Runs the parser over `input` and feeds every event to `builder`.
    ///
    /// The parser and each event live only inside this call.
    private static func parse(
        _ input: UnsafeBufferPointer<UInt8>, into builder: inout TreeBuilder
    ) throws(Diagnostic) {
        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        defer { parser.deallocate() }
        guard yaml_parser_initialize(parser) != 0 else {
            throw builder.error("cannot start the YAML parser (out of memory)", line: 1, column: 1)
        }
        defer { yaml_parser_delete(parser) }
        yaml_parser_set_input_string(parser, input.baseAddress, input.count)

        while true {
            var event = yaml_event_t()
            guard yaml_parser_parse(parser, &event) != 0 else {
                // On failure libyaml leaves the event empty: nothing to delete.
                throw syntaxError(parser, input: input, builder: builder)
            }
            defer { yaml_event_delete(&event) }

            let line = Int(event.start_mark.line) + 1
            let column = Int(event.start_mark.column) + 1
            switch event.type {
            case YAML_STREAM_END_EVENT:
                return
            case YAML_DOCUMENT_START_EVENT:
                builder.startDocument()
            case YAML_DOCUMENT_END_EVENT:
                builder.endDocument()
            case YAML_SCALAR_EVENT:
                let data = event.data.scalar
                let text: String
                if let value = data.value {
                    text = String(
                        decoding: UnsafeBufferPointer(start: value, count: data.length),
                        as: UTF8.self)
                } else {
                    text = ""
                }
                try builder.scalar(
                    text, style: style(data.style), tag: tag(data.tag), anchor: string(data.anchor),
                    line: line, column: column)
            case YAML_SEQUENCE_START_EVENT:
                let data = event.data.sequence_start
                try builder.startCollection(
                    isMapping: false, tag: tag(data.tag), anchor: string(data.anchor), line: line,
                    column: column)
            case YAML_MAPPING_START_EVENT:
                let data = event.data.mapping_start
                try builder.startCollection(
                    isMapping: true, tag: tag(data.tag), anchor: string(data.anchor), line: line,
                    column: column)
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                try builder.endCollection()
            case YAML_ALIAS_EVENT:
                try builder.alias(string(event.data.alias.anchor) ?? "", line: line, column: column)
            default:
                break  // stream start, no event
            }
        }
    }

    /// libyaml's problem (and context, when present) as a diagnostic at the problem's position.
    private static func syntaxError(
        _ parser: UnsafeMutablePointer<yaml_parser_t>, input: UnsafeBufferPointer<UInt8>,
        builder: TreeBuilder
    ) -> Diagnostic {
        let state = parser.pointee
        if state.error == YAML_MEMORY_ERROR {
            return builder.error("out of memory while parsing YAML", line: 1, column: 1)
        }
        var message = string(state.problem) ?? "invalid YAML"
        let line: Int
        let column: Int
        if state.error == YAML_READER_ERROR {
            // Reader errors carry a byte offset, not a mark.
            (line, column) = position(ofByte: state.problem_offset, in: input)
            if state.problem_value != -1 {
                // A code point for disallowed characters, otherwise the offending byte.
                let isCodePoint = message == "control characters are not allowed"
                let value = hex(state.problem_value, digits: isCodePoint ? 4 : 2)
                message += isCodePoint ? " (U+\(value))" : " (0x\(value))"
            }
        } else {
            line = Int(state.problem_mark.line) + 1
            column = Int(state.problem_mark.column) + 1
            // libyaml says "found character that cannot start any token" (or "a tab character that
            // violates indentation") where a tab indents a line: say what the rule is.
            if state.error == YAML_SCANNER_ERROR,
                character(atLine: line, column: column, in: input) == 0x09
            {
                return builder.error(tabMessage, line: line, column: column)
            }
        }
        if let context = string(state.context) {
            let contextLine = Int(state.context_mark.line) + 1
            let contextColumn = Int(state.context_mark.column) + 1
            if contextLine == line && contextColumn == column {
                message += " (\(context))"
            } else {
                message += " (\(context) at line \(contextLine), column \(contextColumn))"
            }
        }
        return builder.error(message, line: line, column: column)
    }

    /// The message for a tab where libyaml stopped scanning.
    static let tabMessage =
        "a tab character: YAML does not allow tabs for indentation (indent with spaces)"

    /// The first byte of the character at a 1-based line and column (in Unicode scalars, like
    /// libyaml's marks), or nil past the line's end.
    private static func character(
        atLine line: Int, column: Int, in input: UnsafeBufferPointer<UInt8>
    ) -> UInt8? {
        // libyaml skips a UTF-8 byte order mark without counting it.
        var index =
            input.count >= 3 && input[0] == 0xEF && input[1] == 0xBB && input[2] == 0xBF ? 3 : 0
        var currentLine = 1
        while currentLine < line, index < input.count {
            if input[index] == UInt8(ascii: "\n") { currentLine += 1 }
            index += 1
        }
        var currentColumn = 1
        while index < input.count, input[index] != UInt8(ascii: "\n") {
            if input[index] & 0xC0 != 0x80 {
                if currentColumn == column { return input[index] }
                currentColumn += 1
            }
            index += 1
        }
        return nil
    }

    /// The 1-based line and column (in Unicode scalars, like libyaml's marks) of a byte offset.
    private static func position(ofByte offset: Int, in input: UnsafeBufferPointer<UInt8>) -> (
        Int, Int
    ) {
        let end = min(offset, input.count)
        // libyaml skips a UTF-8 byte order mark without counting it.
        let hasBOM = input.count >= 3 && input[0] == 0xEF && input[1] == 0xBB && input[2] == 0xBF
        var line = 1
        var column = 1
        var index = hasBOM ? min(3, end) : 0
        while index < end {
            let byte = input[index]
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            index += 1
        }
        return (line, column)
    }

    /// `value` in upper-case hexadecimal, zero-padded to at least `digits` digits.
    private static func hex(_ value: Int32, digits: Int) -> String {
        let text = String(UInt32(bitPattern: value), radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    private static func style(_ style: yaml_scalar_style_t) -> YamlNode.ScalarStyle {
        switch style {
        case YAML_SINGLE_QUOTED_SCALAR_STYLE: return .singleQuoted
        case YAML_DOUBLE_QUOTED_SCALAR_STYLE: return .doubleQuoted
        case YAML_LITERAL_SCALAR_STYLE: return .literal
        case YAML_FOLDED_SCALAR_STYLE: return .folded
        default: return .plain
        }
    }

    /// A tag as written: the core schema's `tag:yaml.org,2002:` prefix is shown as `!!`.
    private static func tag(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        guard let full = string(pointer) else { return nil }
        let core = "tag:yaml.org,2002:"
        return full.hasPrefix(core) ? "!!" + full.dropFirst(core.count) : full
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: UnsafePointer($0)) }
    }

    private static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }
}

// MARK: - Building the tree

/// Builds nodes from parser events, expands aliases and enforces ``YamlLimits``.
///
/// Knows nothing of libyaml: the driver above translates each event into one call.
private struct TreeBuilder {
    /// A finished node with what alias expansion needs to know about it without walking it.
    struct Built {
        var node: YamlNode
        /// Nodes in the subtree, the root included.
        var size: Int
        /// Collections nested in the subtree, the root included (0 for a scalar).
        var height: Int
    }

    /// A sequence or mapping whose end event has not come yet.
    struct Frame {
        var isMapping: Bool
        var line: Int
        var column: Int
        var tag: String?
        var anchor: String?
        var items: [YamlNode] = []
        var pairs: [YamlPair] = []
        var pendingKey: YamlNode?
        /// Line of the first occurrence of each scalar key, to report duplicates: made once the
        /// mapping has more than ``keysScanned`` pairs (before that, its pairs are scanned).
        var keyLines: [String: Int]?
        var size = 1
        var height = 1

        /// Most pairs a mapping's keys are compared with one by one.
        static let keysScanned = 16

        /// The line of the first scalar key `key` of the mapping, if any.
        func firstLine(ofKey key: String) -> Int? {
            if let keyLines { return keyLines[key] }
            for pair in pairs where pair.key.scalar == key { return pair.key.line }
            return nil
        }

        /// Notes the scalar key `key`, found at `line` (its value is yet to come), unless the
        /// mapping has it already: then the line where it was first, noting nothing. (One
        /// access to the frame on the stack, which a call that does not mutate it would copy.)
        mutating func note(key: String, line: Int) -> Int? {
            if let first = firstLine(ofKey: key) { return first }
            if keyLines != nil {
                keyLines![key] = line
            } else if pairs.count >= Self.keysScanned {
                var lines: [String: Int] = [:]
                for pair in pairs {
                    if let k = pair.key.scalar, lines[k] == nil { lines[k] = pair.key.line }
                }
                lines[key] = line
                keyLines = lines
            }
            return nil
        }
    }

    let path: String
    let text: String
    let limits: YamlLimits
    private(set) var documents: [YamlNode] = []
    private var root: YamlNode?
    private var stack: [Frame] = []
    private var anchors: [String: Built] = [:]
    private var aliasNodes = 0
    private var totalNodes = 0

    init(path: String, text: String, limits: YamlLimits) {
        self.path = path
        self.text = text
        self.limits = limits
    }

    func error(_ message: String, line: Int, column: Int) -> Diagnostic {
        Diagnostic(path: path, line: line, column: column, message: message, in: text)
    }

    mutating func startDocument() {
        // Anchors are scoped to their document.
        anchors = [:]
        root = nil
    }

    mutating func endDocument() {
        if let root { documents.append(root) }
        root = nil
    }

    mutating func scalar(
        _ text: String, style: YamlNode.ScalarStyle, tag: String?, anchor: String?, line: Int,
        column: Int
    ) throws(Diagnostic) {
        try count(1, line: line, column: column)
        let node = YamlNode(.scalar(text, style: style), line: line, column: column, tag: tag)
        try attach(Built(node: node, size: 1, height: 0), anchor: anchor)
    }

    mutating func startCollection(
        isMapping: Bool, tag: String?, anchor: String?, line: Int, column: Int
    ) throws(Diagnostic) {
        if stack.count >= limits.maxDepth {
            throw error("nesting deeper than \(limits.maxDepth) levels", line: line, column: column)
        }
        try count(1, line: line, column: column)
        stack.append(
            Frame(isMapping: isMapping, line: line, column: column, tag: tag, anchor: anchor))
    }

    mutating func endCollection() throws(Diagnostic) {
        guard let frame = stack.popLast() else { return }
        let kind: YamlNode.Kind = frame.isMapping ? .mapping(frame.pairs) : .sequence(frame.items)
        let node = YamlNode(kind, line: frame.line, column: frame.column, tag: frame.tag)
        try attach(Built(node: node, size: frame.size, height: frame.height), anchor: frame.anchor)
    }

    /// Expands `*name` to a copy of the anchored node; the copy's root takes the alias's position.
    mutating func alias(_ name: String, line: Int, column: Int) throws(Diagnostic) {
        if stack.contains(where: { $0.anchor == name }) {
            throw error(
                "alias '*\(name)' refers to a node that contains it", line: line, column: column)
        }
        guard let target = anchors[name] else {
            throw error("undefined alias '*\(name)'", line: line, column: column)
        }
        if stack.count + target.height > limits.maxDepth {
            throw error("nesting deeper than \(limits.maxDepth) levels", line: line, column: column)
        }
        aliasNodes += target.size
        if aliasNodes > limits.maxAliasNodes {
            throw error(
                "alias expansion exceeds \(limits.maxAliasNodes) nodes (possible alias bomb)",
                line: line, column: column)
        }
        try count(target.size, line: line, column: column)
        var copy = target
        copy.node.line = line
        copy.node.column = column
        try attach(copy, anchor: nil)
    }

    private mutating func count(_ nodes: Int, line: Int, column: Int) throws(Diagnostic) {
        totalNodes += nodes
        if totalNodes > limits.maxNodes {
            throw error("too many nodes (more than \(limits.maxNodes))", line: line, column: column)
        }
    }

    /// Hangs a finished node on the open collection, or makes it the document's root.
    private mutating func attach(_ built: Built, anchor: String?) throws(Diagnostic) {
        if let anchor { anchors[anchor] = built }
        guard !stack.isEmpty else {
            root = built.node
            return
        }
        let top = stack.count - 1
        stack[top].size += built.size
        stack[top].height = max(stack[top].height, built.height + 1)
        guard stack[top].isMapping else {
            stack[top].items.append(built.node)
            return
        }
        if let key = stack[top].pendingKey {
            stack[top].pairs.append(YamlPair(key: key, value: built.node))
            stack[top].pendingKey = nil
            return
        }
        if let text = built.node.scalar {
            if let first = stack[top].note(key: text, line: built.node.line) {
                let message = "duplicate key '\(text)' (first at line \(first))"
                throw error(message, line: built.node.line, column: built.node.column)
            }
        }
        stack[top].pendingKey = built.node
    }
}

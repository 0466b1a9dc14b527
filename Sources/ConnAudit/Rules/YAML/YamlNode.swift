/// One node of a YAML document, with the 1-based position where it starts.
///
/// Scalars stay strings with their style: there is no YAML 1.1 implicit typing here (a plain `yes`
/// is the string "yes"). The rule loader decides what a scalar means. Aliases are already expanded:
/// an alias becomes a copy of the anchored node whose root carries the alias's position, while the
/// nodes inside the copy keep the positions of the text they came from.
public struct YamlNode: Sendable, Equatable {
    /// How a scalar was written.
    public enum ScalarStyle: Sendable, Equatable {
        case plain, singleQuoted, doubleQuoted, literal, folded
    }

    public enum Kind: Sendable, Equatable {
        case scalar(String, style: ScalarStyle)
        case sequence([YamlNode])
        /// Key/value pairs in document order.
        case mapping([YamlPair])
    }

    public var kind: Kind
    /// 1-based line where the node starts.
    public var line: Int
    /// 1-based column where the node starts.
    public var column: Int
    /// The explicit tag if any, in short form for the core schema (`!!str`), else nil.
    public var tag: String?

    public init(_ kind: Kind, line: Int, column: Int, tag: String? = nil) {
        self.kind = kind
        self.line = line
        self.column = column
        self.tag = tag
    }
}

/// One entry of a mapping node.
public struct YamlPair: Sendable, Equatable {
    public var key: YamlNode
    public var value: YamlNode

    public init(key: YamlNode, value: YamlNode) {
        self.key = key
        self.value = value
    }
}

// MARK: - Conveniences

extension YamlNode {
    /// The text of a scalar node; nil for collections.
    public var scalar: String? {
        if case .scalar(let text, _) = kind { return text }
        return nil
    }

    /// The style of a scalar node; nil for collections.
    public var scalarStyle: ScalarStyle? {
        if case .scalar(_, let style) = kind { return style }
        return nil
    }

    /// True for a plain, untagged (or `!!null`) scalar spelled "", "~", "null", "Null" or "NULL".
    ///
    /// A quoted `"null"` or a `!!str null` is a string, not null.
    public var isNull: Bool {
        guard case .scalar(let text, .plain) = kind, tag == nil || tag == "!!null" else {
            return false
        }
        switch text {
        case "", "~", "null", "Null", "NULL": return true
        default: return false
        }
    }

    /// The pairs of a mapping node; nil for scalars and sequences.
    public var mappingPairs: [YamlPair]? {
        if case .mapping(let pairs) = kind { return pairs }
        return nil
    }

    /// The items of a sequence node; nil for scalars and mappings.
    public var sequenceItems: [YamlNode]? {
        if case .sequence(let items) = kind { return items }
        return nil
    }

    /// The value for the scalar key `key` of a mapping node; nil if absent or not a mapping.
    public subscript(key: String) -> YamlNode? {
        guard case .mapping(let pairs) = kind else { return nil }
        return pairs.first { $0.key.scalar == key }?.value
    }

    /// "scalar", "sequence" or "mapping", for error messages.
    public var kindName: String {
        switch kind {
        case .scalar: return "scalar"
        case .sequence: return "sequence"
        case .mapping: return "mapping"
        }
    }
}

/// Reads the flow-style YAML of a selector written inside an expression (`{ev: ws.ping, where:
/// 'gen == g.gen'}`) without libyaml, for the shapes such selectors take.
///
/// ``parse(_:)`` gives the node ``YamlLoader/load(_:path:limits:)`` gives for the same text, or
/// nil: then the caller reads the text with libyaml, which also words any error. It reads one
/// line of printable ASCII holding flow maps and lists (nested at most ``maxDepth`` deep) of
/// plain keys, each followed by `: `, and values that are such maps and lists, plain scalars
/// of letters, digits and `_ $ . - + /` that start with a letter, digit, `_` or `$`, and quoted
/// scalars without escapes. Anything else (comments, anchors, tags, empty collections or values,
/// a duplicate key, a line break, `\` in double quotes) gives nil.
enum FlowSelectorText {
    /// Deepest nesting of maps and lists read here (libyaml's limit is far above it).
    static let maxDepth = 8

    static func parse(_ text: String) -> YamlNode? {
        var copy = text
        return copy.withUTF8 { bytes in
            var reader = Reader(bytes: bytes)
            guard let node = reader.node(depth: 1) else { return nil }
            reader.skipSpaces()
            return reader.i == bytes.count ? node : nil
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var i = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        var current: UInt8? { i < bytes.count ? bytes[i] : nil }

        mutating func skipSpaces() {
            while i < bytes.count, bytes[i] == 0x20 { i += 1 }
        }

        /// The 1-based column of byte `index` (every byte is one character).
        func column(_ index: Int) -> Int { index + 1 }

        mutating func node(depth: Int) -> YamlNode? {
            guard depth <= FlowSelectorText.maxDepth, let c = current else { return nil }
            switch c {
            case UInt8(ascii: "{"): return mapping(depth: depth)
            case UInt8(ascii: "["): return sequence(depth: depth)
            case UInt8(ascii: "'"): return singleQuoted()
            case UInt8(ascii: "\""): return doubleQuoted()
            default: return plain()
            }
        }

        mutating func mapping(depth: Int) -> YamlNode? {
            let start = i
            i += 1
            var pairs: [YamlPair] = []
            while true {
                skipSpaces()
                guard let key = plain(), current == UInt8(ascii: ":") else { return nil }
                i += 1
                guard current == 0x20 else { return nil }
                skipSpaces()
                guard let value = node(depth: depth + 1) else { return nil }
                // A duplicate key is an error libyaml's reading words.
                if pairs.contains(where: { $0.key.scalar == key.scalar }) { return nil }
                pairs.append(YamlPair(key: key, value: value))
                skipSpaces()
                switch current {
                case UInt8(ascii: ","): i += 1
                case UInt8(ascii: "}"):
                    i += 1
                    return YamlNode(.mapping(pairs), line: 1, column: column(start))
                default: return nil
                }
            }
        }

        mutating func sequence(depth: Int) -> YamlNode? {
            let start = i
            i += 1
            var items: [YamlNode] = []
            while true {
                skipSpaces()
                guard let item = node(depth: depth + 1) else { return nil }
                items.append(item)
                skipSpaces()
                switch current {
                case UInt8(ascii: ","): i += 1
                case UInt8(ascii: "]"):
                    i += 1
                    return YamlNode(.sequence(items), line: 1, column: column(start))
                default: return nil
                }
            }
        }

        static func startsPlain(_ c: UInt8) -> Bool {
            (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39)
                || c == UInt8(ascii: "_") || c == UInt8(ascii: "$")
        }

        static func continuesPlain(_ c: UInt8) -> Bool {
            startsPlain(c) || c == UInt8(ascii: ".") || c == UInt8(ascii: "-")
                || c == UInt8(ascii: "+") || c == UInt8(ascii: "/")
        }

        mutating func plain() -> YamlNode? {
            let start = i
            guard let c = current, Self.startsPlain(c) else { return nil }
            i += 1
            while let c = current, Self.continuesPlain(c) { i += 1 }
            // What may follow a plain scalar here; anything else (`:x`, ` #`, a space inside
            // the scalar) is read by libyaml.
            switch current {
            case UInt8(ascii: ":"), UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"):
                break
            case 0x20:
                var j = i
                while j < bytes.count, bytes[j] == 0x20 { j += 1 }
                guard j < bytes.count, Self.closes(bytes[j]) else { return nil }
            default: return nil
            }
            let text = String(
                decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
            return YamlNode(.scalar(text, style: .plain), line: 1, column: column(start))
        }

        /// `,`, `}` or `]`: what ends a scalar in a flow collection.
        static func closes(_ c: UInt8) -> Bool {
            c == UInt8(ascii: ",") || c == UInt8(ascii: "}") || c == UInt8(ascii: "]")
        }

        /// Printable ASCII, the only bytes read here.
        static func isPrintable(_ c: UInt8) -> Bool { c >= 0x20 && c <= 0x7E }

        mutating func singleQuoted() -> YamlNode? {
            let start = i
            i += 1
            var out: [UInt8] = []
            while let c = current, Self.isPrintable(c) {
                i += 1
                if c == UInt8(ascii: "'") {
                    // `''` is one quote.
                    guard current == UInt8(ascii: "'") else {
                        return quoted(out, .singleQuoted, start)
                    }
                    i += 1
                }
                out.append(c)
            }
            return nil
        }

        mutating func doubleQuoted() -> YamlNode? {
            let start = i
            i += 1
            let from = i
            while let c = current, Self.isPrintable(c), c != UInt8(ascii: "\\") {
                i += 1
                if c == UInt8(ascii: "\"") {
                    return quoted(Array(bytes[from..<(i - 1)]), .doubleQuoted, start)
                }
            }
            return nil
        }

        /// A quoted scalar ending at `i`: what follows it must end it.
        func quoted(_ text: [UInt8], _ style: YamlNode.ScalarStyle, _ start: Int) -> YamlNode? {
            var j = i
            while j < bytes.count, bytes[j] == 0x20 { j += 1 }
            guard j == bytes.count || Self.closes(bytes[j]) else { return nil }
            return YamlNode(
                .scalar(String(decoding: text, as: UTF8.self), style: style), line: 1,
                column: column(start))
        }
    }
}

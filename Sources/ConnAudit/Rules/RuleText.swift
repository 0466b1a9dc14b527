/// A rule's lines as written (``Rule/yaml``), kept as its file's bytes and its node.
///
/// The text is made where it is read (`rules --explain`, a partial report's rules hash, a
/// fixture rewritten for redaction), not when the rule is loaded: a run that shows no rule never
/// makes it. The bytes are the file's own buffer, shared by its rules, and every read makes the
/// same text from them.
struct RuleText: Sendable {
    /// The file's bytes, and where each of its lines starts in them (a last entry past the end),
    /// as ``FileLoader`` holds them.
    let bytes: [UInt8]
    let lineStarts: [Int]
    /// The rule's node: where it starts, and the last line a node of it starts on.
    let node: YamlNode

    /// The rule's text: its lines (from its first to the line before the next rule), without
    /// their common indentation.
    var text: String { lines().text }

    /// The text and how many lines it has.
    func lines() -> (text: String, count: Int) {
        let lineCount = lineStarts.count - 1
        let start = node.line
        // The rule ends where a line at or left of its dash column starts something new.
        let dashColumn = max(1, node.column - 2)
        return bytes.withUnsafeBufferPointer { b in
            // Line `n`'s bytes (as ``FileLoader/lineBytes(_:)``): from `lo` to `hi`, without
            // its break.
            func bounds(_ n: Int) -> (lo: Int, hi: Int) {
                let lo = lineStarts[n - 1]
                var hi = lineStarts[n] - 1
                if hi > lo, b[hi - 1] == 0x0D { hi -= 1 }
                return (lo, hi)
            }
            // Indentation is ASCII spaces: the lines are read as bytes.
            func indent(_ n: Int) -> Int {
                let (lo, hi) = bounds(n)
                var k = lo
                while k < hi, b[k] == 0x20 { k += 1 }
                return k - lo
            }
            func isBlank(_ n: Int) -> Bool {
                let (lo, hi) = bounds(n)
                var k = lo
                while k < hi, b[k] == 0x20 || b[k] == 0x09 { k += 1 }
                return k == hi
            }
            var end = start
            var n = start + 1
            while n <= lineCount {
                let blank = isBlank(n)
                if !blank && indent(n) < dashColumn + 1 { break }
                if !blank { end = n }
                n += 1
            }
            // A quoted scalar may go on at any indentation (`title: "A` then `b"` at column 1):
            // the rule reaches at least to the last line a node of it starts on (cut at `b"`,
            // its tests' lines would end before they begin).
            end = min(max(end, Self.lastLine(node)), lineCount)
            var trim = dashColumn - 1 + 2
            for n in start...end { trim = min(trim, indent(n)) }
            // Every line has at least `trim` leading spaces: what is dropped is ASCII.
            var out: [UInt8] = []
            out.reserveCapacity(lineStarts[end] - lineStarts[start - 1])
            for n in start...end {
                if n > start { out.append(0x0A) }
                let (lo, hi) = bounds(n)
                out.append(contentsOf: UnsafeBufferPointer(rebasing: b[min(lo + trim, hi)..<hi]))
            }
            return (String(decoding: out, as: UTF8.self), end - start + 1)
        }
    }

    /// The last line any node of `node` starts on.
    static func lastLine(_ node: YamlNode) -> Int {
        switch node.kind {
        case .scalar: return node.line
        case .sequence(let items): return items.reduce(node.line) { max($0, lastLine($1)) }
        case .mapping(let pairs):
            return pairs.reduce(node.line) { max($0, lastLine($1.key), lastLine($1.value)) }
        }
    }
}

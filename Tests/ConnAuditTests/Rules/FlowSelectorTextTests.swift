import ConnAuditTestSupport
import ConnSoak
import Testing

@testable import ConnAudit

/// `FlowSelectorText` reads the YAML of a selector written inside an expression without libyaml.
/// Where it gives a node, it must be the node libyaml's reading gives (kind, text, style,
/// position), so every selector means the same and every later error is placed the same; else
/// it gives nil and libyaml reads the text. Checked on every selector of the default pack and on
/// many random edits of them.
@Suite struct FlowSelectorTextTests {
    /// The text of each history call's selector in the default pack's expressions, decoded from
    /// the YAML scalars that hold them.
    static let packSelectors: [String] = {
        var out: [String] = []
        func scalars(_ node: YamlNode, _ into: inout [String]) {
            switch node.kind {
            case .scalar(let s, _): into.append(s)
            case .sequence(let items): items.forEach { scalars($0, &into) }
            case .mapping(let pairs): pairs.forEach { scalars($0.value, &into) }
            }
        }
        for file in BuiltinPack.files {
            var texts: [String] = []
            for doc in (try? YamlLoader.load(file.text, path: file.name)) ?? [] {
                scalars(doc, &texts)
            }
            for text in texts { out += selectors(in: Array(text.utf8)) }
        }
        return out
    }()

    /// The balanced `{…}` or `[…]` after each `first(`, `count(`, … in `b`, skipping brackets
    /// inside quotes (with backslash escapes, as the expression lexer reads them).
    static func selectors(in b: [UInt8]) -> [String] {
        var out: [String] = []
        let calls = ["first(", "last(", "next(", "count(", "maxof(", "minof(", "since: "]
        var i = 0
        while i < b.count {
            guard
                let call = calls.first(where: { c in
                    b[i...].starts(with: c.utf8) && (i == 0 || !Self.isLetter(b[i - 1]))
                })
            else {
                i += 1
                continue
            }
            var j = i + call.utf8.count
            guard j < b.count, b[j] == UInt8(ascii: "{") || b[j] == UInt8(ascii: "[") else {
                i += 1
                continue
            }
            let start = j
            var level = 0
            var quote: UInt8?
            while j < b.count {
                let c = b[j]
                if let q = quote {
                    if c == UInt8(ascii: "\\") { j += 1 } else if c == q { quote = nil }
                } else if c == UInt8(ascii: "'") || c == UInt8(ascii: "\"") {
                    quote = c
                } else if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                    level += 1
                } else if c == UInt8(ascii: "}") || c == UInt8(ascii: "]") {
                    level -= 1
                    if level == 0 { break }
                }
                j += 1
            }
            if j < b.count { out.append(String(decoding: b[start...j], as: UTF8.self)) }
            i += 1
        }
        return out
    }

    static func isLetter(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }

    /// Whether the two readings agree on `text`; true when the fast reading gives nil.
    static func agrees(_ text: String) -> Bool {
        guard let fast = FlowSelectorText.parse(text) else { return true }
        guard let slow = try? YamlLoader.load(text, path: "<selector>") else { return false }
        return slow == [fast]
    }

    @Test("every selector of the default pack is read without libyaml, as libyaml reads it")
    func packSelectorsAreReadAlike() {
        let selectors = Self.packSelectors
        #expect(selectors.count > 40)
        for text in selectors {
            #expect(FlowSelectorText.parse(text) != nil, "\(text)")
            #expect(Self.agrees(text), "\(text)")
        }
    }

    @Test("random edits of the pack's selectors are read as libyaml reads them, or left to it")
    func editedSelectorsAreReadAlikeOrLeftToLibyaml() {
        let seeds = Self.packSelectors
        let pieces = [
            "{", "}", "[", "]", ",", ":", ": ", " ", "  ", "'", "''", "\"", "\\", "#", " #", "&a ",
            "*a", "!!str ", "-", "- ", "?", "? ", "$", ".", "/", "+", "\t", "\n", "é", "a", "ev",
            "ev: x", "as: p", "where: 't > 1'", "{a: 1}", "[a, b]", "~", "null", "%", "@", "|", ">",
            "`", "=", "---", "..."
        ]
        var random = SplitMix64(seed: 37)
        var fast = 0
        var total = 0
        for seed in seeds {
            for _ in 0..<60 {
                var b = Array(seed.utf8)
                for _ in 0..<(1 + random.below(3)) {
                    let at = random.below(b.count + 1)
                    switch random.below(4) {
                    case 0 where !b.isEmpty: b.remove(at: min(at, b.count - 1))
                    case 1 where !b.isEmpty:
                        b[min(at, b.count - 1)] = Array(pieces[random.below(pieces.count)].utf8)[0]
                    case 2:
                        let end = min(b.count, at + random.below(8))
                        b.insert(contentsOf: Array(b[at..<end]), at: at)
                    default: b.insert(contentsOf: pieces[random.below(pieces.count)].utf8, at: at)
                    }
                }
                let text = String(decoding: b, as: UTF8.self)
                total += 1
                if FlowSelectorText.parse(text) != nil { fast += 1 }
                #expect(Self.agrees(text), "\(text.debugDescription)")
            }
        }
        // The edits keep many texts in the shapes read without libyaml, and leave many out.
        #expect(fast > total / 5 && fast < total * 9 / 10, "\(fast) of \(total)")
    }

    @Test(
        "shapes left to libyaml",
        arguments: [
            "{}", "[]", "{a: }", "{a}", "{a: b,}", "{a:b}", "{a : b}", "{a: b c}", "{a: b #c}",
            "{a: &x b}", "{a: *x}", "{a: !!str b}", "{'a': b}", "{a: \"b\\n\"}", "{a: b, a: c}",
            "{a: -1}", "{a: [b: c]}", "{a: 'b'c}", "{a: b\n}", "{a: \u{e9}}"
        ])
    func leftToLibyaml(_ text: String) {
        #expect(FlowSelectorText.parse(text) == nil)
    }
}

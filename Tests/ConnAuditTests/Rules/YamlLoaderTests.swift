import Testing
@testable import ConnAudit

// MARK: - Helpers

/// Loads `text` as "rules/a.yaml" and returns its only document.
private func loadOne(_ text: String, limits: YamlLimits = .default) throws -> YamlNode {
    let documents = try YamlLoader.load(text, path: "rules/a.yaml", limits: limits)
    try #require(documents.count == 1)
    return documents[0]
}

/// The diagnostic `text` fails with, or nil when it loads.
private func failure(_ text: String, limits: YamlLimits = .default) -> Diagnostic? {
    do {
        _ = try YamlLoader.load(text, path: "rules/a.yaml", limits: limits)
        return nil
    } catch {
        return error
    }
}

/// Removes the `1️⃣` marker from `marked` and returns the text with the marker's 1-based position.
private func marked(_ marked: String) -> (text: String, line: Int, column: Int) {
    let marker: Character = "1️⃣"
    guard let index = marked.firstIndex(of: marker) else {
        preconditionFailure("no marker in \(marked)")
    }
    let lines = marked[..<index].split(separator: "\n", omittingEmptySubsequences: false)
    var text = marked
    text.remove(at: index)
    return (text, lines.count, lines.last!.unicodeScalars.count + 1)
}

private func position(_ node: YamlNode?) -> [Int]? {
    node.map { [$0.line, $0.column] }
}

// MARK: - Node positions

@Test func blockAndFlowNodesKeepTheirPositions() throws {
    let text = """
        rules:
          - id: ws-close
            when: { ev: ws.close }
            tags: [a, "b"]
        """
    let root = try loadOne(text)
    #expect(position(root) == [1, 1])
    #expect(root.kindName == "mapping")

    let rules = try #require(root["rules"])
    #expect(rules.kindName == "sequence")
    #expect(position(rules) == [2, 3])
    #expect(position(root.mappingPairs?.first?.key) == [1, 1])

    let rule = try #require(rules.sequenceItems?.first)
    #expect(position(rule) == [2, 5])
    #expect(position(rule.mappingPairs?[0].key) == [2, 5])
    #expect(rule["id"]?.scalar == "ws-close")
    #expect(position(rule["id"]) == [2, 9])

    let when = try #require(rule["when"])
    #expect(position(when) == [3, 11])
    #expect(position(when.mappingPairs?[0].key) == [3, 13])
    #expect(when["ev"]?.scalar == "ws.close")
    #expect(position(when["ev"]) == [3, 17])

    let tags = try #require(rule["tags"]?.sequenceItems)
    #expect(tags.map(position) == [[4, 12], [4, 15]])
    #expect(tags.map(\.scalar) == ["a", "b"])
    #expect(tags.map(\.scalarStyle) == [.plain, .doubleQuoted])
}

@Test func mappingKeepsDocumentOrder() throws {
    let root = try loadOne("zeta: 1\nalpha: 2\nmid: 3\n")
    #expect(root.mappingPairs?.map { $0.key.scalar } == ["zeta", "alpha", "mid"])
    #expect(root.mappingPairs?.map { $0.value.line } == [1, 2, 3])
}

@Test func crlfLineEndingsCountAsOneLine() throws {
    let root = try loadOne("a: 1\r\nb:\r\n  - x\r\n")
    #expect(position(root["b"]?.sequenceItems?.first) == [3, 5])
    let diagnostic = try #require(failure("a: 1\r\nb: c: d\r\n"))
    #expect([diagnostic.line, diagnostic.column] == [2, 5])
    #expect(diagnostic.sourceLine == "b: c: d")
}

@Test func equalNodesCompareEqual() throws {
    let a = try loadOne("{ ev: ws.close }")
    let expected = YamlNode(
        .mapping([
            YamlPair(
                key: YamlNode(.scalar("ev", style: .plain), line: 1, column: 3),
                value: YamlNode(.scalar("ws.close", style: .plain), line: 1, column: 7))
        ]),
        line: 1, column: 1)
    #expect(a == expected)
}

// MARK: - Scalars

@Test(arguments: [
    ("x: plain text", "plain text", YamlNode.ScalarStyle.plain),
    ("x: 'it''s'", "it's", .singleQuoted),
    ("x: \"tab\\there\"", "tab\there", .doubleQuoted),
    ("x: |\n  one\n  two\n", "one\ntwo\n", .literal),
    ("x: >\n  one\n  two\n", "one two\n", .folded),
    ("x: |-\n  kept\n", "kept", .literal)
])
func scalarStyles(text: String, value: String, style: YamlNode.ScalarStyle) throws {
    let node = try #require(try loadOne(text)["x"])
    #expect(node.scalar == value)
    #expect(node.scalarStyle == style)
    #expect(node.kindName == "scalar")
    #expect(position(node) == [1, 4])
}

@Test(arguments: ["yes", "no", "on", "true", "1", "0x1F", "1.5e3", ".inf", "2024-01-01"])
func plainScalarsStayStrings(word: String) throws {
    let node = try #require(try loadOne("x: \(word)")["x"])
    #expect(node.scalar == word)
    #expect(node.scalarStyle == .plain)
    #expect(!node.isNull)
}

@Test(arguments: [
    ("x:", true), ("x: ~", true), ("x: null", true), ("x: Null", true), ("x: NULL", true),
    ("x: !!null ''", false), ("x: !!null", true), ("x: 'null'", false), ("x: \"\"", false),
    ("x: !!str null", false), ("x: nil", false), ("x: nULL", false)
])
func nullScalars(text: String, isNull: Bool) throws {
    let node = try #require(try loadOne(text)["x"])
    #expect(node.isNull == isNull)
}

@Test func explicitTagsAreKeptInShortForm() throws {
    let root = try loadOne("a: !!str 1\nb: !local x\nc: plain\nd: !!map {}\n")
    #expect(root["a"]?.tag == "!!str")
    #expect(root["a"]?.scalar == "1")
    #expect(root["b"]?.tag == "!local")
    #expect(root["c"]?.tag == nil)
    #expect(root["d"]?.tag == "!!map")
    #expect(root["d"]?.mappingPairs?.isEmpty == true)
}

@Test func escapedNulInAQuotedScalarIsKept() throws {
    let node = try #require(try loadOne("x: \"a\\0b\"")["x"])
    #expect(node.scalar == "a\u{0}b")
    #expect(node.scalar?.utf8.count == 3)
}

@Test func nonAsciiScalars() throws {
    let root = try loadOne("名前: \"ü ✓\"\nnext: 1\n")
    #expect(root["名前"]?.scalar == "ü ✓")
    #expect(position(root["名前"]) == [1, 5])
}

// MARK: - Conveniences

@Test func conveniencesAnswerNilForTheWrongKind() throws {
    let root = try loadOne("m: {a: 1}\ns: [1]\nv: x\n")
    let m = try #require(root["m"])
    let s = try #require(root["s"])
    let v = try #require(root["v"])
    #expect(m.scalar == nil && m.sequenceItems == nil && m.mappingPairs?.count == 1)
    #expect(s.scalar == nil && s.mappingPairs == nil && s.sequenceItems?.count == 1)
    #expect(v.mappingPairs == nil && v.sequenceItems == nil && v.scalar == "x")
    #expect([m, s, v].map(\.kindName) == ["mapping", "sequence", "scalar"])
    #expect(m["missing"] == nil)
    #expect(s["a"] == nil)
    #expect(v["a"] == nil)
    #expect(!m.isNull && !s.isNull)
}

// MARK: - Documents

@Test func multipleDocuments() throws {
    let documents = try YamlLoader.load("---\na: 1\n---\n- x\n...\n--- plain\n", path: "r.yaml")
    #expect(documents.count == 3)
    #expect(documents.map(\.kindName) == ["mapping", "sequence", "scalar"])
    #expect(documents.map(\.line) == [2, 4, 6])
    #expect(documents[1].sequenceItems?.first?.scalar == "x")
    #expect(documents[2].scalar == "plain")
}

@Test(arguments: ["", "\n", "   \n\n", "# only a comment\n", "\u{FEFF}"])
func inputWithoutDocumentsGivesNone(text: String) throws {
    #expect(try YamlLoader.load(text, path: "r.yaml").isEmpty)
}

@Test func bareDocumentMarkerGivesOneNullDocument() throws {
    let documents = try YamlLoader.load("---\n", path: "r.yaml")
    #expect(documents.count == 1)
    #expect(documents.first?.isNull == true)
}

// MARK: - Syntax errors

@Test func syntaxErrorHasPositionAndSnippet() throws {
    let diagnostic = try #require(failure("x: 1\ny:\n  a: b: c\n"))
    #expect(diagnostic.path == "rules/a.yaml")
    #expect(diagnostic.severity == .error)
    #expect(diagnostic.line == 3)
    #expect(diagnostic.column == 7)
    #expect(diagnostic.message == "mapping values are not allowed in this context")
    #expect(diagnostic.sourceLine == "  a: b: c")
    #expect(
        diagnostic.description == """
            rules/a.yaml:3:7: error: mapping values are not allowed in this context
              a: b: c
                  ^
            """)
}

@Test(arguments: [
    ("a: 1\nb: c1️⃣: d\n", "mapping values are not allowed in this context"),
    ("ü: a1️⃣: b\n", "mapping values are not allowed in this context"),
    (
        "key:\n1️⃣@x\n",
        "found character that cannot start any token (while scanning for the next token)"
    ),
    (
        "- a\n1️⃣b: c\n",
        "did not find expected '-' indicator (while parsing a block collection at line 1, column 1)"
    ),
    (
        "a: [1, 2\n1️⃣",
        "did not find expected ',' or ']' (while parsing a flow sequence at line 1, column 4)"
    ),
    (
        "a: \"open\n1️⃣",
        "found unexpected end of stream (while scanning a quoted scalar at line 1, column 4)"
    ),
    ("a: 1\n1️⃣]\n", "did not find expected key (while parsing a block mapping at line 1, column 1)")
])
func syntaxErrorsAtTheProblemMark(input: String, message: String) throws {
    let (text, line, column) = marked(input)
    let diagnostic = try #require(failure(text))
    #expect(diagnostic.message == message)
    #expect(diagnostic.line == line)
    #expect(diagnostic.column == column)
    #expect(diagnostic.sourceLine == Diagnostic.line(line, of: text))
}

@Test(arguments: ["a: 1\u{0}\nb: 2\n", "a: x\nb: \"y\u{0}z\"\n", "\u{0}"])
func nulByteIsAnErrorNotATruncation(text: String) throws {
    let diagnostic = try #require(failure(text))
    #expect(diagnostic.message == "control characters are not allowed (U+0000)")
    let offset = try #require(text.utf8.firstIndex(of: 0))
    let before = String(text[..<offset])
    let lines = before.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(diagnostic.line == lines.count)
    #expect(diagnostic.column == lines.last!.count + 1)
}

@Test func otherControlCharactersAreReported() throws {
    let diagnostic = try #require(failure("a: b\nc: \u{7}\n"))
    #expect(diagnostic.message == "control characters are not allowed (U+0007)")
    #expect([diagnostic.line, diagnostic.column] == [2, 4])
}

/// Odd inputs must give nodes or a diagnostic with a sane position, never a crash.
@Test(arguments: [
    "]", "}", "&", "*", "!<", "? [a]: b", "%YAML 2.0\n--- x", "%FOO bar\n---\n", "- - - -",
    "a:\n\t\tb",
    "{a: 1, a}", "[a: b]", "\u{85}x", "a: |\n  \u{2028}\n", "&a &b x", "!!str &a", "--- |\n", "'",
    "\"\\q\"",
    "? a\n? a\n", "a: @b", "`x`", "a: b\n  c: d\n", String(repeating: "- ", count: 200) + "x"
])
func oddInputNeverCrashes(text: String) {
    do {
        _ = try YamlLoader.load(text, path: "r.yaml")
    } catch {
        #expect(error.line >= 1)
        #expect(error.column >= 1)
        #expect(!error.message.isEmpty)
    }
}

// MARK: - Keys

@Test func duplicateKeyIsReportedAtTheSecondKey() throws {
    let diagnostic = try #require(failure("- name: x\n  id: a\n  id: b\n"))
    #expect(diagnostic.message == "duplicate key 'id' (first at line 2)")
    #expect([diagnostic.line, diagnostic.column] == [3, 3])
    #expect(
        diagnostic.description == """
            rules/a.yaml:3:3: error: duplicate key 'id' (first at line 2)
              id: b
              ^
            """)
}

@Test(arguments: [
    ("when: {ev: a, 1️⃣ev: b}", "duplicate key 'ev' (first at line 1)"),
    ("id: a\n1️⃣'id': b\n", "duplicate key 'id' (first at line 1)"),
    ("k: &k id\nid: 1\n1️⃣*k : 2\n", "duplicate key 'id' (first at line 2)")
])
func duplicateKeysInAnyStyle(input: String, message: String) throws {
    let (text, line, column) = marked(input)
    let diagnostic = try #require(failure(text))
    #expect(diagnostic.message == message)
    #expect([diagnostic.line, diagnostic.column] == [line, column])
}

/// A mapping's keys are compared one by one up to some pairs, then looked up: a duplicate is
/// found, and its first line named, on either side of the switch and across it.
@Test(arguments: [(3, 9), (3, 16), (3, 17), (3, 40), (17, 18), (20, 39), (16, 17)])
func duplicateKeysInLongMappings(first: Int, second: Int) throws {
    var lines = (1...40).map { "k\($0): \($0)" }
    lines[second - 1] = "k\(first): again"
    let diagnostic = try #require(failure(lines.joined(separator: "\n") + "\n"))
    #expect(diagnostic.message == "duplicate key 'k\(first)' (first at line \(first))")
    #expect([diagnostic.line, diagnostic.column] == [second, 1])
    // Without the duplicate, all 40 keys load in order.
    let root = try loadOne((1...40).map { "k\($0): \($0)" }.joined(separator: "\n"))
    #expect(root.mappingPairs?.map { $0.key.scalar ?? "" } == (1...40).map { "k\($0)" })
}

@Test func sameKeyInDifferentMappingsIsFine() throws {
    let root = try loadOne("a: {id: 1}\nb: {id: 2}\nc: [{id: 3}, {id: 4}]\n")
    #expect(root["c"]?.sequenceItems?.compactMap { $0["id"]?.scalar } == ["3", "4"])
}

@Test func complexKeysAreKept() throws {
    let root = try loadOne("? [a, b]\n: pair\n")
    #expect(root.mappingPairs?.first?.key.sequenceItems?.count == 2)
    #expect(root.mappingPairs?.first?.value.scalar == "pair")
}

// MARK: - Anchors and aliases

@Test func aliasExpandsToACopyOfTheAnchoredNode() throws {
    let root = try loadOne("base: &b { ev: ws.close }\nrule: *b\nname: &n x\nagain: *n\n")
    let base = try #require(root["base"])
    let copy = try #require(root["rule"])
    #expect(copy.kind == base.kind)
    // The copy's root sits at the alias; what is inside keeps the anchored text's positions.
    #expect(position(copy) == [2, 7])
    #expect(position(copy["ev"]) == [1, 16])
    #expect(root["again"]?.scalar == "x")
    #expect(position(root["again"]) == [4, 8])
}

@Test func undefinedAliasIsAnError() throws {
    let diagnostic = try #require(failure("a: 1\nb: *nope\n"))
    #expect(diagnostic.message == "undefined alias '*nope'")
    #expect([diagnostic.line, diagnostic.column] == [2, 4])
    #expect(diagnostic.sourceLine == "b: *nope")
}

@Test func anchorsDoNotCrossDocuments() throws {
    let diagnostic = try #require(failure("a: &x 1\n---\nb: *x\n"))
    #expect(diagnostic.message == "undefined alias '*x'")
    #expect([diagnostic.line, diagnostic.column] == [3, 4])
}

@Test func aliasInsideItsOwnAnchorIsAnError() throws {
    let diagnostic = try #require(failure("x: &a [1, *a]\n"))
    #expect(diagnostic.message == "alias '*a' refers to a node that contains it")
    #expect([diagnostic.line, diagnostic.column] == [1, 11])
}

/// The "billion laughs" pattern: 9 levels, each a list of 9 aliases to the level below.
@Test func aliasBombFailsFast() throws {
    var lines = ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for level in 1..<9 {
        let items = Array(repeating: "*l\(level - 1)", count: 9).joined(separator: ", ")
        lines.append("l\(level): &l\(level) [\(items)]")
    }
    let text = lines.joined(separator: "\n") + "\n"

    let clock = ContinuousClock()
    var diagnostic: Diagnostic?
    let elapsed = clock.measure { diagnostic = failure(text) }
    let found = try #require(diagnostic)
    #expect(found.message == "alias expansion exceeds 10000 nodes (possible alias bomb)")
    #expect([found.line, found.column] == [5, 10])
    #expect(found.sourceLine.hasPrefix("l4: &l4 ["))
    #expect(found.description.hasPrefix("rules/a.yaml:5:"))
    #expect(elapsed < .seconds(1), "took \(elapsed)")
}

@Test func aliasLimitCountsEveryExpandedNode() throws {
    let text = "a: &a [1, 2]\nb: *a\nc: *a\n"
    #expect(failure(text, limits: YamlLimits(maxAliasNodes: 6)) == nil)
    let diagnostic = try #require(failure(text, limits: YamlLimits(maxAliasNodes: 5)))
    #expect(diagnostic.message == "alias expansion exceeds 5 nodes (possible alias bomb)")
    #expect([diagnostic.line, diagnostic.column] == [3, 4])
}

// MARK: - Limits

@Test func deepNestingFailsAtTheFirstNodeTooDeep() throws {
    let text = String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000)
    let diagnostic = try #require(failure(text))
    #expect(diagnostic.message == "nesting deeper than 64 levels")
    #expect([diagnostic.line, diagnostic.column] == [1, 65])
}

@Test func nestingUpToTheLimitIsFine() throws {
    let text = String(repeating: "[", count: 64) + "x" + String(repeating: "]", count: 64)
    var node = try loadOne(text)
    for _ in 1..<64 { node = try #require(node.sequenceItems?.first) }
    #expect(node.sequenceItems?.first?.scalar == "x")
}

@Test func deepBlockNestingFails() throws {
    let text =
        (0..<100).map { String(repeating: "  ", count: $0) + "k\($0):" }.joined(separator: "\n")
        + " x\n"
    let diagnostic = try #require(failure(text))
    #expect(diagnostic.message == "nesting deeper than 64 levels")
    #expect([diagnostic.line, diagnostic.column] == [65, 129])
}

@Test func aliasCannotSmuggleDepthPastTheLimit() throws {
    let text = "a: &a [[1]]\nb: [*a]\n"
    #expect(failure(text, limits: YamlLimits(maxDepth: 4)) == nil)
    let diagnostic = try #require(failure(text, limits: YamlLimits(maxDepth: 3)))
    #expect(diagnostic.message == "nesting deeper than 3 levels")
    #expect([diagnostic.line, diagnostic.column] == [2, 5])
}

@Test func totalNodeLimit() throws {
    #expect(failure("[1, 2, 3, 4]", limits: YamlLimits(maxNodes: 5)) == nil)
    let diagnostic = try #require(failure("[1, 2, 3, 4, 5]", limits: YamlLimits(maxNodes: 5)))
    #expect(diagnostic.message == "too many nodes (more than 5)")
    #expect([diagnostic.line, diagnostic.column] == [1, 14])
}

@Test func defaultLimits() {
    let limits = YamlLimits.default
    #expect(limits.maxDepth == 64)
    #expect(limits.maxAliasNodes == 10_000)
    #expect(limits.maxNodes == 1_000_000)
}

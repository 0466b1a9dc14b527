import Testing

@testable import ConnAudit

/// Files conn-audit reads itself (baselines, partial results) are read as strict JSON documents,
/// whole, and break with the reason and at the byte a log line would.
@Suite("JSON documents")
struct JSONDocumentTests {
    @Test func aDocumentDecodesWholeWithWhiteSpaceAround() throws {
        let text = """

              {"schema": "x", "n": [1, -2.5, 12345678901234567890, true, null],
               "s": "a\\n\\u00e9\\"", "o": {}}\t

            """
        let value = try JSONDocument.parse(Array(text.utf8))
        #expect(
            value
                == .object([
                    .init("schema", .string("x")),
                    .init(
                        "n",
                        .array([
                            .int(1), .double(-2.5), .bigInt("12345678901234567890"), .bool(true),
                            .null
                        ])),
                    .init("s", .string("a\né\"")),
                    .init("o", .object([]))
                ]))
    }

    @Test(arguments: [
        ("", "empty", 0),
        (" \n\t", "empty", 0),
        ("{} x", "text after the JSON value", 3),
        (#"{"a" 1}"#, "expected ':'", 5),
        (#"{"a":1 "b":2}"#, "expected ',' or '}'", 7),
        ("[1 2]", "expected ',' or ']'", 3),
        ("{1:2}", "expected a key", 1),
        ("[1,", "unexpected end of line", 3),
        ("tru", "unexpected end of line", 0),
        ("trux", "unexpected character", 3),
        ("\"a\u{1}\"", "control character in string", 2),
        (#""\x""#, "bad escape", 1),
        ("-", "bad number", 0),
        (#""abc"#, "unterminated string", 0),
        (String(repeating: "[", count: 513), "nested deeper than 512", 512)
    ])
    func aBrokenDocumentSaysWhatBrokeAndWhere(_ text: String, _ reason: String, _ offset: Int) {
        do {
            _ = try JSONDocument.parse(Array(text.utf8))
            Issue.record("\(text.debugDescription) parsed")
        } catch {
            #expect(error.reason == reason && error.offset == offset, "\(text.debugDescription)")
        }
    }

    @Test func bytesThatAreNotUTF8AreNamed() {
        do {
            _ = try JSONDocument.parse([UInt8(ascii: "["), 0xFF, UInt8(ascii: "]")])
            Issue.record("parsed")
        } catch {
            #expect(error.reason == "not valid UTF-8" && error.offset == 1 && error.kind == .utf8)
        }
    }

    /// A broken object reads as the log parser reads the same line: one grammar, one reason.
    @Test(arguments: [
        #"{"a" 1}"#, #"{"a":1 "b":2}"#, #"{"a":[1 2]}"#, #"{"a":tru}"#, #"{"a":-}"#, #"{"a":"\x"}"#,
        #"{"a":{"b":"#, #"{"a":1,}"#, "{\"a\":\"\u{1}\"}"
    ])
    func aBrokenObjectBreaksAsALogLineDoes(_ text: String) {
        var parser = JSONLineParser(wantedFields: nil)
        let line = Array(text.utf8)
        let parsed = line.withUnsafeBufferPointer { parser.parse($0) }
        do {
            _ = try JSONDocument.parse(line)
            Issue.record("\(text) parsed")
        } catch {
            #expect(
                parsed.malformedReason
                    == "not valid JSON: \(error.reason) (byte \(error.offset + 1))"
            )
        }
    }

    @Test func aPrefixEndsWhereItsValueEnds() {
        let text = Array(#"  {"a": [1]} and then text"#.utf8)
        let prefix = text.withUnsafeBufferPointer { JSONDocument.parsePrefix($0) }
        #expect(prefix?.value == .object([.init("a", .array([.int(1)]))]))
        #expect(prefix?.end == 12)
        #expect(Array("x {}".utf8).withUnsafeBufferPointer { JSONDocument.parsePrefix($0) } == nil)
    }
}

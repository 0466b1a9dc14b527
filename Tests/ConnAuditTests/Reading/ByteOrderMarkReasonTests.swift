import Testing

@testable import ConnAudit

// connlog skips a byte-order mark only at the start of a file. One before JSON on a later line
// makes the line malformed, and the reason says what the invisible character is.

@Suite struct ByteOrderMarkReasonTests {
    private static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
    private static let event = Array(#"{"t":1,"ev":"x.y"}"#.utf8)

    /// A later line with a BOM before its JSON (after white space too, or a second BOM at the start
    /// of the file) is malformed, naming the BOM and the byte where it stands.
    @Test(
        arguments: [
            ([UInt8](), bom + event, 1),
            ([UInt8](), Array("  ".utf8) + bom + event, 3),
            ([UInt8](), Array("\t".utf8) + bom + Array("[1]".utf8), 2),
            (bom, bom + event, 1)
        ] as [([UInt8], [UInt8], Int)])
    func aMisplacedBOMIsNamed(_ start: [UInt8], _ line: [UInt8], _ byte: Int) throws {
        let first = Array(#"{"t":0,"ev":"x.y"}"#.utf8) + [0x0A]
        // `start` goes before the file's first bytes (where one BOM is allowed) and then before
        // the line under test when it is the file's first line.
        let bytes = start.isEmpty ? first + line + [0x0A] : start + line + [0x0A]
        let (lines, _) = ReaderTests.read(bytes)
        let read = try #require(lines.last)
        #expect(
            read.reason
                == "not valid JSON: a byte-order mark (U+FEFF), allowed only at the start of a file (byte \(byte))"
        )
    }

    /// Only a BOM before JSON is named so: a BOM inside a value is a character of its string, a
    /// line of a BOM and white space is blank, and other bad lines keep their reasons.
    @Test func otherLinesAreAsBefore() throws {
        let bytes =
            Array(#"{"t":0,"ev":"x.y","note":"\#u{FEFF}"}"#.utf8) + [0x0A]
            + Self.bom + Array(" \t\r\n".utf8)
            + Array("x".utf8) + Self.bom + [0x0A]
            + Self.bom + [0xFF] + Self.event + [0x0A]
        let (lines, stats) = ReaderTests.read(bytes)
        try #require(lines.count == 4)
        #expect(lines[0].event != nil)
        #expect(lines[1].isBlank)
        #expect(lines[2].reason == "not valid JSON: unexpected character (byte 1)")
        #expect(lines[3].reason == "not valid UTF-8 (byte 4)")
        #expect(stats.blank == 1 && stats.malformed == 2)
    }
}

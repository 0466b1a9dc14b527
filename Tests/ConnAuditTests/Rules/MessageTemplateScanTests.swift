import ConnAuditTestSupport
import ConnSoak
import Testing

@testable import ConnAudit

/// A message's text is split into literal text and `{…}` holes character by character; ASCII
/// text is split byte by byte. Both readings must give the same pieces on any ASCII text.
@Suite struct MessageTemplateScanTests {
    @Test("reading ASCII text as bytes gives the pieces reading it as characters gives")
    func bytesAgreeWithCharacters() {
        var random = SplitMix64(seed: 37)
        let alphabet = Array("{}{}ab( )'\r\n.")
        var holes = 0
        var unclosed = 0
        for _ in 0..<5_000 {
            let text = String(
                (0..<random.below(24)).map { _ in alphabet[random.below(alphabet.count)] })
            let bytes = FileLoader.asciiTemplatePieces(Array(text.utf8))
            let characters = FileLoader.characterTemplatePieces(text)
            #expect(bytes == characters, "\(text.debugDescription)")
            for piece in bytes {
                if case .hole = piece { holes += 1 }
                if case .unclosed = piece { unclosed += 1 }
            }
        }
        // The draws reach every kind of piece.
        #expect(holes > 100 && unclosed > 100)
    }

    @Test("pieces of a message, up to an unclosed brace")
    func pieces() {
        #expect(
            FileLoader.templatePieces("a {{x}} {b.c} {d") == [
                .text("a {x} "), .hole("b.c", offset: 9), .unclosed(offset: 14)
            ])
        // A brace with a combining mark on it is no brace.
        #expect(FileLoader.templatePieces("é {\u{301}x}") == [.text("é {\u{301}x}")])
    }
}

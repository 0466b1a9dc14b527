import Testing

@testable import ConnAudit

/// A selector's `ev` value is a glob when it has a `*` or `?` character: a star with a combining
/// mark on it is another character, and no glob. ASCII values are read as bytes; the answer must
/// be the one characters give, whatever the text.
@Suite struct GlobDetectionTests {
    @Test func starsAndQuestionMarksAreCharacters() {
        #expect(GlobPattern.isGlob("ws.*"))
        #expect(GlobPattern.isGlob("ws.p?ng"))
        #expect(!GlobPattern.isGlob("ws.ping"))
        #expect(!GlobPattern.isGlob(""))
        #expect(GlobPattern.isGlob("é.*"))
        #expect(!GlobPattern.isGlob("ws.*\u{301}"))
        #expect(GlobPattern.isGlob("x\u{301}*"))
    }

    @Test func bytesAndCharactersAgreeOnMixedText() {
        let pieces = ["a", ".", "*", "?", "\u{301}", "é", "\r\n", "ß"]
        var state: UInt64 = 3
        for _ in 0..<2_000 {
            var s = ""
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            var r = state
            for _ in 0..<Int(r % 7) {
                r /= 7
                s += pieces[Int(r % UInt64(pieces.count))]
                r /= UInt64(pieces.count)
            }
            #expect(
                GlobPattern.isGlob(s) == (s.contains("*") || s.contains("?")),
                "\(s.debugDescription)")
        }
    }
}

import Testing

@testable import ConnAudit

/// A plain line clears what only the general parser sets (finding lists, the reason) when the
/// general parser filled the line before it (``ParsedLine/filledByGeneralParser``), and the fast
/// path leaves them empty after a plain line.
@Suite("A plain line after a line with findings")
struct PlainLineAfterFindingsTests {
    @Test("a plain line read after lines with findings holds none of theirs")
    func plainLineHoldsNoEarlierFindings() {
        var parser = JSONLineParser(wantedFields: ["src"])
        var out = ParsedLine()
        func read(_ text: String) {
            Array(text.utf8).withUnsafeBufferPointer { parser.parse($0, into: &out) }
        }
        let plain = #"{"t":2,"src":"d","session":"s","ev":"ws.ping","gen":1}"#
        for earlier in [
            #"{"t":1,"src":"d","ev":"a","token":"x","m":"Bearer abcdefghijklmnop"}"#,
            #"{"t":1,"src":{"password":"x"},"ev":"a"}"#, #"{"t":1,"ev":"a""#, "not json",
            #"{"t":-1,"ev":"a","headers":{"Authorization":"x"}}"#
        ] {
            read(earlier)
            #expect(
                !out.secretPaths.isEmpty || !out.redactedKeys.isEmpty || out.malformedReason != nil,
                "\(earlier)")
            for _ in 0..<2 {
                read(plain)
                #expect(out.secretPaths.isEmpty && out.redactedKeys.isEmpty, "\(earlier)")
                #expect(out.redactedValues.isEmpty && out.unhashableKeys.isEmpty, "\(earlier)")
                #expect(out.malformedReason == nil && out.isObject, "\(earlier)")
                #expect(!out.filledByGeneralParser)
                #expect(out.ev == "ws.ping" && out.gen == 1 && out.t == 2)
            }
        }
    }
}

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// Lines read three ways, each parser with its own state: with every fast path (`fast`), by the
/// pair loop with the general parser behind it (`loop`), and by the general parser alone
/// (`general`). Tests of a fast path read random lines through it and expect all three alike.
struct LinesReadThreeWays {
    var fast: JSONLineParser
    var loop: JSONLineParser
    var general: JSONLineParser
    private var a = ParsedLine(), b = ParsedLine(), c = ParsedLine()

    init(wantedFields: Set<String>?, evIDs: [String: Int32]) {
        fast = JSONLineParser(wantedFields: wantedFields, evIDs: evIDs)
        loop = JSONLineParser(wantedFields: wantedFields, evIDs: evIDs)
        general = JSONLineParser(wantedFields: wantedFields, evIDs: evIDs)
    }

    /// Reads `line` all three ways: whether they read it alike
    /// (``PlainLinesReadAsGeneralParserTests/same(_:_:_:_:)``).
    mutating func readAlike(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        fast.parse(line, into: &a)
        if !loop.parsePlain(line, into: &b) { loop.parseGeneral(line, into: &b) }
        general.parseGeneral(line, into: &c)
        return PlainLinesReadAsGeneralParserTests.same(a, fast, b, loop)
            && PlainLinesReadAsGeneralParserTests.same(a, fast, c, general)
    }

    /// `text` spoilt three times in `outOf`, by one draw of `rng`: a trailing space, its last
    /// byte cut, or a stray byte after it.
    static func spoilt(_ text: String, _ rng: inout SplitMix64, outOf: Int) -> String {
        var text = text
        switch rng.below(outOf) {
        case 0: text += " "
        case 1: text.removeLast()
        case 2: text += "x"
        default: break
        }
        return text
    }
}

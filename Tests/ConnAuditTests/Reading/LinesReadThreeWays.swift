@testable import ConnAudit

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
}

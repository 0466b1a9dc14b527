#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Testing

@testable import ConnAudit

/// Near a line's end the fast path reads keys, integers and texts byte by byte where a word
/// would pass the end: it must read no byte past the line's end, and what it makes of keys,
/// integers and texts that end there must be what the general parser makes of them.
@Suite("The fast path reads nothing past a line's end")
struct PlainLineEndReadsTests {
    /// Lines whose last pair (a connlog key, a key rules read or not, an integer, a short text)
    /// ends within sixteen bytes of the line's end, for every length of its value up to twenty.
    static func lines() -> [String] {
        var out: [String] = []
        let heads = [#"{"t":5,"ev":"ws.ping""#, #"{"ev":"ws.ping","t":5"#, "{\"t\":5"]
        for head in heads {
            for length in 0...20 {
                let digits = String(String(repeating: "9876543210", count: 3).prefix(length))
                let text = String(String(repeating: "abcdefghij", count: 3).prefix(length))
                out += [
                    head + #","gen":"# + (digits.isEmpty ? "0" : digits) + "}",
                    head + #","t":"# + (digits.isEmpty ? "0" : digits) + "}",
                    head + #","src":""# + text + #""}"#,
                    head + #","session":""# + text + #""}"#,
                    head + #","ev":""# + text + #""}"#,
                    head + #","code":"# + (digits.isEmpty ? "0" : digits) + "}",
                    head + #",""# + text + #"":1}"#,
                    head + #","x":""# + text + #""}"#,
                    head + #","gen":"# + (digits.isEmpty ? "0" : digits),
                    head + #","x":""# + text,
                    head + #","gen"# + String(repeating: " ", count: length % 4) + ":1}",
                    head + #","ses"#
                ]
            }
        }
        // Shorter than a word: read byte by byte.
        out += [#"{"t":1}"#, "{}", #"{"t":"#, #"{"ev":1}"#, "{\"\":1}"]
        return out
    }

    @Test(
        "a line that ends at a page no one may read parses as the general parser reads it",
        arguments: [nil, Set(["code", "src", "session", "x"]), Set<String>()] as [Set<String>?])
    func linesEndingAtAGuardPage(wanted: Set<String>?) throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard
            let base = mmap(
                nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            base != MAP_FAILED
        else {
            Issue.record("mmap failed")
            return
        }
        defer { munmap(base, 2 * page) }
        // The second page may not be read: a read past a line's end stops the test there.
        #expect(mprotect(base + page, page, PROT_NONE) == 0)
        let evIDs = ["ws.ping": Int32(3)]
        var both = JSONLineParser(wantedFields: wanted, evIDs: evIDs)
        var general = JSONLineParser(wantedFields: wanted, evIDs: evIDs)
        var a = ParsedLine(), b = ParsedLine()
        var differing: [String] = []
        for text in Self.lines() {
            let bytes = Array(text.utf8)
            let start = (base + page - bytes.count).assumingMemoryBound(to: UInt8.self)
            start.update(from: bytes, count: bytes.count)
            let line = UnsafeBufferPointer(start: UnsafePointer(start), count: bytes.count)
            both.parse(line, into: &a)
            general.parseGeneral(line, into: &b)
            if !PlainLinesReadAsGeneralParserTests.same(a, both, b, general), differing.count < 5 {
                differing.append(text)
            }
        }
        #expect(differing.isEmpty, "lines read otherwise by the fast path: \(differing)")
    }
}

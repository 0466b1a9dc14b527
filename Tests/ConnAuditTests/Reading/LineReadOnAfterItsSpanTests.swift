import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// A line that starts `{"t":N,` and goes on past the kept span after its `t`, or holds no kept
/// span there, is read on by the pair loop from where ``JSONLineParser/readSpanned(_:into:)``
/// left it: its `t` and its span are read once, and the line reads as the pair loop reads it
/// from its start, and as the general parser reads it.
@Suite("Line read on after its span")
struct LineReadOnAfterItsSpanTests {
    /// The pairs after `t`: `src`, `session`, `ev` and `gen` as a source's lines write them.
    static let spans: [String] = [
        #""src":"pixel-000001","session":"s1","ev":"ws.ping""#,
        #""src":"pixel-000001","session":"s1","ev":"ws.ping","gen":3"#,
        #""src":"pixel-000002","session":"s1","ev":"sse.event""#,
        #""session":"s1","src":"pixel-000001","ev":"ws.pong","gen":1"#,
        #""src":"pixel-000001","session":"s1""#,
        #""src":"pixel-000001","session":"s1","ev":"""#
    ]

    /// What follows them: more pairs (some setting what the span set), the line's end, or text
    /// that breaks the line.
    static let rests: [String] = [
        #","state":"connecting"}"#, #","state":"unknown"}"#, #","id":"528694","ok":true}"#,
        #","gen":2}"#, #","gen":2,"state":"x"}"#, #","ev":"ws.pong"}"#, #","ev":""}"#,
        #","src":"other"}"#, #","session":"s9","state":"x"}"#, #", "state" : "x" }"#,
        #","token":"abc"}"#, #","state":"Bearer abcdefghijklmnop"}"#, #","x":{"a":1}}"#,
        #","gen":-1}"#, #","gen":1.5}"#, #","ms":274,"user":true,"error":null}"#,
        #","state":"x"} x"#, #","state":"x","#, #","state":"x""#, #"}"#, #","ev":"ws.ping"}"#
    ]

    static func line(_ rng: inout SplitMix64) -> String {
        let t = ["0", "17", "3.5", "123456789012345678", "007"][rng.below(5)]
        return #"{"t":"# + t + "," + spans[rng.below(spans.count)] + rests[rng.below(rests.count)]
    }

    @Test(
        "a line read on after its span reads as the pair loop and the general parser read it",
        arguments: [nil, Set(["state", "id"]), Set(["src"]), Set<String>()] as [Set<String>?])
    func readOnAlike(wanted: Set<String>?) {
        let evIDs: [String: Int32] = ["ws.ping": 3, "ws.pong": 4]
        var ways = LinesReadThreeWays(wantedFields: wanted, evIDs: evIDs)
        var rng = SplitMix64(seed: 36_036)
        var scratch = ParsedLine()
        var differing: [String] = [], afterKept = 0, afterNone = 0
        var previous = Self.line(&rng)
        for _ in 0..<20_000 {
            let text = rng.chance(40) ? previous : Self.line(&rng)
            previous = text
            let alike = Array(text.utf8).withUnsafeBufferPointer { line in
                if case .started(let start) = ways.fast.readSpanned(line, into: &scratch) {
                    if start.slot >= 0 { afterKept += 1 } else { afterNone += 1 }
                }
                return ways.readAlike(line)
            }
            if !alike, differing.count < 5 { differing.append(text) }
        }
        #expect(differing.isEmpty, "lines read otherwise: \(differing)")
        // Both ways on were taken, unless rules read `src` or `session` (no span then).
        #expect((afterKept > 100 && afterNone > 100) || !ways.fast.tracksSourceSpan)
    }

    @Test("a line past its kept span is handed on after the span, with what the span set")
    func handedOnAfterTheSpan() {
        var parser = JSONLineParser(wantedFields: ["state"], evIDs: ["ws.ping": 3])
        var out = ParsedLine()
        func read(_ text: String) -> JSONLineParser.SpannedRead {
            Array(text.utf8).withUnsafeBufferPointer { line in
                let how = parser.readSpanned(line, into: &out)
                parser.parse(line, into: &out)
                return how
            }
        }
        let head = #"{"t":12,"src":"device-000001","session":"s1","ev":"ws.ping","gen":4,"#
        // No span kept yet: the line is handed on at the quote after `t`, and its span kept.
        guard case .started(let first) = read(head + #""state":"a"}"#) else {
            Issue.record("not handed on")
            return
        }
        #expect(first.t == 12 && first.at == 8 && first.slot < 0)
        #expect(parser.sourceSpans.keptCount == 1)
        // The same span, another rest: handed on with the span, and read on after it.
        guard case .started(let second) = read(head + #""state":"b"}"#) else {
            Issue.record("not handed on")
            return
        }
        #expect(second.slot >= 0)
        let kept = parser.sourceSpans[max(second.slot, 0)]
        #expect(kept.length > 0 && kept.gen == 4 && !kept.closes)
        #expect(out.t == 12 && out.ev == "ws.ping" && out.evID == 3 && out.gen == 4)
        #expect(parser.sourceValues(of: out) == (.string("device-000001"), .string("s1")))
        #expect(out.fields.count == 1 && out.fields.first?.value == .string("b"))
        // A `gen` after the span wins over the span's.
        _ = read(head + #""state":"c","gen":9}"#)
        #expect(out.gen == 9 && out.fields.first?.value == .string("c"))
    }
}

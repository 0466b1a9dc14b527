import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// A span not kept yet whose pairs were met before is read and kept without the pair loop
/// (``JSONLineParser/learnSpan(_:at:_:slot:)``): the span kept is the one the pair loop keeps
/// from the same line, byte for byte and in what it sets, and every line reads as the pair loop
/// and the general parser read it.
@Suite("Spans learnt read as the pair loop")
struct SpansLearntReadAsPairLoopTests {
    static let sources = [#""pixel-000001""#, #""pixel-000002""#, #""d""#]
    static let sessions = [#""s1""#, #""s2""#, #""""#]
    static let evs = [
        #""ws.ping""#, #""ws.pong""#, #""sse.event""#, #""ws.connect_failed""#, #""""#,
        #""ws.state""#
    ]
    static let gens = ["1", "2", "17", "123456789012", "01", "-1", "2.5", "1e3", #""3""#]

    /// A span's pairs in a random order, now and then with one missing, repeated, spaced or
    /// of another kind; then a rest of pairs met before or not, or none.
    static func line(_ rng: inout SplitMix64) -> String {
        var pairs = [
            #""src":"# + sources[rng.below(sources.count)],
            #""session":"# + sessions[rng.below(sessions.count)],
            #""ev":"# + evs[rng.below(evs.count)],
            #""gen":"# + (rng.chance(80) ? String(rng.below(40)) : gens[rng.below(gens.count)])
        ]
        if rng.chance(30) { pairs.shuffle(using: &rng) }
        if rng.chance(15) { pairs.remove(at: rng.below(pairs.count)) }
        if rng.chance(5) { pairs.append(pairs[rng.below(pairs.count)]) }
        if rng.chance(5) { pairs.insert(#""t":4"#, at: rng.below(pairs.count + 1)) }
        if rng.chance(5) { pairs[rng.below(pairs.count)] += " " }
        if rng.chance(5) { pairs[rng.below(pairs.count)] = #""src" :"d""# }
        let rest = [
            #""id":"528694""#, #""ok":true"#, #""state":"connecting""#, #""interval_ms":100"#,
            #""averyveryverylongkeyname_beyond16":1"#, #""token":"x""#, #""id":[1]"#
        ]
        for _ in 0..<rng.below(3) { pairs.append(rest[rng.below(rest.count)]) }
        let t = ["0", "17", "1234567890", "-1", "1.5"][rng.chance(90) ? rng.below(3) : rng.below(5)]
        let text = #"{"t":"# + t + "," + pairs.joined(separator: ",") + "}"
        return LinesReadThreeWays.spoilt(text, &rng, outOf: 40)
    }

    @Test(
        "a learnt span is the pair loop's, and lines read alike",
        arguments: [nil, Set(["id", "state"]), Set(["src"]), Set<String>()] as [Set<String>?])
    func learntAsThePairLoopKeeps(wanted: Set<String>?) {
        let evIDs: [String: Int32] = ["ws.ping": 3, "ws.pong": 4]
        var ways = LinesReadThreeWays(wantedFields: wanted, evIDs: evIDs)
        var rng = SplitMix64(seed: 64_036)
        var scratch = ParsedLine()
        var differing: [String] = [], learnt = 0, compared = 0, left = 0
        for _ in 0..<20_000 {
            let text = Self.line(&rng)
            let alike = Array(text.utf8).withUnsafeBufferPointer { line in
                let p = line.baseAddress!, n = line.count
                // The span after `{"t":N,`, where readSpanned would look for it.
                var i = 5
                if ways.fast.tracksSourceSpan, n >= 8, JSONLineParser.plainInteger(p, &i, n) != nil,
                    i &+ 1 &+ SourceSpans.lookahead <= n, p[i] == UInt8(ascii: ","),
                    p[i &+ 1] == UInt8(ascii: "\"")
                {
                    let at = i &+ 1, slot = SourceSpans.slot(p, at)
                    // From the same state, with no span kept: the span learnt, and the one the
                    // pair loop keeps.
                    var learner = ways.fast, reader = ways.fast
                    learner.sourceSpans = SourceSpans()
                    reader.sourceSpans = SourceSpans()
                    let got = learner.learnSpan(p, at: at, n, slot: slot)
                    if got >= 0 {
                        learnt += 1
                        #expect(got == slot && learner.sourceSpans.keptCount == 1)
                        if reader.parsePlain(line, into: &scratch) {
                            compared += 1
                            let x = learner.sourceSpans[slot], y = reader.sourceSpans[slot]
                            #expect(reader.sourceSpans.keptCount == 1, "\(text)")
                            #expect(reader.sourceSpans.match(slot, p, at, n) == slot, "\(text)")
                            if text.contains(" ") {
                                // A key written with white space ends a learnt span; the pair
                                // loop's may go on past it.
                                #expect(x.length <= y.length, "\(text)")
                            } else {
                                #expect(
                                    x.length == y.length && x.src == y.src
                                        && x.session == y.session && x.ev == y.ev
                                        && x.evID == y.evID && x.evEmpty == y.evEmpty
                                        && x.gen == y.gen && x.closes == y.closes, "\(text)")
                            }
                        }
                    } else {
                        left += 1
                        #expect(learner.sourceSpans.keptCount == 0)
                    }
                }
                return ways.readAlike(line)
            }
            if !alike, differing.count < 5 { differing.append(text) }
        }
        #expect(differing.isEmpty, "lines read otherwise: \(differing)")
        // Spans were learnt and left alike, and compared with the pair loop's, unless rules
        // read `src` or `session` (no span then).
        #expect(
            (learnt > 1_000 && compared > 500 && left > 1_000) || !ways.fast.tracksSourceSpan,
            "learnt \(learnt), compared \(compared), left \(left)")
    }

    @Test("the first line of a new gen keeps its span, and the next is read by it")
    func newGenLearnt() {
        var parser = JSONLineParser(wantedFields: ["state"], evIDs: ["ws.ping": 3])
        var out = ParsedLine()
        // The span kept where the line's span is looked up, after the line is read (nil: none).
        func read(_ text: String) -> PlainSpan? {
            Array(text.utf8).withUnsafeBufferPointer { line in
                parser.parse(line, into: &out)
                let p = line.baseAddress!, slot = SourceSpans.slot(p, 8)
                return parser.sourceSpans.match(slot, p, 8, line.count) == slot
                    ? parser.sourceSpans[slot] : nil
            }
        }
        let head = #"{"t":12,"src":"device-000001","session":"s1","ev":"ws.ping","#
        // The pair loop meets the texts and keeps the first span.
        #expect(read(head + #""gen":4,"state":"a"}"#)?.gen == 4)
        // A new gen: its span is learnt from the texts met (the pair loop is not needed).
        var probe = parser
        Array((head + #""gen":5,"state":"b"}"#).utf8).withUnsafeBufferPointer { line in
            let p = line.baseAddress!
            let slot = SourceSpans.slot(p, 8)
            #expect(probe.learnSpan(p, at: 8, line.count, slot: slot) == slot)
            #expect(probe.sourceSpans[slot].gen == 5 && !probe.sourceSpans[slot].closes)
            #expect(probe.sourceSpans[slot].ev >= 0 && probe.sourceSpans[slot].src >= 0)
        }
        let kept = read(head + #""gen":5,"state":"b"}"#)
        #expect(kept?.gen == 5 && kept?.closes == false)
        #expect(out.t == 12 && out.ev == "ws.ping" && out.evID == 3 && out.gen == 5)
        #expect(out.fields.count == 1 && out.fields.first?.value == .string("b"))
        #expect(parser.sourceValues(of: out) == (.string("device-000001"), .string("s1")))
        // A span that ends the line, learnt and read whole.
        let closing = read(head + #""gen":6}"#)
        #expect(closing?.gen == 6 && closing?.closes == true)
        #expect(out.gen == 6 && out.fields.isEmpty)
        // A text not met just before: left to the pair loop, which keeps the span.
        var other = parser
        Array(#"{"t":13,"src":"device-000002","session":"s1","ev":"ws.ping","gen":6}"#.utf8)
            .withUnsafeBufferPointer { line in
                let p = line.baseAddress!
                let slot = SourceSpans.slot(p, 8)
                #expect(other.learnSpan(p, at: 8, line.count, slot: slot) == -1)
            }
    }
}

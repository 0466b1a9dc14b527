import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// Events reach their generation's timeline by their stream (the part of `ev` before the first
/// dot), whether or not any rule names their `ev` (names no rule mentions have no id).
@Suite struct GenerationRoutingTests {
    @Test func eventsOfOneStreamAndGenShareATimelineWhateverTheirName() throws {
        let rule = try CheckKindTests.loadRule(
            """
            id: t.count
            title: at most two ws events per generation
            severity: error
            for: generation
            count: { ev: "ws.*" }
            max: 2
            """)
        let log = """
            {"t":1,"ev":"ws.ping","gen":1}
            {"t":2,"ev":"wsx.ping","gen":1}
            {"t":3,"ev":"ws.zz_named_by_no_rule","gen":1}
            {"t":4,"ev":"ws.ping","gen":2}
            {"t":5,"ev":"ws.ping","gen":1}
            {"t":6,"ev":"ws.zz_named_by_no_rule","gen":2}
            {"t":7,"ev":"wsx.ping","gen":1}

            """
        let report = RuleRuns.audit([rule], files: [("a.jsonl", log)])
        // ws gen 1 holds lines 1, 3 and 5 (the third is one too many); ws gen 2 lines 4 and 6;
        // wsx gen 1 lines 2 and 7 (not counted: the glob is ws.*).
        #expect(CheckKindVerdict(report.results[0]) == CheckKindVerdict(.fail, [5]))
        #expect(report.inputs.generations == 3)
    }

    /// connlog: the stream is the part of `ev` before the first dot — the first `.` byte, even
    /// when a combining mark after it makes one grapheme of the two; and whatever the line order.
    @Test(arguments: [false, true])
    func aDotFollowedByACombiningMarkStillEndsTheStream(reversed: Bool) throws {
        let rule = try CheckKindTests.loadRule(
            """
            id: t.one
            title: at most one of these per generation
            severity: error
            for: generation
            count: { ev: ["ws.ping", "ws.\\u0301ping"] }
            max: 1
            """)
        var lines = [#"{"t":1,"ev":"ws.ping","gen":1}"#, #"{"t":2,"ev":"ws.\u0301ping","gen":1}"#]
        if reversed { lines.reverse() }
        let report = RuleRuns.audit(
            [rule], files: [("a.jsonl", lines.joined(separator: "\n") + "\n")])
        #expect(CheckKindVerdict(report.results[0]) == CheckKindVerdict(.fail, [2]))
        #expect(report.inputs.generations == 1)
        #expect(Event(t: 0, ev: "ws.\u{0301}ping").stream == "ws")
        #expect(Event(t: 0, ev: "\u{0600}.x").stream == "\u{0600}")
        #expect(Event(t: 0, ev: "nodot").stream == "nodot")
    }
}

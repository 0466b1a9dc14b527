import Testing

@testable import ConnAudit

extension EngineTests {
    @Test func aViolationShowsItsContext() throws {
        let r = try rule("id: t.noping\ntitle: No pings\nnever: { ev: ws.ping }")
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.connect","gen":1}
            {"t":1,"ev":"ws.open","gen":1}
            {"t":2,"ev":"ws.ping","gen":1}
            {"t":3,"ev":"ws.message","gen":1}
            {"t":4,"ev":"ws.close","gen":1,"reason":"user"}
            {"t":5,"ev":"ws.closed","gen":1}
            """)
        let v = try #require(result.violations.first)
        #expect(v.context.map(\.line) == [1, 2, 3, 4, 5])
        #expect(v.context.map(\.isAnchor) == [false, false, true, false, false])
        #expect(v.context[2].text == "t=2 ws.ping gen=1")
        #expect(v.context[4].text.hasPrefix("t=4 ws.close gen=1"))
    }

    /// Two generations' pings after both connects: generation 2 on every third line (5, 8, …),
    /// generation 1 on the others (3, 4, 6, 7, …); each at `t` = its line × `tPerLine`.
    static func interleavedPings(lines n: Int, tPerLine: Int) -> String {
        var lines = [#"{"t":0,"ev":"ws.connect","gen":1}"#, #"{"t":0,"ev":"ws.connect","gen":2}"#]
        for i in 3...n {
            lines.append(#"{"t":\#(i * tPerLine),"ev":"ws.ping","gen":\#(generation(ofLine: i))}"#)
        }
        return lines.joined(separator: "\n")
    }

    static func generation(ofLine line: Int) -> Int { line <= 2 ? line : (line % 3 == 2 ? 2 : 1) }

    /// Each finding of ``interleavedPings(lines:tPerLine:)`` shows its own generation's window:
    /// the two events before it, itself marked, the two after.
    static func expectOwnWindows(_ findings: [Finding], lines n: Int, tPerLine: Int) throws {
        for v in findings {
            let line = try #require(v.line)
            let own = (1...n).filter { generation(ofLine: $0) == generation(ofLine: line) }
            let at = try #require(own.firstIndex(of: line))
            let window = Array(own[max(0, at - 2)...min(own.count - 1, at + 2)])
            #expect(v.context.map(\.line) == window, "line \(line)")
            #expect(v.context.map(\.isAnchor) == window.map { $0 == line })
            for c in v.context where c.line > 2 {
                #expect(
                    c.text == "t=\(c.line * tPerLine) ws.ping gen=\(generation(ofLine: c.line))")
            }
        }
    }

    /// Findings close together share their neighbours' texts (each event is rendered once):
    /// each still shows its own window of its own generation, whichever generations interleave.
    @Test func findingsCloseTogetherEachShowTheirOwnNeighbours() throws {
        let r = try rule("id: t.noping\ntitle: No pings\nnever: { ev: ws.ping }")
        let result = run(r, Self.interleavedPings(lines: 60, tPerLine: 1))
        #expect(result.violations.count == 58)
        try Self.expectOwnWindows(result.violations, lines: 60, tPerLine: 1)
    }

    /// A finding made after its anchor (a deadline passed at a later event) shows the anchor's
    /// window too: the anchor then sits in the source's ring, its text shared with the findings
    /// made earlier, and its later neighbours arrive after the finding.
    @Test func aDeadlineFindingShowsItsAnchorsWindow() throws {
        let r = try rule(
            """
            id: t.answer
            title: Pings are answered within 25 ms
            for: generation
            each: { ev: ws.ping, as: p }
            followed_by: { ev: ws.pong }
            within_ms: 25
            """)
        // Pings 10 ms apart that nobody answers: each deadline passes at a later line (the last
        // three are still open at the end).
        let result = run(r, Self.interleavedPings(lines: 40, tPerLine: 10))
        #expect(result.violations.count == 35)
        try Self.expectOwnWindows(result.violations, lines: 40, tPerLine: 10)
    }

    /// A deadline that passes after many events of another stream of the same source (an SSE
    /// reader beside the WebSocket, as on a device) still shows the ping's own window while the
    /// ping is among the source's latest ``TimelineContext/ring`` events, and the ping alone once
    /// it has left them. With a ring of 16, 40 such events left the ping alone.
    @Test(arguments: [(40, true), (TimelineContext.ring + 10, false)])
    func aDeadlineDecidedAfterOtherStreamsShowsThePingsWindow(_ others: Int, _ shown: Bool) throws {
        let r = try rule(
            """
            id: t.answer
            title: Pings are answered within a second
            for: generation
            each: { ev: ws.ping, as: p }
            followed_by: { ev: ws.pong }
            within_ms: 1000
            """)
        var lines = [
            #"{"t":0,"ev":"ws.connect","gen":1}"#, #"{"t":1,"ev":"ws.open","gen":1}"#,
            #"{"t":2,"ev":"ws.ping","gen":1}"#, #"{"t":3,"ev":"ws.message","gen":1}"#,
            #"{"t":4,"ev":"ws.message","gen":1}"#
        ]
        for i in 0..<others { lines.append(#"{"t":\#(10 + i),"ev":"sse.event","id":"\#(i)"}"#) }
        lines.append(#"{"t":2000,"ev":"app.tick"}"#)
        let result = run(r, lines.joined(separator: "\n"))
        let v = try #require(result.violations.first)
        #expect(result.violations.count == 1)
        #expect(v.line == 3)
        let window = shown ? [1, 2, 3, 4, 5] : [3]
        #expect(v.context.map(\.line) == window)
        #expect(v.context.map(\.isAnchor) == window.map { $0 == 3 })
        #expect(v.context.first { $0.isAnchor }?.text == "t=2 ws.ping gen=1")
    }

    /// A finding still waiting for its later neighbours when its source ends (the source's last
    /// events broke a rule) does not keep the source's context — its ring of events — alive: the
    /// wait held the scope, which held the context, which held the wait (`script/fuzz audit`).
    @Test func aFindingStillWaitingDoesNotKeepItsContextAlive() {
        weak var weakContext: TimelineContext?
        do {
            let context = TimelineContext(source: nil)
            weakContext = context
            let sink = FindingSink(files: [])
            sink.violations[0] = [Finding(message: "m")]
            context.awaitAfter(
                violation: true, rule: 0, index: 0,
                scope: ContextScope(context: context, stream: "ws", gen: 1))
            for t in 0..<2 {
                context.record(Event(t: Double(t), ev: "ws.ping", gen: 1), sink: sink)
            }
            // One neighbour came; the finding waits for the second, which never comes.
            #expect(sink.violations[0]?.first?.context.count == 1)
        }
        #expect(weakContext == nil)
    }
}

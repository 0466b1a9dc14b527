import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// The HTML timeline is a postmortem page: by default it shows the timelines that have findings,
/// cuts a long one to the rows near its findings, draws each timeline's time lane, and stays small
/// for a device whose log is large.
@Suite("Timeline page shows findings")
struct TimelinePageShowsFindingsTests {
    typealias LogFile = TimelineViewTests.LogFile

    /// One source: generation 1 healthy (a ping and its pong), generation 2 closed without a
    /// reason after `pings` pings that each get a pong in time.
    static func device(pings: Int) -> LogFile {
        var lines = [
            #"{"t":0,"src":"d","ev":"ws.connect","gen":1,"interval_ms":100,"timeout_ms":1000}"#,
            #"{"t":10,"src":"d","ev":"ws.open","gen":1}"#,
            #"{"t":110,"src":"d","ev":"ws.ping","gen":1}"#,
            #"{"t":120,"src":"d","ev":"ws.pong","gen":1}"#,
            #"{"t":130,"src":"d","ev":"ws.close","gen":1,"code":1000,"reason":"user"}"#,
            #"{"t":200,"src":"d","ev":"ws.connect","gen":2,"interval_ms":100,"timeout_ms":1000}"#,
            #"{"t":210,"src":"d","ev":"ws.open","gen":2}"#
        ]
        // Each ping one interval after the pong before it (or the open).
        var t = 200
        for _ in 0..<pings {
            t += 110
            lines.append(#"{"t":\#(t),"src":"d","ev":"ws.ping","gen":2}"#)
            lines.append(#"{"t":\#(t + 5),"src":"d","ev":"ws.pong","gen":2}"#)
        }
        lines.append(#"{"t":\#(t + 50),"src":"d","ev":"ws.close","gen":2,"code":1000}"#)
        return ("d.jsonl", lines.joined(separator: "\n") + "\n")
    }

    @Test func byDefaultOnlyTimelinesWithFindingsAreShownAndTheRestCounted() throws {
        var doc = try TimelineViewTests.build([Self.device(pings: 3)])
        let all = doc.sections.count
        #expect(all == 2)
        doc.keepTimelinesWithFindings()
        #expect(doc.sections.map(\.gen) == [2])
        #expect(doc.hidden == TimelineDocument.Hidden(timelines: 1, events: 5))
        let html = TimelineReport.html(doc)
        #expect(
            html.contains(
                "1 timeline without findings (5 events) not shown; <code>--show all</code> shows them."
            ))
        #expect(!html.contains("ws gen 1"))
    }

    @Test func theFocusTimelineIsKeptWithoutAFinding() throws {
        var doc = try TimelineViewTests.build(
            [Self.device(pings: 3)], TimelineQuery(around: ("d.jsonl", 3), radius: 2))
        doc.keepTimelinesWithFindings()
        #expect(doc.sections.map(\.gen) == [1])
    }

    @Test func aLongTimelineShowsTheRowsNearItsFindings() throws {
        var doc = try TimelineViewTests.build([Self.device(pings: 400)])
        doc.keepTimelinesWithFindings()
        let section = try #require(doc.sections.first)
        #expect(section.entries.count == 803)
        let rows = TimelineReport.shownRows(section, eliding: true)
        // The first three, and the close (the last row, with its finding) with the rows before it.
        let context = TimelineReport.elisionContext
        #expect(rows == [0, 1, 2] + Array((802 - context)...802))
        #expect(TimelineReport.shownRows(section, eliding: false).count == 803)
        let html = TimelineReport.html(doc)
        #expect(
            html.contains(
                "<tr class=\"elided\"><td class=\"mark\">⋯</td><td colspan=\"8\">\(803 - rows.count) events "
                    + "without findings (<code>--show all</code> shows them)</td></tr>"),
            "\(html.prefix(3000))")
        #expect(Self.count("<td class=\"loc\">", in: html) == rows.count)
        // Shown whole: every row.
        var whole = try TimelineViewTests.build([Self.device(pings: 400)])
        whole.sections.removeFirst()
        #expect(Self.count("<td class=\"loc\">", in: TimelineReport.html(whole)) == 803)
    }

    @Test func theLaneMarksPingsPongsDeadlinesClosesAndFindings() throws {
        let doc = try TimelineViewTests.build([Self.device(pings: 3)])
        let gen2 = try #require(doc.sections.first { $0.gen == 2 })
        let marks = TimelineReport.laneMarks(gen2)
        func times(_ m: TimelineReport.LaneMark) -> [Double] {
            marks.filter { $0.mark == m }.map(\.t)
        }
        #expect(times(.ping) == [310, 420, 530])
        #expect(times(.pong) == [315, 425, 535])
        #expect(times(.deadline) == [1310, 1420, 1530])
        #expect(times(.close) == [580])
        #expect(times(.connect) == [200, 210])
        #expect(times(.violation) == [580])
        let lane = TimelineReport.lane(gen2)
        #expect(
            lane.hasPrefix("<svg class=\"lane\" viewBox=\"0 0 \(TimelineReport.laneWidth) 36\""))
        #expect(
            lane.contains(
                "<title>time lane, 1330 ms: 2 connect or opens, 3 pings, 3 pongs, 3 ping deadlines, 1 close, 1 violation</title>"
            ), "\(lane)")
    }

    @Test func aLaneDrawsAtMostOneMarkOfAKindPerColumn() throws {
        let doc = try TimelineViewTests.build([Self.device(pings: 5_000)])
        let gen2 = try #require(doc.sections.first { $0.gen == 2 })
        let lane = TimelineReport.lane(gen2)
        // 5,000 pings and 5,000 pongs, one segment per column at most, one path per kind.
        #expect(Self.count("stroke=\"#2f6fd0\"", in: lane) == 1)
        let pings = try #require(
            lane.components(separatedBy: "<path d=\"").first { $0.contains("#2f6fd0") })
        #expect(Self.count("v12", in: pings) <= TimelineReport.laneWidth)
        #expect(lane.contains("5000 pings, 5000 pongs"))
    }

    /// The page of one device with a long log stays small: 1,000 generations of 20 pings each,
    /// three of which close without a reason.
    @Test func aDeviceWithALongLogMakesASmallPage() throws {
        var lines: [String] = []
        var t = 0
        for g in 1...1_000 {
            lines.append(
                #"{"t":\#(t),"src":"d","ev":"ws.connect","gen":\#(g),"interval_ms":100,"timeout_ms":1000}"#
            )
            lines.append(#"{"t":\#(t + 10),"src":"d","ev":"ws.open","gen":\#(g)}"#)
            for _ in 0..<20 {
                t += 110
                lines.append(#"{"t":\#(t),"src":"d","ev":"ws.ping","gen":\#(g)}"#)
                lines.append(#"{"t":\#(t + 5),"src":"d","ev":"ws.pong","gen":\#(g)}"#)
            }
            let reason = g % 300 == 0 ? "" : #","reason":"user""#
            lines.append(
                #"{"t":\#(t + 50),"src":"d","ev":"ws.close","gen":\#(g),"code":1000\#(reason)}"#)
            t += 100
        }
        let dir = try makeTemporaryDirectory(["d.jsonl": lines.joined(separator: "\n") + "\n"])
        defer { removeTemporaryDirectory(dir) }
        func page(_ extra: [String]) throws -> String {
            let run = CommandLineRun(
                ["timeline", dir + "/d.jsonl", "--no-config", "-f", "html", "-o", dir + "/p.html"]
                    + extra)
            try #require(run.code == 0, "\(run.err)")
            return try String(contentsOfFile: dir + "/p.html", encoding: .utf8)
        }
        let small = try page([])
        #expect(small.utf8.count < 100_000, "\(small.utf8.count) bytes")
        #expect(Self.count("<details class=\"timeline\"", in: small) == 3)
        #expect(
            small.contains("997 timelines without findings (42871 events) not shown"),
            "\(small.prefix(2000))")
        let whole = try page(["--show", "all"])
        #expect(whole.utf8.count > 5_000_000, "\(whole.utf8.count) bytes")
        #expect(Self.count("<details class=\"timeline\"", in: whole) == 1_000)
    }

    @Test func showTakesFindingsOrAll() throws {
        let dir = try makeTemporaryDirectory(["d.jsonl": Self.device(pings: 3).text])
        defer { removeTemporaryDirectory(dir) }
        let text = CommandLineRun(["timeline", dir, "--no-config"])
        #expect(text.out.contains("ws gen 1") && !text.out.contains("not shown"))
        let only = CommandLineRun(["timeline", dir, "--no-config", "--show", "findings"])
        #expect(!only.out.contains("ws gen 1"))
        #expect(
            only.out.contains(
                "1 timeline without findings (5 events) not shown (--show all shows them)"),
            "\(only.out)")
        let json = try jsonObject(
            CommandLineRun(["timeline", dir, "--no-config", "-f", "json", "--show", "findings"]).out
        )
        #expect(json["hidden"] as? [String: Int] == ["timelines": 1, "events": 5])
        #expect(
            try jsonObject(CommandLineRun(["timeline", dir, "--no-config", "-f", "json"]).out)[
                "hidden"] == nil)
        let html = CommandLineRun(["timeline", dir, "--no-config", "-f", "html", "--show", "all"])
        #expect(html.out.contains("ws gen 1") && !html.out.contains("not shown"))
        // Nothing shown: the note is the first line.
        let clean = try makeTemporaryDirectory([
            "c.jsonl": #"{"t":0,"src":"c","ev":"app.scene","phase":"active"}"# + "\n"
        ])
        defer { removeTemporaryDirectory(clean) }
        let none = CommandLineRun(["timeline", clean, "--no-config", "--show", "findings"])
        #expect(
            none.out.hasPrefix("1 timeline without findings (1 event) not shown"), "\(none.out)")
        let bad = CommandLineRun(["timeline", dir, "--no-config", "--show", "some"])
        #expect(bad.code == 2 && bad.err.contains("--show must be findings or all, not 'some'"))
    }

    static func count(_ needle: String, in s: String) -> Int {
        s.components(separatedBy: needle).count - 1
    }
}

import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A run that read no event judged nothing: it is never a pass (an empty upload must not open a
/// gate), while lines that are not events still fail it through `log.malformed`.
@Suite("No event read is no verdict")
struct NoEventIsNoVerdictTests {

    @Test(arguments: [
        ("", "no event in it (no line at all)"), ("\n\n  \n", "no event in its 3 lines")
    ])
    func emptyAndBlankLogsAreNoVerdict(_ text: String, _ reason: String) throws {
        let dir = try makeTemporaryDirectory(["a.jsonl": text])
        defer { removeTemporaryDirectory(dir) }
        let run = CommandLineRun([dir + "/a.jsonl", "-f", "json"])
        #expect(run.code == 2)
        #expect(run.err == "conn-audit: error: \(dir)/a.jsonl: \(reason): nothing was judged\n")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
        #expect(report["verdict"] as? String == "incomplete" && report["exit_code"] as? Int == 2)
        #expect(report["complete"] as? Bool == false)
    }

    /// The input was read: the reports say it held no event, not that it could not be read.
    @Test func reportsSayTheInputHeldNoEvent() throws {
        let dir = try makeTemporaryDirectory(["a.jsonl": "\n"])
        defer { removeTemporaryDirectory(dir) }
        let path = dir + "/a.jsonl"
        let text = CommandLineRun([path])
        #expect(
            text.out.contains("error: \(path): no event in its 1 line: nothing was judged\n"),
            "\(text.out)")
        #expect(text.out.contains("verdict: INCOMPLETE — 1 input held no event\n"), "\(text.out)")
        let concise = CommandLineRun([path, "-f", "concise"])
        #expect(
            concise.out.hasPrefix(
                "\(path): conn-audit: no event in its 1 line: nothing was judged\n"),
            "\(concise.out)")
        #expect(
            concise.out.contains("conn-audit: 1 input held no event; 0 rules failed"),
            "\(concise.out)")
        let junit = CommandLineRun([path, "-f", "junit"])
        #expect(
            junit.out.contains("message=\"1 input held no event: the verdict is incomplete\""),
            "\(junit.out)")
        for run in [text, concise, junit] {
            #expect(!run.out.contains("could not read") && !run.err.contains("could not read"))
        }
    }

    @Test func linesThatAreNotEventsStillFail() throws {
        let dir = try makeTemporaryDirectory(["a.jsonl": "not json\n{\"t\":1}\n"])
        defer { removeTemporaryDirectory(dir) }
        let run = CommandLineRun([dir + "/a.jsonl", "-q"])
        #expect(run.code == 1)
    }

    @Test func oneEventIsEnough() throws {
        let dir = try makeTemporaryDirectory([
            "a.jsonl": "{\"t\":1,\"ev\":\"app.scene\",\"phase\":\"active\"}\n"
        ])
        defer { removeTemporaryDirectory(dir) }
        #expect(CommandLineRun([dir + "/a.jsonl", "-q"]).code == 0)
    }
}

import Foundation
import Testing

@testable import ConnAudit

/// A run that read no event judged nothing: it is never a pass (an empty upload must not open a
/// gate), while lines that are not events still fail it through `log.malformed`.
@Suite("No event read is no verdict")
struct NoEventIsNoVerdictTests {

    @Test(arguments: [("", "no event in it (no line at all)"), ("\n\n  \n", "no event in its 3 lines")])
    func emptyAndBlankLogsAreNoVerdict(_ text: String, _ reason: String) throws {
        let dir = try makeTemporaryDirectory(["a.jsonl": text])
        defer { removeTemporaryDirectory(dir) }
        let run = CommandLineRun([dir + "/a.jsonl", "-f", "json"])
        #expect(run.code == 2)
        #expect(run.err == "conn-audit: error: could not read \(dir)/a.jsonl: \(reason): nothing was judged\n")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
        #expect(report["verdict"] as? String == "incomplete" && report["exit_code"] as? Int == 2)
        #expect(report["complete"] as? Bool == false)
    }

    @Test func linesThatAreNotEventsStillFail() throws {
        let dir = try makeTemporaryDirectory(["a.jsonl": "not json\n{\"t\":1}\n"])
        defer { removeTemporaryDirectory(dir) }
        let run = CommandLineRun([dir + "/a.jsonl", "-q"])
        #expect(run.code == 1)
    }

    @Test func oneEventIsEnough() throws {
        let dir = try makeTemporaryDirectory(["a.jsonl": "{\"t\":1,\"ev\":\"app.scene\",\"phase\":\"active\"}\n"])
        defer { removeTemporaryDirectory(dir) }
        #expect(CommandLineRun([dir + "/a.jsonl", "-q"]).code == 0)
    }
}

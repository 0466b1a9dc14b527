import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// connlog: a `gen` is any JSON integer from 0 to 2^64 - 1 (a client may use a random or hashed
/// UInt64). Past Int64 it orders exactly, keys its own timeline, and every report prints its
/// digits.
@Suite struct UnsignedGenTests {
    @Test(arguments: [
        // 2^63 + 1, then 2^63: lower (as doubles the two are equal).
        ("9223372036854775809", "9223372036854775808", Int32(1)),
        ("9223372036854775808", "9223372036854775809", Int32(0)),
        ("9223372036854775807", "9223372036854775808", Int32(0)),
        ("18446744073709551615", "18446744073709551614", Int32(1)),
        ("18446744073709551614", "18446744073709551615", Int32(0))
    ])
    func generationsPastInt64IncreaseExactly(_ first: String, _ second: String, _ code: Int32)
        throws
    {
        try withScratchDirectory("cli") { dir in
            let log = try CLI.write(
                """
                {"t":0,"src":"d","ev":"ws.connect","gen":\(first)}
                {"t":5,"src":"d","ev":"ws.close","gen":\(first),"reason":"user"}
                {"t":10,"src":"d","ev":"ws.connect","gen":\(second)}

                """, dir, "a.jsonl")
            let run = CLI.run([log, "--only", "ws.generation-increases", "--format", "json"])
            #expect(run.code == code, "\(run.err)")
            let rule = try CLI.entry(try jsonObject(run.out), "ws.generation-increases")
            let violations = try #require(rule["violations"] as? [[String: Any]])
            #expect(violations.compactMap { $0["line"] as? Int } == (code == 1 ? [3] : []))
            if code == 1 {
                #expect(run.out.contains(#""gen": \#(second),"#), "\(run.out)")
                #expect(
                    violations.first?["message"] as? String
                        == "ws.connect gen \(second) is not greater than every earlier ws.connect gen of this source"
                )
            }
        }
    }

    /// Two connects of 2^64 - 2 and 2^64 - 1: two generations, the second while the first is live.
    private static let twoLive = """
        {"t":0,"src":"d","ev":"ws.connect","gen":18446744073709551614}
        {"t":2,"src":"d","ev":"ws.connect","gen":18446744073709551615}

        """

    @Test func twoGenerationsAtTheTopOfUInt64StayApart() throws {
        try withScratchDirectory("cli") { dir in
            let log = try CLI.write(Self.twoLive, dir, "a.jsonl")
            let run = CLI.run([log, "--only", "ws.single-live-connection", "--format", "json"])
            #expect(run.code == 1, "\(run.err)")
            let report = try jsonObject(run.out)
            #expect((report["inputs"] as? [String: Any])?["generations"] as? Int == 2)
            let rule = try CLI.entry(report, "ws.single-live-connection")
            let violations = try #require(rule["violations"] as? [[String: Any]])
            #expect(violations.compactMap { $0["line"] as? Int } == [2])
            #expect(
                violations.first?["message"] as? String
                    == "ws.connect of generation 18446744073709551615"
                    + " while generation 18446744073709551614 (its ws.connect at t=0) is still live"
            )
            // The digits exactly, as a JSON number (a double would print 1.8446744073709552e+19).
            #expect(run.out.contains(#""gen": 18446744073709551615,"#), "\(run.out)")
            #expect(run.out.contains("t=2 ws.connect gen=18446744073709551615"), "\(run.out)")
        }
    }

    @Test(arguments: ["text", "junit", "sarif", "github"])
    func everyReportPrintsTheDigits(_ format: String) throws {
        try withScratchDirectory("cli") { dir in
            let log = try CLI.write(Self.twoLive, dir, "a.jsonl")
            let run = CLI.run([log, "--only", "ws.single-live-connection", "--format", format])
            #expect(run.code == 1, "\(run.err)")
            #expect(
                run.out.contains(
                    "generation 18446744073709551615 while generation 18446744073709551614"),
                "\(run.out)")
            if format != "github" {
                // Where the report names a finding's gen (SARIF: a JSON number in its properties).
                let gen =
                    format == "sarif" ? #""gen": 18446744073709551615"# : "gen=18446744073709551615"
                #expect(run.out.contains(gen), "\(run.out)")
            }
        }
    }

    @Test func theTimelineShowsOneGenerationPastInt64() throws {
        try withScratchDirectory("cli") { dir in
            let log = try CLI.write(Self.twoLive, dir, "a.jsonl")
            let text = CLI.run(["timeline", log, "--gen", "18446744073709551615"])
            #expect(text.code == 0, "\(text.err)")
            #expect(text.out.contains("ws gen 18446744073709551615 · 1 event"), "\(text.out)")
            #expect(!text.out.contains("18446744073709551614 ·"), "\(text.out)")
            let js = CLI.run(["timeline", log, "--gen", "18446744073709551614", "--format", "json"])
            #expect(js.code == 0, "\(js.err)")
            #expect(js.out.contains(#""gen": 18446744073709551614"#), "\(js.out)")
            #expect(!js.out.contains("18446744073709551615"), "\(js.out)")
            let html = CLI.run(["timeline", log, "--format", "html"])
            #expect(html.code == 0, "\(html.err)")
            #expect(html.out.contains("ws gen 18446744073709551615"), "\(html.out.prefix(300))")
            let tooLarge = CLI.run(["timeline", log, "--gen", "18446744073709551616"])
            #expect(tooLarge.code == 2)
            #expect(
                tooLarge.err.contains(
                    "--gen takes a whole number from 0 to 18446744073709551615, not '18446744073709551616'"
                ),
                "\(tooLarge.err)")
        }
    }
}

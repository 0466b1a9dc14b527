import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@testable import ConnAudit
import ConnAuditTestSupport

/// What a log controls in the output: control characters, secrets, and lines built to make
/// the secret scanner or a report slow.
@Suite("Hostile input: what a log puts in a report", .timeLimit(.minutes(10)))
struct HostileReportOutputTests {}

// MARK: - Output that a log controls

extension HostileReportOutputTests {
    /// A rule message shows a field's value; a log can put control characters in it with JSON
    /// escapes.
    @Test func controlCharactersFromALogDoNotReachTheReportRaw() throws {
        try withScratchDirectory("hostile") { dir in
            let rules = try Hostile.rulesDirectory(
                dir,
                extra: """
                    rules:
                      - id: probe.reason
                        title: Shows a reason
                        for: source
                        never: { ev: probe.hit }
                        message: "reason is {reason}"
                    """)
            let log = try Hostile.put(
                #"""
                {"t":1,"ev":"probe.hit","reason":"a\u0000b"}
                {"t":2,"ev":"probe.hit","reason":"x\u001b[2J\nverdict: PASS"}

                """#, dir, "control.jsonl")
            for format in ["text", "github"] {
                let run = Hostile.runCLI([log, "--rules", rules, "--format", format])
                #expect(run.code == 1)
                #expect(run.elapsed < Hostile.timeLimit)
                // Console.standard writes with fputs: a NUL ends the whole report there (the
                // verdict is lost).
                #expect(!run.out.contains("\u{0}"), "\(format): a raw NUL in the report")
                #expect(!run.out.contains("\u{1B}"), "\(format): a raw ESC in the report")
                if format == "text" {
                    #expect(
                        !run.out.contains("\nverdict: PASS\n"), "a log line forges a verdict line")
                }

            }
        }
    }
}

// MARK: - Secrets

extension HostileReportOutputTests {
    /// `eyJ` repeated with no dot is no JWT. Were each `eyJ` to start a look-ahead to the end of
    /// the run, a line just under 1 MiB would take minutes: each run is read once. A JWT after
    /// such a run, and a key made of it, are still found.
    @Test func aLongRunOfJWTStartsIsScannedInLinearTime() throws {
        try withScratchDirectory("hostile") { dir in
            let run = String(repeating: "eyJ", count: 340_000),
                half = String(repeating: "eyJ", count: 170_000)
            let lines = [
                #"{"t":1,"ev":"probe.hit","x":"\#(run)"}"#,  // 1: no token
                #"{"t":2,"ev":"probe.hit","x":"\#(run).eyJb.c"}"#,  // 2: a JWT (eyJ….eyJb.)
                #"{"t":3,"ev":"probe.hit","x":"\#(half).\#(half)"}"#  // 3: no second dot: no token
            ]
            let log = try Hostile.put(lines.joined(separator: "\n") + "\n", dir, "eyj.jsonl")
            let report = try Hostile.checkedJSONRun([
                log, "--rules", try Hostile.rulesDirectory(dir)
            ]).report
            #expect(try Hostile.violationLines(report, "log.no-secrets", file: log) == [2])
            #expect(try Hostile.violationLines(report, "probe.seen", file: log) == [1, 2, 3])
        }
    }

    @Test func aTokenInAMalformedLineAppearsInNoOutputFormat() throws {
        try withScratchDirectory("hostile") { dir in
            let rules = try Hostile.rulesDirectory(
                dir,
                extra: """
                    rules:
                      - id: probe.auth
                        title: Probe lines carry no auth header
                        for: source
                        every: { ev: probe.hit }
                        expect: "auth == null"
                        message: "auth is {auth}, nested is {nested}"
                    """)
            // Every secret value holds "SECRET" (upper case appears nowhere else in a report).
            let token = "Bearer SECRETtoken1234567890abc"
            let lines = [
                #"{"ev":"probe.hit","auth":"\#(token)"}"#,  // 1: no t, and a bearer token
                #"{"t":2,"ev":"probe.hit","auth":"\#(token)"}"#,  // 2: valid; the rule reads auth
                #"{"t":3,"ev":"probe.hit","nested":{"x":"\#(token)"}}"#,  // 3: valid, nested
                #"{"t":"4","ev":"probe.hit","auth":"\#(token)"}"#,  // 4: t not a number
                // 5: JWT
                #"{"ev":"probe.hit","auth":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SECRETjwtSig"}"#,
                #"{"t":6,"ev":"\#(token)"}"#,  // 6: in ev
                #"{"t":7,"src":"\#(token)","ev":"probe.hit"}"#,  // 7: in src
                // 8: text after the object
                #"{"t":8,"ev":"probe.hit","auth":"\#(token)"} trailing"#,
                #"{"ev":"probe.hit","Authorization":"SECRETplainvalue99"}"#,  // 9: a secret key
                #"{"t":10,"ev":"probe.hit","auth":"\#(token)",}"#  // 10: not JSON
            ]
            let log = try Hostile.put(lines.joined(separator: "\n") + "\n", dir, "secrets.jsonl")

            for format in ["text", "json", "junit", "sarif", "github"] {
                let run = Hostile.runCLI([log, "--rules", rules, "--format", format])
                #expect(run.code == 1, "\(format): \(run.err)")
                #expect(run.elapsed < Hostile.timeLimit)
                #expect(!run.out.contains("SECRET"), "\(format) prints a secret")
                #expect(!run.err.contains("SECRET"), "\(format) prints a secret on stderr")
                if format == "json" {
                    let report = try Hostile.parseReport(run.out)
                    try Hostile.expectAccounting(report)
                    // The malformed line with the token is both malformed and a secret finding.
                    #expect(
                        try Hostile.malformedMessages(report, file: log)[1]
                            == #"not a valid connlog event: missing "t""#)
                    let secretLines = try Hostile.violationLines(
                        report, "log.no-secrets", file: log)
                    #expect(
                        Set([1, 2, 3, 4, 5, 6, 7, 9]).isSubset(of: Set(secretLines)),
                        "\(secretLines)")
                    #expect(secretLines.contains(8), "line 8 holds a bearer token: \(secretLines)")

                    #expect(try Hostile.violationLines(report, "probe.auth", file: log).contains(2))
                }
            }
            for format in ["text", "json", "html"] {
                let timeline = Hostile.runCLI([
                    "timeline", log, "--rules", rules, "--format", format
                ])
                #expect(timeline.code != 2, "timeline \(format): \(timeline.err)")
                #expect(timeline.elapsed < Hostile.timeLimit)
                #expect(!timeline.out.contains("SECRET"), "timeline \(format) prints a secret")
                #expect(
                    !timeline.err.contains("SECRET"), "timeline \(format) prints a secret on stderr"
                )
            }
        }
    }
}

extension HostileReportOutputTests {
    /// A line whose top-level keys each hold a secret: every list of a line's hidden keys is looked
    /// up through a set once it is long — in the parser, the reader's `[redacted]` fields, a
    /// finding's context, the timeline's text and JSON — not searched once per key or per field,
    /// which would make 40,000 keys cost the square of that. Half the keys hold a JWT (a hash of it is kept: the timeline decodes every field),
    /// half a secret key name inside; the line is just under 1 MiB.
    @Test func aLineOfFortyThousandFlaggedTopLevelKeysIsCheckedAndShownInLinearTime() throws {
        try withScratchDirectory("hostile") { dir in
            let n = 40_000
            let keys = (0..<n).map { "k" + String($0, radix: 36) }
            let entries = keys.indices.map { i in
                i % 2 == 0
                    ? #""\#(keys[i])":"eyJSECRET.eyJ0.""# : #""\#(keys[i])":{"body":"SECRET"}"#
            }
            let line = #"{"t":1,"ev":"ws.open","gen":1,"# + entries.joined(separator: ",") + "}"
            try #require(line.utf8.count < 1 << 20)
            // The ws.close without a reason is a finding whose context shows the line before it.
            let log = try Hostile.put(
                line + "\n" + #"{"t":2,"ev":"ws.close","gen":1}"# + "\n", dir, "keys.jsonl")

            for format in ["text", "json", "sarif"] {
                let run = Hostile.runCLI([log, "--format", format])
                #expect(run.code == 1, "\(format): \(run.err)")
                #expect(run.elapsed < Hostile.timeLimit, "\(format) took \(run.elapsed)")
                #expect(!run.out.contains("SECRET"), "\(format) prints a secret")
                guard format == "json" else { continue }
                let report = try Hostile.parseReport(run.out)
                try Hostile.expectAccounting(report)
                #expect(
                    try Hostile.fileCounts(report, log)
                        == Hostile.FileCounts(lines: 2, events: 2, malformed: 0, blank: 0))
                let secrets = try Hostile.violations(report, "log.no-secrets")
                #expect(secrets.count == n)
                #expect(Set(secrets.compactMap { $0["message"] as? String }).count == n)
                #expect(secrets.allSatisfy { $0["line"] as? Int == 1 })
                // The context line of the line of secrets shows none of its hidden fields.
                let close = try #require(
                    try Hostile.violations(report, "ws.close-has-reason").first)
                let context = try #require(close["context"] as? [[String: Any]])
                #expect(
                    context.map { $0["event"] as? String } == [
                        "t=1 ws.open gen=1", "t=2 ws.close gen=1"
                    ])
            }

            for format in ["text", "json", "html"] {
                let run = Hostile.runCLI(["timeline", log, "--format", format])
                #expect(run.code == 0, "timeline \(format): \(run.err)")
                #expect(run.elapsed < Hostile.timeLimit, "timeline \(format) took \(run.elapsed)")
                #expect(!run.out.contains("SECRET"), "timeline \(format) prints a secret")
                if format == "text" {
                    #expect(run.out.contains(" k0=[redacted] k1=[redacted] "))
                    #expect(run.out.contains(" \(keys[n - 1])=[redacted]\n"))
                }
                guard format == "json" else { continue }
                let document = try Hostile.parseReport(run.out)
                let sections = try #require(document["sections"] as? [[String: Any]])
                let entries = sections.flatMap { $0["entries"] as? [[String: Any]] ?? [] }
                let first = try #require(entries.first { $0["line"] as? Int == 1 })
                let fields = try #require(first["fields"] as? [String: Any])
                #expect(fields.count == n)
                #expect(fields.values.allSatisfy { $0 as? String == "[redacted]" })
                #expect((first["redacted"] as? [String]).map(Set.init) == Set(keys))
            }
        }
    }
}

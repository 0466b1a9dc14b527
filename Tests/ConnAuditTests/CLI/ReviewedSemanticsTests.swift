import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// Exact deadlines with fractions, typed params, the incomplete verdict, and timelines, findings
/// and selections seen through the command line.
@Suite struct ReviewedSemanticsTests {
    /// connlog's own example: a ping at 128.11, its deadline at 128.11 + 1000. A pong at 1128.11 is
    /// *at* the deadline, so late; the close there is on time. In binary floating point the sum is
    /// 1128.1100000000001, which would turn both the other way.
    @Test func fractionalTimesMeetTheirDeadlinesExactly() throws {
        try CLI.withTemporaryDirectory { dir in
            let log = try CLI.write(
                """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":0,"ev":"ws.open","gen":1}
                {"t":128.11,"ev":"ws.ping","gen":1}
                {"t":1128.11,"ev":"ws.pong","gen":1}
                {"t":1128.11,"ev":"ws.close","gen":1,"reason":"pong_timeout"}

                """, dir, "frac.jsonl")
            let run = CLI.run([log, "--format", "json"])
            let report = try jsonObject(run.out)
            let outcomes = try #require(report["outcomes"] as? [String: Any])
            #expect(outcomes["delayed"] as? Int == 1, "\(outcomes)")
            #expect(outcomes["normal"] as? Int == 0, "\(outcomes)")
            #expect(try CLI.entry(report, "ws.no-premature-timeout")["status"] as? String == "pass")
            #expect(try CLI.entry(report, "ws.timeout-closes")["status"] as? String == "pass")
        }
    }

    @Test func decimalRoundingKeepsWholeNumbersAndFixesBinaryNoise() {
        #expect(DecimalRounding.sum(128.11, 1000) == 1128.11)
        #expect(DecimalRounding.sum(0.1, 0.2) == 0.3)
        #expect(DecimalRounding.rounded(1128.11 - 128.11) == 1000)
        #expect(DecimalRounding.sum(1e15, 1) == 1e15 + 1)
        #expect(DecimalRounding.sum(1.5, 2.25) == 3.75)
        // A genuine difference below the last logged digit is not rounded away.
        #expect(DecimalRounding.sum(1128.1, 0.01) < 1128.11 + 0.001)
        #expect(DecimalRounding.sum(1128.1, 0.009) != 1128.11)
        #expect(DecimalRounding.sum(-128.11, -1000) == -1128.11)
        #expect(DecimalRounding.rounded(1e-30 + 3e-31) == 1.3e-30)
    }

    /// Decimals add up to exactly the decimal sum: the result is the double a parser makes of the
    /// sum's text (computed here in integers) — up to 16 significant digits, as in epoch
    /// milliseconds with microseconds (`1700000000123.456`) or a long uptime (`1234567890.123456`).
    @Test(arguments: [1, 3, 6, 7, 9])
    func decimalSumsAreTheDecimalResult(fractionDigits: Int) {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 &+ UInt64(fractionDigits)
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var scale: Int64 = 1
        for _ in 0..<fractionDigits { scale *= 10 }
        var failures = 0
        for _ in 0..<30_000 {
            // a, b in units of 10^-fractionDigits, from 1 to 16 digits, sums below 2^53 / 8.
            var bound: Int64 = 1
            for _ in 0..<Int64(next() % 17) { bound *= 10 }
            bound = min(bound, 1_000_000_000_000_000)
            let x = Int64(next() % UInt64(2 * bound + 1)) - bound
            let y = Int64(next() % UInt64(2 * bound + 1)) - bound
            let a = Double(x) / Double(scale), b = Double(y) / Double(scale)
            let exact = Double(x + y) / Double(scale)
            let exactDifference = Double(x - y) / Double(scale)
            if DecimalRounding.sum(a, b) != exact || DecimalRounding.sum(a, -b) != exactDifference {
                failures += 1
                if failures <= 5 {
                    Issue.record("\(a) ± \(b): \(DecimalRounding.sum(a, b)) vs \(exact)")
                }
            }
        }
        #expect(failures == 0)
    }

    /// Times with 16 or 17 significant digits (random doubles, as a `Double` uptime is logged):
    /// the sum is the decimal sum of the two shortest forms, checked against Foundation's
    /// `Decimal` (38 digits, exact here) read back by `Double(_:)`.
    @Test func longDecimalSumsAreTheDecimalResult() throws {
        var rng = SplitMix64(state: 0x5EED_0016)
        var failures = 0
        var textPath = 0
        for i in 0..<20_000 {
            // 1e6 … 1e12 ms with a random full-precision fraction.
            let magnitude = Double(1 + rng.below(1_000_000)) * [1.0, 1e3, 1e6][i % 3]
            let a = magnitude + Double(rng.below(1 << 40)) / Double(1 << 40)
            let b: Double =
                i % 2 == 0 ? Double(rng.below(100_000)) : Double(rng.below(100_000)) / 1000
            if DecimalRounding.fractionDigits(a) == nil { textPath += 1 }
            let exact =
                try #require(Decimal(string: a.description))
                + (try #require(Decimal(string: b.description)))
            let expected = try #require(Double("\(exact)"))
            let got = DecimalRounding.sum(a, b)
            if got != expected {
                failures += 1
                if failures <= 5 { Issue.record("\(a) + \(b): \(got), expected \(expected)") }
            }
        }
        #expect(failures == 0)
        // Most of these take the text path (the fast one needs digits below 2^51).
        #expect(textPath > 10_000)
    }

    @Test func decimalSumsAtTheEdges() {
        // Cancellation: the result's own 15th digit is noise.
        #expect(DecimalRounding.sum(777.18063, -875.375) == -98.19437)
        // 16 significant digits: the pong at the deadline is at the deadline.
        #expect(DecimalRounding.sum(1234567890.123456, 1000) == 1234568890.123456)
        #expect(DecimalRounding.sum(1700000000123.456, 1000) == 1700000001123.456)
        #expect(DecimalRounding.sum(1234568890.123459, -1234567890.123456) == 1000.000003)
        // 16 and 17 significant digits (an uptime logged from a Double): exact through the text.
        #expect(DecimalRounding.sum(693745044.0586978, 100) == 693745144.0586978)
        #expect(DecimalRounding.sum(693745144.0586978, 1000) == 693746144.0586978)
        #expect(DecimalRounding.sum(693746144.0586978, -1000) == 693745144.0586978)
        #expect(DecimalRounding.sum(14154823.563319262, 1000) == 14155823.563319262)
        #expect(DecimalRounding.sum(0.1, 693745144.0586978) == 693745144.1586978)
        #expect(DecimalRounding.fractionDigits(693745044.0586978) == nil)
        #expect(DecimalRounding.fractionDigits(693745044.058698) == 6)
        #expect(DecimalRounding.sum(9999999999999.9999, 1) == 10000000000001)
        // Magnitudes too far apart to align: binary addition.
        #expect(DecimalRounding.sum(1e300, 1.5) == 1e300)
        // A long time plus whole milliseconds at the edge of a binary exponent.
        #expect(DecimalRounding.sum(536870911.0586978, 1) == 536870912.0586978)
        #expect(DecimalRounding.sum(536870912.0586978, -1) == 536870911.0586978)
        #expect(DecimalRounding.sum(1073741823.9999999, 1) == 1073741824.9999999)
        #expect(DecimalRounding.sum(.infinity, 1) == .infinity)
        #expect(DecimalRounding.sum(0.5, 0.5) == 1)
    }

    @Test func aParamOfTheWrongKindIsAUsageError() throws {
        try CLI.withTemporaryDirectory { dir in
            let log = try CLI.write(#"{"t":0,"ev":"ws.connect","gen":1}"# + "\n", dir, "a.jsonl")
            let bad = CLI.run([log, "--param", "timeout_ms=abc"])
            #expect(bad.code == 2)
            #expect(bad.err.contains("timeout_ms=abc"), "\(bad.err)")
            #expect(bad.err.contains("number"), "\(bad.err)")
            #expect(CLI.run([log, "--param", "timeout_ms=1500", "--quiet"]).code != 2)
            #expect(CLI.run([log, "--param", "ws.timeout-closes.timeout_ms=x"]).code == 2)
        }
    }

    @Test func anUnreadableInputMakesTheVerdictIncompleteInEveryMachineFormat() throws {
        try CLI.withTemporaryDirectory { dir in
            let log = try CLI.write(#"{"t":0,"ev":"app.start"}"# + "\n", dir, "a.jsonl")
            let missing = dir + "/missing.jsonl"
            let run = CLI.run([log, missing, "--format", "json"])
            #expect(run.code == 2)
            let report = try jsonObject(run.out)
            #expect(report["verdict"] as? String == "incomplete")
            #expect(report["complete"] as? Bool == false)
            let junit = CLI.run([log, missing, "--format", "junit"])
            #expect(
                junit.out.contains(#"name="verdict" value="incomplete""#),
                "\(junit.out.prefix(600))")
            let github = CLI.run([log, missing, "--format", "github"])
            #expect(github.out.contains("verdict INCOMPLETE"), "\(github.out)")
        }
    }
}

extension ReviewedSemanticsTests {
    /// `--around` names the file as the user has it at hand: through another path to the same
    /// file (a symbolic link, an absolute path for a relative input) it is the same input.
    @Test func timelineAroundFindsTheInputByItsRealPath() throws {
        try CLI.withTemporaryDirectory { dir in
            let log = try CLI.write(
                """
                {"t":0,"src":"d","ev":"ws.connect","gen":1}
                {"t":10,"src":"d","ev":"ws.open","gen":1}

                """, dir, "real.jsonl")
            try FileManager.default.createDirectory(
                atPath: dir + "/links", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                atPath: dir + "/links/other.jsonl", withDestinationPath: log)
            let run = CLI.run(["timeline", dir + "/links/other.jsonl", "--around", log + ":2"])
            #expect(run.code == 0, "\(run.err)")
            #expect(run.out.contains(">>"), "\(run.out)")
        }
    }

    @Test func timelineWritesAnHTMLPageWithTheViolationMarked() throws {
        try CLI.withTemporaryDirectory { dir in
            let log = try CLI.write(
                """
                {"t":0,"src":"dev<1>","ev":"ws.connect","gen":1}
                {"t":10,"src":"dev<1>","ev":"ws.open","gen":1}
                {"t":500,"src":"dev<1>","ev":"ws.close","gen":1}

                """, dir, "a.jsonl")
            let out = dir + "/t.html"
            let run = CLI.run(["timeline", log, "--format", "html", "--output", out])
            #expect(run.code == 0, "\(run.err)")
            let html = try String(contentsOfFile: out, encoding: .utf8)
            #expect(html.hasPrefix("<!DOCTYPE html>"))
            #expect(html.contains("ws.close-has-reason"))
            #expect(html.contains("dev&lt;1&gt;"))
            #expect(!html.contains("dev<1>"))
        }
    }
}

extension ReviewedSemanticsTests {
    @Test func theSameRulesFileTwiceIsReadOnce() throws {
        try CLI.withTemporaryDirectory { dir in
            let log = try CLI.write(#"{"t":0,"ev":"a"}"# + "\n", dir, "a.jsonl")
            let rules = try CLI.write(
                """
                rules:
                  - id: t.a
                    title: A
                    every: { ev: a }
                    expect: "t >= 0"
                """, dir, "rules/r.yaml")
            let twice = CLI.run([log, "--rules", rules, "--rules", rules, "--quiet"])
            #expect(twice.code == 0, "\(twice.err)")
            let fileAndDirectory = CLI.run([
                log, "--rules", rules, "--rules", dir + "/rules", "--quiet"
            ]
            )
            #expect(fileAndDirectory.code == 0, "\(fileAndDirectory.err)")
        }
    }

    /// rules.md: `$malformed` (file, line, reason), `$secret` (file, line, key path).
    @Test func theReadersFindingsHaveFileAndLineFields() throws {
        try CLI.withTemporaryDirectory { dir in
            let log = try CLI.write(
                "not json\n" + #"{"t":1,"ev":"a","token":"x"}"# + "\n", dir, "a.jsonl")
            let rules = try CLI.write(
                """
                rules:
                  - id: t.bad
                    title: Bad lines
                    for: corpus
                    never: { ev: $malformed }
                    message: "bad line {file}:{line}: {reason}"
                  - id: t.secret
                    title: Secrets
                    for: corpus
                    never: { ev: $secret }
                    message: "secret at {file}:{line} ({path})"
                """, dir, "r.yaml")
            let run = CLI.run([log, "--rules", rules, "--format", "json"])
            let report = try jsonObject(run.out)
            let bad = try #require(
                (try CLI.entry(report, "t.bad")["violations"] as? [[String: Any]])?.first)
            #expect(
                (bad["message"] as? String)?.hasPrefix("bad line \(log):1: not valid JSON") == true,
                "\(bad)")
            let secret = try #require(
                (try CLI.entry(report, "t.secret")["violations"] as? [[String: Any]])?.first)
            #expect(secret["message"] as? String == "secret at \(log):2 (token)")
        }
    }
}

extension ReviewedSemanticsTests {
    /// cli.md's minimum JSON shape has the outcome counts; --only must not turn them into null.
    @Test func outcomesAreCountedWhateverRulesAreSelected() throws {
        try CLI.withTemporaryDirectory { dir in
            let log = try CLI.write(
                """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":5,"ev":"ws.connect_failed","gen":1,"error":"NSURLErrorDomain:-1004"}

                """, dir, "a.jsonl")
            let all = try jsonObject(CLI.run([log, "--format", "json"]).out)
            let only = CLI.run([log, "--only", "ws.single-close", "--format", "json"])
            #expect(only.code == 0, "\(only.err)")
            let report = try jsonObject(only.out)
            #expect(try CLI.ruleIDs(report) == ["ws.single-close"])
            let outcomes = try #require(report["outcomes"] as? [String: Int])
            #expect(outcomes == (all["outcomes"] as? [String: Int]))
            #expect(outcomes["connect_failure"] == 1)
            #expect(
                outcomes.keys.sorted() == [
                    "connect_failure", "delayed", "immediate_close", "normal"
                ])
        }
    }
}

extension ReviewedSemanticsTests {
    /// connlog: `src` and `session` are top-level fields like any other; rules may read them.
    @Test func rulesReadSrcAndSession() throws {
        try CLI.withTemporaryDirectory { dir in
            let log = try CLI.write(
                """
                {"t":0,"src":"dev1","session":"s1","ev":"a.b"}
                {"t":1,"src":"dev2","ev":"a.b"}

                """, dir, "a.jsonl")
            let rules = try CLI.write(
                """
                rules:
                  - id: t.src
                    title: Only dev1 in session s1
                    for: source
                    every: { ev: a.b }
                    expect: "src == 'dev1' and session == 's1'"
                    message: "{src} in {session ?? 'no session'}"
                """, dir, "r.yaml")
            let report = try jsonObject(CLI.run([log, "--rules", rules, "--format", "json"]).out)
            let violations = try #require(
                try CLI.entry(report, "t.src")["violations"] as? [[String: Any]])
            #expect(violations.compactMap { $0["line"] as? Int } == [2])
            #expect(violations.first?["message"] as? String == "dev2 in no session")
        }
    }
}

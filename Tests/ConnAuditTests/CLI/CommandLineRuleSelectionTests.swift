import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// Selecting rules (`--only`, `--skip`) and setting their params (`--param`) from the command
/// line.
@Suite struct CommandLineRuleSelectionTests {
    @Test(
        arguments: [
            (["--only", "t.*"], ["t.reason", "t.warn"]),
            // The built-in reader rules run beside a pack that does not define them.
            (
                ["--skip", "t.*"],
                ["u.limit", "log.malformed", "log.time-monotonic", "log.no-secrets"]
            ),
            (["--skip", "t.*", "--skip", "log.*"], ["u.limit"]),
            (["--only", "t.*", "--skip", "t.warn"], ["t.reason"]),
            (["--only", "u.limit"], ["u.limit"]),
            (["--only", "*.limit", "--only", "t.reason"], ["t.reason", "u.limit"]),
            (["--only=t.?ea*"], ["t.reason"]),
            (
                [],
                [
                    "t.reason", "t.warn", "u.limit", "log.malformed", "log.time-monotonic",
                    "log.no-secrets"
                ]
            )
        ] as [([String], [String])])
    func onlyAndSkipSelectRules(_ options: [String], _ expected: [String]) throws {
        try withScratchDirectory("cli") { dir in
            let rules = try CLI.write(CLI.testRules, dir, "rules.yaml")
            let log = try CLI.write(CLI.cleanLog, dir, "a.jsonl")
            let run = CLI.run([log, "--rules", rules, "--format", "json"] + options)
            #expect(run.code == 0, "\(run.err)")
            #expect(try CLI.ruleIDs(try jsonObject(run.out)) == expected)
        }
    }

    @Test func onlySelectsBuiltinRulesByGlob() throws {
        try withScratchDirectory("cli") { dir in
            let log = try CLI.write(CLI.cleanLog, dir, "a.jsonl")
            let run = CLI.run([log, "--only", "log.*", "--format", "json"])
            #expect(run.code == 0)
            let ids = try CLI.ruleIDs(try jsonObject(run.out))
            #expect(!ids.isEmpty)
            #expect(ids.allSatisfy { $0.hasPrefix("log.") })
            #expect(ids == RuleLoader.builtin().rules.map(\.id).filter { $0.hasPrefix("log.") })
        }
    }

    @Test(
        arguments: [
            ([], 1),
            (["--param", "limit_ms=200"], 0),
            (["--param", "u.limit.limit_ms=200"], 0),
            (["--param", "u.limit.limit_ms=149.5"], 1),
            (["--param", "limit_ms=150"], 0)
        ] as [([String], Int32)])
    func paramOverridesAreApplied(_ options: [String], _ code: Int32) throws {
        try withScratchDirectory("cli") { dir in
            let rules = try CLI.write(CLI.testRules, dir, "rules.yaml")
            let log = try CLI.write(
                "{\"t\":0,\"ev\":\"ws.pong\",\"gen\":1,\"delay_ms\":150}\n", dir, "a.jsonl")
            let run = CLI.run([log, "--rules", rules] + options)
            #expect(run.code == code, "\(run.out)\(run.err)")
        }
    }

    @Test func theJobsOptionDoesNotChangeTheReport() throws {
        try withScratchDirectory("cli") { dir in
            let rules = try CLI.write(CLI.testRules, dir, "rules.yaml")
            var paths: [String] = []
            for i in 0..<4 {
                paths.append(
                    try CLI.write(
                        """
                        {"t":0,"src":"d\(i)","ev":"ws.close","gen":1}
                        {"t":1,"src":"d\(i)","ev":"ws.ping","gen":1}

                        """, dir, "log\(i).jsonl"))
            }
            let one = CLI.run(paths + ["--rules", rules, "--format", "json", "--jobs", "1"])
            let two = CLI.run(paths + ["--rules", rules, "--format", "json", "--jobs=2"])
            #expect(one.code == 1)
            #expect(one.out == two.out)
        }
    }

    /// A count bound may be a param (`max: params.max_closes`), so `--param` can move it; the
    /// docs' first example reads so (it warned that its param was never read).
    @Test func aCountBoundIsAParamOverridableFromTheCommandLine() throws {
        try withScratchDirectory("cli") { dir in
            let rules = try CLI.write(
                """
                rules:
                  - id: t.closes
                    title: A generation is closed at most so often
                    params: { max_closes: 1 }
                    count: { ev: ws.close }
                    max: params.max_closes
                """, dir, "r.yaml")
            let log = try CLI.write(
                """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":1,"ev":"ws.close","gen":1,"reason":"user"}
                {"t":2,"ev":"ws.close","gen":1,"reason":"user"}

                """, dir, "a.jsonl")
            let check = CLI.run(["rules", "--rules", rules, "--check"])
            #expect(check.code == 0 && !check.err.contains("never read"), "\(check.err)")
            #expect(
                CLI.run([log, "--rules", rules, "--only", "t.closes", "--format", "json"]).code == 1
            )
            #expect(
                CLI.run([log, "--rules", rules, "--only", "t.closes", "--param", "max_closes=2"])
                    .code
                    == 0)
            #expect(
                CLI.run([
                    log, "--rules", rules, "--only", "t.closes", "--param", "t.closes.max_closes=2"
                ]).code == 0)
            let crossed = try CLI.write(
                """
                rules:
                  - id: t.range
                    title: T
                    params: { lo: 0, hi: 5 }
                    count: { ev: ws.close }
                    min: params.lo
                    max: params.hi
                """, dir, "m.yaml")
            let refusedRange = CLI.run([
                log, "--rules", crossed, "--param", "lo=9", "--param", "hi=1"
            ])
            #expect(refusedRange.code == 2)
            #expect(
                refusedRange.err.contains(
                    "t.range would count at least 9 and at most 1 (min > max)"),
                "\(refusedRange.err)")
            let bad = CLI.run([log, "--rules", rules, "--param", "max_closes=1.5"])
            #expect(bad.code == 2)
            #expect(
                bad.err.contains("t.closes counts with it: it needs a whole number >= 0"),
                "\(bad.err)")

            let unknown = try CLI.write(
                """
                rules:
                  - id: t.closes
                    title: T
                    count: { ev: ws.close }
                    max: params.nope
                """, dir, "u.yaml")
            let refused = CLI.run(["rules", "--rules", unknown, "--check"])
            #expect(refused.code == 2)
            #expect(
                refused.err.contains("u.yaml:5:10: error: 'max': unknown param 'nope'"),
                "\(refused.err)")
        }
    }
}

import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A suppression's `fields:` glob is judged by each shard on the event's own values, as one run
/// judges it, and the partial says which entries held: so a glob that matches text inside a
/// secret (which a partial never holds) suppresses in a merge what it suppresses in one run, byte
/// for byte in every format, while no secret reaches a partial or standard error. A merge whose
/// entries that ask about fields differ from the shards' is refused.
@Suite("Suppressions' fields: merge as one run judges them")
struct ShardedSuppressionFieldsTests {
    /// How many devices the log has: device `i` closes without a reason (a violation of
    /// `ws.close-has-reason`), its close's `note` holding a key of `secret(i)`'s shape.
    static let devices = 24

    /// A cloud key: the reports and partials replace it with a marker.
    static func secret(_ i: Int) -> String {
        let digits = String(i)
        return ["AKIAZZSECRET", "AKIAQQSECRET", "AKIAYYSECRET"][i % 3]
            + String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// Device `i`'s note: entry 0 takes `i % 3 == 0` (a glob inside the key), entry 1 takes
    /// `i % 3 == 1` (a glob on plain text), the rest stay violations.
    static func note(_ i: Int) -> String {
        "retry with key \(secret(i)) build \(i % 3 == 1 ? 7 : 41)"
    }

    static let log: String = (0..<devices).map { i in
        """
        {"t":\(i * 10),"src":"d\(i)","ev":"ws.connect","gen":1,"url":"wss://h.example/ws"}
        {"t":\(i * 10 + 1),"src":"d\(i)","ev":"ws.close","gen":1,"code":1006,"note":"\(note(i))"}

        """
    }.joined()

    static func config(firstPattern: String = "*key AKIAZZSECRET*", reason: String = "known")
        -> String
    {
        """
        suppressions:
          - rule: "ws.close-has-*"
            fields: {note: "\(firstPattern)"}
            reason: "\(reason)"
            expires: 2999-12-31
          - rule: "ws.*"
            fields: {note: "*build 7"}
            reason: "a known build"
            expires: 2999-12-31
          - rule: "ws.*"
            src: "no-such-device"
            reason: "asks about no field"
            expires: 2999-12-31
        """
    }

    /// `dir` with the log, the config file and the partials of `n` shards; their paths.
    static func shards(
        _ n: Int, in dir: String, config: String = "c.yaml", name: String = "part"
    ) throws -> [String] {
        try (1...n).map { k in
            let path = "\(dir)/\(name)-\(k)-of-\(n).jsonl"
            let run = CommandLineRun([
                dir + "/log.jsonl", "--config", dir + "/" + config, "--shard", "\(k)/\(n)", "-f",
                "partial", "-o", path
            ])
            try #require(run.code == 0, "\(run.err)")
            #expect(!run.err.contains("SECRET"))
            return path
        }
    }

    @Test(arguments: [2, 3])
    func aGlobInsideASecretSuppressesInTheMergeAsInOneRun(shards: Int) throws {
        let dir = try makeTemporaryDirectory([
            "log.jsonl": Self.log, "c.yaml": Self.config()
        ])
        defer { removeTemporaryDirectory(dir) }
        try ShardedRunMergesToSingleRunTests.expectSame(
            [dir + "/log.jsonl"], shards: shards, config: dir + "/c.yaml", in: dir)

        // The suppressions took what their globs name, in one run and so in the merge.
        let report = try String(contentsOfFile: dir + "/merged.json", encoding: .utf8)
        let summary = try #require(try jsonObject(report)["suppressions"] as? [String: Any])
        let entries = try #require(summary["entries"] as? [[String: Any]])
        let third = Self.devices / 3
        #expect(entries.map { $0["accepted"] as? Int } == [third, third, 0])
        let rule = try ruleEntry(report, "ws.close-has-reason")
        #expect((rule["violations"] as? [Any])?.count == Self.devices - 2 * third)

        // Each shard wrote which entries held, never the values; no secret anywhere.
        var matched = 0
        for k in 1...shards {
            let part = try String(
                contentsOfFile: "\(dir)/part-\(k)-of-\(shards).jsonl", encoding: .utf8)
            #expect(!part.contains("\"fields\""))
            matched += part.components(separatedBy: "\"fields_match\":[0]").count - 1
            matched += part.components(separatedBy: "\"fields_match\":[1]").count - 1
            #expect(!part.contains("SECRET"))
            let errors = try PartialResultTests.schemaErrors(
                "\(dir)/part-\(k)-of-\(shards).jsonl")
            #expect(errors.isEmpty, "\(errors)")
        }
        #expect(matched == 2 * third)
        for ext in ["json", "text", "sarif", "junit", "github", "gitlab", "concise"] {
            let text = try String(contentsOfFile: "\(dir)/merged.\(ext)", encoding: .utf8)
            #expect(!text.contains("SECRET"), "\(ext)")
        }
        // The shards' and the merge's standard error (expectSame compares the merge's with the
        // single run's).
        let merge = CommandLineRun(
            ["merge"] + (try Self.shards(shards, in: dir)) + ["--config", dir + "/c.yaml"])
        #expect(merge.code == 1)
        #expect(!merge.err.contains("SECRET") && !merge.out.contains("SECRET"))
    }

    @Test func aMergeWithOtherFieldConditionsIsRefused() throws {
        let dir = try makeTemporaryDirectory([
            "log.jsonl": Self.log, "c.yaml": Self.config(),
            "other.yaml": Self.config(firstPattern: "*key AKIAQQ*"),
            "none.yaml": "suppressions: []\n",
            "reason.yaml": Self.config(reason: "known since 2026-12")
        ])
        defer { removeTemporaryDirectory(dir) }
        let parts = try Self.shards(2, in: dir)
        for (config, refused) in [
            ("other.yaml", true), ("none.yaml", true), ("reason.yaml", false), ("c.yaml", false)
        ] {
            let merge = CommandLineRun(["merge"] + parts + ["--config", dir + "/" + config])
            if refused {
                #expect(merge.code == 2, "\(config)")
                #expect(merge.out.isEmpty)
                #expect(
                    merge.err.contains("\(parts[0]) was made with other suppressions"),
                    "\(config): \(merge.err)")
            } else {
                // What the indexes depend on agrees: the merge applies the rest itself, as one
                // run with its config does.
                let single = CommandLineRun([dir + "/log.jsonl", "--config", dir + "/" + config])
                #expect(merge.code == single.code, "\(config): \(merge.err)")
                #expect(merge.out == single.out, "\(config)")
            }
        }
        // Shards with other field conditions than each other are refused too.
        let others = try Self.shards(2, in: dir, config: "other.yaml", name: "other")
        let mixed = CommandLineRun(["merge", parts[0], others[1], "--config", dir + "/c.yaml"])
        #expect(mixed.code == 2)
        #expect(mixed.err.contains("\(others[1]) was made with other suppressions"))
    }

    @Test func aFieldsMatchNamingNoSuppressionIsRefused() throws {
        let dir = try makeTemporaryDirectory(["log.jsonl": Self.log, "c.yaml": Self.config()])
        defer { removeTemporaryDirectory(dir) }
        let parts = try Self.shards(1, in: dir)
        let text = try String(contentsOfFile: parts[0], encoding: .utf8)
        #expect(text.contains("\"fields_match\":[0]"))
        for bad in ["[]", "[3]", "[-1]", "[1,0]", "[0,0]", "\"0\"", "[\"0\"]"] {
            try text.replacingOccurrences(
                of: "\"fields_match\":[0]", with: "\"fields_match\":\(bad)"
            )
            .write(toFile: parts[0], atomically: true, encoding: .utf8)
            let merge = CommandLineRun(["merge", parts[0], "--config", dir + "/c.yaml"])
            #expect(merge.code == 2, "\(bad)")
            #expect(merge.err.contains("a fields_match"), "\(bad): \(merge.err)")
        }
    }
}

import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A partial result (`--format partial`): every line validates against
/// docs/schema/partial.schema.json (Python's `jsonschema`, which script/test installs), and no
/// secret of the logs appears in it, not in context lines, messages or sources, nor through the
/// suppressions that match on event fields (a violation records which held, not the values).
@Suite("Partial results")
struct PartialResultTests {
    /// The validator's errors for each line of the partial at `path` (empty: valid).
    static func schemaErrors(_ path: String) throws -> String {
        let (status, text) = try ToolRun.run([
            "python3", "-c",
            """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            jsonschema.Draft202012Validator.check_schema(schema)
            v = jsonschema.Draft202012Validator(schema)
            lines = open(sys.argv[2]).read().splitlines()
            assert len(lines) >= 3, "too few lines"
            assert 'partial' in json.loads(lines[0]) and 'end' in json.loads(lines[-1])
            for n, line in enumerate(lines, 1):
                for e in v.iter_errors(json.loads(line)):
                    print(n, e.json_path, e.message[:200])
            """, Repository.root + "/docs/schema/partial.schema.json", path
        ])
        try #require(
            status == 0,
            "the validator did not run (script/test installs jsonschema): \(text)")
        return text
    }

    /// Suppressions that ask about event fields: violations then record which hold.
    static let config = """
        suppressions:
          - rule: "*"
            src: "no-such-device"
            fields: {headers: "*", reason: "*", note: "*", url: "*"}
            reason: "asks about the fields"
            expires: 2999-12-31
          - rule: "*"
            src: "no-such-device"
            fields: {reason: "*"}
            reason: "holds where there is a reason"
            expires: 2999-12-31
          - rule: "*"
            src: "no-such-device"
            fields: {headers: "*"}
            reason: "holds where there are headers"
            expires: 2999-12-31
        """

    @Test func everyLineMatchesTheSchema() throws {
        let dir = try makeTemporaryDirectory(["c.yaml": Self.config])
        defer { removeTemporaryDirectory(dir) }
        try ConnlogGen.write([
            "--out", dir + "/logs", "--files", "3", "--devices", "6", "--interleave", "--size",
            "300KB", "--faults", "0.03", "--seed", "31"
        ])
        for (inputs, shard) in [
            ([Repository.samples], "1/1"), ([Repository.samples, dir + "/none"], "2/3"),
            ([dir + "/logs"], "1/2")
        ] {
            let path = dir + "/part.jsonl"
            let run = CommandLineRun(
                inputs + [
                    "--config", dir + "/c.yaml", "--shard", shard, "-f", "partial", "-o", path
                ])
            try #require(run.code == 0, "\(run.err)")
            let errors = try Self.schemaErrors(path)
            #expect(errors.isEmpty, "\(inputs) \(shard): \(errors)")
        }
    }

    @Test func noSecretOfTheLogsAppears() throws {
        var lines: [String] = []
        var secrets: [String] = []
        for (i, (text, secret)) in SecretsNeverShownTests.hidden.enumerated() {
            let value = Value.jsonString(text)
            secrets.append(secret)
            // In a field rules read (a context line), one suppressions ask about, a message
            // hole, and a nested header.
            lines.append(
                "{\"t\":\(i * 10),\"src\":\"d\(i % 3)\",\"ev\":\"ws.connect\",\"gen\":\(i + 1),\"url\":\(value)}"
            )
            lines.append(
                "{\"t\":\(i * 10 + 1),\"src\":\"d\(i % 3)\",\"ev\":\"ws.close\",\"gen\":\(i + 1),\"reason\":\(value),\"note\":\(value)}"
            )
            lines.append(
                "{\"t\":\(i * 10 + 2),\"src\":\"d\(i % 3)\",\"ev\":\"ws.close\",\"gen\":\(i + 1),\"headers\":{\"X\":\(value)}}"
            )
        }
        // A source named by a secret.
        lines.append("{\"t\":1,\"src\":\"Bearer abcdefgh12SRC\",\"ev\":\"ws.close\",\"gen\":1}")
        lines.append("{\"t\":2,\"src\":\"Bearer abcdefgh12SRC\",\"ev\":\"ws.close\",\"gen\":1}")
        secrets.append("abcdefgh12SRC")
        let dir = try makeTemporaryDirectory([
            "c.yaml": Self.config, "log.jsonl": lines.joined(separator: "\n") + "\n"
        ])
        defer { removeTemporaryDirectory(dir) }
        for shard in ["1/1", "1/2", "2/2"] {
            let path = dir + "/part-\(shard.first!).jsonl"
            let run = CommandLineRun(
                [
                    dir + "/log.jsonl", "--config", dir + "/c.yaml", "--shard", shard, "-f",
                    "partial",
                    "-o", path
                ])
            try #require(run.code == 0, "\(run.err)")
            let partial = try String(contentsOfFile: path, encoding: .utf8)
            if shard == "1/1" {
                // The findings are there, with the suppressions whose fields held.
                #expect(partial.contains("\"violation\""))
                #expect(partial.contains("\"fields_match\""))
                #expect(!partial.contains("\"fields\""))
            }
            for secret in secrets {
                #expect(!partial.contains(secret), "\(shard): \(secret)")
            }
        }
    }
}

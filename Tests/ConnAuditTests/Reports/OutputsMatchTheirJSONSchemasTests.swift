import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// docs/schema/report.schema.json and timeline.schema.json describe the JSON report and the JSON
/// timeline: real ones validate against them with an independent validator (Python's `jsonschema`,
/// which script/test installs from PyPI), and a report missing a field does not.
@Suite("JSON report and timeline schemas")
struct OutputsMatchTheirJSONSchemasTests {
    static let root = Repository.root

    /// The validator's errors for `report` (empty: valid).
    static func errors(_ report: String, in dir: String, schema: String = "report") throws -> String
    {
        let file = dir + "/report.json"
        try report.write(toFile: file, atomically: true, encoding: .utf8)
        let (status, text) = try ToolRun.run([
            "python3", "-c",
            """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            jsonschema.Draft202012Validator.check_schema(schema)
            for e in jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(sys.argv[2]))):
                print(e.json_path, e.message[:200])
            """, root + "/docs/schema/\(schema).schema.json", file
        ])
        try #require(
            status == 0,
            "the validator did not run (script/test installs jsonschema): \(text)")
        return text
    }

    @Test func realReportsValidate() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let samples = Self.root + "/samples"
        _ = CommandLineRun([samples, "-q", "--write-exact-baseline", dir + "/baseline.json"])
        // A per-upload gate with suppressions: one that accepts, one expired, one unused.
        try """
        use: gate
        suppressions:
          - {rule: ws.close-has-reason, src: "ipad-*", reason: known, expires: 2999-01-01}
          - {rule: "ws.*", reason: old, expires: 2000-01-01}
          - {rule: ws.single-close, fields: {app_build: "4.*"}, reason: unused, expires: 2999-01-01}
        """.write(toFile: dir + "/config.yaml", atomically: true, encoding: .utf8)
        let runs: [[String]] = [
            [samples], [samples, "--fail-on", "never"], [samples + "/healthy"],
            // A baseline, and an input that cannot be read.
            [samples, dir + "/missing.jsonl", "--exact-baseline", dir + "/baseline.json"],
            [samples, "--config", dir + "/config.yaml"],
            // Custom rules without a classify rule: outcomes is null.
            [samples, "--rules", Self.root + "/rules/10-log.yaml"]
        ]
        for arguments in runs {
            let run = CommandLineRun(arguments + ["-f", "json"])
            #expect(run.out.hasPrefix("{"), "\(arguments)")
            let errors = try Self.errors(run.out, in: dir)
            #expect(errors.isEmpty, "\(arguments): \(errors)")
        }
    }

    @Test func realTimelinesValidate() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let samples = Self.root + "/samples"
        let runs: [[String]] = [
            [samples], [samples, "--src", "ipad-b"], [samples + "/malformed"],
            [samples, "--around", samples + "/violations/ipad-b.jsonl:7", "--radius", "2"],
            [samples, dir + "/missing.jsonl"], [samples, "--show", "findings"]
        ]
        for arguments in runs {
            let run = CommandLineRun(["timeline"] + arguments + ["-f", "json"])
            #expect(run.out.hasPrefix("{"), "\(arguments)")
            let errors = try Self.errors(run.out, in: dir, schema: "timeline")
            #expect(errors.isEmpty, "\(arguments): \(errors)")
        }
    }

    @Test func aReportMissingAFieldDoesNot() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let report = CommandLineRun([Self.root + "/samples", "-f", "json"]).out
        var object = try #require(
            try JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any])
        object["verdict"] = nil
        object["surprise"] = 1
        let broken = String(
            decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        let errors = try Self.errors(broken, in: dir)
        #expect(errors.contains("verdict") && errors.contains("surprise"), "\(errors)")
    }
}

import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// `rules --check --format json`: the same findings as the text output, as one JSON document.
@Suite("rules --check --format json")
struct RulesCheckJSONTests {
    static let pack = Repository.path("rules")

    @Test func aValidPackIsValidWithItsRulesCounted() throws {
        let run = CommandLineRun(["rules", "--rules", Self.pack, "--check", "--format", "json"])
        #expect(run.code == 0)
        let doc = try jsonObject(run.out)
        #expect(doc["schema"] as? String == "conn-audit/rules-check" && doc["version"] as? Int == 1)
        #expect(doc["valid"] as? Bool == true)
        let count = try #require(doc["rules"] as? Int)
        let loaded = try RuleLoader.load(paths: [Self.pack]).rules.count
        #expect(count > 20 && count == loaded)
        #expect((doc["diagnostics"] as? [Any])?.isEmpty == true)
    }

    @Test func errorsCarryThePlaceTheTextOutputGives() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let file = dir + "/bad.yaml"
        try """
        rules:
          - id: x.a
            title: t
            severity: error
            never: { ev: ws.ping, where: "t >" }
          - id: x.b
            title: u
            severity: error
            never: { ev: ws.pong, where: "oo.gen ==" }
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let json = CommandLineRun(["rules", "--rules", file, "--check", "--format", "json"])
        let text = CommandLineRun(["rules", "--rules", file, "--check"])
        #expect(json.code == 2 && text.code == 2)
        #expect(json.err.isEmpty)
        let doc = try jsonObject(json.out)
        #expect(doc["valid"] as? Bool == false && doc["rules"] as? Int == 0)
        let diagnostics = try #require(doc["diagnostics"] as? [[String: Any]])
        #expect(diagnostics.count == doc["errors"] as? Int)
        #expect(diagnostics.count >= 2)
        for d in diagnostics {
            let place =
                "\(d["path"] as? String ?? ""):\(d["line"] as? Int ?? 0):\(d["column"] as? Int ?? 0): "
                + "\(d["severity"] as? String ?? ""): \(d["message"] as? String ?? "")"
            #expect(text.err.contains(place), "\(place) not in \(text.err)")
        }
    }

    @Test func formatGoesWithCheckOnly() {
        #expect(
            CommandLineRun(["rules", "--list", "--format", "json"]).err.contains(
                "goes with --check"))
        #expect(
            CommandLineRun(["rules", "--check", "--format", "xml"]).err.contains(
                "must be text or json"))
    }
}

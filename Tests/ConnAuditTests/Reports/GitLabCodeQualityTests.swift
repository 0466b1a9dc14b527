import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// `--format gitlab`: GitLab's Code Quality JSON, an issue per violation with SARIF's fingerprint.
@Suite("GitLab Code Quality report")
struct GitLabCodeQualityTests {
    static let samples = Repository.samples

    @Test func anIssuePerViolationWithTheSARIFFingerprint() throws {
        let gitlab = CommandLineRun([Self.samples, "-f", "gitlab"])
        let sarif = CommandLineRun([Self.samples, "-f", "sarif"])
        #expect(gitlab.code == 1 && sarif.code == 1)
        let issues = try #require(
            try JSONSerialization.jsonObject(with: Data(gitlab.out.utf8)) as? [[String: Any]])
        let doc = try #require(
            try JSONSerialization.jsonObject(with: Data(sarif.out.utf8)) as? [String: Any])
        let results = try #require(
            ((doc["runs"] as? [[String: Any]])?.first?["results"]) as? [[String: Any]])
        let failing = results.filter {
            ($0["kind"] as? String) == "fail" && $0["suppressions"] == nil
        }
        #expect(issues.count == failing.count && issues.count > 20)
        let sarifPrints = Set(
            failing.compactMap { ($0["partialFingerprints"] as? [String: String])?["connAudit/v1"] }
        )
        for issue in issues {
            let keys = Set(issue.keys)
            #expect(keys == ["description", "check_name", "fingerprint", "severity", "location"])
            #expect(
                ["info", "minor", "major", "critical", "blocker"].contains(
                    issue["severity"] as? String ?? ""))
            let location = try #require(issue["location"] as? [String: Any])
            #expect(location["path"] is String)
            #expect(((location["lines"] as? [String: Any])?["begin"] as? Int ?? 0) >= 1)
            #expect(sarifPrints.contains(issue["fingerprint"] as? String ?? ""))
            let check = try #require(issue["check_name"] as? String)
            #expect((issue["description"] as? String ?? "").hasPrefix(check + ": "))
        }
        #expect(Set(issues.compactMap { $0["fingerprint"] as? String }).count == issues.count)
    }

    @Test func severitiesMapToGitLabs() {
        #expect(GitLabReport.severity(.error) == "critical")
        #expect(GitLabReport.severity(.warning) == "minor")
        #expect(GitLabReport.severity(.info) == "info")
    }
}

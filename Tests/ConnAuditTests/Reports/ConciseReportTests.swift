import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// `--format concise`: a line per finding, `PATH:LINE: RULE: MESSAGE`, every finding listed, each
/// on one line whatever its message holds.
@Suite("Concise report")
struct ConciseReportTests {
    static let samples = Repository.samples

    @Test func everyFindingOfTheJSONReportIsOneLine() throws {
        let json = CommandLineRun([Self.samples, "-f", "json"])
        let concise = CommandLineRun([Self.samples, "-f", "concise"])
        #expect(concise.code == json.code && concise.code == 1)
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        let rules = try #require(report["rules"] as? [[String: Any]])
        var expected: [String] = []
        for rule in rules {
            let id = try #require(rule["id"] as? String)
            for (list, kind) in [("violations", ""), ("inconclusive", "inconclusive: ")] {
                for f in rule[list] as? [[String: Any]] ?? [] {
                    var place = ""
                    if let file = f["file"] as? String {
                        place = file + ((f["line"] as? Int).map { ":\($0)" } ?? "") + ": "
                    }
                    expected.append(place + id + ": " + kind + (f["message"] as? String ?? ""))
                }
            }
        }
        var lines = concise.out.split(separator: "\n", omittingEmptySubsequences: false).map(
            String.init)
        #expect(lines.removeLast() == "")
        let summary = lines.removeLast()
        #expect(summary.hasPrefix("conn-audit: ") && summary.hasSuffix("verdict FAIL"))
        #expect(expected.count > 20)
        #expect(lines == expected)
    }

    @Test func aMessageWithANewlineStaysOnItsLine() throws {
        let report = CIReportTests.audit(custom: true, failOn: .warning)
        let text = ConciseReport.render(report)
        #expect(text.contains(#"logs/app.jsonl:"#))
        #expect(
            text.contains(
                #"test.escaping: bad <close> & "quoted" 'single' 100% done, a:b\nsecond line"#),
            "\(text)")
        #expect(!text.contains("\nsecond line"))
    }
}

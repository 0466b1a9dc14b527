import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// The GitHub workflow commands (`--format github`): one per violation, escaped and capped.
extension CIReportTests {
    /// A parsed workflow command: `::name k=v,k=v::data`.
    struct Command: Equatable {
        var name: String
        var properties: [String: String]
        var data: String

        init?(_ line: Substring) {
            guard line.hasPrefix("::") else { return nil }
            let body = line.dropFirst(2)
            guard let end = body.range(of: "::") else { return nil }
            let head = body[..<end.lowerBound]
            data = String(body[end.upperBound...])
            let parts = head.split(separator: " ", maxSplits: 1)
            name = String(parts[0])
            properties = [:]
            if parts.count == 2 {
                for kv in parts[1].split(separator: ",", omittingEmptySubsequences: false) {
                    let pair = kv.split(
                        separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    guard pair.count == 2 else { return nil }
                    properties[String(pair[0])] = String(pair[1])
                }
            }
        }
    }

    static func commands(_ text: String) -> [Command] {
        text.split(separator: "\n").compactMap(Command.init)
    }

    @Test func githubWritesOneCommandPerViolation() throws {
        let report = Self.audit(unreadable: true)
        let text = GitHubReport.render(report)
        let lines = text.split(separator: "\n")
        let commands = Self.commands(text)
        // Every line is a command or plain text that cannot be mistaken for one.
        for line in lines where line.hasPrefix("::") { #expect(Command(line) != nil, "\(line)") }
        #expect(
            commands.first
                == Command(
                    "::error title=conn-audit::could not read logs/locked.jsonl: permission denied")
        )
        let malformed = try #require(commands.first { $0.properties["title"] == "log.malformed" })
        #expect(malformed.name == "error")
        #expect(
            malformed.properties == [
                "file": "logs/app.jsonl", "line": "4", "title": "log.malformed"
            ])
        let coverage = commands.filter { $0.properties["title"] == "ws.required-outcomes" }
        #expect(coverage.count == 4)
        #expect(
            coverage.allSatisfy { $0.properties["file"] == nil && $0.properties["line"] == nil })
        // 1 input error + 7 violations, under the cap: no overflow notice.
        #expect(commands.count == 8)
        #expect(!commands.contains { $0.name == "notice" })
        // Inconclusive rules make no annotation, only a plain line.
        #expect(!commands.contains { $0.properties["title"] == "ws.timeout-closes" })
        #expect(lines.contains { $0.hasPrefix("conn-audit: ws.timeout-closes is inconclusive") })
        let passed = report.count(.pass)
        // Violations in what could be read fail the run, even with an input unread (exit 2).
        let summary =
            "conn-audit: 1 input could not be read; 4 rules failed, \(passed) passed, 1 inconclusive"
            + " — verdict FAIL"
        #expect(lines.last.map(String.init) == summary)
    }

    @Test func githubNamesTheLineOfStandardInputInTheMessage() throws {
        let commands = Self.commands(GitHubReport.render(Self.audit(path: "<stdin>")))
        let malformed = try #require(commands.first { $0.properties["title"] == "log.malformed" })
        #expect(malformed.properties["file"] == nil && malformed.properties["line"] == nil)
        #expect(malformed.data.hasPrefix("<stdin>:4: "), "\(malformed.data)")
    }

    @Test func githubLevelsFollowSeverityAndTheSummarySaysPass() throws {
        let close = "{\"t\":0,\"src\":\"s\",\"ev\":\"ws.close\",\"gen\":3,\"reason\":\"user\"}\n"
        let text = GitHubReport.render(Self.audit(close, custom: true, failOn: .error))
        let commands = Self.commands(text)
        #expect(
            commands.contains { $0.name == "warning" && $0.properties["title"] == "test.escaping" })
        // One failed rule is "1 rule failed", however many violations it has.
        let one = try #require(text.split(separator: "\n").last)
        #expect(one.hasPrefix("conn-audit: 1 rule failed, "), "\(one)")
        let report = Self.audit("{\"t\":0,\"ev\":\"sse.connect\"}\n")
        let clean = GitHubReport.render(report)
        // The coverage rule has nothing to judge in an SSE-only log: not applicable, and counted.
        #expect(report.count(.notApplicable) == 1)
        #expect(
            clean
                == "conn-audit: 0 rules failed, \(report.count(.pass)) passed, 0 inconclusive, 1 not applicable — verdict PASS\n"
        )
    }

    @Test func githubEscapesDataAndProperties() {
        #expect(GitHubReport.data("100% a\r\nb, c:d") == "100%25 a%0D%0Ab, c:d")
        #expect(GitHubReport.property("a,b:c%\n") == "a%2Cb%3Ac%25%0A")
        #expect(GitHubReport.data("%0A") == "%250A")

        let report = Self.audit(path: "logs/a,b:c.jsonl", custom: true)
        let text = GitHubReport.render(report)
        let command = Self.commands(text).first { $0.properties["title"] == "test.escaping" }
        #expect(command?.properties["file"] == "logs/a%2Cb%3Ac.jsonl")
        #expect(command?.data == "bad <close> & \"quoted\" 'single' 100%25 done, a:b%0Asecond line")
        // The newline in the message did not split the command.
        #expect(!text.contains("\nsecond line"))
    }

    @Test func githubCapsAnnotationsPerLevelAndSummarisesTheRest() throws {
        let report = Self.audit(unreadable: true)
        let commands = Self.commands(GitHubReport.render(report, maxPerLevel: 3))
        let errors = commands.filter { $0.name == "error" }
        #expect(errors.count == 3)
        let notices = commands.filter { $0.name == "notice" }
        #expect(notices.count == 1)
        let summary = try #require(notices.first)
        #expect(summary.properties["title"] == "conn-audit")
        // 8 errors in all (1 input, 7 violations), 3 written: log.no-secrets's is the third.
        #expect(summary.data.hasPrefix("5 more findings were not annotated"))
        #expect(summary.data.hasSuffix(": ws.close-has-reason 1, ws.required-outcomes 4"))
        #expect(commands.last == summary)
    }

    @Test func githubKeepsANoticeSlotForTheSummary() {
        // Info findings become notices; when something overflows, one notice slot is the summary.
        let info = #"""
            rules:
              - id: test.info
                title: Every event is noted
                severity: info
                for: corpus
                never: { ev: ws.connect }
                message: "noted"

            """#
        let rules = (try? RuleLoader.load(files: [("info.yaml", info)]))?.rules ?? []
        #expect(rules.count == 1)
        let text = (0..<4).map {
            "{\"t\":\($0),\"src\":\"s\",\"ev\":\"ws.connect\",\"gen\":\($0 + 1)}\n"
        }.joined()
        let report = RuleRuns.audit(rules, text, path: "i.jsonl")
        let exact = Self.commands(GitHubReport.render(report, maxPerLevel: 4))
        #expect(exact.filter { $0.name == "notice" }.count == 4)
        #expect(!exact.contains { $0.properties["title"] == "conn-audit" })
        let over = Self.commands(GitHubReport.render(report, maxPerLevel: 3))
        #expect(over.filter { $0.name == "notice" }.count == 3)
        #expect(over.last?.properties["title"] == "conn-audit")
        #expect(over.last?.data.hasSuffix(": test.info 2") == true)
    }
}

import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A run whose reports list only the first findings (text, GitHub) applies suppressions as
/// violations are found and only counts what they accept, so memory does not grow with the known
/// issues in the logs; its reports are the ones the run that keeps every finding writes.
@Suite("Suppressions applied as violations are found")
struct SuppressionsAsFoundTests {
    /// `devices` sources of 12 generations each, every close without a reason; a third of the
    /// devices on build 5.0.0, the others on 4.2.x.
    static func log(devices: Int) -> String {
        var lines: [String] = []
        var t = 0
        for d in 0..<devices {
            let build = d % 3 == 0 ? "5.0.0" : "4.2.\(d % 2)"
            for g in 1...12 {
                for ev in ["ws.connect", "ws.open", "ws.close"] {
                    lines.append(
                        #"{"t":\#(t),"src":"dev-\#(d)","session":"s1","ev":"\#(ev)","gen":\#(g),"app_build":"\#(build)"}"#
                    )
                    t += 10
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static let config = """
        suppressions:
          - rule: ws.close-has-reason
            fields: {app_build: "4.2.*"}
            reason: "NET-311: 4.2 drops the reason"
            expires: 2999-01-31
          - rule: "ws.*-reason"
            src: "dev-1*"
            reason: "NET-312: the lab devices"
            expires: 2999-01-31
          - rule: ws.single-close
            reason: "matches nothing"
            expires: 2999-01-31
          - rule: ws.close-has-reason
            reason: "expired long ago"
            expires: 2001-01-01

        """

    @Test(arguments: ["text", "github", "concise"], [1, 2])
    func reportsAreTheSameWhetherEveryFindingIsKeptOrNot(format: String, jobs: Int) throws {
        let dir = try makeTemporaryDirectory([
            "up.jsonl": Self.log(devices: 40), "config.yaml": Self.config
        ])
        defer { removeTemporaryDirectory(dir) }
        let base = [
            dir + "/up.jsonl", "--config", dir + "/config.yaml", "-f", format, "-j", String(jobs)
        ]
        // Alone, text and GitHub keep the first findings only; a JSON report beside them keeps all.
        let counted = CommandLineRun(base)
        let kept = CommandLineRun(base + ["--report", "json=" + dir + "/all.json"])
        #expect(counted.code == 1 && kept.code == 1, "\(counted.err)")
        #expect(counted.out == kept.out)
        #expect(counted.err == kept.err)
        let all = try jsonObject(String(contentsOfFile: dir + "/all.json", encoding: .utf8))
        let suppressed = try #require(all["suppressions"] as? [String: Any])
        let accepted = try #require(suppressed["entries"] as? [[String: Any]]).map {
            $0["accepted"] as? Int
        }
        // 40 devices: 26 on 4.2.x (12 closes each); of the 5.0.0 ones, dev-12, -15 and -18 are lab
        // devices.
        #expect(accepted == [26 * 12, 3 * 12, 0, 0], "\(suppressed)")
        if format != "text" {
            #expect(
                counted.out.contains("; \((26 + 3) * 12) violations suppressed — verdict FAIL"),
                "\(counted.out)")
        } else {
            #expect(
                counted.out.contains("SUPPRESSED ws.close-has-reason — 312 violations: NET-311"),
                "\(counted.out)")
            #expect(
                counted.out.contains("SUPPRESSED ws.close-has-reason — 36 violations: NET-312"),
                "\(counted.out)")
            #expect(counted.out.contains("1 suppression matches no violation"), "\(counted.out)")
        }
    }

    /// The engine keeps none of the violations it counts as suppressed, and the kept ones are the
    /// first of what is left, as when everything is kept and suppressed afterwards.
    @Test func countedViolationsAreNotKept() throws {
        let rules = RuleLoader.builtin().rules.filter { $0.id == "ws.close-has-reason" }
        try #require(rules.count == 1)
        var withFields = rules
        withFields[0].findingFields = ["app_build"]
        let suppressions = Suppressions([
            Suppression(
                rule: "ws.close-has-reason", fields: [("app_build", "4.2.*")], reason: "a",
                expires: "2999-01-31",
                origin: "c:2"),
            Suppression(
                rule: "ws.*-reason", src: "dev-1*", reason: "b", expires: "2999-01-31",
                origin: "c:6"),
            Suppression(
                rule: "ws.single-close", reason: "c", expires: "2999-01-31", origin: "c:10"),
            Suppression(
                rule: "ws.close-has-reason", reason: "d", expires: "2001-01-01", origin: "c:14")
        ])
        let log = Array(Self.log(devices: 40).utf8)
        let paths = ["up.jsonl"]
        func audit(keep: Int?, divert: ViolationFilter?) -> AuditReport {
            let auditor = Auditor(
                rules: RuleSet(rules: withFields), jobs: 1, keepFindings: keep, divert: divert,
                opener: {
                    f throws(InputError) in ByteSources.memory(log, path: f.path)
                })
            return auditor.run([InputFile(path: "up.jsonl")])
        }
        var counted = audit(
            keep: 20,
            divert: suppressions.filter(
                rules: ["ws.close-has-reason"], paths: paths,
                today: "2026-12-04"))
        let r = try #require(counted.results.first)
        #expect(r.suppressed.isEmpty && r.violations.count == 20)
        #expect(r.omittedSuppressed == [0: 312, 1: 36])
        #expect(r.violationCount == 40 * 12 - 312 - 36)
        var all = audit(keep: nil, divert: nil)
        let countedSummary = suppressions.apply(to: &counted, today: "2026-12-04")
        let allSummary = suppressions.apply(to: &all, today: "2026-12-04")
        #expect(countedSummary.accepted == allSummary.accepted)
        #expect(
            countedSummary.unused == allSummary.unused
                && countedSummary.expired == allSummary.expired)
        #expect(
            counted.results[0].violations.map(\.message)
                == Array(all.results[0].violations.prefix(20)).map(\.message))
        #expect(all.results[0].suppressedByEntry == counted.results[0].suppressedByEntry)
    }
}

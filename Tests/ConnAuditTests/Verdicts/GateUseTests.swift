import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// `--use gate` judges one upload: corpus-coverage rules are not applicable there, with a note
/// saying why, while every other rule, and the outcome counts, stay as in a corpus run.
@Suite("Per-upload gate")
struct GateUseTests {
    static let healthy = Repository.samples + "/healthy/iphone-a.jsonl"

    @Test func oneHealthyUploadFailsCoverageAsACorpusButPassesAsAGate() throws {
        let corpus = CommandLineRun([Self.healthy, "--no-config"])
        #expect(corpus.code == 1)
        #expect(
            corpus.out.contains("FAIL ws.required-outcomes")
                || corpus.out.contains("ws.required-outcomes"))
        let gate = CommandLineRun([Self.healthy, "--no-config", "--use", "gate"])
        #expect(gate.code == 0, "\(gate.out)")
        #expect(
            gate.out.contains("NOT APPLICABLE ws.required-outcomes (\(AuditReport.gateNote))"),
            "\(gate.out)")
        // The outcome counts are the same: a fact of what was read.
        func outcomes(_ s: String) -> Substring? {
            s.split(separator: "\n").first { $0.hasPrefix("outcomes:") }
        }
        #expect(outcomes(gate.out) != nil && outcomes(gate.out) == outcomes(corpus.out))
    }

    @Test func theNoteReachesJSONAndJUnit() throws {
        let json = CommandLineRun([Self.healthy, "--no-config", "--use", "gate", "-f", "json"])
        let rule = try ruleEntry(json.out, "ws.required-outcomes")
        #expect(rule["status"] as? String == "not_applicable")
        #expect(rule["note"] as? String == AuditReport.gateNote)
        #expect((rule["labels"] as? [String: Int])?["normal"] == 2)
        let junit = CommandLineRun([Self.healthy, "--no-config", "--use", "gate", "-f", "junit"])
        #expect(
            junit.out.contains("<skipped message=\"not applicable: \(AuditReport.gateNote)\"/>"),
            "\(junit.out)")
    }

    @Test func theSummaryLinesCountTheRuleNotApplicable() {
        for format in ["concise", "github"] {
            let gate = CommandLineRun([Self.healthy, "--no-config", "--use", "gate", "-f", format])
            let last = gate.out.split(separator: "\n").last.map(String.init) ?? ""
            #expect(last.hasPrefix("conn-audit: 0 rules failed, "), "\(last)")
            #expect(
                last.hasSuffix(" passed, 0 inconclusive, 1 not applicable — verdict PASS"),
                "\(last)")
        }
    }

    @Test func aGateStillJudgesEveryOtherRule() throws {
        let samples = Repository.samples
        let corpus = CommandLineRun([samples, "--no-config", "-f", "json"])
        let gate = CommandLineRun([samples, "--no-config", "--use", "gate", "-f", "json"])
        var expected = try ruleStatuses(corpus.out)
        #expect(expected.count == RuleLoader.builtin().rules.count)
        expected["ws.required-outcomes"] = "not_applicable"
        #expect(try ruleStatuses(gate.out) == expected)
    }

    @Test func onlyRulesThatRequireLabelsJudgeCoverage() {
        let rules = RuleLoader.builtin().rules
        #expect(rules.filter(\.judgesCoverage).map(\.id) == ["ws.required-outcomes"])
    }

    @Test func anUnknownUseIsAUsageError() {
        let run = CommandLineRun([Self.healthy, "--no-config", "--use", "soak"])
        #expect(run.code == 2)
        #expect(
            run.err.contains(
                "--use must be corpus (a soak or fleet corpus) or gate (one upload), not 'soak'"))
        // --show-config never prints a value the run would refuse.
        let shown = CommandLineRun(["--no-config", "--use", "soak", "--show-config"])
        #expect(shown.code == 2 && shown.out.isEmpty)
    }
}

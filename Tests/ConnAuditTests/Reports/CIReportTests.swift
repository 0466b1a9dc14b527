import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

@testable import ConnAudit
import ConnAuditTestSupport

/// The CI report formats (`--format junit|sarif|github`), over reports the real Auditor makes with
/// the built-in pack: a secret, a malformed line, an inconclusive ping, a coverage violation, an
/// unreadable input, and a custom rule whose message needs escaping in every format.
@Suite struct CIReportTests {
    // MARK: - Fixtures

    static let secret = "hunter2-SECRET-value"

    /// Line 3 holds a secret, line 4 is malformed, line 5 is a ping whose log ends before its
    /// deadline (ws.timeout-closes inconclusive), line 6 a close without a reason; no ws outcome is
    /// covered (ws.required-outcomes fails four times, with no line).
    static let log = """
        {"t":0,"src":"app","ev":"ws.connect","gen":1}
        {"t":10,"src":"app","ev":"ws.open","gen":1}
        {"t":20,"src":"app","ev":"app.scene","phase":"active","password":"\(secret)"}
        this is not json
        {"t":110,"src":"app","ev":"ws.ping","gen":1}
        {"t":500,"src":"app","ev":"ws.close","gen":2}

        """

    /// A rule whose title and message need escaping in XML, JSON and workflow commands.
    static let escapingRule = #"""
        rules:
          - id: test.escaping
            title: Escaping <title> & "quotes"
            severity: warning
            for: generation
            never: { ev: ws.close }
            message: "bad <close> & \"quoted\" 'single' 100% done, a:b\nsecond line"

        """#

    static let builtin = RuleLoader.builtin()

    static func rules(custom: Bool) -> RuleSet {
        guard custom else { return builtin }
        do {
            let extra = try RuleLoader.load(files: [("custom.yaml", escapingRule)])
            return RuleSet(rules: builtin.rules + extra.rules)
        } catch {
            Issue.record("the custom rule does not load: \(error)")
            return builtin
        }
    }

    /// Runs the rules over `logs/app.jsonl` (served from memory) and, when `unreadable`, over
    /// `logs/locked.jsonl` (or `unreadablePath`), which the opener refuses.
    static func audit(
        _ text: String = log, path: String = "logs/app.jsonl", custom: Bool = false,
        unreadable: Bool = false, unreadablePath: String = "logs/locked.jsonl",
        failOn: AuditReport.FailOn = .error
    ) -> AuditReport {
        let opener = RuleRuns.opener([(path, text)], unreadable: unreadable ? [unreadablePath] : [])
        let auditor = Auditor(rules: rules(custom: custom), jobs: 1, opener: opener)
        var inputs = [InputFile(path: path)]
        if unreadable { inputs.append(InputFile(path: unreadablePath)) }
        return auditor.run(inputs, failOn: failOn)
    }

    // MARK: - All formats

    /// JSON, SARIF and JUnit handed over in pieces as they are written are, joined, the report
    /// made whole — on a report of many findings (most pieces end mid-report), with an unreadable
    /// input and a baseline's accepted violations in it too.
    @Test func reportsWrittenInPiecesAreTheReportsMadeWhole() throws {
        var text = Self.log
        for i in 0..<4_000 {
            text +=
                #"{"t":\#(5_000 + i),"src":"app","ev":"ws.ping","gen":9,"note":"ü \#(i)"}"# + "\n"
        }
        var report = Self.audit(text, unreadable: true)
        let all = Baseline.from(report)
        // Accept every other violation, so the baselined lists are long too.
        let half = Baseline(
            entries: all.entries.enumerated().filter { $0.offset % 2 == 0 }.map(\.element))
        report.baseline = half.apply(to: &report, path: "b.json", today: "2026-12-02")
        #expect(report.results.reduce(0) { $0 + $1.violations.count + $1.baselined.count } > 8_000)
        final class Pieces { var bytes: [[UInt8]] = []; var texts: [String] = [] }
        let pieces = Pieces()
        #expect(JSONReport.render(report, flush: { pieces.bytes.append($0) }).isEmpty)
        #expect(pieces.bytes.count > 2)
        #expect(
            String(decoding: Array(pieces.bytes.joined()), as: UTF8.self)
                == JSONReport.render(report))
        pieces.bytes = []
        #expect(SARIFReport.render(report, flush: { pieces.bytes.append($0) }).isEmpty)
        #expect(pieces.bytes.count > 2)
        #expect(
            String(decoding: Array(pieces.bytes.joined()), as: UTF8.self)
                == SARIFReport.render(report))
        JUnitReport.render(report, flush: { pieces.texts.append($0) })
        #expect(pieces.texts.count >= 2)
        #expect(pieces.texts.dropLast().allSatisfy { $0.utf8.count >= JSONWriter.flushSize })
        #expect(pieces.texts.joined() == JUnitReport.render(report))
    }

    @Test func theFixtureHasWhatTheTestsNeed() {
        let report = Self.audit(unreadable: true)
        func status(_ id: String) -> RuleStatus? {
            report.results.first { $0.rule.id == id }?.status
        }
        #expect(status("log.no-secrets") == .fail)
        #expect(status("log.malformed") == .fail)
        #expect(status("ws.timeout-closes") == .inconclusive)
        #expect(status("ws.required-outcomes") == .fail)
        #expect(report.inputErrors.map(\.path) == ["logs/locked.jsonl"])
    }

    @Test(arguments: ["junit", "sarif", "github"])
    func noFormatPrintsTheSecret(format: String) {
        let report = Self.audit(custom: true, unreadable: true)
        let text = render(format, report)
        #expect(!text.isEmpty)
        #expect(!text.contains(Self.secret))
        #expect(!text.contains("hunter2"))
    }

    func render(_ format: String, _ report: AuditReport) -> String {
        switch format {
        case "junit": return JUnitReport.render(report)
        case "sarif": return SARIFReport.render(report)
        default: return GitHubReport.render(report)
        }
    }
}

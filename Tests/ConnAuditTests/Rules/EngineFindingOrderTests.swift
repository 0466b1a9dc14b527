import Testing

@testable import ConnAudit
import ConnAuditTestSupport

extension EngineTests {
    @Test(arguments: [1, 2])
    func violationsAreSortedByFileThenLine(_ jobs: Int) throws {
        let r = try rule("id: t.noping\ntitle: No pings\nnever: { ev: ws.ping }")
        let report = RuleRuns.audit(
            [r],
            files: [
                (
                    "x.jsonl",
                    """
                    {"t":0,"ev":"ws.ping","gen":2}
                    {"t":1,"src":"b","ev":"ws.ping","gen":1}
                    {"t":2,"ev":"ws.ping","gen":1}
                    {"t":3,"src":"a","ev":"ws.ping","gen":2}
                    """
                ),
                (
                    "w.jsonl",
                    """
                    {"t":0,"ev":"ws.connect","gen":1}
                    {"t":0,"ev":"ws.ping","gen":1}
                    """
                )
            ], jobs: jobs)
        let v = report.results[0].violations
        #expect(v.map(\.file) == [0, 0, 0, 0, 1])
        #expect(lines(v) == [1, 2, 3, 4, 2])
    }
}

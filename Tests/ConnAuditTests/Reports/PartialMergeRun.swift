@testable import ConnAudit
import ConnAuditTestSupport

/// Partial results in memory merged into the report `merge` assembles, before it applies
/// suppressions or a baseline: every finding held (`keep` nil), or the first `keep` of each rule
/// with the rest read again through a stream (``AuditReport/streamed``) that merges `fanIn`
/// partials at once. With the findings the merge held after reading the partials, and the stream.
enum PartialMergeRun {
    static func assemble(
        _ files: [(path: String, bytes: [UInt8])], rules: [Rule], suppressions: Suppressions,
        keep: Int?, fanIn: Int
    ) throws -> (report: AuditReport, held: Int, stream: PartialFindingStream?) {
        let opener = RuleRuns.opener(files)
        var merge = PartialMerge(
            rules: rules, overrides: [:], suppressions: suppressions, keep: keep, divert: nil)
        for f in files { try merge.read(InputFile(path: f.path), opener: opener) }
        let held = merge.findingsHeld
        let stream = keep != nil ? merge.stream(opener: opener, fanIn: fanIn) : nil
        let parts = try merge.parts()
        let auditor = Auditor(rules: RuleSet(rules: rules), jobs: 1, keepFindings: keep)
        var report = auditor.assemble(
            parts, failOn: .error, plan: auditor.makePlan(files: parts.files.map(\.path)))
        report.streamed = stream
        return (report, held, stream)
    }
}

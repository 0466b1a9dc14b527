/// The text report's lines on suppressions: what each accepted, which expired, which matched
/// nothing.
extension TextReport {
    func suppressionLines(_ report: AuditReport, _ summary: Suppressions.Summary) -> String {
        var out = ""
        // Per rule and entry, in report order: `SUPPRESSED ws.close-has-reason — 3 violations: …`.
        var any = false
        for r in report.results where r.suppressedCount > 0 {
            let counts = r.suppressedByEntry
            for i in counts.keys.sorted() {
                if !any { out += "\n" }
                any = true
                let n = counts[i]!
                out +=
                    dim("SUPPRESSED") + " \(r.rule.id) — \(n) violation\(n == 1 ? "" : "s"): "
                    + summary.entries[i].justification + "\n"
            }
        }
        for i in summary.expired {
            let e = summary.entries[i]
            out +=
                red("EXPIRED SUPPRESSION")
                + " at \(e.origin) for \(e.rule) expired on \(e.expires) (\(e.reason))"
                + " — its violations count again\n"
        }
        if !summary.unused.isEmpty {
            let n = summary.unused.count
            let places = summary.unused.map { summary.entries[$0].origin }.joined(separator: ", ")
            out +=
                dim("  \(n) suppression\(n == 1 ? " matches" : "s match") no violation: \(places)")
                + "\n"
        }
        return out
    }
}

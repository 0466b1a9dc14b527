extension AuditReport {
    /// The one-line summary the line-oriented reports (GitHub, concise) end with:
    /// `conn-audit: [N inputs could not be read; ]N rules failed, N passed, N inconclusive — verdict
    /// FAIL|PASS|INCOMPLETE`. The verdict word ends the line, whatever else it says (docs/ci.md:
    /// scripts read it).
    var summaryLine: String {
        var summary = "conn-audit: "
        if !inputErrors.isEmpty {
            let n = inputErrors.count
            summary += "\(n) input\(n == 1 ? "" : "s") could not be read; "
        }
        let failed = count(.fail)
        return summary + "\(failed) rule\(failed == 1 ? "" : "s") failed, \(count(.pass)) passed, "
            + "\(count(.inconclusive)) inconclusive — verdict \(verdictName.uppercased())"
    }
}

extension AuditReport {
    /// The one-line summary the line-oriented reports (GitHub, concise) end with:
    /// `conn-audit: [INPUTS; ]N rules failed, N passed, N inconclusive[, N not applicable][; N
    /// violations suppressed] — verdict FAIL|PASS|INCOMPLETE`, INPUTS as ``inputErrorsPhrase``.
    /// The verdict word ends the line, whatever else it says (docs/ci.md: scripts read it).
    var summaryLine: String {
        var summary = "conn-audit: "
        if !inputErrors.isEmpty { summary += inputErrorsPhrase + "; " }
        let failed = count(.fail)
        summary +=
            "\(failed) rule\(failed == 1 ? "" : "s") failed, \(count(.pass)) passed, "
            + "\(count(.inconclusive)) inconclusive"
        let notApplicable = count(.notApplicable)
        if notApplicable > 0 { summary += ", \(notApplicable) not applicable" }
        let suppressed = results.reduce(0) { $0 + $1.suppressedCount }
        if suppressed > 0 {
            summary += "; \(suppressed) violation\(suppressed == 1 ? "" : "s") suppressed"
        }
        return summary + " — verdict \(verdictName.uppercased())"
    }

    /// What went wrong with the inputs, counted by kind: `2 inputs could not be read`, `1 input
    /// held no event`, or both joined by `, `.
    var inputErrorsPhrase: String {
        let empty = inputErrors.filter(\.heldNoEvent).count
        let unread = inputErrors.count - empty
        var parts: [String] = []
        if unread > 0 { parts.append("\(unread) input\(unread == 1 ? "" : "s") could not be read") }
        if empty > 0 { parts.append("\(empty) input\(empty == 1 ? "" : "s") held no event") }
        return parts.joined(separator: ", ")
    }
}

/// `--format concise`: one line per finding, `PATH:LINE: RULE_ID: MESSAGE`, the form compilers and
/// linters print (`ruff --output-format concise`), for editors, `grep` and people at a desk.
///
/// In report order: inputs that could not be read (`PATH: conn-audit: could not read: REASON`;
/// one that held no event `PATH: conn-audit: REASON`),
/// then each rule's violations, then its inconclusive cases (`… RULE_ID: inconclusive: …`). A
/// finding without a line leaves it out (`PATH: RULE_ID: …`); one without a file starts at the
/// rule. Every finding is listed. The last line is the summary the GitHub format ends with, its
/// verdict word last. Paths and messages show control characters escaped (`\n`, `\u{1B}`), so a
/// finding is always one line; messages are redacted upstream, and no raw log text is written.
public enum ConciseReport: PiecewiseTextReport {
    public static func render(_ report: AuditReport) -> String { whole(report) }

    static func write(_ report: AuditReport, to out: inout ReportText) {
        let paths = report.filePaths
        for e in report.inputErrors {
            let what = e.heldNoEvent ? "" : "could not read: "
            out += "\(e.path.visibleControls): conn-audit: \(what)\(e.reason.visibleControls)\n"
        }
        for r in report.results {
            report.eachViolation(of: r) { out += line($0, r.rule.id, "", paths) }
            report.eachInconclusive(of: r) { out += line($0, r.rule.id, "inconclusive: ", paths) }
        }
        out += report.summaryLine + "\n"
    }

    private static func line(_ f: Finding, _ rule: String, _ kind: String, _ paths: [String])
        -> String
    {
        var place = ""
        if let i = f.file, Int(i) < paths.count {
            place = paths[Int(i)].visibleControls + (f.line.map { ":\($0)" } ?? "") + ": "
        }
        return place + rule + ": " + kind + f.message.visibleControls + "\n"
    }
}

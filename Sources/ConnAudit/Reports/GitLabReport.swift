/// `--format gitlab`: a GitLab Code Quality report (`artifacts:reports:codequality`), the Code
/// Climate JSON array GitLab shows in merge requests and pipelines.
///
/// One issue per violation, in report order:
/// `{"description": "RULE_ID: MESSAGE", "check_name": "RULE_ID", "fingerprint": "…",
/// "severity": "…", "location": {"path": "PATH", "lines": {"begin": LINE}}}`. The fingerprint is
/// the one SARIF and baselines use (``Fingerprint``), so an issue keeps its identity between
/// pipelines while lines move. Severity: error → `critical`, warning → `minor`, info → `info`. A
/// finding without a file or line (a coverage rule) is placed at `.` line 1; an input that could
/// not be read is a `blocker` at its path. Baselined violations and inconclusive cases are left
/// out (GitLab has no place for either); the other formats list them. Messages are redacted
/// upstream; no raw log text is written.
public enum GitLabReport: PiecewiseJSONReport {
    public static func render(_ report: AuditReport) -> String { render(report, flush: nil) }

    static func write(_ report: AuditReport, to w: inout JSONWriter) {
        let paths = report.filePaths
        w.beginArray()
        for e in report.inputErrors {
            issue(
                &w, check: "conn-audit", message: e.headline(),
                fingerprint: Fingerprint.hex(
                    Fingerprint.fnv1a64("conn-audit\u{1F}input\u{1F}" + e.path)),
                severity: "blocker", path: e.path, line: 1)
        }
        for r in report.results {
            func add(_ f: Finding, _ fp: String) {
                let path = f.file.flatMap { Int($0) < paths.count ? paths[Int($0)] : nil } ?? "."
                issue(
                    &w, check: r.rule.id, message: r.rule.id + ": " + f.message, fingerprint: fp,
                    severity: severity(r.rule.severity), path: path, line: f.line ?? 1)
            }
            report.eachSorted(of: r, [.kept]) { add($0.finding, $0.fingerprint) }
        }
        w.endArray()
    }

    static func severity(_ s: Severity) -> String {
        switch s {
        case .error: return "critical"
        case .warning: return "minor"
        case .info: return "info"
        }
    }

    private static func issue(
        _ w: inout JSONWriter, check: String, message: String, fingerprint: String,
        severity: String,
        path: String, line: Int
    ) {
        w.beginObject()
        w.key("description", message)
        w.key("check_name", check)
        w.key("fingerprint", fingerprint)
        w.key("severity", severity)
        w.beginObject("location")
        w.key("path", path)
        w.beginObject("lines")
        w.key("begin", line)
        w.endObject()
        w.endObject()
        w.endObject()
    }
}

/// `--format junit`: JUnit XML, as GitLab (`artifacts:reports:junit`), Jenkins (`junit` step) and
/// the GitHub JUnit report actions read it.
///
/// Shape: one `<testsuites>` with the totals, holding one `<testsuite name="conn-audit">` (one
/// suite, not one per family: the family is already the `classname`, which Jenkins and GitLab group
/// by, and one suite keeps the totals in one place). Each rule is one
/// `<testcase classname="FAMILY" name="RULE_ID" time="0">`, in the order the rules were loaded:
///
/// - `fail` at or above `--fail-on`: a `<failure message="N violations (SEVERITY)"
///   type="SEVERITY">` whose text lists each violation as `file:line t=… src=… gen=… message` (what
///   a finding lacks is left out), then the rule's inconclusive cases, if any.
/// - `fail` below `--fail-on`: not a failure, since it does not fail the gate (`failures` counts
///   only what does, so `--fail-on never` writes `failures="0"`): a passing testcase whose
///   `<system-out>` begins `N violations (SEVERITY, below --fail-on …: does not fail the run)`
///   and lists them as a failure would.
/// - `inconclusive`: `<skipped message="inconclusive: …">` whose text lists each undecided case
///   with its `file:line` and reason.
/// - `not_applicable`: `<skipped message="not applicable: …"/>`.
/// - `pass`: an empty testcase. Violations a baseline accepted are named in `<system-out>`.
///
/// Inputs that could not be read make one more testcase, `<testcase classname="conn-audit"
/// name="inputs">`, with an `<error>` listing them, so the job shows the verdict is incomplete;
/// it is the only source of `errors`. Everything is deterministic (`time="0"`, no timestamp, no
/// host name), so two runs over the same logs give the same file.
///
/// Only rule metadata and finding messages are written: messages are redacted upstream, and no raw
/// log text (not even the context lines) goes in. File names are written as the text report writes
/// them, control characters shown escaped (`a\u{1}.jsonl`, a newline as `\n`), so two files stay
/// two and a name cannot start a row of its own. Text is escaped for XML 1.0 (``MarkupEscape``):
/// `& < > " '` as entities, tab and newline kept (as `&#9;`/`&#10;` inside attributes, which
/// parsers would otherwise normalise to spaces), and every other character XML 1.0 cannot carry
/// (C0 controls, U+FFFE, U+FFFF; not even as a character reference) shown the same way, `\u{1B}`,
/// CR as `\r`.
public enum JUnitReport: PiecewiseTextReport {
    public static func render(_ report: AuditReport) -> String { whole(report) }

    static func write(_ report: AuditReport, to out: inout ReportText) {
        let paths = report.filePaths
        let hasInputCase = !report.inputErrors.isEmpty
        let tests = report.results.count + (hasInputCase ? 1 : 0)
        let failures = report.results.count {
            $0.status == .fail && report.failOn.fails($0.rule.severity)
        }
        let skipped = report.count(.inconclusive) + report.count(.notApplicable)
        let errors = hasInputCase ? 1 : 0
        let totals =
            "tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"\(skipped)\" time=\"0\""

        out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuites name=\"conn-audit\" \(totals)>\n"
        out += "  <testsuite name=\"conn-audit\" \(totals)>\n"
        out += "    <properties>\n"
        property(&out, "conn-audit.version", ConnAuditVersion.string)
        property(&out, "fail-on", report.failOn.rawValue)
        property(&out, "verdict", report.verdictName)
        property(&out, "complete", report.inputErrors.isEmpty ? "true" : "false")
        property(&out, "files", String(report.inputs.files))
        property(&out, "lines", String(report.inputs.lines))
        property(&out, "events", String(report.inputs.events))
        property(&out, "malformed", String(report.inputs.malformed))
        out += "    </properties>\n"

        for r in report.results {
            out +=
                "    <testcase classname=\"\(attr(r.rule.family))\" name=\"\(attr(r.rule.id))\" time=\"0\""
            switch r.status {
            case .pass:
                if hasAccepted(r) {
                    out += ">\n"
                    endTestcase(r, report, paths, &out)
                } else {
                    out += "/>\n"
                }
            case .fail where !report.failOn.fails(r.rule.severity):
                let severity = r.rule.severity.rawValue
                out += ">\n      <system-out>"
                out += text(
                    "\(count(r.violationCount, "violation")) (\(severity), below --fail-on "
                        + "\(report.failOn.rawValue): does not fail the run):\n")
                failedFindings(r, report, paths, &out)
                // One `<system-out>` per testcase: the note on accepted violations goes in the same
                // one.
                if hasAccepted(r) {
                    out += text("\n\n")
                    acceptedLines(r, report, paths, &out)
                }
                out += "</system-out>\n    </testcase>\n"
            case .fail:
                let severity = r.rule.severity.rawValue
                let message = "\(count(r.violationCount, "violation")) (\(severity))"
                out += ">\n      <failure message=\"\(attr(message))\" type=\"\(attr(severity))\">"
                failedFindings(r, report, paths, &out)
                out += "</failure>\n"
                endTestcase(r, report, paths, &out)
            case .inconclusive:
                let n = r.inconclusiveCount
                var message = "inconclusive: \(count(n, "case")) could not be decided"
                if let first = r.inconclusive.first {
                    message += (n == 1 ? ": " : "; first: ") + first.message
                }
                out += ">\n      <skipped message=\"\(attr(message))\">"
                lines(paths, &out) { report.eachInconclusive(of: r, $0) }
                out += "</skipped>\n"
                endTestcase(r, report, paths, &out)
            case .notApplicable:
                let message =
                    "not applicable: " + (r.note ?? "the logs hold nothing this rule judges")
                out += ">\n      <skipped message=\"\(attr(message))\"/>\n    </testcase>\n"
            }
        }

        if hasInputCase {
            let message = report.inputErrorsPhrase + ": the verdict is incomplete"
            let body = report.inputErrors.map { $0.headline(shownPath: $0.path.visibleControls) }
                .joined(separator: "\n")
            out += "    <testcase classname=\"conn-audit\" name=\"inputs\" time=\"0\">\n"
            out +=
                "      <error message=\"\(attr(message))\" type=\"input\">\(text(body))</error>\n"
            out += "    </testcase>\n"
        }
        out += "  </testsuite>\n"
        out += "</testsuites>\n"
    }

    /// A failed rule's violations, then its inconclusive cases, if any.
    private static func failedFindings(
        _ r: RuleResult, _ report: AuditReport, _ paths: [String], _ out: inout ReportText
    ) {
        lines(paths, &out) { report.eachViolation(of: r, $0) }
        if !r.inconclusive.isEmpty {
            out += text("\n\ninconclusive (\(r.inconclusiveCount)):\n")
            lines(paths, &out) { report.eachInconclusive(of: r, $0) }
        }
    }

    /// The findings `each` gives, one per line.
    private static func lines(
        _ paths: [String], _ out: inout ReportText, _ each: ((Finding) -> Void) -> Void
    ) {
        var first = true
        each { f in
            out += (first ? "" : "\n") + text(line(f, paths))
            first = false
        }
    }

    // MARK: - Pieces

    /// `logs/a.jsonl:17 t=1100 src=app gen=2 message`; a finding with no line is just its message.
    static func line(_ f: Finding, _ paths: [String]) -> String {
        var parts: [String] = []
        if let file = f.file {
            let path = Int(file) < paths.count ? paths[Int(file)].visibleControls : "?"
            parts.append(f.line.map { "\(path):\($0)" } ?? path)
        }
        if let t = f.t { parts.append("t=" + NumberText.json(t)) }
        if let s = f.source, !s.srcIsFile { parts.append("src=" + s.shownSrc.visibleControls) }
        if let session = f.source?.shownSession {
            parts.append("session=" + session.visibleControls)
        }
        if let g = f.gen { parts.append("gen=\(g)") }
        parts.append(f.message)
        return parts.joined(separator: " ")
    }

    /// Whether a baseline or a suppression accepted any of the rule's violations.
    private static func hasAccepted(_ r: RuleResult) -> Bool {
        r.baselinedCount > 0 || r.suppressedCount > 0
    }

    /// The end of an open testcase: a `<system-out>` naming the violations a baseline or a
    /// suppression accepted, if any, then `</testcase>`.
    private static func endTestcase(
        _ r: RuleResult, _ report: AuditReport, _ paths: [String], _ out: inout ReportText
    ) {
        if hasAccepted(r) {
            out += "      <system-out>"
            acceptedLines(r, report, paths, &out)
            out += "</system-out>\n"
        }
        out += "    </testcase>\n"
    }

    /// The violations a baseline accepted, then those suppressions accepted.
    private static func acceptedLines(
        _ r: RuleResult, _ report: AuditReport, _ paths: [String], _ out: inout ReportText
    ) {
        if r.baselinedCount > 0 {
            out += text(
                "\(count(r.baselinedCount, "known violation")) accepted by the baseline:\n")
            lines(paths, &out) { body in
                report.eachSorted(of: r, [.baselined], fingerprints: false) { body($0.finding) }
            }
        }
        if r.suppressedCount > 0 {
            if r.baselinedCount > 0 { out += text("\n\n") }
            out += text("\(count(r.suppressedCount, "violation")) suppressed as known issues:\n")
            lines(paths, &out) { body in
                report.eachSorted(of: r, [.suppressed], fingerprints: false) { body($0.finding) }
            }
        }
    }

    private static func property(_ out: inout ReportText, _ name: String, _ value: String) {
        out += "      <property name=\"\(attr(name))\" value=\"\(attr(value))\"/>\n"
    }

    private static func count(_ n: Int, _ noun: String) -> String {
        "\(n) \(noun)\(n == 1 ? "" : "s")"
    }

    // MARK: - XML escaping

    /// Escapes character data (element text), as ``MarkupEscape`` says.
    static func text(_ s: String) -> String { MarkupEscape.escape(s, for: .xmlText) }

    /// Escapes an attribute value (double-quoted), as ``MarkupEscape`` says.
    static func attr(_ s: String) -> String { MarkupEscape.escape(s, for: .xmlAttribute) }
}

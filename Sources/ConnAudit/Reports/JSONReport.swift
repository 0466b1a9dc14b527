/// `--format json`: the report for machines, schema `conn-audit/report` version 1
/// (docs/json-report.md).
public enum JSONReport: PiecewiseJSONReport {
    public static let schema = "conn-audit/report"
    public static let version = 1

    public static func render(_ report: AuditReport) -> String { render(report, flush: nil) }

    static func write(_ report: AuditReport, to w: inout JSONWriter) {
        let paths = report.filePaths
        w.beginObject()
        w.key("schema", schema)
        w.key("version", version)
        w.beginObject("tool")
        w.key("name", "conn-audit")
        w.key("version", ConnAuditVersion.string)
        w.endObject()
        w.key("verdict", report.verdictName)
        w.key("complete", report.inputErrors.isEmpty)
        w.key("exit_code", Int(report.exitCode))
        w.key("fail_on", report.failOn.rawValue)
        w.beginObject("inputs")
        w.key("files", report.inputs.files)
        w.key("lines", report.inputs.lines)
        w.key("events", report.inputs.events)
        w.key("malformed", report.inputs.malformed)
        w.key("blank", report.inputs.blank)
        w.key("bytes", report.inputs.bytes)
        w.key("sources", report.inputs.sources)
        w.key("generations", report.inputs.generations)
        w.endObject()
        w.beginArray("files")
        for f in report.files {
            w.beginObject()
            w.key("path", f.path)
            w.lineCounts(f)
            w.key("error", f.error?.reason)
            w.endObject()
        }
        w.endArray()
        w.inputErrors(report.inputErrors)
        w.beginObject("summary")
        w.key("passed", report.count(.pass))
        w.key("failed", report.count(.fail))
        w.key("inconclusive", report.count(.inconclusive))
        w.key("not_applicable", report.count(.notApplicable))
        w.endObject()
        w.beginArray("rules")
        for r in report.results {
            w.beginObject()
            w.key("id", r.rule.id)
            w.key("title", r.rule.title)
            w.key("family", r.rule.family)
            w.key("severity", r.rule.severity.rawValue)
            w.key("scope", r.rule.scope.rawValue)
            w.key("status", r.status.rawValue)
            w.key("gating", report.failOn.fails(r.rule.severity))
            w.beginArray("violations")
            report.eachViolation(of: r) { finding(&w, $0, paths) }
            w.endArray()
            w.beginArray("inconclusive")
            report.eachInconclusive(of: r) { finding(&w, $0, paths) }
            w.endArray()
            if r.baselinedCount > 0 {
                w.beginArray("baselined")
                report.eachSorted(of: r, [.baselined], fingerprints: false) {
                    finding(&w, $0.finding, paths)
                }
                w.endArray()
            }
            if r.suppressedCount > 0 {
                w.beginArray("suppressed")
                report.eachSorted(of: r, [.suppressed], fingerprints: false) {
                    finding(&w, $0.finding, paths, suppression: $0.entry!)
                }
                w.endArray()
            }
            if let note = r.note { w.key("note", note) }
            if let labels = r.labels {
                w.beginObject("labels")
                for l in labels { w.key(l.name, l.count) }
                w.endObject()
            }
            w.endObject()
        }
        w.endArray()
        if let b = report.baseline {
            w.beginObject("baseline")
            w.key("path", b.path)
            w.key("accepted", b.accepted)
            w.beginArray("expired")
            for e in b.expired {
                w.beginObject()
                w.key("rule", e.rule)
                w.key("fingerprint", e.fingerprint)
                w.key("file", e.file)
                w.key("expires", e.expires)
                w.key("reason", e.reason)
                w.endObject()
            }
            w.endArray()
            w.key("unused", b.unused.count)
            w.endObject()
        }
        if let summary = report.suppressions {
            w.beginObject("suppressions")
            w.key("accepted", summary.total)
            w.beginArray("entries")
            for (i, e) in summary.entries.enumerated() {
                w.beginObject()
                w.key("rule", e.rule)
                w.key("origin", e.origin)
                w.key("reason", e.reason)
                w.key("expires", e.expires)
                w.key("accepted", summary.accepted[i])
                w.key("expired", summary.expired.contains(i))
                w.endObject()
            }
            w.endArray()
            w.endObject()
        }
        if let outcomes = report.outcomes {
            w.beginObject("outcomes")
            for o in outcomes { w.key(o.name, o.count) }
            w.endObject()
        } else {
            w.raw("outcomes", "null")
        }
        w.endObject()
    }

    private static func finding(
        _ w: inout JSONWriter, _ f: Finding, _ paths: [String], suppression: Int? = nil
    ) {
        w.beginObject()
        if let suppression { w.key("suppression", suppression) }
        w.key("file", f.file.map { paths[Int($0)] })
        if let line = f.line { w.key("line", line) } else { w.raw("line", "null") }
        w.key("t", number: f.t)
        w.key("src", f.source.map { $0.srcIsFile ? nil : $0.shownSrc } ?? nil)
        w.key("session", f.source?.shownSession)
        if let g = f.gen { w.raw("gen", String(g)) } else { w.raw("gen", "null") }
        w.key("message", f.message)
        w.beginArray("context")
        for c in f.context {
            w.beginObject()
            w.key("file", paths[Int(c.file)])
            w.key("line", c.line)
            w.key("event", c.text)
            w.key("anchor", c.isAnchor)
            w.endObject()
        }
        w.endArray()
        w.endObject()
    }
}

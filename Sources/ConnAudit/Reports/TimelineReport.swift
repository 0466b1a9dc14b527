/// `conn-audit timeline`: the postmortem view of a ``TimelineDocument``, for people or machines.
///
/// ## Text
/// A header per section (`iphone-a session s1 · ws gen 2 · 14 events · 2 violations`), then one
/// line per event, columns aligned over the whole document:
/// ```
/// >> !! logs/a.jsonl:5   1100  +1100  Δ1000  closing  ws.close reason="pong_timeout"
///          ws.single-close: second ws.close in generation 1 (the first was at logs/a.jsonl:4)
/// ```
/// `>>` marks the `--around` event, `!!` an event with violations (red with colour), `??` one with
/// inconclusive findings only; each finding follows on its own indented line. The columns:
/// file:line, `t`, `+` ms since the generation's connect, `Δ` ms since the last ping, the phase
/// when it changes (and on a section's first event), then `ev` and the fields (a secret shows as
/// `[redacted]`). Under the sections: how many findings of these sources are elsewhere, their
/// findings without a line, the rules with corpus-wide findings (coverage, named only), and inputs
/// that could not be re-read.
///
/// ## JSON (schema `conn-audit/timeline`, version 1)
/// ```
/// {"schema": "conn-audit/timeline", "version": 1,
///  "focus": {"file": "logs/a.jsonl", "line": 12, "radius": 15} | null,
///  "sections": [{"src": "iphone-a", "src_is_file": false, "session": "s1" | null,
///                "stream": "ws" | null, "gen": 2 | null,      // gen null: the events without gen
///                "events": 40, "shown": 31, "violations": 2, "inconclusive": 0,
///                "entries": [{"file": "logs/a.jsonl", "line": 5, "t": 1100, "ev": "ws.close",
///                             "gen": 1 | null, "text": "ws.close reason=\"pong_timeout\"",
///                             "fields": {"reason": "pong_timeout"},   // a secret: "[redacted]"
///                             "redacted": ["token"],
///                             "since_connect": 1100 | null, "since_ping": 1000 | null,
///                             "phase": "closing" | null, "phase_changed": true, "focus": false,
///                             "findings": [{"rule": "ws.timeout-closes", "severity": "error",
///                                           "status": "fail" | "inconclusive", "message": "…"}]}]}],
///  "findings_elsewhere": 3,
///  "unplaced": [{"rule": …, "severity": …, "status": …, "message": …}],  // a selected source's, no line
///  "corpus": [{"rule": "ws.required-outcomes", "severity": "warning", "status": "fail", "message": "…"}],
///  "input_errors": [{"path": "logs/b.jsonl", "reason": "…"}]}
/// ```
/// Sections come in document order (sources in order of first appearance, a source's sections in
/// order of their first event shown); entries in merged order. Times are milliseconds.
public enum TimelineReport {
    // MARK: - Text

    /// The text view; with a `flush`, handed over in pieces as it is written (and "" returned).
    public static func text(_ doc: TimelineDocument, color: Bool) -> String {
        text(doc, color: color, flush: nil)
    }

    static func text(_ doc: TimelineDocument, color: Bool, flush: ((String) -> Void)?) -> String {
        func paint(_ s: String, _ code: String) -> String {
            color && !s.isEmpty ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s
        }
        let safe = TimelineBuilder.safe

        // Column widths over the whole document.
        struct Row {
            var loc, t, connect, ping, phase: String
        }
        // The phase when it changes, and where a section starts (an `--around` window may begin
        // mid-phase).
        func row(_ e: TimelineDocument.Entry, _ i: Int) -> Row {
            Row(
                loc: safe(e.file) + ":\(e.line)", t: NumberText.json(e.t),
                connect: e.sinceConnect.map { ($0 < 0 ? "" : "+") + NumberText.json($0) } ?? "",
                ping: e.sincePing.map { "Δ" + NumberText.json($0) } ?? "",
                phase: e.phaseChanged || i == 0 ? (e.phase ?? "") : "")
        }
        // Widths first; the rows are made again as they are written, not kept for a view of a
        // million events.
        var w = (loc: 9, t: 1, connect: 8, ping: 5, phase: 5)
        for section in doc.sections {
            for (i, e) in section.entries.enumerated() {
                let row = row(e, i)
                w.loc = max(w.loc, row.loc.count)
                w.t = max(w.t, row.t.count)
                w.connect = max(w.connect, row.connect.count)
                w.ping = max(w.ping, row.ping.count)
                w.phase = max(w.phase, row.phase.count)
            }
        }
        func left(_ s: String, _ n: Int) -> String {
            s + String(repeating: " ", count: max(0, n - s.count))
        }
        func right(_ s: String, _ n: Int) -> String {
            String(repeating: " ", count: max(0, n - s.count)) + s
        }

        var out = ReportText(flush: flush)
        if let focus = doc.focus {
            out +=
                paint("around \(safe(focus.file)):\(focus.line)", "1")
                + (doc.radius.map { " (up to \($0) events before and after)" } ?? "") + "\n\n"
        }
        for (s, section) in doc.sections.enumerated() {
            if s > 0 { out += "\n" }
            var head = sectionName(section)
            let n = section.entries.count
            head +=
                n == section.total
                ? " · \(n) event\(n == 1 ? "" : "s")"
                : " · \(n) of \(section.total) events"
            let v = section.violations, i = section.inconclusive
            var tail = ""
            if v > 0 { tail += " · " + paint("\(v) violation\(v == 1 ? "" : "s")", "1;31") }
            if i > 0 { tail += " · " + paint("\(i) inconclusive", "33") }
            out += paint(head, "1") + tail + "\n"
            let columns =
                "      " + left("file:line", w.loc) + "  " + right("t", w.t) + "  "
                + right("+connect", w.connect) + "  " + right("Δping", w.ping) + "  "
                + left("phase", w.phase) + "  event"
            out += paint(columns, "2") + "\n"
            for (e, entry) in section.entries.enumerated() {
                let row = row(entry, e)
                let violated = entry.findings.contains { $0.status == .fail }
                let mark =
                    violated
                    ? paint("!!", "1;31") : entry.findings.isEmpty ? "  " : paint("??", "33")
                let focus = entry.isFocus ? paint(">>", "1") : "  "
                var phase = left(row.phase, w.phase)
                if !row.phase.isEmpty { phase = paint(phase, entry.phase == "stale" ? "33" : "36") }
                var line =
                    focus + " " + mark + " " + paint(left(row.loc, w.loc), "2") + "  "
                    + right(row.t, w.t) + "  "
                    + right(row.connect, w.connect) + "  " + right(row.ping, w.ping) + "  " + phase
                    + "  "
                    + (entry.isFocus ? paint(entry.text, "1") : entry.text)
                while line.hasSuffix(" ") { line.removeLast() }
                out += line + "\n"
                for f in entry.findings {
                    let label = f.rule + (f.status == .inconclusive ? " (inconclusive)" : "") + ": "
                    out +=
                        String(repeating: " ", count: 9)
                        + paint(label + safe(f.message), f.status == .fail ? "31" : "33") + "\n"
                }
            }
        }
        if let hidden = doc.hidden, hidden.timelines > 0 {
            let n = hidden.timelines, m = hidden.events
            // A blank line after the timelines shown, none when none is.
            out +=
                (doc.sections.isEmpty ? "" : "\n")
                + paint(
                    "\(n) timeline\(n == 1 ? "" : "s") without findings (\(m) event\(m == 1 ? "" : "s")) "
                        + "not shown (--show all shows them)", "2") + "\n"
        }
        if doc.findingsElsewhere > 0 {
            let n = doc.findingsElsewhere
            let whose = doc.sections.count == 1 ? "this source" : "these sources"
            out +=
                "\n"
                + paint(
                    "\(n) more finding\(n == 1 ? "" : "s") of \(whose) outside this view "
                        + "(conn-audit check lists them all)", "2") + "\n"
        }
        if !doc.unplaced.isEmpty {
            out += "\nfindings without a line:\n"
            for f in doc.unplaced {
                let label = f.rule + (f.status == .inconclusive ? " (inconclusive)" : "") + ": "
                out += "  " + paint(label + safe(f.message), f.status == .fail ? "31" : "33") + "\n"
            }
        }
        if !doc.corpus.isEmpty {
            // About the whole corpus, not these events: named, not spelled out.
            let named = corpusRules(doc).map { "\($0.id) (\($0.count))" }.joined(separator: ", ")
            out +=
                (doc.unplaced.isEmpty ? "\n" : "")
                + paint("corpus-wide findings: \(named) (conn-audit check explains them)", "2")
                + "\n"
        }
        for e in doc.inputErrors {
            out += paint("error: ", "1;31") + safe(e.path) + ": " + safe(e.reason) + "\n"
        }
        return out.finish()
    }

    /// The rules with corpus-wide findings, in order of their first, each with how many it has.
    static func corpusRules(_ doc: TimelineDocument) -> [(id: String, count: Int)] {
        var rules: [(id: String, count: Int)] = []
        for f in doc.corpus {
            if let i = rules.firstIndex(where: { $0.id == f.rule }) {
                rules[i].count += 1
            } else {
                rules.append((f.rule, 1))
            }
        }
        return rules
    }

    // MARK: - JSON

    public static func json(_ doc: TimelineDocument) -> String { json(doc, flush: nil) }

    /// The JSON view; with a `flush`, handed over in chunks as it is written (and "" returned).
    static func json(_ doc: TimelineDocument, flush: (([UInt8]) -> Void)?) -> String {
        var w = JSONWriter(flush: flush)
        w.beginObject()
        w.key("schema", "conn-audit/timeline")
        w.key("version", 1)
        if let focus = doc.focus {
            w.beginObject("focus")
            w.key("file", focus.file)
            w.key("line", focus.line)
            w.key("radius", doc.radius ?? 0)
            w.endObject()
        } else {
            w.raw("focus", "null")
        }
        w.beginArray("sections")
        for section in doc.sections {
            w.beginObject()
            w.key("src", section.source.shownSrc)
            w.key("src_is_file", section.source.srcIsFile)
            w.key("session", section.source.shownSession)
            w.key("stream", section.stream)
            w.raw("gen", section.gen.map { String($0) } ?? "null")
            w.key("events", section.total)
            w.key("shown", section.entries.count)
            w.key("violations", section.violations)
            w.key("inconclusive", section.inconclusive)
            w.beginArray("entries")
            for e in section.entries {
                w.beginObject()
                w.key("file", e.file)
                w.key("line", e.line)
                w.key("t", number: e.t)
                w.key("ev", e.ev)
                w.raw("gen", e.gen.map { String($0) } ?? "null")
                w.key("text", e.text)
                w.beginObject("fields")
                let hidden = KeyLookup(e.redacted)
                for f in e.fields {
                    let redacted = hidden.contains(f.key)
                    w.raw(
                        f.key,
                        redacted ? Value.jsonString("[redacted]") : TimelineBuilder.json(f.value))
                }
                w.endObject()
                w.beginArray("redacted")
                for k in e.redacted { w.value(k) }
                w.endArray()
                w.key("since_connect", number: e.sinceConnect)
                w.key("since_ping", number: e.sincePing)
                w.key("phase", e.phase)
                w.key("phase_changed", e.phaseChanged)
                w.key("focus", e.isFocus)
                marks("findings", e.findings, &w)
                w.endObject()
            }
            w.endArray()
            w.endObject()
        }
        w.endArray()
        w.key("findings_elsewhere", doc.findingsElsewhere)
        if let hidden = doc.hidden {
            w.beginObject("hidden")
            w.key("timelines", hidden.timelines)
            w.key("events", hidden.events)
            w.endObject()
        }
        marks("unplaced", doc.unplaced, &w)
        marks("corpus", doc.corpus, &w)
        w.inputErrors(doc.inputErrors)
        w.endObject()
        return w.finish()
    }

    private static func marks(_ key: String, _ list: [TimelineDocument.Mark], _ w: inout JSONWriter)
    {
        w.beginArray(key)
        for f in list {
            w.beginObject()
            w.key("rule", f.rule)
            w.key("severity", f.severity.rawValue)
            w.key("status", f.status.rawValue)
            w.key("message", f.message)
            w.endObject()
        }
        w.endArray()
    }
}

extension TimelineReport {
    /// `iphone-a session s1 · ws gen 2`, `iphone-a · sse events without gen`: a section's source,
    /// then its stream and generation; control characters shown as escapes.
    static func sectionName(_ section: TimelineDocument.Section) -> String {
        let safe = TimelineBuilder.safe
        let name = TimelineBuilder.displayName(section.source)
        if let g = section.gen { return name + " · \(safe(section.stream ?? "?")) gen \(g)" }
        return name + " · "
            + (section.stream.map { "\(safe($0)) events without gen" } ?? "events without gen")
    }
}

/// `conn-audit timeline --format html`: the postmortem view as one self-contained page.
///
/// The page holds everything it shows: inline CSS, no script, no external resource (fonts, images,
/// links outside the page). It says what the text format says, laid out for reading and sharing:
/// - a title naming the selected sources, and the `--around` event with its radius if any;
/// - a summary: how many timelines without findings were left out (`--show findings`, the
///   default), the key to the time lanes, one line per timeline (source, stream and generation,
///   events shown of the total, violations, inconclusive findings) linking to it, then every
///   marked finding with its place;
/// - per timeline, in document order, a part that opens and closes (open when it has a violation
///   or the `--around` event), holding its time lane (``lane(_:)``) and a table of its events in
///   merged order: the marker (`>>` the
///   `--around` event, `!!` violations, `??` inconclusive only), `file:line`, `t`, `+` ms since the
///   generation's connect, `Δ` ms since the last ping, the phase where it changes (and on the first
///   row), `ev`, `gen`, and the fields as the text format renders them (a secret as `[redacted]`).
///   A row with findings is highlighted and followed by one row per finding: rule id, severity,
///   status and message. With `--show findings`, a timeline of more than ``elideFrom`` events
///   shows the rows near its findings and counts the others in their place;
/// - under the tables: findings of these sources outside the view, findings without a line, the
///   rules with corpus-wide findings (named, as in the text), and inputs that could not be read.
///
/// Every value from the logs or the rules goes through ``TimelineBuilder/safe(_:)`` (control
/// characters) and then ``htmlEscape(_:)`` (`& < > " '`); nothing from the inputs is ever placed in
/// an attribute, and anchors are numbered, not named after log values. The page has no date or
/// other varying content: the same document gives the same bytes.
extension TimelineReport {
    // MARK: - HTML

    /// Renders `doc` as one HTML5 page with inline CSS and no script.
    ///
    /// - Complexity: O(size of the document).
    public static func html(_ doc: TimelineDocument) -> String { html(doc, flush: nil) }

    /// The page; with a `flush`, handed over in pieces as it is written (and "" returned).
    static func html(_ doc: TimelineDocument, flush: ((String) -> Void)?) -> String {
        let h = { (s: String) in htmlEscape(TimelineBuilder.safe(s)) }
        var out = ReportText(flush: flush)

        // Source names in document order, once each.
        var sources: [SourceKey] = []
        for section in doc.sections where !sources.contains(section.source) {
            sources.append(section.source)
        }
        let names = sources.map(TimelineBuilder.displayName)
        var title = "conn-audit timeline"
        if !names.isEmpty {
            title +=
                " · " + names.prefix(3).joined(separator: ", ")
                + (names.count > 3 ? ", and \(names.count - 3) more" : "")
        }

        out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        out += "<title>" + htmlEscape(title) + "</title>\n"
        out += "<style>\n" + css + "</style>\n</head>\n<body>\n"
        out += "<h1>" + htmlEscape(title) + "</h1>\n"

        // Summary.
        out += "<section class=\"summary\">\n<h2>Selection</h2>\n"
        if let focus = doc.focus {
            out +=
                "<p class=\"focus-note\">Around <code>" + h(focus.file) + ":\(focus.line)</code>"
                + (doc.radius.map { " (up to \($0) events before and after)" } ?? "") + ".</p>\n"
        }
        if doc.sections.isEmpty, let hidden = doc.hidden, hidden.timelines > 0 {
            out +=
                "<p class=\"empty\">No timeline of the selection has a finding: "
                + plural(hidden.timelines, "timeline")
                + " (" + plural(hidden.events, "event")
                + ") not shown; <code>--show all</code> shows them.</p>\n"
        } else if doc.sections.isEmpty {
            out += "<p class=\"empty\">No events matched the selection: nothing to show.</p>\n"
        } else {
            let shown = doc.sections.reduce(0) { $0 + $1.entries.count }
            let v = doc.sections.reduce(0) { $0 + $1.violations }
            let i = doc.sections.reduce(0) { $0 + $1.inconclusive }
            let n = doc.sections.count
            out +=
                "<p>" + plural(n, "timeline") + " of " + plural(sources.count, "source") + " · "
                + plural(shown, "event") + " shown · " + verdict(v, i) + ".</p>\n"
            if let hidden = doc.hidden, hidden.timelines > 0 {
                out +=
                    "<p class=\"hidden-note\">Timelines with findings only: "
                    + plural(hidden.timelines, "timeline")
                    + " without findings (" + plural(hidden.events, "event")
                    + ") not shown; <code>--show all</code> shows them.</p>\n"
            }
            out += laneLegend
            out += "<ul class=\"toc\">\n"
            for (s, section) in doc.sections.enumerated() {
                out +=
                    "<li><a href=\"#t\(s + 1)\">" + heading(section) + "</a> · " + counts(section)
                    + "</li>\n"
            }
            out += "</ul>\n"
            // Written as they are listed, not gathered first (a view of a million findings).
            if doc.sections.contains(where: { $0.entries.contains { !$0.findings.isEmpty } }) {
                out += "<h3>Findings in this view</h3>\n<ul class=\"findings\">\n"
                for (s, section) in doc.sections.enumerated() {
                    for (e, entry) in section.entries.enumerated() {
                        for f in entry.findings {
                            out +=
                                "<li class=\"\(statusClass(f.status))\"><a href=\"#t\(s + 1)-e\(e + 1)\"><code>"
                                + h(entry.file) + ":\(entry.line)</code></a> " + markText(f, h)
                                + "</li>\n"
                        }
                    }
                }
                out += "</ul>\n"
            }
        }
        out += "</section>\n"

        // One table per timeline, each a part that opens and closes; those with a violation or
        // the --around event open.
        for (s, section) in doc.sections.enumerated() {
            let open = section.violations > 0 || section.entries.contains { $0.isFocus }
            out += "<details class=\"timeline\" id=\"t\(s + 1)\"" + (open ? " open" : "") + ">\n"
            out +=
                "<summary><h2>" + heading(section) + "</h2> <span class=\"counts\">"
                + counts(section)
                + "</span></summary>\n"
            out += lane(section)
            out +=
                "<table>\n<thead><tr><th class=\"mark\"></th><th>file:line</th><th class=\"num\">t</th>"
                + "<th class=\"num\">+connect</th><th class=\"num\">Δping</th><th>phase</th><th>ev</th>"
                + "<th class=\"num\">gen</th><th>fields</th></tr></thead>\n<tbody>\n"
            // Rows left out are counted where they were, between the rows shown and after the last.
            func elided(_ n: Int) -> String {
                n == 0
                    ? ""
                    : "<tr class=\"elided\"><td class=\"mark\">⋯</td><td colspan=\"8\">"
                        + plural(n, "event")
                        + " without findings (<code>--show all</code> shows them)</td></tr>\n"
            }
            var previous = -1
            for e in shownRows(section, eliding: doc.hidden != nil) {
                out += elided(e - previous - 1)
                previous = e
                out += row(section.entries[e], section: s, index: e, h)
            }
            out += elided(section.entries.count - 1 - previous)
            out += "</tbody>\n</table>\n</details>\n"
        }

        // What lies outside the tables.
        var notes = ""
        if doc.findingsElsewhere > 0 {
            let n = doc.findingsElsewhere
            let whose = doc.sections.count == 1 ? "this source" : "these sources"
            notes +=
                "<p class=\"elsewhere\">" + plural(n, "more finding")
                + " of \(whose) outside this view "
                + "(<code>conn-audit check</code> lists them all).</p>\n"
        }
        if !doc.unplaced.isEmpty {
            notes += "<h3>Findings without a line</h3>\n<ul class=\"findings\">\n"
            for f in doc.unplaced {
                notes += "<li class=\"\(statusClass(f.status))\">" + markText(f, h) + "</li>\n"
            }
            notes += "</ul>\n"
        }
        if !doc.corpus.isEmpty {
            // About the whole corpus, not these events: named, not spelled out (as in the text).
            let named = corpusRules(doc).map { "<code>" + h($0.id) + "</code> (\($0.count))" }
                .joined(separator: ", ")
            notes +=
                "<p class=\"corpus\">Corpus-wide findings: " + named
                + " (<code>conn-audit check</code> explains them).</p>\n"
        }
        if !doc.inputErrors.isEmpty {
            notes += "<h3>Inputs that could not be read</h3>\n<ul class=\"errors\">\n"
            for e in doc.inputErrors {
                notes +=
                    "<li><span class=\"error\">error:</span> <code>" + h(e.path) + "</code>: "
                    + h(e.reason)
                    + "</li>\n"
            }
            notes += "</ul>\n"
        }
        if !notes.isEmpty {
            out += "<section class=\"notes\">\n<h2>Also</h2>\n" + notes + "</section>\n"
        }

        out += "</body>\n</html>\n"
        return out.finish()
    }

    /// One event's row, and a row for each finding on it.
    private static func row(
        _ entry: TimelineDocument.Entry, section s: Int, index e: Int,
        _ h: (String) -> String
    ) -> String {
        let violated = entry.findings.contains { $0.status == .fail }
        var classes: [String] = []
        if violated {
            classes.append("fail")
        } else if !entry.findings.isEmpty {
            classes.append("inconclusive")
        }
        if entry.isFocus { classes.append("focus") }
        let mark = [
            entry.isFocus ? "&gt;&gt;" : "", violated ? "!!" : entry.findings.isEmpty ? "" : "??"
        ]
        .filter { !$0.isEmpty }.joined(separator: " ")
        let phase = entry.phaseChanged || e == 0 ? (entry.phase ?? "") : ""
        let connect = entry.sinceConnect.map { ($0 < 0 ? "" : "+") + NumberText.json($0) } ?? ""
        let ping = entry.sincePing.map { "Δ" + NumberText.json($0) } ?? ""
        var out =
            "<tr id=\"t\(s + 1)-e\(e + 1)\""
            + (classes.isEmpty ? "" : " class=\"" + classes.joined(separator: " ") + "\"") + ">"
        out += "<td class=\"mark\">" + mark + "</td>"
        out += "<td class=\"loc\">" + h(entry.file) + ":\(entry.line)</td>"
        out += "<td class=\"num\">" + NumberText.json(entry.t) + "</td>"
        out += "<td class=\"num\">" + connect + "</td>"
        out += "<td class=\"num\">" + ping + "</td>"
        out +=
            "<td class=\"phase" + (entry.phase == "stale" && !phase.isEmpty ? " stale" : "") + "\">"
            + h(phase) + "</td>"
        out += "<td class=\"ev\">" + h(entry.ev) + "</td>"
        out += "<td class=\"num\">" + (entry.gen.map { String($0) } ?? "") + "</td>"
        out += "<td class=\"fields\">" + h(fieldsText(entry)) + "</td></tr>\n"
        for f in entry.findings {
            out +=
                "<tr class=\"finding \(statusClass(f.status))\"><td class=\"mark\"></td>"
                + "<td colspan=\"8\">" + markText(f, h) + "</td></tr>\n"
        }
        return out
    }

    /// A long timeline's rows past ``elideFrom`` events, when eliding: those within
    /// ``elisionContext`` events of a finding or the `--around` event, and the first and last
    /// few; the rest are counted in their place. Else every row.
    static func shownRows(_ section: TimelineDocument.Section, eliding: Bool) -> [Int] {
        let n = section.entries.count
        guard eliding, n > elideFrom else { return Array(0..<n) }
        var keep = [Bool](repeating: false, count: n)
        for i in 0..<min(3, n) { keep[i] = true; keep[n - 1 - i] = true }
        for (i, entry) in section.entries.enumerated()
        where !entry.findings.isEmpty || entry.isFocus {
            for k in max(0, i - elisionContext)...min(n - 1, i + elisionContext) { keep[k] = true }
        }
        return keep.indices.filter { keep[$0] }
    }

    /// A timeline of more events than this has its rows away from findings elided.
    static let elideFrom = 200
    /// Rows kept on each side of a finding in an elided timeline.
    static let elisionContext = 8

    /// Escapes text for HTML element content and quoted attribute values: `&`, `<`, `>`, `"`, `'`
    /// (``MarkupEscape/Context/html``).
    static func htmlEscape(_ s: String) -> String { MarkupEscape.escape(s, for: .html) }

    // MARK: - HTML pieces

    /// `iphone-a session s1 · ws gen 2`, escaped.
    private static func heading(_ section: TimelineDocument.Section) -> String {
        htmlEscape(TimelineReport.sectionName(section))
    }

    /// `14 events · 2 violations`, `5 of 12 events · no findings`.
    private static func counts(_ section: TimelineDocument.Section) -> String {
        let n = section.entries.count
        let events = n == section.total ? plural(n, "event") : "\(n) of \(section.total) events"
        return events + " · " + verdict(section.violations, section.inconclusive)
    }

    private static func verdict(_ v: Int, _ i: Int) -> String {
        var parts: [String] = []
        if v > 0 {
            parts.append("<span class=\"count-fail\">" + plural(v, "violation") + "</span>")
        }
        if i > 0 { parts.append("<span class=\"count-inconclusive\">\(i) inconclusive</span>") }
        return parts.isEmpty ? "no findings" : parts.joined(separator: " · ")
    }

    /// `<code>rule</code> error violation: message`, escaped.
    private static func markText(_ f: TimelineDocument.Mark, _ h: (String) -> String) -> String {
        "<code class=\"rule\">" + h(f.rule) + "</code> <span class=\"severity "
            + severityClass(f.severity) + "\">"
            + h(f.severity.rawValue) + "</span> <span class=\"status\">"
            + (f.status == .fail
                ? "violation" : f.status == .inconclusive ? "inconclusive" : h(f.status.rawValue))
            + "</span>: <span class=\"message\">" + h(f.message) + "</span>"
    }

    private static func statusClass(_ status: RuleStatus) -> String {
        status == .fail ? "fail" : "inconclusive"
    }

    private static func severityClass(_ severity: Severity) -> String {
        switch severity {
        case .error: return "sev-error"
        case .warning: return "sev-warning"
        case .info: return "sev-info"
        }
    }

    /// The entry's rendered text without its leading `ev`: `reason="pong_timeout" code=1000`.
    private static func fieldsText(_ entry: TimelineDocument.Entry) -> String {
        let ev = TimelineBuilder.safe(entry.ev)
        guard entry.text.hasPrefix(ev) else { return entry.text }
        var rest = entry.text.dropFirst(ev.count)
        if rest.first == " " { rest = rest.dropFirst() }
        return String(rest)
    }

    private static func plural(_ n: Int, _ noun: String) -> String {
        "\(n) \(noun)\(n == 1 ? "" : "s")"
    }

    private static let css = """
        body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1.5em; color: #1b1b1b; }
        h1 { font-size: 1.4em; margin: 0 0 .5em; }
        h2 { font-size: 1.15em; margin: 1.5em 0 .3em; }
        h3 { font-size: 1em; margin: 1em 0 .3em; }
        code, table { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
        table { border-collapse: collapse; font-size: 13px; width: 100%; }
        th, td { padding: 2px 8px; border-bottom: 1px solid #e3e3e3; text-align: left; vertical-align: top; }
        th { background: #f3f3f3; position: sticky; top: 0; }
        td.num, th.num { text-align: right; white-space: nowrap; }
        td.loc { color: #666; white-space: nowrap; }
        td.mark { width: 2.5em; font-weight: bold; white-space: nowrap; }
        td.fields { word-break: break-all; }
        td.phase { color: #0a6e7a; }
        td.phase.stale { color: #9a6700; }
        tr.fail > td { background: #fde7e7; }
        tr.fail > td.mark, .count-fail, li.fail .status { color: #b3161b; }
        tr.inconclusive > td { background: #fff6d9; }
        tr.inconclusive > td.mark, .count-inconclusive, li.inconclusive .status { color: #9a6700; }
        tr.finding > td { border-bottom: 1px solid #e3e3e3; font-family: system-ui, sans-serif; }
        tr.finding.fail > td { background: #fbd3d3; }
        tr.finding.inconclusive > td { background: #ffedb3; }
        tr.focus > td { font-weight: bold; outline: 2px solid #3b6fd6; }
        .severity { font-size: .85em; text-transform: uppercase; padding: 0 4px; border-radius: 3px; }
        .sev-error { background: #b3161b; color: #fff; }
        .sev-warning { background: #9a6700; color: #fff; }
        .sev-info { background: #555; color: #fff; }
        .count-fail { font-weight: bold; }
        .empty { font-weight: bold; }
        .counts, .elsewhere, .corpus { color: #555; }
        .error { color: #b3161b; font-weight: bold; }
        details.timeline { margin: 1em 0; border-top: 1px solid #ccc; }
        details.timeline > summary { cursor: pointer; padding: .4em 0; }
        details.timeline > summary > h2 { display: inline; font-size: 1.1em; margin: 0; }
        tr.elided > td { color: #777; background: #f7f7f7; font-style: italic; }
        svg.lane { display: block; width: 100%; height: 36px; margin: .3em 0 .6em; background: #fafafa; }
        .lane-legend svg { width: 10px; height: 18px; vertical-align: middle; }
        .hidden-note { color: #555; }
        @media print { th { position: static; } tr.focus > td { outline: none; } details.timeline { break-inside: auto; } }

        """
}

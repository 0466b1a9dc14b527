/// `--format text`: the report a person reads first.
///
/// Header counts, then failures (each violation with rule, severity, source, gen, file:line, t,
/// message and context), then inconclusive results, then passed rules, the per-file accounting,
/// and last the `rules:` line and the verdict.
public struct TextReport {
    public var color: Bool
    /// Violations shown per rule before the rest are summarised.
    public var limit: Int

    /// Violations (and inconclusive cases) shown per rule unless told otherwise.
    public static let defaultLimit = 20

    public init(color: Bool = false, limit: Int = TextReport.defaultLimit) {
        self.color = color
        self.limit = limit
    }

    func paint(_ s: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
    func red(_ s: String) -> String { paint(s, "1;31") }
    func green(_ s: String) -> String { paint(s, "32") }
    func yellow(_ s: String) -> String { paint(s, "33") }
    func dim(_ s: String) -> String { paint(s, "2") }
    func bold(_ s: String) -> String { paint(s, "1") }

    public func render(_ report: AuditReport) -> String {
        let paths = report.filePaths
        var out = ""
        let i = report.inputs
        out += bold("conn-audit \(ConnAuditVersion.string)") + "\n"
        out +=
            "inputs: \(i.files) file\(i.files == 1 ? "" : "s"), \(i.lines) lines, \(i.events) events, "
            + "\(i.malformed) malformed, \(i.blank) blank; \(i.sources) source\(i.sources == 1 ? "" : "s"), "
            + "\(i.generations) generation\(i.generations == 1 ? "" : "s")\n"
        // Nothing vanishes: every physical line of every file is an event, malformed or blank.
        let balanced = report.files.allSatisfy { $0.lines == $0.events + $0.malformed + $0.blank }
        out +=
            balanced
            ? dim(
                "every line accounted for: \(i.lines) = \(i.events) events + \(i.malformed) malformed + \(i.blank) blank, in each file"
            ) + "\n"
            : red("ACCOUNTING MISMATCH: ")
                + report.files.filter { $0.lines != $0.events + $0.malformed + $0.blank }
                .map {
                    "\($0.path): \($0.lines) lines != \($0.events) + \($0.malformed) + \($0.blank)"
                }.joined(separator: "; ") + "\n"
        for e in report.inputErrors {
            out += red("error: ") + e.headline(shownPath: e.path.visibleControls) + "\n"
        }

        let failed = report.results.filter { $0.status == .fail }
        if !failed.isEmpty { out += "\n" }
        for r in failed {
            let gating = report.failOn.fails(r.rule.severity)
            let label = gating ? red("FAIL") : yellow("FAIL")
            out +=
                "\(label) \(bold(r.rule.id)) [\(r.rule.severity.rawValue)] \(r.rule.title) — "
                + "\(r.violationCount) violation\(r.violationCount == 1 ? "" : "s")\n"
            let shown = r.violations.prefix(limit)
            for f in shown { out += finding(f, paths) }
            if r.violationCount > shown.count {
                out +=
                    dim(
                        "  … and \(r.violationCount - shown.count) more (all of them are in --format json)"
                    ) + "\n"
            }
        }
        let inconclusive = report.results.filter { $0.status == .inconclusive }
        if !inconclusive.isEmpty { out += "\n" }
        for r in inconclusive {
            out +=
                "\(yellow("INCONCLUSIVE")) \(bold(r.rule.id)) [\(r.rule.severity.rawValue)] \(r.rule.title) — "
                + "\(r.inconclusiveCount) case\(r.inconclusiveCount == 1 ? "" : "s") the log could not decide\n"
            let shown = r.inconclusive.prefix(limit)
            for f in shown { out += finding(f, paths) }
            if r.inconclusiveCount > shown.count {
                out += dim("  … and \(r.inconclusiveCount - shown.count) more") + "\n"
            }
        }
        // Inconclusive cases of rules that failed anyway.
        for r in failed where !r.inconclusive.isEmpty {
            out +=
                dim("  (\(r.rule.id) also has \(r.inconclusiveCount) inconclusive case(s))") + "\n"
        }
        let baselined = report.results.filter { $0.baselinedCount > 0 }
        if !baselined.isEmpty { out += "\n" }
        for r in baselined {
            out +=
                dim("BASELINED")
                + " \(r.rule.id) — \(r.baselinedCount) known violation\(r.baselinedCount == 1 ? "" : "s") accepted by the baseline\n"
        }
        if let b = report.baseline {
            for e in b.expired {
                out +=
                    red("EXPIRED BASELINE ENTRY")
                    + " \(e.rule) at \(e.file ?? "?"):\(e.line.map(String.init) ?? "?") expired on \(e.expires ?? "?")"
                    + (e.reason.map { " (\($0))" } ?? "") + " — its violations count again\n"
            }
            if !b.unused.isEmpty {
                out +=
                    dim(
                        "  \(b.unused.count) baseline entr\(b.unused.count == 1 ? "y matches" : "ies match") no violation any more; rewrite the baseline to drop \(b.unused.count == 1 ? "it" : "them")"
                    ) + "\n"
            }
        }
        if let summary = report.suppressions {
            out += suppressionLines(report, summary)
        }
        let passed = report.results.filter { $0.status == .pass }
        if !passed.isEmpty {
            out += "\n" + green("PASS") + " " + passed.map(\.rule.id).joined(separator: ", ") + "\n"
        }
        let notApplicable = report.results.filter { $0.status == .notApplicable }
        if !notApplicable.isEmpty {
            out +=
                dim("NOT APPLICABLE") + " "
                + notApplicable.map { r in r.rule.id + (r.note.map { " (\($0))" } ?? "") }
                .joined(separator: ", ") + "\n"
        }
        if let outcomes = report.outcomes {
            out +=
                "\noutcomes: " + outcomes.map { "\($0.name) \($0.count)" }.joined(separator: ", ")
                + "\n"
        }
        out +=
            "\nrules: \(report.count(.pass)) passed, \(report.count(.fail)) failed, \(report.count(.inconclusive)) inconclusive"
        let na = report.count(.notApplicable)
        out += na > 0 ? ", \(na) not applicable\n" : "\n"
        let unread = report.inputErrors.isEmpty ? "" : "; " + report.inputErrorsPhrase
        if report.verdictFails {
            let n = report.results.filter {
                $0.status == .fail && report.failOn.fails($0.rule.severity)
            }.count
            out +=
                red("verdict: FAIL")
                + " — \(n) rule\(n == 1 ? "" : "s") with violations at --fail-on \(report.failOn.rawValue)\(unread)\n"
        } else if !report.inputErrors.isEmpty {
            out += red("verdict: INCOMPLETE") + " — " + report.inputErrorsPhrase + "\n"
        } else {
            out +=
                green("verdict: PASS")
                + (failed.isEmpty
                    ? "" : " — violations below --fail-on \(report.failOn.rawValue) only") + "\n"
        }
        return out
    }

    private func finding(_ f: Finding, _ paths: [String]) -> String {
        var head = "  "
        if let file = f.file, let line = f.line {
            head += "\(paths[Int(file)]):\(line)"
        } else {
            head += "(corpus)"
        }
        if let t = f.t { head += "  t=\(NumberText.json(t))" }
        if let s = f.source {
            if !s.srcIsFile { head += "  src=\(s.shownSrc)" }
            if let session = s.shownSession { head += "  session=\(session)" }
        }
        if let g = f.gen { head += "  gen=\(g)" }
        var out = head.visibleControls + "\n    " + f.message.visibleControls + "\n"
        for c in f.context {
            let loc = "\(paths[Int(c.file)]):\(c.line)"
            out +=
                (c.isAnchor ? "    > " : "      ") + dim(loc.visibleControls) + "  "
                + c.text.visibleControls + "\n"
        }
        return out
    }
}

/// `--format github`: GitHub Actions workflow commands, which the runner turns into annotations on
/// the run and on the pull request's files.
///
/// One command per violation, in report order: `::error file=PATH,line=N,title=RULE_ID::MESSAGE`
/// for severity error, `::warning` for warning, `::notice` for info (a rule below `--fail-on` keeps
/// its severity's level). A finding that points at no line (coverage rules), or at standard input,
/// has no `file`/`line`. An input that could not be read is
/// `::error title=conn-audit::could not read PATH: REASON`, ahead of the violations.
///
/// GitHub shows at most 10 error, 10 warning and 10 notice annotations per step, and 50 per job
/// (actions/toolkit `docs/problem-matchers.md`, section "Limitations", commit b145fa2; also stated
/// in community discussion #26680 and #68471); commands past the cap are dropped silently. So at
/// most `maxPerLevel` commands of each level are written; when any level overflows, one notice slot
/// is kept for a final `::notice title=conn-audit::N more findings were not annotated …: RULE N, …`
/// naming, by rule, what was left out (everything is in the other formats).
///
/// Escaping follows the runner (actions/toolkit `packages/core/src/command.ts`, `escapeData` and
/// `escapeProperty`): in the message `%` → `%25`, CR → `%0D`, LF → `%0A`; in property values
/// additionally `:` → `%3A` and `,` → `%2C`. `%` goes first so the other escapes are not doubled.
///
/// Inconclusive rules are named on plain lines (not commands, so no annotation), and the output
/// ends with the plain summary `conn-audit: N rules failed, N passed, N inconclusive — verdict
/// FAIL|PASS|INCOMPLETE` (`1 rule failed` for one).
/// Only finding messages (redacted upstream) are written, never raw log text.
public enum GitHubReport {
    /// Annotations of each level written unless told otherwise.
    public static let defaultMaxPerLevel = 10

    public static func render(
        _ report: AuditReport, maxPerLevel: Int = GitHubReport.defaultMaxPerLevel
    ) -> String {
        let paths = report.filePaths
        // Which annotations fit: `maxPerLevel` per level, one notice kept back for the summary.
        // Counted first, so only the commands written are made (a run of a million findings
        // writes at most 30 of them, and kept an annotation for each).
        let cap = max(0, maxPerLevel)
        var perLevel: [Level: Int] = [.error: report.inputErrors.count]
        for r in report.results { perLevel[Level(r.rule.severity), default: 0] += r.violationCount }
        let overflows = Level.allCases.contains { perLevel[$0, default: 0] > cap }
        var left: [Level: Int] = [
            .error: cap, .warning: cap, .notice: overflows ? max(0, cap - 1) : cap
        ]
        var out = ""
        var omitted: [(group: String, count: Int)] = []
        func omit(_ group: String, _ n: Int) {
            guard n > 0 else { return }
            if let k = omitted.firstIndex(where: { $0.group == group }) {
                omitted[k].count += n
            } else {
                omitted.append((group, n))
            }
        }
        for e in report.inputErrors {
            if left[.error, default: 0] > 0 {
                left[.error, default: 0] -= 1
                out +=
                    Annotation(
                        level: .error, file: nil, line: nil, title: "conn-audit",
                        message: e.headline()
                    ).command + "\n"
            } else {
                omit("unreadable inputs", 1)
            }
        }
        for r in report.results {
            let level = Level(r.rule.severity)
            let shown = min(left[level, default: 0], r.violations.count)
            left[level, default: 0] -= shown
            for f in r.violations.prefix(shown) {
                var file: String?
                var message = f.message
                if let i = f.file, Int(i) < paths.count {
                    // GitHub cannot place a line of standard input: the message says where it is.
                    if paths[Int(i)] != "<stdin>" {
                        file = paths[Int(i)]
                    } else if let line = f.line {
                        message = "<stdin>:\(line): " + message
                    }
                }
                out +=
                    Annotation(
                        level: level, file: file, line: file == nil ? nil : f.line,
                        title: r.rule.id, message: message
                    ).command + "\n"
            }
            omit(r.rule.id, r.violationCount - shown)
        }
        if !omitted.isEmpty {
            let n = omitted.reduce(0) { $0 + $1.count }
            let byRule = omitted.map { "\($0.group) \($0.count)" }.joined(separator: ", ")
            let message =
                "\(n) more finding\(n == 1 ? " was" : "s were") not annotated (at most \(cap) annotations "
                + "of each level per step; the other report formats list them all): \(byRule)"
            out += "::notice title=\(property("conn-audit"))::\(data(message))\n"
        }

        // Plain lines: not commands, so they make no annotation.
        for r in report.results where r.status == .inconclusive {
            let n = r.inconclusiveCount
            var text =
                "conn-audit: \(r.rule.id) is inconclusive (\(n) case\(n == 1 ? "" : "s") could not be decided)"
            if let first = r.inconclusive.first {
                text +=
                    ", first: " + (location(first, paths).map { $0 + " " } ?? "") + first.message
            }
            out += plain(text) + "\n"
        }
        let baselined = report.results.reduce(0) { $0 + $1.baselinedCount }
        if baselined > 0 {
            out +=
                "conn-audit: \(baselined) known violation\(baselined == 1 ? "" : "s") accepted by the baseline\n"
        }
        let suppressed = report.results.reduce(0) { $0 + $1.suppressedCount }
        if suppressed > 0 {
            out +=
                "conn-audit: \(suppressed) violation\(suppressed == 1 ? "" : "s") suppressed as known issues\n"
        }
        for i in report.suppressions?.expired ?? [] {
            let e = report.suppressions!.entries[i]
            out +=
                "::warning title=" + property("conn-audit: suppression expired") + "::"
                + data(
                    "suppression at \(e.origin) for \(e.rule) expired on \(e.expires): its violations count again"
                ) + "\n"
        }
        return out + report.summaryLine + "\n"
    }

    // MARK: - Commands

    enum Level: String, CaseIterable {
        case error, warning, notice

        init(_ s: Severity) {
            switch s {
            case .error: self = .error
            case .warning: self = .warning
            case .info: self = .notice
            }
        }
    }

    struct Annotation {
        var level: Level
        var file: String?
        var line: Int?
        var title: String
        var message: String

        var command: String {
            var props: [String] = []
            if let file { props.append("file=" + property(file)) }
            if let line, file != nil { props.append("line=\(line)") }
            props.append("title=" + property(title))
            return "::\(level.rawValue) \(props.joined(separator: ","))::\(data(message))"
        }
    }

    /// Escapes a command's message (actions/toolkit `escapeData`); other control characters
    /// (a NUL would end the output, an ESC would draw on the log viewer) are percent-encoded too.
    static func data(_ s: String) -> String { percentEncoded(s, inProperty: false) }

    /// Escapes a property value (actions/toolkit `escapeProperty`): as ``data(_:)``, and `:`, `,`.
    static func property(_ s: String) -> String { percentEncoded(s, inProperty: true) }

    /// `%`, control characters and DEL percent-encoded, in one pass; in a property also `:` and
    /// `,`, which would end the value.
    private static func percentEncoded(_ s: String, inProperty: Bool) -> String {
        var out = ""
        for u in s.unicodeScalars {
            let delimiter = inProperty && (u == ":" || u == ",")
            if u == "%" || u.value < 0x20 || u.value == 0x7F || delimiter {
                let hex = String(u.value, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" : "") + hex
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out
    }

    /// A plain log line: line breaks become spaces so no part of it can start a command.
    private static func plain(_ s: String) -> String {
        String(
            String.UnicodeScalarView(s.unicodeScalars.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
        ).visibleControls
    }

    private static func location(_ f: Finding, _ paths: [String]) -> String? {
        guard let i = f.file, Int(i) < paths.count else { return nil }
        return f.line.map { "\(paths[Int(i)]):\($0)" } ?? paths[Int(i)]
    }
}

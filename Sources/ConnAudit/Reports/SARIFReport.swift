#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `--format sarif`: SARIF 2.1.0 (OASIS), for GitHub code scanning and other SARIF viewers.
///
/// One run. `tool.driver` names conn-audit and lists every loaded rule in `rules[]` (id, title as
/// `name` and `shortDescription`, description as `fullDescription`, severity as
/// `defaultConfiguration.level` — error → `error`, warning → `warning`, info → `note` —, `help`
/// pointing at `conn-audit rules --explain ID`, and `properties.tags` = [family, scope]).
///
/// `results[]`, rule by rule in load order:
/// - each violation: `kind: "fail"`, `level` from the rule's severity;
/// - each inconclusive case: `kind: "review"`, `level: "none"` (SARIF §3.27.9: a result whose kind
///   is not `fail` has level `none`) — a person has to look, nothing failed;
/// - each violation a baseline accepted: like a violation, with
///   `suppressions: [{kind: "external", status: "accepted"}]`, so viewers show it as suppressed.
///
/// Every result of a run with an input file has `locations[0].physicalLocation` (GitHub code
/// scanning refuses a SARIF file with a result that has none): `artifactLocation.uri` is the log
/// file's path as the other reports write it (the PATH joined with the path below it) — relative to
/// the directory conn-audit ran in, which in CI is the repository's root, so code scanning finds
/// the file — and `region.startLine` its line. The path loses its `.` and `..` segments
/// (lexically); an absolute path under the working directory is made relative to it; any other
/// absolute path, and a relative one whose `..` climbs out of the working directory, is a `file://`
/// URI of the absolute path; standard input is `stdin`. URIs are percent-encoded per RFC 3986
/// (everything but unreserved characters and `/`). A finding that points at no line (a
/// coverage rule such as `ws.required-outcomes`, which judges the whole corpus) is placed at line 1
/// of the first input that was read to its end without error, preferring one that was not gzip
/// (``corpusFile(_:)``), with `properties.corpusWide: true`; when no input was read without an
/// error, at the first input (a result without `locations` is valid SARIF, but code scanning then
/// refuses the whole file, every other result with it). Only a run without any input file has
/// results without `locations`.
///
/// `partialFingerprints["connAudit/v1"]` is ``Fingerprint/of(_:rule:paths:)``, computed over the
/// same list the baseline uses (violations and baselined ones together, in report order), so a
/// SARIF fingerprint and a baseline entry name the same violation, and neither moves when
/// unrelated lines shift the line numbers. `partialFingerprints.primaryLocationLineHash` holds the
/// same value: it is the only key GitHub code scanning reads to match a result with an alert of an
/// earlier run, and `upload-sarif` fills it in when it is missing with a hash of the text of the
/// result's line (a log line's content), which moves with every edit of that line
/// (codeql-action `src/fingerprints.ts`; it keeps a value that is there, with a warning).
///
/// `invocations[0].executionSuccessful` is false when an input could not be read; each such input
/// is an error in `toolExecutionNotifications`. Only rule metadata and finding messages (redacted
/// upstream) are written — no raw log text, no context lines.
public enum SARIFReport: PiecewiseJSONReport {
    public static let schemaURI = "https://json.schemastore.org/sarif-2.1.0.json"
    /// The key of conn-audit's fingerprints in `partialFingerprints` (versioned, per SARIF
    /// §3.27.17).
    public static let fingerprintKey = "connAudit/v1"
    /// The key GitHub code scanning matches results on, given the same value as ``fingerprintKey``.
    public static let githubFingerprintKey = "primaryLocationLineHash"

    public static func render(_ report: AuditReport) -> String { render(report, flush: nil) }

    static func write(_ report: AuditReport, to w: inout JSONWriter) {
        let paths = report.filePaths
        let cwd = Self.workingDirectory()
        let corpus = corpusFile(report)
        w.beginObject()
        w.key("$schema", schemaURI)
        w.key("version", "2.1.0")
        w.beginArray("runs")
        w.beginObject()

        // MARK: tool
        w.beginObject("tool")
        w.beginObject("driver")
        w.key("name", "conn-audit")
        w.key("version", ConnAuditVersion.string)
        w.key("semanticVersion", ConnAuditVersion.string)
        w.beginArray("rules")
        for r in report.results { rule(&w, r.rule) }
        w.endArray()
        w.endObject()
        w.endObject()

        // MARK: invocations
        w.beginArray("invocations")
        w.beginObject()
        w.key("executionSuccessful", report.inputErrors.isEmpty)
        w.key("exitCode", Int(report.exitCode))
        if !report.inputErrors.isEmpty {
            w.beginArray("toolExecutionNotifications")
            for e in report.inputErrors {
                w.beginObject()
                w.key("level", "error")
                w.beginObject("message")
                w.key("text", e.headline())
                w.endObject()
                w.endObject()
            }
            w.endArray()
        }
        w.endObject()
        w.endArray()

        // MARK: results
        w.beginArray("results")
        for (index, r) in report.results.enumerated() {
            // Fingerprints over the kept, baselined and suppressed violations together
            // (``Fingerprint/of(_:paths:)``), held or read again.
            report.eachSorted(of: r, [.kept, .baselined, .suppressed]) { s in
                let justification: String? =
                    switch s.list {
                    case .kept: nil
                    case .baselined:
                        "accepted by the baseline" + (report.baseline.map { " " + $0.path } ?? "")
                    case .suppressed:
                        report.suppressions?.entries[s.entry!].justification ?? "suppressed"
                    }
                result(
                    &w, s.finding, rule: r.rule, index: index, kind: "fail",
                    fingerprint: s.fingerprint, paths: paths, cwd: cwd, corpus: corpus,
                    justification: justification)
            }
            var inconclusive = Fingerprint.Occurrences(rule: r.rule.id, paths: paths)
            report.eachInconclusive(of: r) { f in
                result(
                    &w, f, rule: r.rule, index: index, kind: "review",
                    fingerprint: inconclusive.next(f), paths: paths, cwd: cwd, corpus: corpus)
            }
        }
        w.endArray()

        w.endObject()
        w.endArray()
        w.endObject()
    }

    // MARK: - Rules

    /// SARIF `level` of a severity: error → error, warning → warning, info → note.
    public static func level(_ s: Severity) -> String {
        switch s {
        case .error: return "error"
        case .warning: return "warning"
        case .info: return "note"
        }
    }

    private static func rule(_ w: inout JSONWriter, _ rule: Rule) {
        let description = rule.description.map(trimmed).flatMap { $0.isEmpty ? nil : $0 }
        w.beginObject()
        w.key("id", rule.id)
        w.key("name", rule.title)
        w.beginObject("shortDescription")
        w.key("text", rule.title)
        w.endObject()
        w.beginObject("fullDescription")
        w.key("text", description ?? rule.title)
        w.endObject()
        w.beginObject("defaultConfiguration")
        w.key("level", level(rule.severity))
        w.endObject()
        w.beginObject("help")
        var help =
            "Run `conn-audit rules --explain \(rule.id)` for the rule as written, its parameters and examples."
        if let description { help += "\n\n" + description }
        w.key("text", help)
        w.endObject()
        w.beginObject("properties")
        w.beginArray("tags")
        w.value(rule.family)
        w.value(rule.scope.rawValue)
        w.endArray()
        w.endObject()
        w.endObject()
    }

    private static func trimmed(_ s: String) -> String {
        var sub = Substring(s)
        while let c = sub.first, c.isWhitespace { sub.removeFirst() }
        while let c = sub.last, c.isWhitespace { sub.removeLast() }
        return String(sub)
    }

    // MARK: - Results

    private static func result(
        _ w: inout JSONWriter, _ f: Finding, rule: Rule, index: Int, kind: String,
        fingerprint: String,
        paths: [String], cwd: String?, corpus: Int?, justification: String? = nil
    ) {
        w.beginObject()
        w.key("ruleId", rule.id)
        w.key("ruleIndex", index)
        w.key("kind", kind)
        w.key("level", kind == "fail" ? level(rule.severity) : "none")
        w.beginObject("message")
        w.key("text", f.message)
        w.endObject()
        // A corpus-wide finding (no file) is placed at the first line of the input ``corpusFile``
        // picked.
        let file = f.file.map(Int.init) ?? corpus
        if let file, file < paths.count {
            w.beginArray("locations")
            w.beginObject()
            w.beginObject("physicalLocation")
            w.beginObject("artifactLocation")
            w.key("uri", artifactURI(paths[file], cwd: cwd))
            w.endObject()
            w.beginObject("region")
            w.key("startLine", f.file != nil ? max(f.line ?? 1, 1) : 1)
            w.endObject()
            w.endObject()
            w.endObject()
            w.endArray()
        }
        w.beginObject("partialFingerprints")
        w.key(fingerprintKey, fingerprint)
        w.key(githubFingerprintKey, fingerprint)
        w.endObject()
        if let justification {
            w.beginArray("suppressions")
            w.beginObject()
            w.key("kind", "external")
            w.key("status", "accepted")
            w.key("justification", justification)
            w.endObject()
            w.endArray()
        }
        if f.t != nil || f.gen != nil || f.source != nil || f.file == nil {
            w.beginObject("properties")
            if f.file == nil { w.key("corpusWide", true) }
            if let t = f.t { w.key("t", number: t) }
            if let s = f.source, !s.srcIsFile { w.key("src", s.shownSrc) }
            if let session = f.source?.shownSession { w.key("session", session) }
            if let g = f.gen { w.raw("gen", String(g)) }
            w.endObject()
        }
        w.endObject()
    }

    // MARK: - Locations

    /// Where corpus-wide results are placed: the first input read to its end without error that
    /// was not gzip, else the first such input that was (code scanning shows neither a gzip file's
    /// lines nor an unreadable file's); when none was read without an error, the first input; nil
    /// when there is no input.
    static func corpusFile(_ report: AuditReport) -> Int? {
        let failed = Set(report.inputErrors.map(\.path))
        let readable = report.files.indices.filter {
            report.files[$0].error == nil && !failed.contains(report.files[$0].path)
        }
        // None read cleanly: the first input still, since code scanning refuses a whole SARIF file
        // that has a result without a location (and the run's other results with it).
        return readable.first { !report.files[$0].compressed } ?? readable.first
            ?? (report.files.isEmpty ? nil : 0)
    }

    /// The uri of a log file for `artifactLocation`: its path as the reports write it, without
    /// `.` and `..` segments (``normalized(_:)``), relative to the working directory `cwd`; a path
    /// that is not below it — absolute, or relative with `..` that climbs out of it — is a
    /// `file://` URI of its absolute path; `<stdin>` is `stdin`.
    static func artifactURI(_ path: String, cwd: String?) -> String {
        if path == "<stdin>" { return "stdin" }
        if path.hasPrefix("/") { return absoluteURI(normalized(path), cwd: cwd) }
        let relative = normalized(path)
        guard !relative.isEmpty else { return percentEncode(path) }
        // A relative URI that starts with `..` would point outside the repository it is read in.
        if relative == ".." || relative.hasPrefix("../"), let cwd, cwd.hasPrefix("/") {
            return absoluteURI(normalized(cwd + "/" + path), cwd: cwd)
        }
        return percentEncode(relative)
    }

    /// A normalized absolute path: relative to `cwd` when below it, else a `file://` URI.
    private static func absoluteURI(_ path: String, cwd: String?) -> String {
        if let cwd, cwd != "/" {
            let base = normalized(cwd)
            let prefix = base.hasSuffix("/") ? base : base + "/"
            if path.hasPrefix(prefix), path.count > prefix.count {
                return percentEncode(String(path.dropFirst(prefix.count)))
            }
        }
        return "file://" + percentEncode(path)
    }

    /// `path` without empty and `.` segments, each `..` taking away the segment before it, as
    /// RFC 3986 §5.2.4 removes a URI's dot segments: lexically, as a SARIF viewer resolves the
    /// URI (through a symbolic link, `link/..` is not where the kernel would go). A `..` at the
    /// start of a relative path stays; at the root of an absolute one it goes.
    static func normalized(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        var kept: [Substring] = []
        for segment in path.split(separator: "/") {
            switch segment {
            case ".":
                continue
            case "..":
                if let last = kept.last, last != ".." {
                    kept.removeLast()
                } else if !absolute {
                    kept.append(segment)
                }
            default:
                kept.append(segment)
            }
        }
        let joined = kept.joined(separator: "/")
        return absolute ? "/" + joined : joined
    }

    /// The directory conn-audit runs in (nil if it cannot be read).
    static func workingDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return String(cString: buffer)
    }

    /// RFC 3986 percent-encoding of a path: unreserved characters (`A–Z a–z 0–9 - . _ ~`) and `/`
    /// stay, every other UTF-8 byte becomes `%XX` (so spaces, `%`, `:` and non-ASCII are encoded).
    static func percentEncode(_ s: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.append(b)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0xF)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

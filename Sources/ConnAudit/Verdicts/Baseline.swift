#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Known violations a gate accepts for now: recorded by fingerprint, each with an optional reason
/// and expiry date.
///
/// A baselined violation is still reported (as baselined) but does not fail the gate. An entry
/// whose expiry date has passed accepts nothing: its violations fail again, and the report says
/// loudly that the entry expired. Fingerprints ignore line numbers (``Fingerprint``), so adding
/// unrelated lines to a log keeps its baseline valid.
///
/// File format (JSON, schema `conn-audit/baseline` version 1):
/// ```
/// {"schema": "conn-audit/baseline", "version": 1, "entries": [
///   {"rule": "ws.single-close", "fingerprint": "5c1f…", "file": "logs/a.jsonl", "line": 7,
///    "message": "…", "reason": "known: BUG-1234", "expires": "2027-01-31"}]}
/// ```
/// `file`, `line` and `message` are for people; matching uses `rule` and `fingerprint` only.
public struct Baseline: Sendable {
    public struct Entry: Sendable, Equatable {
        public var rule: String
        public var fingerprint: String
        public var file: String?
        public var line: Int?
        public var message: String?
        public var reason: String?
        /// `YYYY-MM-DD`; the entry accepts violations up to and including that day.
        public var expires: String?
    }

    public var entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    /// What applying a baseline did, for the reports.
    public struct Summary: Sendable {
        public var path: String
        /// Violations accepted by an entry.
        public var accepted = 0
        /// Entries past their expiry date (their violations count again).
        public var expired: [Entry] = []
        /// Entries that matched no violation (fixed, or the log changed): candidates to remove.
        public var unused: [Entry] = []
    }

    // MARK: - Reading and writing

    public static func load(_ path: String) throws(UsageError) -> Baseline {
        guard let f = fopen(path, "rb") else {
            throw UsageError(
                "cannot read baseline \(path): \(String(cString: strerror(errno)).lowercased())")
        }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&chunk, 1, chunk.count, f)
            bytes += chunk[0..<n]
            if bytes.count > maxBytes { throw UsageError("baseline \(path) is larger than 64 MiB") }
            if n < chunk.count { break }
        }
        let root: Value
        do {
            root = try JSONDocument.parse(bytes)
        } catch {
            throw UsageError(
                "baseline \(path) is not valid JSON: \(error.reason) (byte \(error.offset + 1))")
        }
        guard root["schema"] == .string("conn-audit/baseline") else {
            throw UsageError("baseline \(path): expected \"schema\": \"conn-audit/baseline\"")
        }
        guard root["version"] == .int(1) else {
            throw UsageError(
                "baseline \(path): unsupported version (this conn-audit reads version 1)")
        }
        guard case .array(let items)? = root["entries"] else {
            throw UsageError("baseline \(path): \"entries\" must be a list")
        }
        var entries: [Entry] = []
        for (i, item) in items.enumerated() {
            guard case .string(let rule)? = item["rule"],
                case .string(let fp)? = item["fingerprint"]
            else {
                throw UsageError(
                    "baseline \(path): entry \(i + 1) needs \"rule\" and \"fingerprint\" strings")
            }
            var entry = Entry(rule: rule, fingerprint: fp)
            entry.file = item["file"]?.string
            if case .int(let l)? = item["line"] { entry.line = Int(l) }
            entry.message = item["message"]?.string
            entry.reason = item["reason"]?.string
            if let e = item["expires"], e != .null {
                guard let s = e.string, Self.isDate(s) else {
                    throw UsageError(
                        "baseline \(path): entry \(i + 1) has \"expires\" that is not a YYYY-MM-DD date"
                    )
                }
                entry.expires = s
            }
            entries.append(entry)
        }
        return Baseline(entries: entries)
    }

    /// A baseline accepting every violation of `report` (no reasons, no expiry: add them by hand).
    /// An entry of `reviewed` (the baseline the run applied) for the same rule and fingerprint
    /// keeps its reason and expiry: rewriting a baseline does not lose its reviews.
    public static func from(_ report: AuditReport, reviewed: Baseline? = nil) -> Baseline {
        var entries: [Entry] = []
        eachEntry(of: report, reviewed: reviewed) { entries.append($0) }
        return Baseline(entries: entries)
    }

    /// The text of ``from(_:reviewed:)``'s baseline, made as its entries come (violations read
    /// again are never held), and how many entries it has; the text nil when it would be larger
    /// than `limit` bytes (at most about `limit` of it is held).
    public static func text(of report: AuditReport, reviewed: Baseline?, limit: Int) -> (
        text: String?, entries: Int
    ) {
        json(limit: limit) { each in eachEntry(of: report, reviewed: reviewed, each) }
    }

    /// Calls `body` with each entry of ``from(_:reviewed:)``'s baseline, in order.
    private static func eachEntry(
        of report: AuditReport, reviewed: Baseline?, _ body: (Entry) -> Void
    ) {
        precondition(
            report.listsEveryFinding, "a baseline counts every finding: audit with keepFindings nil"
        )
        // Of several reviews of one fingerprint, the one that accepts longest (no expiry first,
        // then the latest date) — the one `apply` lets accept the violation.
        var reviews: [String: Entry] = [:]
        func lasts(_ a: Entry, longerThan b: Entry) -> Bool {
            guard let x = a.expires else { return b.expires != nil }
            guard let y = b.expires else { return false }
            return x > y
        }
        for e in reviewed?.entries ?? [] where e.reason != nil || e.expires != nil {
            let key = e.rule + "\u{0}" + e.fingerprint
            if let kept = reviews[key], !lasts(e, longerThan: kept) { continue }
            reviews[key] = e
        }
        let paths = report.filePaths
        for r in report.results {
            func add(_ f: Finding, _ fp: String) {
                var e = Entry(rule: r.rule.id, fingerprint: fp)
                e.file = f.file.map { paths[Int($0)] }
                e.line = f.line
                e.message = f.message
                if let review = reviews[e.rule + "\u{0}" + fp] {
                    e.reason = review.reason
                    e.expires = review.expires
                }
                body(e)
            }
            if report.readsAgain(r) {
                // Every violation suppressions left, as a baseline fingerprints it.
                report.eachReadAgain(of: r, lane: 0, recorded: true) { s in
                    if let fp = s.recorded { add(s.finding, fp) }
                }
                continue
            }
            let fingerprints = Fingerprint.of(r, paths: paths).violations
            for (f, fp) in zip(r.violations, fingerprints) { add(f, fp) }
        }
    }

    /// The largest baseline file ``load(_:)`` reads: 64 MiB.
    public static let maxBytes = 64 << 20

    public func json() -> String { json(limit: .max)! }

    /// The file's text; nil when it would be larger than `limit` bytes (then it is not made whole:
    /// at most about `limit` of it is held).
    public func json(limit: Int) -> String? {
        Self.json(limit: limit) { each in entries.forEach(each) }.text
    }

    /// The text of a baseline of the entries `entries` hands its argument, and how many there
    /// are; the text nil when it would be larger than `limit` bytes (the entries past it are
    /// counted, not written).
    private static func json(limit: Int, _ entries: ((Entry) -> Void) -> Void) -> (
        text: String?, entries: Int
    ) {
        final class Size { var bytes = 0 }
        let size = Size()
        var chunks: [UInt8] = []
        var w = JSONWriter(flush: { chunk in
            size.bytes += chunk.count
            if size.bytes <= limit { chunks += chunk }
        })
        w.beginObject()
        w.key("schema", "conn-audit/baseline")
        w.key("version", 1)
        w.beginArray("entries")
        var count = 0
        entries { e in
            count += 1
            if size.bytes > limit { return }
            w.beginObject()
            w.key("rule", e.rule)
            w.key("fingerprint", e.fingerprint)
            if let f = e.file { w.key("file", f) }
            if let l = e.line { w.key("line", l) }
            if let m = e.message { w.key("message", m) }
            w.key("reason", e.reason)
            w.key("expires", e.expires)
            w.endObject()
        }
        if size.bytes > limit { return (nil, count) }
        w.endArray()
        w.endObject()
        _ = w.finish()
        return (size.bytes <= limit ? String(decoding: chunks, as: UTF8.self) : nil, count)
    }

    // MARK: - Applying

    /// Moves accepted violations to each result's `baselined` list and recomputes statuses. A
    /// rule whose violations are read again was sorted as they were read
    /// (``AuditReport/sortReadAgain(_:keep:)``): its count is added, and `alsoUsed` are the
    /// entries its violations matched.
    /// - Parameter today: `YYYY-MM-DD`; entries expiring before it accept nothing.
    public func apply(
        to report: inout AuditReport, path: String, today: String, alsoUsed: Set<Int> = []
    ) -> Summary {
        precondition(
            report.listsEveryFinding, "a baseline counts every finding: audit with keepFindings nil"
        )
        var summary = Summary(path: path)
        var used = alsoUsed
        var byKey: [String: [Int]] = [:]
        for (i, e) in entries.enumerated() {
            byKey[e.rule + "\u{1F}" + e.fingerprint, default: []].append(i)
        }
        let paths = report.filePaths
        for k in report.results.indices {
            let r = report.results[k]
            summary.accepted += r.omittedBaselined
            if r.readAgain { continue }
            precondition(!report.readsAgain(r), "violations read again are sorted first")
            let fingerprints = Fingerprint.of(r, paths: paths).violations
            var kept: [Finding] = []
            var accepted: [Finding] = []
            for (f, fp) in zip(r.violations, fingerprints) {
                guard let indexes = byKey[r.rule.id + "\u{1F}" + fp] else {
                    kept.append(f)
                    continue
                }
                indexes.forEach { used.insert($0) }
                let live = indexes.contains { entries[$0].expires.map { $0 >= today } ?? true }
                if live {
                    accepted.append(f)
                } else {
                    kept.append(f)
                }
            }
            var result = r
            result.violations = kept
            result.baselined = accepted
            result.recomputeStatus()
            report.results[k] = result
            summary.accepted += accepted.count
        }
        for (i, e) in entries.enumerated() {
            if let x = e.expires, x < today {
                summary.expired.append(e)
            } else if !used.contains(i) {
                summary.unused.append(e)
            }
        }
        return summary
    }

    /// A real calendar date written `YYYY-MM-DD` (`2027-02-29` and `2020-13-45` are not).
    static func isDate(_ s: String) -> Bool {
        let b = Array(s.utf8)
        guard b.count == 10, b[4] == 0x2D, b[7] == 0x2D,
            [0, 1, 2, 3, 5, 6, 8, 9].allSatisfy({ b[$0] >= 0x30 && b[$0] <= 0x39 })
        else { return false }
        func number(_ r: Range<Int>) -> Int { r.reduce(0) { $0 * 10 + Int(b[$1] - 0x30) } }
        let year = number(0..<4), month = number(5..<7), day = number(8..<10)
        guard (1...12).contains(month), day >= 1 else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return day <= days
    }

    /// Today's date in UTC as `YYYY-MM-DD`.
    public static func today() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
    }
}

/// `conn-audit merge`: the partial results of every shard of a run read back into the totals one
/// run would have had (``RunParts``), from which ``Auditor/assemble(_:failOn:plan:)`` makes the
/// report every format renders.
///
/// Partials are read one line at a time (gzip too), and each finding goes straight to the totals,
/// which keep what they are told to (``Auditor/keepFindings``). Each partial lists a rule's
/// findings in report order (checked here), so the reports that list every finding can read them
/// again by a k-way merge (``PartialFindingStream``) instead of holding them.
struct PartialMerge {
    /// A partial that cannot be merged: its path and why.
    struct Failure: Error {
        var message: String
    }

    private let rules: [Rule]
    private let expectedRules: String
    private let expectedSuppressions: String
    /// How many suppression entries the merge applies: a finding's `fields_match` names some.
    private let suppressionCount: Int
    private var header: PartialReport.Header?
    private var seenShards = Set<Int>()
    /// Each file's accounting, by its index in the run's file list.
    private var files: [Int: FileStats] = [:]
    private var discoveryErrors: [InputError] = []
    /// Partials read to their end.
    private var partialsRead = 0
    private var mergeErrors: [InputError] = []
    private var sources = 0
    private var generations = 0
    private let total: FindingSink
    private var path = ""
    /// The partials read, in order, for ``stream(opener:)``.
    private var partials: [InputFile] = []
    /// The last finding of the partial being read: each comes after it in report order.
    private var last: (key: FindingGroup, finding: Finding)?

    /// - Parameters:
    ///   - rules: the rules in force for the merge, in the order the shards ran them.
    ///   - overrides: their `--param` values (the shards' must be the same).
    ///   - suppressions: the suppressions the merge applies (the shards' must agree on the
    ///     entries that ask about fields: ``PartialReport/suppressionsHash(_:)``).
    ///   - keep: see ``Auditor/keepFindings``; `divert`: see ``Auditor``.
    init(
        rules: [Rule], overrides: [String: Value], suppressions: Suppressions, keep: Int?,
        divert: ViolationFilter?
    ) {
        self.rules = rules
        expectedRules = PartialReport.rulesHash(rules, overrides: overrides)
        expectedSuppressions = PartialReport.suppressionsHash(suppressions)
        suppressionCount = suppressions.entries.count
        total = FindingSink(files: [], keep: keep, divert: divert)
    }

    /// Reads the partial at `input`.
    mutating func read(_ input: InputFile, opener: Auditor.Opener) throws(Failure) {
        path = input.path
        let source: any ByteSource
        do {
            source = try opener(input)
        } catch {
            throw Failure(message: "cannot read the partial \(input.path): \(error.reason)")
        }
        let lines = LineReader(source)
        last = nil
        var records = 0
        var ended = false
        var first = true
        while true {
            let raw: RawLine
            do {
                guard let r = try lines.next() else { break }
                raw = r
            } catch {
                throw fail("cannot be read to its end: \(error.reason)")
            }
            if let long = raw.tooLong {
                throw fail("line \(raw.number) is \(long) bytes, longer than any partial writes")
            }
            if ended { throw fail("has lines after its end record (line \(raw.number))") }
            let value: Value
            do {
                value = try JSONDocument.parse(Array(raw.bytes))
            } catch {
                throw fail(
                    "line \(raw.number) is not JSON (\(error.reason)): a partial cut short or not one at all"
                )
            }
            guard case .object(let entries) = value, entries.count == 1 else {
                if first {
                    throw fail("is not a conn-audit partial result (no header on its first line)")
                }
                throw fail("line \(raw.number) is not a partial's record")
            }
            let kind = entries[0].key, body = entries[0].value
            if first {
                guard kind == "partial" else {
                    throw fail("is not a conn-audit partial result (no header on its first line)")
                }
                try readHeader(body)
                first = false
            } else if kind == "end" {
                guard case .int(let n)? = body["records"], Int(n) == records else {
                    throw fail("its end record does not count its \(records) records")
                }
                ended = true
            } else {
                try readRecord(kind, body, line: raw.number)
            }
            records += 1
        }
        if first { throw fail("is empty: not a conn-audit partial result") }
        guard ended else {
            throw fail("is cut short: it has no end record (a shard that did not finish?)")
        }
        partialsRead += 1
        partials.append(input)
    }

    private func fail(_ reason: String) -> Failure {
        Failure(message: "the partial \(path) \(reason)")
    }

    private mutating func readHeader(_ body: Value) throws(Failure) {
        guard case .int(let version)? = body["version"] else {
            throw fail("has no format version")
        }
        guard version == PartialReport.version else {
            throw fail(
                "is of partial format version \(version); this conn-audit (\(ConnAuditVersion.string)) reads version \(PartialReport.version)"
            )
        }
        // Byte for byte as one run: only the same conn-audit renders the same reports.
        guard let tool = body["tool"]?.string, tool == ConnAuditVersion.string else {
            throw fail(
                "was written by conn-audit \(body["tool"]?.string ?? "of no version"); this merge is \(ConnAuditVersion.string): shards and merge must run one version"
            )
        }
        guard let k = int(body["shard"]), let n = int(body["shards"]), n >= 1,
            n <= Shard.maxCount, k >= 1, k <= n,
            let rulesHash = body["rules"]?.string,
            let suppressionsHash = body["suppressions"]?.string,
            let filesHash = body["files"]?.string,
            let fileCount = int(body["file_count"]), fileCount >= 0,
            fileCount <= Int(Int32.max),
            let ruleCount = int(body["rule_count"]), let inputs = body["inputs"]?.string
        else { throw fail("has a header without its shard, rules or files") }
        let h = PartialReport.Header(
            shard: Shard(index: k, count: n), rules: rulesHash, suppressions: suppressionsHash,
            files: filesHash,
            fileCount: fileCount, ruleCount: ruleCount, inputs: inputs)
        if let first = header {
            guard h.shard.count == first.shard.count else {
                throw fail(
                    "is shard \(h.shard) of \(h.shard.count), another partial is of \(first.shard.count): shards of different runs"
                )
            }
            guard h.files == first.files, h.fileCount == first.fileCount else {
                throw fail(
                    "was made from other input files than the partials before it: shards of different runs"
                )
            }
        } else {
            header = h
        }
        guard h.rules == expectedRules, h.ruleCount == rules.count else {
            throw fail(
                "was made with other rules or --param values than this merge loads: give merge the --rules, --param, --only, --skip and config file the shards had"
            )
        }
        guard h.suppressions == expectedSuppressions else {
            throw fail(
                "was made with other suppressions than this merge loads (their entries with fields: differ in place, rule or fields): give merge the config file the shards had"
            )
        }
        guard seenShards.insert(k).inserted else {
            throw fail("is shard \(h.shard) again: each shard is merged once")
        }
    }

    private func int(_ v: Value?) -> Int? {
        if case .int(let i)? = v, let n = Int(exactly: i) { return n }
        return nil
    }

    /// A count of a partial: a whole number from 0 to ``maxCount``. No real run counts near it,
    /// and sums of such counts over every file and shard a merge takes cannot overflow.
    private func count(_ v: Value?) -> Int? {
        guard let n = int(v), n >= 0, n <= Self.maxCount else { return nil }
        return n
    }

    static let maxCount = 1 << 50

    /// `a + b`, or the merge's failure when the sum passes ``maxCount`` (partials edited by hand:
    /// no run counts that much).
    private func sum(_ a: Int, _ b: Int, _ what: String) throws(Failure) -> Int {
        let (s, overflow) = a.addingReportingOverflow(b)
        guard !overflow, s <= Self.maxCount else {
            throw fail("counts more \(what) than any run can: not a partial conn-audit wrote")
        }
        return s
    }

    private mutating func readRecord(_ kind: String, _ body: Value, line: Int) throws(Failure) {
        let fileCount = header!.fileCount
        switch kind {
        case "discovery_error":
            let e = try error(body, line: line)
            // Every shard finds the same paths: the first partial's list stands for all.
            if partialsRead == 0 { discoveryErrors.append(e) }
        case "merge_error":
            let e = try error(body, line: line)
            if !mergeErrors.contains(e) { mergeErrors.append(e) }
        case "file":
            guard let i = int(body["index"]), i >= 0, i < fileCount,
                let path = body["path"]?.string, let lines = count(body["lines"]),
                let events = count(body["events"]), let malformed = count(body["malformed"]),
                let blank = count(body["blank"]), let bytes = count(body["bytes"])
            else { throw fail("line \(line): a file record without its counts") }
            // Every line of a file is an event, malformed or blank (the accounting invariant).
            guard lines == events + malformed + blank else {
                throw fail(
                    "line \(line): counts \(lines) lines in \(path) but \(events + malformed + blank) events, malformed and blank lines"
                )
            }
            guard files[i] == nil else {
                throw fail(
                    "counts file \(path) that another partial counted too: shards of different runs, or one shard given twice"
                )
            }
            var f = FileStats(path: path)
            (f.lines, f.events, f.malformed, f.blank, f.bytes) = (
                lines, events, malformed, blank, bytes
            )
            f.compressed = body["compressed"] == .bool(true)
            if let reason = body["error"]?.string {
                f.error = InputError(
                    path: path, reason: reason,
                    heldNoEvent: body["held_no_event"] == .bool(true))
            }
            files[i] = f
        case "sources":
            guard let s = count(body["sources"]), let g = count(body["generations"]) else {
                throw fail("line \(line): a sources record without its counts")
            }
            sources = try sum(sources, s, "sources")
            generations = try sum(generations, g, "generations")
        case "violation", "inconclusive":
            let (rule, finding) = try self.finding(
                body, line: line, violation: kind == "violation")
            // Report order, as a version 3 partial writes it: rule by rule, each rule's
            // violations before its inconclusive cases, each list sorted.
            let key = FindingGroup(rule: rule, violations: kind == "violation")
            if let last,
                key < last.key || (key == last.key && Finding.precedes(finding, last.finding))
            {
                throw fail(
                    "line \(line): a finding out of report order: not a partial conn-audit wrote")
            }
            last = (key, finding)
            if kind == "violation" {
                total.take(violation: finding, rule: rule, id: rules[rule].id)
            } else {
                total.take(inconclusive: finding, rule: rule)
            }
        case "labels":
            guard let rule = ruleIndex(body["rule"]), case .object(let counts)? = body["counts"]
            else { throw fail("line \(line): a labels record without its rule and counts") }
            for entry in counts {
                guard let n = count(entry.value) else {
                    throw fail("line \(line): a label count that is not a whole number")
                }
                total.labels[rule, default: [:]][entry.key, default: 0] = try sum(
                    total.labels[rule]?[entry.key] ?? 0, n, "labels")
            }
        case "applicable":
            guard let rule = ruleIndex(body) else {
                throw fail("line \(line): an applicable record without its rule")
            }
            total.applicable.insert(rule)
        default:
            throw fail("line \(line): an unknown record '\(kind)'")
        }
    }

    private func ruleIndex(_ v: Value?) -> Int? {
        guard let i = int(v), i >= 0, i < rules.count else { return nil }
        return i
    }

    private func error(_ body: Value, line: Int) throws(Failure) -> InputError {
        guard let path = body["path"]?.string, let reason = body["reason"]?.string else {
            throw fail("line \(line): an input error without its path and reason")
        }
        return InputError(
            path: path, reason: reason, heldNoEvent: body["held_no_event"] == .bool(true))
    }

    /// The finding of a `violation` or `inconclusive` record; a violation's with the suppression
    /// entries whose `fields:` held (``Finding/fieldMatches``).
    private func finding(_ body: Value, line: Int, violation: Bool) throws(Failure) -> (
        Int, Finding
    ) {
        do {
            return try Self.finding(
                body, violation: violation, fileCount: header!.fileCount, ruleCount: rules.count,
                suppressionCount: suppressionCount)
        } catch {
            throw fail("line \(line): \(error.message)")
        }
    }

    /// The rule and finding of a `violation` or `inconclusive` record's body, in a run of
    /// `fileCount` files and `ruleCount` rules whose merge applies `suppressionCount`
    /// suppressions; fails with the reason.
    static func finding(
        _ body: Value, violation: Bool, fileCount: Int, ruleCount: Int, suppressionCount: Int
    ) throws(Failure) -> (Int, Finding) {
        func int(_ v: Value?) -> Int? {
            if case .int(let i)? = v, let n = Int(exactly: i) { return n }
            return nil
        }
        func fail(_ reason: String) -> Failure { Failure(message: reason) }
        guard let rule = int(body["rule"]), rule >= 0, rule < ruleCount,
            let message = body["message"]?.string
        else {
            throw fail("a finding without its rule and message")
        }
        var f = Finding(message: message)
        if let v = body["file"] {
            guard let i = int(v), i >= 0, i < fileCount else {
                throw fail("a finding in a file the run does not have")
            }
            f.file = Int32(i)
        }
        if let v = body["line"] { f.line = int(v) }
        switch body["t"] {
        case .int(let i)?: f.t = Double(i)
        case .double(let d)?: f.t = d
        case .bigInt(let s)?: f.t = Double(s)
        default: break
        }
        if case .object? = body["source"], let src = body["source"]?["src"]?.string {
            let s = body["source"]!
            var key = SourceKey(
                src: src, srcIsFile: s["src_is_file"] == .bool(true), session: s["session"]?.string)
            key.srcIsJSON = s["src_is_json"] == .bool(true)
            key.sessionIsJSON = s["session_is_json"] == .bool(true)
            f.source = key
        }
        switch body["gen"] {
        case .int(let g)?: f.gen = UInt64(exactly: g)
        case .bigInt(let s)?: f.gen = UInt64(s)
        default: break
        }
        f.ev = body["ev"]?.string
        f.subject = body["subject"]?.string
        if case .array(let items)? = body["context"] {
            var context: [ContextLine] = []
            for item in items {
                guard let file = int(item["file"]), file >= 0, file < fileCount,
                    let l = int(item["line"]), let text = item["text"]?.string
                else { throw fail("a context line without its place and text") }
                context.append(
                    ContextLine(
                        file: Int32(file), line: l, text: text,
                        isAnchor: item["anchor"] == .bool(true)))
            }
            f.context = context
        }
        if violation {
            var held: [Int] = []
            if let v = body["fields_match"] {
                // Places of the merge's entries, ascending (as a shard writes them).
                let items: [Value]
                if case .array(let a) = v, a.count <= suppressionCount {
                    items = a
                } else {
                    items = []
                }
                for item in items {
                    guard let i = int(item), i >= 0, i < suppressionCount, i > held.last ?? -1
                    else { break }
                    held.append(i)
                }
                guard !held.isEmpty, held.count == items.count else {
                    throw fail(
                        "a fields_match that is not places of this merge's suppressions in ascending order"
                    )
                }
            }
            // Without suppressions nothing asks (and a finding with no box keeps none).
            if suppressionCount > 0 { f.fieldMatches = held }
        } else if body["fields_match"] != nil {
            throw fail("an inconclusive finding with a fields_match")
        }
        return (rule, f)
    }

    /// How many shards the run was split into (0 before a partial is read).
    var shards: Int { header?.shard.count ?? 0 }

    /// The PATHs the shards were given, as the first partial names them.
    var inputs: String { header?.inputs ?? "" }

    /// The totals of every partial read; fails when a shard of the run or a file's accounting is
    /// missing.
    func parts() throws(Failure) -> RunParts {
        guard let header else { throw Failure(message: "no partial given") }
        let n = header.shard.count
        let missing = (1...n).filter { !seenShards.contains($0) }
        guard missing.isEmpty else {
            let names = missing.prefix(5).map { "\($0)/\(n)" }.joined(separator: ", ")
            throw Failure(
                message:
                    "the partials are \(seenShards.count) of \(n) shards: shard\(missing.count == 1 ? "" : "s") \(names)\(missing.count > 5 ? ", …" : "") missing"
            )
        }
        var stats: [FileStats] = []
        // The run's totals are sums over its files: bounded here, they cannot overflow there.
        var totals = (lines: 0, bytes: 0)
        for i in 0..<header.fileCount {
            guard let f = files[i] else {
                throw Failure(
                    message:
                        "no partial counts the run's file number \(i + 1): the partials are not of one run"
                )
            }
            totals.lines = try sum(totals.lines, f.lines, "lines")
            totals.bytes = try sum(totals.bytes, f.bytes, "bytes")
            stats.append(f)
        }
        return RunParts(
            total: total, files: stats, owned: Array(repeating: true, count: stats.count),
            sources: sources, generations: generations,
            discoveryErrors: discoveryErrors, mergeErrors: mergeErrors)
    }
}

/// Which of a rule's lists a finding is in, ordered as reports list them: rule by rule, each
/// rule's violations before its inconclusive cases.
struct FindingGroup: Comparable, Hashable {
    var rule: Int
    var violations: Bool

    static func < (a: FindingGroup, b: FindingGroup) -> Bool {
        a.rule != b.rule ? a.rule < b.rule : a.violations && !b.violations
    }
}

extension PartialMerge {
    /// The findings of the partials read, to be read again in report order: what the totals
    /// did not keep. Each list is checked to hold as many findings as the first reading counted.
    func stream(opener: @escaping Auditor.Opener, fanIn: Int = PartialFindingStream.fanIn)
        -> PartialFindingStream
    {
        var counts: [FindingGroup: Int] = [:]
        for (rule, list) in total.violations {
            counts[FindingGroup(rule: rule, violations: true)] =
                list.count + (total.omittedViolations[rule] ?? 0)
        }
        for (rule, list) in total.inconclusive {
            counts[FindingGroup(rule: rule, violations: false)] =
                list.count + (total.omittedInconclusive[rule] ?? 0)
        }
        return PartialFindingStream(
            inputs: partials, opener: opener, rules: rules.map(\.id),
            fileCount: header?.fileCount ?? 0, suppressionCount: suppressionCount, counts: counts,
            fanIn: fanIn)
    }

    /// How many findings the totals hold (kept, not only counted).
    var findingsHeld: Int {
        total.violations.values.reduce(0) { $0 + $1.count }
            + total.inconclusive.values.reduce(0) { $0 + $1.count }
    }
}

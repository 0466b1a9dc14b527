/// A partial result (`--format partial`, docs/scale-out.md): what one shard of a run found, for
/// `conn-audit merge` to make the report one run over every file would have written.
///
/// JSON Lines, one record a line, each an object with one key that names its kind: a `partial`
/// header first, an `end` record last (a partial cut short has none). It holds the findings with
/// their context lines, the label counts of `classify` rules, the accounting of the files the
/// shard owns, and the input errors — nothing else. Secrets never appear: context lines and
/// messages are the reports' own. Of the event fields suppressions match on, a violation records
/// only which entries' `fields:` conditions held, judged by the shard on the values one run
/// judges; docs/schema/partial.schema.json has each record.
enum PartialReport {
    /// The format's version: a merge reads only partials of its own. Version 3 lists each rule's
    /// violations, and its inconclusive cases, in report order (``inReportOrder(_:)``), for the
    /// merge to read them again by a k-way merge.
    static let version = 3

    /// What every partial of one run has in common, and which shard wrote it.
    struct Header: Equatable {
        var shard: Shard
        /// FNV-1a over the rules in force and their parameters.
        var rules: String
        /// FNV-1a over what a finding's ``Finding/fieldMatches`` depend on
        /// (``suppressionsHash(_:)``).
        var suppressions: String
        /// FNV-1a over the paths of every input, in order.
        var files: String
        var fileCount: Int
        var ruleCount: Int
        /// The PATHs as given, as a report names a run that read no event.
        var inputs: String
    }

    /// The ``Header/rules`` of `plan`'s rules under `overrides`.
    static func rulesHash(_ rules: [Rule], overrides: [String: Value]) -> String {
        var bytes: [UInt8] = []
        for rule in rules {
            for part in [rule.id, rule.yaml] {
                bytes += part.utf8
                bytes.append(0)
            }
        }
        for (name, value) in overrides.sorted(by: { $0.key < $1.key }) {
            bytes += "\(name)=\(value.rendered(bare: false))".utf8
            bytes.append(0)
        }
        return hex(FNV1a.hash64(bytes: bytes))
    }

    /// The ``Header/suppressions`` of a run with `suppressions`: each entry that asks about fields,
    /// its place in the list, its `rule` and its `fields:`. A shard's ``Finding/fieldMatches`` mean
    /// the same in a merge whose entries agree on these; the rest of each entry the merge applies
    /// itself.
    static func suppressionsHash(_ suppressions: Suppressions) -> String {
        var bytes: [UInt8] = []
        for (i, entry) in suppressions.entries.enumerated() where !entry.fields.isEmpty {
            var parts = [String(i), entry.rule, String(entry.fields.count)]
            for condition in entry.fields { parts += [condition.name, condition.pattern] }
            for part in parts {
                bytes += part.utf8
                bytes.append(0)
            }
        }
        return hex(FNV1a.hash64(bytes: bytes))
    }

    /// The ``Header/files`` of a run over `paths`, whose sizes on disk are `sizes` (nil: standard
    /// input, or not to be looked at): shards of one run read the same files, so a file that
    /// grew or shrank between two shards makes their partials refuse to merge.
    static func filesHash(_ paths: [String], sizes: [Int?]) -> String {
        var bytes: [UInt8] = []
        for (path, size) in zip(paths, sizes) {
            bytes += path.utf8
            bytes.append(0)
            bytes += (size.map(String.init) ?? "-").utf8
            bytes.append(0)
        }
        return hex(FNV1a.hash64(bytes: bytes))
    }

    private static func hex(_ h: UInt64) -> String {
        let digits = String(h, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Writes `parts` as a partial, in pieces of about 1 MiB; each violation with the entries of
    /// `suppressions` whose `fields:` hold on its event.
    static func render(
        _ parts: RunParts, header: Header, rules: [Rule], suppressions: Suppressions,
        flush: @escaping ([UInt8]) -> Void
    ) {
        var records = 0
        var out: [UInt8] = []
        func line(_ write: (inout JSONWriter) -> Void) {
            var w = JSONWriter(pretty: false)
            w.beginObject()
            write(&w)
            w.endObject()
            out += w.finish().utf8
            records += 1
            if out.count >= JSONWriter.flushSize {
                flush(out)
                out.removeAll(keepingCapacity: true)
            }
        }
        line { w in
            w.beginObject("partial")
            w.key("version", version)
            w.key("tool", ConnAuditVersion.string)
            w.key("shard", header.shard.index)
            w.key("shards", header.shard.count)
            w.key("rules", header.rules)
            w.key("suppressions", header.suppressions)
            w.key("files", header.files)
            w.key("file_count", header.fileCount)
            w.key("rule_count", header.ruleCount)
            w.key("inputs", header.inputs)
            w.endObject()
        }
        for e in parts.discoveryErrors {
            line { w in writeError(&w, "discovery_error", e) }
        }
        for (i, f) in parts.files.enumerated() where parts.owned[i] {
            line { w in
                w.beginObject("file")
                w.key("index", i)
                w.key("path", f.path)
                w.lineCounts(f)
                w.key("compressed", f.compressed)
                if let e = f.error {
                    w.key("error", e.reason)
                    w.key("held_no_event", e.heldNoEvent)
                }
                w.endObject()
            }
        }
        line { w in
            w.beginObject("sources")
            w.key("sources", parts.sources)
            w.key("generations", parts.generations)
            w.endObject()
        }
        let total = parts.total
        for index in rules.indices {
            let fieldMatches = suppressions.fieldMatches(rule: rules[index].id)
            for f in inReportOrder(total.violations[index] ?? []) {
                let held = fieldMatches(f)
                line { w in writeFinding(&w, "violation", rule: index, f, fieldMatches: held) }
            }
            for f in inReportOrder(total.inconclusive[index] ?? []) {
                line { w in writeFinding(&w, "inconclusive", rule: index, f, fieldMatches: []) }
            }
            if let counts = total.labels[index] {
                line { w in
                    w.beginObject("labels")
                    w.key("rule", index)
                    w.beginObject("counts")
                    for (name, n) in counts.sorted(by: { $0.key < $1.key }) { w.key(name, n) }
                    w.endObject()
                    w.endObject()
                }
            }
            if total.applicable.contains(index) {
                line { w in w.key("applicable", index) }
            }
        }
        for e in parts.mergeErrors {
            line { w in writeError(&w, "merge_error", e) }
        }
        line { w in
            w.beginObject("end")
            w.key("records", records)
            w.endObject()
        }
        flush(out)
    }

    /// `findings` in report order (``Finding/precedes(_:_:)``), equal ones in the order they
    /// came: as one run's report orders them.
    static func inReportOrder(_ findings: [Finding]) -> [Finding] {
        findings.indices.sorted { a, b in
            Finding.precedes(findings[a], findings[b])
                || (a < b && !Finding.precedes(findings[b], findings[a]))
        }.map { findings[$0] }
    }

    private static func writeError(_ w: inout JSONWriter, _ kind: String, _ e: InputError) {
        w.beginObject(kind)
        w.key("path", e.path)
        w.key("reason", e.reason)
        w.key("held_no_event", e.heldNoEvent)
        w.endObject()
    }

    /// A `violation` or `inconclusive` record (`kind`) of rule `rule`, as one line.
    static func findingLine(_ kind: String, rule: Int, _ f: Finding, fieldMatches: [Int])
        -> String
    {
        var w = JSONWriter(pretty: false)
        w.beginObject()
        writeFinding(&w, kind, rule: rule, f, fieldMatches: fieldMatches)
        w.endObject()
        return w.finish()
    }

    private static func writeFinding(
        _ w: inout JSONWriter, _ kind: String, rule: Int, _ f: Finding, fieldMatches: [Int]
    ) {
        w.beginObject(kind)
        w.key("rule", rule)
        if let file = f.file { w.key("file", Int(file)) }
        if let line = f.line { w.key("line", line) }
        // The shortest text that reads back as the same double.
        if let t = f.t { w.raw("t", "\(t)") }
        if let key = f.source {
            w.beginObject("source")
            w.key("src", key.src)
            if key.srcIsFile { w.key("src_is_file", true) }
            if key.srcIsJSON { w.key("src_is_json", true) }
            if let session = key.session { w.key("session", session) }
            if key.sessionIsJSON { w.key("session_is_json", true) }
            w.endObject()
        }
        if let gen = f.gen { w.raw("gen", String(gen)) }
        w.key("message", f.message)
        if let ev = f.ev { w.key("ev", ev) }
        if let subject = f.subject { w.key("subject", subject) }
        if !f.context.isEmpty {
            w.beginArray("context")
            for c in f.context {
                w.beginObject()
                w.key("file", Int(c.file))
                w.key("line", c.line)
                w.key("text", c.text)
                if c.isAnchor { w.key("anchor", true) }
                w.endObject()
            }
            w.endArray()
        }
        if !fieldMatches.isEmpty {
            w.beginArray("fields_match")
            for i in fieldMatches { w.raw(nil, String(i)) }
            w.endArray()
        }
        w.endObject()
    }
}

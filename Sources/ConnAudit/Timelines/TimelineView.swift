import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Query

/// What `conn-audit timeline` shows: which sources, streams and generations, or the events around one line.
///
/// A source matches when `src` and `session` equal the query's (a source without `src` is named by
/// its file path as found); `stream` is the part of `ev` before the first dot; `gen` the generation.
/// Unset parts match everything.
public struct TimelineQuery: Sendable {
    public var src: String?
    public var session: String?
    public var stream: String?
    public var gen: UInt64?
    /// Centre on the event at this file and line: its source and, when it has a `gen`, its generation
    /// are selected. Filters given as well must agree with it.
    public var around: (file: String, line: Int)?
    /// With ``around``: how many events of the selection are shown before and after it.
    public var radius: Int = 15

    public init(
        src: String? = nil, session: String? = nil, stream: String? = nil, gen: UInt64? = nil,
        around: (file: String, line: Int)? = nil, radius: Int = 15
    ) {
        self.src = src
        self.session = session
        self.stream = stream
        self.gen = gen
        self.around = around
        self.radius = radius
    }

    /// Parses `--around FILE:LINE` (split at the last colon, so paths may hold colons).
    ///
    /// - Throws: ``UsageError`` when there is no colon or the line is not a positive integer.
    public static func parseAround(_ text: String) throws(UsageError) -> (file: String, line: Int) {
        guard let colon = text.lastIndex(of: ":"), colon != text.startIndex else {
            throw UsageError("--around expects FILE:LINE (for example logs/a.jsonl:42), got '\(text)'")
        }
        let file = String(text[..<colon])
        guard let line = Int(text[text.index(after: colon)...]), line >= 1 else {
            throw UsageError("--around expects FILE:LINE with a line number from 1, got '\(text)'")
        }
        return (file, line)
    }

    /// `--src a --gen 2`, for messages.
    var described: String {
        var parts: [String] = []
        if let src { parts.append("--src \(src)") }
        if let session { parts.append("--session \(session)") }
        if let stream { parts.append("--stream \(stream)") }
        if let gen { parts.append("--gen \(gen)") }
        return parts.isEmpty ? "the query" : parts.joined(separator: " ")
    }
}

// MARK: - Document

/// The postmortem view of the selected sources: what the renderers print (``TimelineReport``).
///
/// One ``Section`` per generation timeline `(source, stream, gen)`, and one per source for its
/// events without `gen`; sections of a source follow each other, in the order of their first event
/// shown; sources in the order they first appear in the inputs.
public struct TimelineDocument: Sendable {
    /// A finding marked on an event: rule id, severity, `fail` (a violation) or `inconclusive`, message.
    public typealias Mark = (rule: String, severity: Severity, status: RuleStatus, message: String)

    /// One event, in merged order.
    public struct Entry: Sendable {
        /// The path as found (`<stdin>` for standard input) and the 1-based line.
        public var file: String
        public var line: Int
        public var t: Double
        public var ev: String
        public var gen: UInt64?
        /// `ws.close reason="pong_timeout" code=1000`: `ev` and the fields (not `t`, `gen`, `src`,
        /// `session`), strings quoted and escaped; a redacted field shows as `key=[redacted]`, never
        /// its value.
        public var text: String
        /// The top-level fields other than `t`, `ev`, `gen`, `src` and `session`, the last of
        /// duplicate keys only; the value of a redacted key is the string `[redacted]`.
        public var fields: [Event.Field]
        /// Keys whose value is hidden: flagged by `log.no-secrets`, or a secret to
        /// ``SecretShapes`` (a key name such as `apiKey`, `Set-Cookie`).
        public var redacted: [String]
        /// `t` minus the `t` of the generation's first `<stream>.connect` (`ws.connect`); nil without one.
        public var sinceConnect: Double?
        /// `t` minus the `t` of the last `<stream>.ping` before this event in the generation; nil without one.
        public var sincePing: Double?
        /// For `ws` generations: `connecting`, `open`, `closing`, `closed` or `stale` after this event.
        public var phase: String?
        /// True when ``phase`` differs from the generation's phase before this event.
        public var phaseChanged: Bool
        /// The findings pointing at this line, in rule order (violations before inconclusive ones).
        public var findings: [Mark]
        /// True for the event `--around` names.
        public var isFocus: Bool
    }

    /// One generation timeline, or a source's events without `gen`.
    public struct Section: Sendable {
        public var source: SourceKey
        /// The stream of a generation timeline; for the events without `gen`, the `--stream` asked
        /// for, else nil (any stream).
        public var stream: String?
        /// nil: the source's events without `gen`.
        public var gen: UInt64?
        public var entries: [Entry]
        /// How many events the timeline has in the selection (more than `entries` with `--around`).
        public var total: Int

        public var violations: Int { entries.reduce(0) { $0 + $1.findings.filter { $0.status == .fail }.count } }
        public var inconclusive: Int {
            entries.reduce(0) { $0 + $1.findings.filter { $0.status == .inconclusive }.count }
        }
    }

    public var sections: [Section]
    /// Findings (with a line) of the selected sources that no shown entry carries: outside the
    /// selected streams or generations, or outside the `--around` window.
    public var findingsElsewhere: Int
    /// Findings of a selected source that point at no line (a timeline-wide finding without an event).
    public var unplaced: [Mark]
    /// Findings of the whole corpus that point at no line (`classify` coverage such as
    /// `ws.required-outcomes`): not about these sources, listed for completeness.
    public var corpus: [Mark]
    /// The `--around` event and the radius used, if any.
    public var focus: (file: String, line: Int)?
    public var radius: Int?
    /// Inputs the timeline could not read again (they are in the returned report too).
    public var inputErrors: [InputError]
    /// Timelines left out for having no finding (``keepTimelinesWithFindings()``); nil: none was
    /// left out for that, every timeline of the selection is shown.
    public var hidden: Hidden?
}

// MARK: - Builder

/// Builds the postmortem view: runs the rules, then re-reads the selected sources.
public enum TimelineBuilder {
    /// Runs the rules (to know the findings), then re-reads the selected sources' events with every
    /// field decoded, in merged order.
    ///
    /// Three reads: the ``Auditor`` run; a light pass over every file (sources, event counts, and
    /// the `--around` line); a full-field pass over the files holding a selected source. Merged
    /// order is the Auditor's: a k-way merge of each source's files by `t`, ties by path byte order,
    /// each file keeping its own order. Standard input is copied first (``StandardInputCopy``), so it
    /// can be read more than once.
    ///
    /// Findings go on the entry of their file and line (a `$time_regression` or `$secret` finding on
    /// the real event of that line); findings of a selected source that no shown entry carries are
    /// counted in ``TimelineDocument/findingsElsewhere``; findings without a line go to
    /// ``TimelineDocument/unplaced`` (of a selected source) or ``TimelineDocument/corpus`` (coverage
    /// of the whole corpus). Input errors met while re-reading are added to the returned report,
    /// whose findings are those of the sources `--src` and `--session` match (the others are
    /// evaluated for their `classify` labels only: ``Auditor/judged``).
    ///
    /// - Throws: ``UsageError`` when `--around` names no event (saying why: blank, malformed, beyond
    ///   the end, not an input), when it contradicts the other filters, or when nothing matches
    ///   (listing the sources, or the generations of the sources that match `src`/`session`).
    /// - Complexity: memory holds the selected sources' events (their fields only for the selected
    ///   streams and generations), not the inputs; the Auditor's run, the others' labels.
    public static func build(
        inputs: [InputFile], rules: RuleSet, query: TimelineQuery, jobs: Int = 1,
        opener: @escaping Auditor.Opener = { f throws(InputError) in try ByteSources.open(f) }
    ) throws(UsageError) -> (TimelineDocument, AuditReport) {
        let jobs = max(1, jobs)
        let stdinCopy = inputs.first(where: \.isStdin).map { StdinCopy($0, opener: opener) }
        defer { stdinCopy?.remove() }
        let open: Auditor.Opener
        if let stdinCopy {
            open = { f throws(InputError) in f.isStdin ? try stdinCopy.open() : try opener(f) }
        } else {
            open = opener
        }

        // `--around` must name an input before any work.
        let labels = inputs.map { $0.isStdin ? "<stdin>" : $0.path }
        var focusFile: Int?
        if let around = query.around {
            guard around.line >= 1 else { throw UsageError("--around: line numbers start at 1, got \(around.line)") }
            focusFile = try resolve(around, inputs: inputs, labels: labels)
        }

        // The view shows the findings of the selected sources only, and of the others what is
        // about the whole corpus (coverage, which counts every generation's labels): those run
        // only the `classify` rules. The selection here is by `--src` and `--session`, which
        // every selected source matches (`--around` picks one of them, `--stream` and `--gen`
        // its generations).
        let (src, session) = (query.src, query.session)
        var judged: (@Sendable (SourceKey) -> Bool)?
        if src != nil || session != nil {
            judged = { key in
                (src == nil || SourceKey.sameBytes(key.src, src)) && (session == nil || SourceKey.sameBytes(key.session, session))
            }
        }
        var report = Auditor(rules: rules, jobs: jobs, judged: judged, opener: open).run(inputs)

        // Pass A: sources, event counts, generations (when filtering on them), the `--around` line.
        let trackGens = query.stream != nil || query.gen != nil
        let scans: [Inventory] = parallelMap(inputs.count, jobs: jobs) { i, _ in
            inventory(inputs[i], index: i, open: open, query: query, trackGens: trackGens,
                      aroundLine: i == focusFile ? query.around?.line : nil)
        }

        // The selection.
        var keyWanted: (SourceKey) -> Bool = { key in
            (query.src == nil || SourceKey.sameBytes(key.src, query.src)) && (query.session == nil || SourceKey.sameBytes(key.session, query.session))
        }
        var stream = query.stream
        var gen = query.gen
        var focus: (file: Int32, line: Int, key: SourceKey)?
        if let around = query.around, let fi = focusFile {
            let target = try focusEvent(around, label: labels[fi], scan: scans[fi])
            let place = "the event at \(labels[fi]):\(around.line)"
            if let src = query.src, !SourceKey.sameBytes(src, target.key.src) {
                throw UsageError("\(place) is of src \(Self.safe(target.key.shownSrc)), not --src \(SecretShapes.text(src))")
            }
            if let session = query.session, !SourceKey.sameBytes(session, target.key.session) {
                let actual = target.key.shownSession.map(Self.safe) ?? "(none)"
                throw UsageError("\(place) is of session \(actual), not --session \(session)")
            }
            if let s = query.stream, s != target.stream {
                throw UsageError("\(place) is of stream \(Self.safe(target.stream)), not --stream \(s)")
            }
            if let g = query.gen, g != target.gen {
                throw UsageError("\(place) has \(target.gen.map { "gen \($0)" } ?? "no gen"), not --gen \(g)")
            }
            let key = target.key
            keyWanted = { $0 == key }
            if let g = target.gen {
                stream = target.stream
                gen = g
            }
            focus = (Int32(fi), around.line, key)
        }
        let eventWanted: (Substring, UInt64?) -> Bool = { [stream, gen] s, g in
            (stream == nil || s == stream![...]) && (gen == nil || g == gen)
        }

        // Sources in order of first appearance, and the selected ones.
        var sourceOrder: [SourceKey] = []
        var counts: [SourceKey: Int] = [:]
        var filesOf: [SourceKey: [Int]] = [:]
        var gensOf: [SourceKey: [GenKey: Int]] = [:]
        var genOrder: [SourceKey: [GenKey]] = [:]
        for (i, scan) in scans.enumerated() {
            for key in scan.order {
                if counts[key] == nil { sourceOrder.append(key) }
                counts[key, default: 0] += scan.counts[key]!
                filesOf[key, default: []].append(i)
                for g in scan.genOrder[key] ?? [] {
                    if gensOf[key]?[g] == nil { genOrder[key, default: []].append(g) }
                    gensOf[key, default: [:]][g, default: 0] += scan.gens[key]![g]!
                }
            }
        }
        let selected = sourceOrder.filter { key in
            guard keyWanted(key) else { return false }
            if focus != nil || !trackGens { return true }
            return (genOrder[key] ?? []).contains { eventWanted($0.stream[...], $0.gen) }
        }
        if selected.isEmpty {
            throw noMatch(query, sourceOrder: sourceOrder, counts: counts, gensOf: gensOf, genOrder: genOrder,
                          keyWanted: keyWanted, errors: report.inputErrors)
        }
        let selectedSet = Set(selected)

        // Pass B: the selected sources' events, every field decoded, per file in line order.
        let readFiles = Array(Set(selected.flatMap { filesOf[$0]! })).sorted()
        let reads: [FileEvents] = parallelMap(readFiles.count, jobs: jobs) { n, _ in
            collect(inputs[readFiles[n]], index: readFiles[n], open: open, keys: selectedSet, wanted: eventWanted)
        }
        for r in reads {
            if let e = r.error, !report.inputErrors.contains(where: { $0.path == e.path }) {
                let error = InputError(path: e.path, reason: "could not be read again for the timeline: \(e.reason)")
                report.inputErrors.append(error)
            }
        }

        // Merge each source, walk it (times, phases), keep the window.
        var walks: [Walk] = []
        var positions = Set<Position>()
        var focusAt: (source: Int, index: Int)?
        for (s, key) in selected.enumerated() {
            let lists = reads.compactMap { r -> (file: InputFile, events: [Event])? in
                guard let events = r.events[key] else { return nil }
                return (inputs[r.index], events)
            }
            let merged = merge(lists)
            for e in merged { positions.insert(Position(file: e.file, line: e.line)) }
            let w = walk(merged, wanted: eventWanted)
            if let f = focus, f.key == key,
               let i = w.pending.firstIndex(where: { $0.event.file == f.file && $0.event.line == f.line }) {
                focusAt = (s, i)
            }
            walks.append(w)
        }
        if let around = query.around {
            guard let f = focusAt else {
                throw UsageError("no event at \(around.file):\(around.line) (the file changed while it was read)")
            }
            let r = max(0, query.radius)
            let all = walks[f.source].pending
            let lo = max(0, f.index - r), hi = min(all.count - 1, f.index + r)
            for s in walks.indices { walks[s].pending = s == f.source ? Array(all[lo...hi]) : [] }
        }

        // Sections, and where each shown line went.
        var sections: [TimelineDocument.Section] = []
        var shown: [Position: (section: Int, entry: Int)] = [:]
        for (s, key) in selected.enumerated() {
            var bySection: [SectionKey: Int] = [:]
            for p in walks[s].pending {
                let at: Int
                if let existing = bySection[p.section] {
                    at = existing
                } else {
                    at = sections.count
                    bySection[p.section] = at
                    sections.append(TimelineDocument.Section(
                        source: key, stream: p.section.gen == nil ? stream : p.section.stream, gen: p.section.gen,
                        entries: [], total: walks[s].totals[p.section] ?? 0))
                }
                let e = p.event
                // The source is each section's heading: `src` and `session` are not repeated per event.
                let (fields, redacted) = Self.shown(lastOfEachKey(e.fields.filter { $0.key != "src" && $0.key != "session" }),
                                               redacted: e.redactedKeys)
                let ev = SecretShapes.text(e.ev)
                let entry = TimelineDocument.Entry(
                    file: labels[Int(e.file)], line: e.line, t: e.t, ev: ev, gen: e.gen,
                    text: render(ev, fields: fields, redacted: redacted), fields: fields,
                    redacted: redacted, sinceConnect: p.sinceConnect, sincePing: p.sincePing,
                    phase: p.phase, phaseChanged: p.phaseChanged, findings: [],
                    isFocus: focus.map { $0.file == e.file && $0.line == e.line } ?? false)
                shown[Position(file: e.file, line: e.line)] = (at, sections[at].entries.count)
                sections[at].entries.append(entry)
            }
        }

        // Findings onto their lines: violations first, then inconclusive ones, each in rule order.
        var elsewhere = 0
        var unplaced: [TimelineDocument.Mark] = []
        var corpus: [TimelineDocument.Mark] = []
        for status in [RuleStatus.fail, .inconclusive] {
            for result in report.results {
                for f in status == .fail ? result.violations : result.inconclusive {
                    let mark: TimelineDocument.Mark = (result.rule.id, result.rule.severity, status, f.message)
                    guard let file = f.file, let line = f.line else {
                        if let source = f.source {
                            if selectedSet.contains(source) { unplaced.append(mark) }
                        } else {
                            corpus.append(mark)
                        }
                        continue
                    }
                    let pos = Position(file: file, line: line)
                    if let at = shown[pos] {
                        sections[at.section].entries[at.entry].findings.append(mark)
                    } else if let source = f.source {
                        if selectedSet.contains(source) { elsewhere += 1 }
                    } else if positions.contains(pos) {
                        elsewhere += 1
                    }
                }
            }
        }

        let doc = TimelineDocument(
            sections: sections, findingsElsewhere: elsewhere, unplaced: unplaced, corpus: corpus,
            focus: focus.map { (labels[Int($0.file)], $0.line) }, radius: focus == nil ? nil : max(0, query.radius),
            // Every input that could not be read, in either pass: a timeline saved and attached to a
            // ticket says a log is missing or cut short, not only stderr.
            inputErrors: report.inputErrors)
        return (doc, report)
    }

    // MARK: - Pass A: what the inputs hold

    /// A generation (or, with nil, the events without `gen`) of one stream.
    struct GenKey: Hashable {
        var stream: String
        var gen: UInt64?
    }

    /// What the line `--around` names turned out to be.
    enum AroundLine {
        case event(SourceKey, stream: String, gen: UInt64?)
        case blank
        case malformed(String)
    }

    struct Inventory {
        var order: [SourceKey] = []
        var counts: [SourceKey: Int] = [:]
        /// Per source matching `src`/`session`, when the query filters on stream or gen.
        var gens: [SourceKey: [GenKey: Int]] = [:]
        var genOrder: [SourceKey: [GenKey]] = [:]
        var lines = 0
        var error: InputError?
        var around: AroundLine?
    }

    private static func inventory(
        _ input: InputFile, index: Int, open: Auditor.Opener, query: TimelineQuery, trackGens: Bool, aroundLine: Int?
    ) -> Inventory {
        var out = Inventory()
        let source: any ByteSource
        do {
            source = try open(input)
        } catch {
            out.error = error
            return out
        }
        let reader = FileReader(index: Int32(index), path: input.path, source: source, wantedFields: [])
        var line = 0
        while let item = reader.next() {
            line += 1
            switch item {
            case .blank:
                if line == aroundLine { out.around = .blank }
            case .malformed(let e):
                if line == aroundLine { out.around = .malformed(e.value(of: "reason")?.string ?? "malformed") }
            case .event(let e, let id, _):
                let key = reader.key(of: id)
                if out.counts[key] == nil { out.order.append(key) }
                out.counts[key, default: 0] += 1
                if line == aroundLine { out.around = .event(key, stream: String(e.stream), gen: e.gen) }
                if trackGens, query.src == nil || SourceKey.sameBytes(key.src, query.src),
                   query.session == nil || SourceKey.sameBytes(key.session, query.session) {
                    let g = GenKey(stream: String(e.stream), gen: e.gen)
                    if out.gens[key]?[g] == nil { out.genOrder[key, default: []].append(g) }
                    out.gens[key, default: [:]][g, default: 0] += 1
                }
            }
        }
        out.lines = line
        out.error = reader.stats.error
        return out
    }

    /// The input `--around` names: the path as found (or as given), else the one input ending in it.
    private static func resolve(
        _ around: (file: String, line: Int), inputs: [InputFile], labels: [String]
    ) throws(UsageError) -> Int {
        func plain(_ p: String) -> String {
            var p = p
            while p.hasPrefix("./") { p.removeFirst(2) }
            return p
        }
        let wanted = plain(around.file)
        if let i = labels.indices.first(where: { labels[$0] == around.file || inputs[$0].path == around.file }) {
            return i
        }
        if let i = inputs.indices.first(where: { !inputs[$0].isStdin && plain(inputs[$0].path) == wanted }) { return i }
        // The same file named another way (absolute, through a symbolic link): by its real path.
        if let real = InputFile.canonical(Array(around.file.utf8)),
           let i = inputs.indices.first(where: { !inputs[$0].isStdin && InputFile.canonical(inputs[$0].bytes) == real }) {
            return i
        }
        let ending = inputs.indices.filter { !inputs[$0].isStdin && inputs[$0].path.hasSuffix("/" + wanted) }
        if ending.count == 1 { return ending[0] }
        if ending.count > 1 {
            throw UsageError("--around \(around.file):\(around.line): several inputs end in \(around.file): "
                + ending.prefix(5).map { labels[$0] }.joined(separator: ", ") + (ending.count > 5 ? ", …" : ""))
        }
        var list = labels.prefix(10).joined(separator: ", ")
        if labels.count > 10 { list += ", … (\(labels.count) in all)" }
        if list.isEmpty { list = "none" }
        throw UsageError("no event at \(around.file):\(around.line) (\(around.file) is not one of the inputs: \(list))")
    }

    /// The source, stream and gen of the `--around` event, or why there is none.
    private static func focusEvent(
        _ around: (file: String, line: Int), label: String, scan: Inventory
    ) throws(UsageError) -> (key: SourceKey, stream: String, gen: UInt64?) {
        let place = "no event at \(label):\(around.line)"
        switch scan.around {
        case .event(let key, let stream, let gen)?:
            return (key, stream, gen)
        case .blank?:
            throw UsageError("\(place) (line \(around.line) is blank)")
        case .malformed(let reason)?:
            throw UsageError("\(place) (line \(around.line) is malformed: \(safe(reason)))")
        case nil:
            if let error = scan.error, scan.lines < around.line {
                throw UsageError("\(place) (the file could not be read past line \(scan.lines): \(error.reason))")
            }
            throw UsageError("\(place) (the file has \(scan.lines) line\(scan.lines == 1 ? "" : "s"))")
        }
    }

    private static func noMatch(
        _ query: TimelineQuery, sourceOrder: [SourceKey], counts: [SourceKey: Int], gensOf: [SourceKey: [GenKey: Int]],
        genOrder: [SourceKey: [GenKey]], keyWanted: (SourceKey) -> Bool, errors: [InputError]
    ) -> UsageError {
        let limit = 20
        guard !sourceOrder.isEmpty else {
            let named = errors.prefix(3).map(\.description).joined(separator: "; ")
            let why = errors.isEmpty ? "" : " (\(errors.count) input(s) could not be read: \(named))"
            return UsageError("no events in the inputs\(why)")
        }
        let matching = sourceOrder.filter(keyWanted)
        var text: String
        if !matching.isEmpty {
            // The source is there; the stream or generation is not.
            let has = matching.count == 1 ? "that source has" : "those sources have"
            text = "no events match \(query.described); what \(has):"
            for key in matching.prefix(limit) {
                let gens = genOrder[key] ?? []
                let listed = gens.prefix(limit).map { g -> String in
                    let n = gensOf[key]![g]!
                    let what = g.gen.map { "\(safe(g.stream)) gen \($0)" } ?? "\(safe(g.stream)) without gen"
                    return "\(what) (\(n) event\(n == 1 ? "" : "s"))"
                }
                text += "\n  \(displayName(key)): " + listed.joined(separator: ", ")
                    + (gens.count > limit ? ", … and \(gens.count - limit) more" : "")
            }
            if matching.count > limit { text += "\n  … and \(matching.count - limit) more" }
        } else {
            text = "no events match \(query.described); sources in the inputs (\(sourceOrder.count)):"
            for key in sourceOrder.prefix(limit) {
                let n = counts[key]!
                text += "\n  \(displayName(key))  (\(n) event\(n == 1 ? "" : "s"))"
            }
            if sourceOrder.count > limit { text += "\n  … and \(sourceOrder.count - limit) more" }
        }
        return UsageError(text)
    }

    // MARK: - Pass B: the selected events

    struct FileEvents {
        var index: Int
        var events: [SourceKey: [Event]] = [:]
        var error: InputError?
    }

    /// The events of `keys` in `input`, in line order; events outside the selected streams and
    /// generations keep only `t`, `ev` and `gen` (they order the merge and drive the phases).
    private static func collect(
        _ input: InputFile, index: Int, open: Auditor.Opener, keys: Set<SourceKey>, wanted: (Substring, UInt64?) -> Bool
    ) -> FileEvents {
        var out = FileEvents(index: index)
        let source: any ByteSource
        do {
            source = try open(input)
        } catch {
            out.error = error
            return out
        }
        let reader = FileReader(index: Int32(index), path: input.path, source: source, wantedFields: nil)
        while let item = reader.next() {
            guard case .event(let e, let id, _) = item, case let key = reader.key(of: id), keys.contains(key) else { continue }
            // Events outside the wanted generations keep only what ordering needs.
            let kept = wanted(e.stream, e.gen) ? e : Event(t: e.t, ev: e.ev, gen: e.gen, file: e.file, line: e.line, evID: e.evID)
            out.events[key, default: []].append(kept)
        }
        out.error = reader.stats.error
        return out
    }

    /// The Auditor's merge: the lowest `t` among the files' next events, ties by file path order
    /// (``InputFile/pathOrder(_:_:)``); each file keeps its own order.
    static func merge(_ lists: [(file: InputFile, events: [Event])]) -> [Event] {
        if lists.count == 1 { return lists[0].events }
        var heads = [Int](repeating: 0, count: lists.count)
        var out: [Event] = []
        out.reserveCapacity(lists.reduce(0) { $0 + $1.events.count })
        while true {
            var best: Int?
            for i in lists.indices where heads[i] < lists[i].events.count {
                if let b = best {
                    let bt = lists[b].events[heads[b]].t, t = lists[i].events[heads[i]].t
                    if bt < t { continue }
                    if bt == t, !InputFile.pathOrder(lists[i].file, lists[b].file) { continue }
                }
                best = i
            }
            guard let b = best else { break }
            out.append(lists[b].events[heads[b]])
            heads[b] += 1
        }
        return out
    }

    // MARK: - Walking a source: times and phases

    /// A section of a source: a generation of a stream, or (`gen` nil, stream "") the events without gen.
    struct SectionKey: Hashable {
        var stream: String
        var gen: UInt64?
    }

    struct Pending {
        var event: Event
        var section: SectionKey
        var sinceConnect: Double?
        var sincePing: Double?
        var phase: String?
        var phaseChanged: Bool
    }

    struct Walk {
        /// The selected events, in merged order.
        var pending: [Pending]
        /// Selected events per section (before any window).
        var totals: [SectionKey: Int]
    }

    /// Goes through a source's events in merged order, keeping the selected ones with their times
    /// and phases (which depend on every event of the source: a newer `ws.connect` makes the older
    /// generations stale).
    static func walk(_ events: [Event], wanted: (Substring, UInt64?) -> Bool) -> Walk {
        struct State {
            var firstConnect: Int?
            var firstConnectT: Double?
            var lastPingT: Double?
            var phase: String?
        }
        var states: [SectionKey: State] = [:]
        var latestConnect: (gen: UInt64, seq: Int)?
        var out: [Pending] = []
        var totals: [SectionKey: Int] = [:]
        for (seq, e) in events.enumerated() {
            let stream = e.stream
            guard let g = e.gen else {
                if wanted(stream, nil) {
                    let key = SectionKey(stream: "", gen: nil)
                    out.append(Pending(event: e, section: key, phaseChanged: false))
                    totals[key, default: 0] += 1
                }
                continue
            }
            let key = SectionKey(stream: String(stream), gen: g)
            var st = states[key] ?? State()
            let name = e.ev.count > stream.count ? e.ev.dropFirst(stream.count + 1) : ""
            let sincePing = st.lastPingT.map { DecimalRounding.sum(e.t, -$0) }
            if name == "ping" { st.lastPingT = e.t }
            if name == "connect", st.firstConnectT == nil {
                st.firstConnectT = e.t
                st.firstConnect = seq
            }
            var phase = st.phase
            if stream == "ws" {
                if name == "connect" {
                    phase = "connecting"
                    latestConnect = (g, seq)
                } else if let latest = latestConnect, latest.gen != g,
                          st.firstConnect.map({ $0 < latest.seq }) ?? (g < latest.gen) {
                    // A newer connection replaced this one, and it is still acting.
                    phase = "stale"
                } else {
                    switch name {
                    case "open": if phase == nil || phase == "connecting" { phase = "open" }
                    case "close": if phase != "closed" { phase = "closing" }
                    case "closed", "connect_failed": phase = "closed"
                    default: break
                    }
                }
            }
            let changed = phase != nil && phase != st.phase
            st.phase = phase
            states[key] = st
            if wanted(stream, g) {
                out.append(Pending(event: e, section: key, sincePing: sincePing, phase: phase, phaseChanged: changed))
                totals[key, default: 0] += 1
            }
        }
        // Relative to the generation's first connect, wherever it is (an event logged before it is negative).
        for i in out.indices where out[i].event.gen != nil {
            if let c = states[out[i].section]?.firstConnectT { out[i].sinceConnect = DecimalRounding.sum(out[i].event.t, -c) }
        }
        return Walk(pending: out, totals: totals)
    }

    // MARK: - Rendering without secrets

    struct Position: Hashable {
        var file: Int32
        var line: Int
    }

    /// Duplicate keys: the last wins (connlog), shown once at its last place.
    static func lastOfEachKey(_ fields: [Event.Field]) -> [Event.Field] {
        guard fields.count > 1 else { return fields }
        var seen = Set<String>()
        var out: [Event.Field] = []
        for f in fields.reversed() where seen.insert(f.key).inserted { out.append(f) }
        return out.reversed()
    }

    /// The fields as every view shows them: each name and value through ``SecretShapes``, a value
    /// it hides whole as the string `[redacted]` with its key added to the redacted ones.
    static func shown(_ fields: [Event.Field], redacted: [String]) -> ([Event.Field], [String]) {
        let flagged = KeyLookup(redacted)
        var hidden = redacted
        let out = fields.map { f -> Event.Field in
            if flagged.contains(f.key) { return f }
            let key = SecretShapes.text(f.key)
            guard let value = f.value.shown(under: f.key) else {
                hidden.append(key)
                return Event.Field(key, .string(SecretShapes.marker), id: f.id)
            }
            return Event.Field(key, value, id: f.id)
        }
        return (out, hidden)
    }

    /// `ws.close reason="pong_timeout" code=1000`; a redacted field as `key=[redacted]`.
    static func render(_ ev: String, fields: [Event.Field], redacted: [String]) -> String {
        var text = safe(ev)
        let redacted = KeyLookup(redacted)
        for f in fields {
            text += " " + safe(f.key) + "="
            text += redacted.contains(f.key) ? "[redacted]" : json(f.value)
        }
        return text
    }

    /// A value as JSON text (strings quoted and escaped).
    static func json(_ v: Value) -> String { v.rendered(bare: false) }

    /// Log text made safe for a terminal: control characters (C0, DEL, C1, line separators) escaped.
    static func safe(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: isControl) else { return s }
        var out = ""
        for u in s.unicodeScalars {
            if isControl(u) {
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out
    }

    private static func isControl(_ u: Unicode.Scalar) -> Bool {
        u.value < 0x20 || (u.value >= 0x7F && u.value <= 0x9F) || u.value == 0x2028 || u.value == 0x2029
    }

    /// `iphone-a session s1`, or `logs/a.jsonl (no src)` for a file standing for its source.
    static func displayName(_ key: SourceKey) -> String {
        var name = key.srcIsFile ? safe(key.src) + " (no src)" : safe(key.shownSrc)
        if let session = key.shownSession { name += " session " + safe(session) }
        return name
    }
}

// MARK: - Standard input, kept for several reads

/// Standard input can be read once; the timeline reads it three times, so it is read whole into
/// a ``StandardInputCopy`` first.
private final class StdinCopy: @unchecked Sendable {
    private var copy: StandardInputCopy?
    private let path: String
    private var openError: InputError?
    /// A read error met while copying: every later read ends with it, after the bytes read before it.
    private var readError: InputError?

    init(_ input: InputFile, opener: Auditor.Opener) {
        path = input.path
        let source: any ByteSource
        do {
            source = try opener(input)
        } catch {
            openError = error
            return
        }
        let copy = StandardInputCopy()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n: Int
            do {
                n = try source.read(into: buffer)
            } catch {
                readError = error
                break
            }
            if n == 0 { break }
            copy.append(UnsafeRawBufferPointer(rebasing: buffer[..<n]))
        }
        copy.isCompressed = source.isCompressed
        self.copy = copy
    }

    func open() throws(InputError) -> any ByteSource {
        if let openError { throw openError }
        let inner = copy?.reader(path: path) ?? ByteSources.memory([], path: path)
        guard let readError else { return inner }
        return FailingTail(inner, error: readError)
    }

    func remove() {
        copy = nil
    }
}

/// A source that ends with an error after its bytes (standard input that failed mid-stream).
private final class FailingTail: ByteSource {
    private let inner: any ByteSource
    private let error: InputError

    init(_ inner: any ByteSource, error: InputError) {
        self.inner = inner
        self.error = error
    }

    var isCompressed: Bool { inner.isCompressed }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        let n = try inner.read(into: buffer)
        if n == 0, buffer.count > 0 { throw error }
        return n
    }
}

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

    /// A line of an input: the file's number and the 1-based line.
    struct Position: Hashable {
        var file: Int32
        var line: Int
    }
}

/// Builds the postmortem view: runs the rules, then re-reads the selected sources.
public enum TimelineBuilder {
    /// Runs the rules (to know the findings), then re-reads the selected sources' events with every
    /// field decoded, in merged order.
    ///
    /// Three reads: the ``Auditor`` run; a light pass over every file (sources, event counts, and
    /// the `--around` line); a full-field pass over the files holding a selected source. Merged
    /// order is the Auditor's: a k-way merge of each source's files by `t`, ties by path byte
    /// order, each file keeping its own order. Standard input is copied first
    /// (``StandardInputCopy``), so it can be read more than once.
    ///
    /// Findings go on the entry of their file and line (a `$time_regression` or `$secret` finding
    /// on the real event of that line); findings of a selected source that no shown entry carries
    /// are counted in ``TimelineDocument/findingsElsewhere``; findings without a line go to
    /// ``TimelineDocument/unplaced`` (of a selected source) or ``TimelineDocument/corpus``
    /// (coverage of the whole corpus). Input errors met while re-reading are added to the returned
    /// report, whose findings are those of the sources `--src` and `--session` match (the others
    /// are evaluated for their `classify` labels only: ``Auditor/judged``).
    ///
    /// - Throws: ``UsageError`` when `--around` names no event (saying why: blank, malformed,
    ///   beyond the end, not an input), when it contradicts the other filters, or when nothing
    ///   matches (listing the sources, or the generations of the sources that match
    ///   `src`/`session`).
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
            guard around.line >= 1 else {
                throw UsageError("--around: line numbers start at 1, got \(around.line)")
            }
            focusFile = try resolve(around, inputs: inputs, labels: labels)
        }
        var report = audit(inputs, rules: rules, query: query, jobs: jobs, open: open)

        // Pass A: sources, event counts, generations (when filtering on them), the `--around` line.
        let trackGens = query.stream != nil || query.gen != nil
        let scans: [Inventory] = parallelMap(inputs.count, jobs: jobs) { i, _ in
            inventory(
                inputs[i], index: i, open: open, query: query, trackGens: trackGens,
                aroundLine: i == focusFile ? query.around?.line : nil)
        }
        let selection = try Selection(query, focusFile: focusFile, labels: labels, scans: scans)
        let eventWanted = selection.eventWanted
        let census = Census(scans)
        let selected = census.sourceOrder.filter { key in
            guard selection.keyWanted(key) else { return false }
            if selection.focus != nil || !trackGens { return true }
            return (census.genOrder[key] ?? []).contains { eventWanted($0.stream[...], $0.gen) }
        }
        if selected.isEmpty {
            throw noMatch(
                query, census: census, keyWanted: selection.keyWanted, errors: report.inputErrors)
        }
        let selectedSet = Set(selected)

        // Pass B: the selected sources' events, every field decoded, per file in line order.
        let readFiles = Array(Set(selected.flatMap { census.filesOf[$0]! })).sorted()
        let reads: [FileEvents] = parallelMap(readFiles.count, jobs: jobs) { n, _ in
            collect(
                inputs[readFiles[n]], index: readFiles[n], open: open, keys: selectedSet,
                wanted: eventWanted)
        }
        for r in reads {
            if let e = r.error, !report.inputErrors.contains(where: { $0.path == e.path }) {
                let error = InputError(
                    path: e.path, reason: "could not be read again for the timeline: \(e.reason)")
                report.inputErrors.append(error)
            }
        }

        let (walks, positions) = try mergeAndWalk(
            selected, reads: reads, inputs: inputs, selection: selection, query: query)
        var (sections, shown) = layOutSections(
            selected, walks: walks, selection: selection, labels: labels)
        let placed = placeFindings(
            of: report, selected: selectedSet, on: &sections, shown: shown, positions: positions)
        let focus = selection.focus
        let doc = TimelineDocument(
            sections: sections, findingsElsewhere: placed.elsewhere, unplaced: placed.unplaced,
            corpus: placed.corpus,
            focus: focus.map { (labels[Int($0.file)], $0.line) },
            radius: focus == nil ? nil : max(0, query.radius),
            // Every input that could not be read, in either pass: a timeline saved and attached to
            // a ticket says a log is missing or cut short, not only stderr.
            inputErrors: report.inputErrors)
        return (doc, report)
    }

    /// The Auditor's run over `inputs`, for the findings the view marks.
    ///
    /// The view shows the findings of the selected sources only, and of the others what is about
    /// the whole corpus (coverage, which counts every generation's labels): those run only the
    /// `classify` rules. The selection here is by `--src` and `--session`, which every selected
    /// source matches (`--around` picks one of them, `--stream` and `--gen` its generations).
    static func audit(
        _ inputs: [InputFile], rules: RuleSet, query: TimelineQuery, jobs: Int,
        open: @escaping Auditor.Opener
    ) -> AuditReport {
        var judged: (@Sendable (SourceKey) -> Bool)?
        if query.src != nil || query.session != nil {
            judged = { key in query.selects(key) }
        }
        return Auditor(rules: rules, jobs: jobs, judged: judged, opener: open).run(inputs)
    }

    /// A line of an input: the file's number and the 1-based line.
    struct Position: Hashable {
        var file: Int32
        var line: Int
    }
}

/// The document's parts: sections of entries, and the findings placed on them.
extension TimelineBuilder {
    /// The sections of the selected sources, each source's in the order of its first event shown,
    /// and where each shown line went.
    static func layOutSections(
        _ selected: [SourceKey], walks: [Walk], selection: Selection, labels: [String]
    ) -> (sections: [TimelineDocument.Section], shown: [Position: (section: Int, entry: Int)]) {
        let focus = selection.focus
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
                    sections.append(
                        TimelineDocument.Section(
                            source: key,
                            stream: p.section.gen == nil ? selection.stream : p.section.stream,
                            gen: p.section.gen, entries: [], total: walks[s].totals[p.section] ?? 0)
                    )
                }
                let e = p.event
                // The source is each section's heading: `src` and `session` are not repeated per
                // event.
                let (fields, redacted) = Self.shown(
                    lastOfEachKey(e.fields.filter { $0.key != "src" && $0.key != "session" }),
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
        return (sections, shown)
    }

    /// Puts each finding of `report` on the entry of its line: violations first, then
    /// inconclusive ones, each in rule order. Of the others: those of a selected source, or on
    /// one of its `positions`, are counted as elsewhere; those without a line are unplaced (of
    /// a selected source) or about the whole corpus.
    static func placeFindings(
        of report: AuditReport, selected: Set<SourceKey>,
        on sections: inout [TimelineDocument.Section],
        shown: [Position: (section: Int, entry: Int)], positions: Set<Position>
    ) -> (elsewhere: Int, unplaced: [TimelineDocument.Mark], corpus: [TimelineDocument.Mark]) {
        var elsewhere = 0
        var unplaced: [TimelineDocument.Mark] = []
        var corpus: [TimelineDocument.Mark] = []
        for status in [RuleStatus.fail, .inconclusive] {
            for result in report.results {
                for f in status == .fail ? result.violations : result.inconclusive {
                    let mark: TimelineDocument.Mark = (
                        result.rule.id, result.rule.severity, status, f.message
                    )
                    guard let file = f.file, let line = f.line else {
                        if let source = f.source {
                            if selected.contains(source) { unplaced.append(mark) }
                        } else {
                            corpus.append(mark)
                        }
                        continue
                    }
                    let pos = Position(file: file, line: line)
                    if let at = shown[pos] {
                        sections[at.section].entries[at.entry].findings.append(mark)
                    } else if let source = f.source {
                        if selected.contains(source) { elsewhere += 1 }
                    } else if positions.contains(pos) {
                        elsewhere += 1
                    }
                }
            }
        }
        return (elsewhere, unplaced, corpus)
    }
}

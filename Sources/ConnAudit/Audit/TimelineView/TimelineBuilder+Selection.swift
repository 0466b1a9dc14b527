/// What the view shows: the sources, streams and generations the query selects, or those of the
/// `--around` event; and what to say when that names nothing.
extension TimelineBuilder {
    /// The sources, stream and generation the view shows.
    struct Selection {
        /// Whether a source is shown: the query's `src` and `session`, or the `--around` event's.
        var keyWanted: (SourceKey) -> Bool
        var stream: String?
        var gen: UInt64?
        /// The `--around` event: its file's number, its line and its source.
        var focus: (file: Int32, line: Int, key: SourceKey)?

        /// Whether an event of this stream and generation is shown.
        var eventWanted: (Substring, UInt64?) -> Bool {
            { [stream, gen] s, g in (stream == nil || s == stream![...]) && (gen == nil || g == gen)
            }
        }

        /// The query's selection; with `--around`, its event's source and (when it has a `gen`)
        /// generation.
        ///
        /// - Throws: ``UsageError`` when the `--around` line is no event, or when the other
        ///   filters exclude it.
        init(_ query: TimelineQuery, focusFile: Int?, labels: [String], scans: [Inventory])
            throws(UsageError)
        {
            keyWanted = { key in query.selects(key) }
            stream = query.stream
            gen = query.gen
            guard let around = query.around, let fi = focusFile else { return }
            let safe = TimelineBuilder.safe
            let target = try TimelineBuilder.focusEvent(around, label: labels[fi], scan: scans[fi])
            let place = "the event at \(labels[fi]):\(around.line)"
            if let src = query.src, !SourceKey.sameBytes(src, target.key.src) {
                throw UsageError(
                    "\(place) is of src \(safe(target.key.shownSrc)), not --src \(SecretShapes.text(src))"
                )
            }
            if let session = query.session, !SourceKey.sameBytes(session, target.key.session) {
                let actual = target.key.shownSession.map(safe) ?? "(none)"
                throw UsageError("\(place) is of session \(actual), not --session \(session)")
            }
            if let s = query.stream, s != target.stream {
                throw UsageError("\(place) is of stream \(safe(target.stream)), not --stream \(s)")
            }
            if let g = query.gen, g != target.gen {
                throw UsageError(
                    "\(place) has \(target.gen.map { "gen \($0)" } ?? "no gen"), not --gen \(g)")
            }
            let key = target.key
            keyWanted = { $0 == key }
            if let g = target.gen {
                stream = target.stream
                gen = g
            }
            focus = (Int32(fi), around.line, key)
        }
    }

    /// The input `--around` names: the path as found (or as given), else the one input ending in
    /// it.
    static func resolve(
        _ around: (file: String, line: Int), inputs: [InputFile], labels: [String]
    ) throws(UsageError) -> Int {
        func plain(_ p: String) -> String {
            var p = p
            while p.hasPrefix("./") { p.removeFirst(2) }
            return p
        }
        let wanted = plain(around.file)
        if let i = labels.indices.first(where: {
            labels[$0] == around.file || inputs[$0].path == around.file
        }) {
            return i
        }
        if let i = inputs.indices.first(where: {
            !inputs[$0].isStdin && plain(inputs[$0].path) == wanted
        }) {
            return i
        }
        // The same file named another way (absolute, through a symbolic link): by its real path.
        if let real = InputFile.canonical(Array(around.file.utf8)),
            let i = inputs.indices.first(where: {
                !inputs[$0].isStdin && InputFile.canonical(inputs[$0].bytes) == real
            })
        {
            return i
        }
        let ending = inputs.indices.filter {
            !inputs[$0].isStdin && inputs[$0].path.hasSuffix("/" + wanted)
        }
        if ending.count == 1 { return ending[0] }
        if ending.count > 1 {
            throw UsageError(
                "--around \(around.file):\(around.line): several inputs end in \(around.file): "
                    + ending.prefix(5).map { labels[$0] }.joined(separator: ", ")
                    + (ending.count > 5 ? ", …" : ""))
        }
        var list = labels.prefix(10).joined(separator: ", ")
        if labels.count > 10 { list += ", … (\(labels.count) in all)" }
        if list.isEmpty { list = "none" }
        throw UsageError(
            "no event at \(around.file):\(around.line) (\(around.file) is not one of the inputs: \(list))"
        )
    }

    /// The source, stream and gen of the `--around` event, or why there is none.
    static func focusEvent(
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
                throw UsageError(
                    "\(place) (the file could not be read past line \(scan.lines): \(error.reason))"
                )
            }
            throw UsageError(
                "\(place) (the file has \(scan.lines) line\(scan.lines == 1 ? "" : "s"))")
        }
    }

    static func noMatch(
        _ query: TimelineQuery, census: Census, keyWanted: (SourceKey) -> Bool, errors: [InputError]
    ) -> UsageError {
        let (sourceOrder, counts, gensOf, genOrder) = (
            census.sourceOrder, census.counts, census.gensOf, census.genOrder
        )
        let limit = 20
        guard !sourceOrder.isEmpty else {
            let named = errors.prefix(3).map(\.description).joined(separator: "; ")
            let why =
                errors.isEmpty ? "" : " (\(errors.count) input(s) could not be read: \(named))"
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
                    let what =
                        g.gen.map { "\(safe(g.stream)) gen \($0)" }
                        ?? "\(safe(g.stream)) without gen"
                    return "\(what) (\(n) event\(n == 1 ? "" : "s"))"
                }
                text +=
                    "\n  \(displayName(key)): " + listed.joined(separator: ", ")
                    + (gens.count > limit ? ", … and \(gens.count - limit) more" : "")
            }
            if matching.count > limit { text += "\n  … and \(matching.count - limit) more" }
        } else {
            text =
                "no events match \(query.described); sources in the inputs (\(sourceOrder.count)):"
            for key in sourceOrder.prefix(limit) {
                let n = counts[key]!
                text += "\n  \(displayName(key))  (\(n) event\(n == 1 ? "" : "s"))"
            }
            if sourceOrder.count > limit { text += "\n  … and \(sourceOrder.count - limit) more" }
        }
        return UsageError(text)
    }
}

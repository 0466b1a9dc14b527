/// Pass A: what the inputs hold (sources, event counts, generations, the `--around` line), and
/// what to say when `--around` or the filters name nothing.
extension TimelineBuilder {
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

    static func inventory(
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
    static func resolve(
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
                throw UsageError("\(place) (the file could not be read past line \(scan.lines): \(error.reason))")
            }
            throw UsageError("\(place) (the file has \(scan.lines) line\(scan.lines == 1 ? "" : "s"))")
        }
    }

    static func noMatch(
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
}

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
        _ input: InputFile, index: Int, open: Auditor.Opener, query: TimelineQuery, trackGens: Bool,
        aroundLine: Int?
    ) -> Inventory {
        var out = Inventory()
        var line = 0
        let error = read(input, index: index, open: open, wantedFields: []) { reader in
            while let item = reader.next() {
                line += 1
                switch item {
                case .blank:
                    if line == aroundLine { out.around = .blank }
                case .malformed(let e):
                    if line == aroundLine {
                        out.around = .malformed(e.value(of: "reason")?.string ?? "malformed")
                    }
                case .event(let e, let id, _):
                    let key = reader.key(of: id)
                    if out.counts[key] == nil { out.order.append(key) }
                    out.counts[key, default: 0] += 1
                    if line == aroundLine {
                        out.around = .event(key, stream: String(e.stream), gen: e.gen)
                    }
                    if trackGens, query.selects(key) {
                        let g = GenKey(stream: String(e.stream), gen: e.gen)
                        if out.gens[key]?[g] == nil { out.genOrder[key, default: []].append(g) }
                        out.gens[key, default: [:]][g, default: 0] += 1
                    }
                }
            }
        }
        out.lines = line
        out.error = error
        return out
    }

    /// Opens `input` and hands its reader to `body`: the error that ended the reading, or that
    /// kept it from starting.
    static func read(
        _ input: InputFile, index: Int, open: Auditor.Opener, wantedFields: Set<String>?,
        _ body: (FileReader) -> Void
    ) -> InputError? {
        let source: any ByteSource
        do {
            source = try open(input)
        } catch {
            return error
        }
        let reader = FileReader(
            index: Int32(index), path: input.path, source: source, wantedFields: wantedFields)
        body(reader)
        return reader.stats.error
    }

    /// What the inventories hold together: the sources in the order they first appear in the
    /// inputs, with their event counts, their files and (when the query filters on them) their
    /// generations.
    struct Census {
        var sourceOrder: [SourceKey] = []
        var counts: [SourceKey: Int] = [:]
        var filesOf: [SourceKey: [Int]] = [:]
        var gensOf: [SourceKey: [GenKey: Int]] = [:]
        var genOrder: [SourceKey: [GenKey]] = [:]

        init(_ scans: [Inventory]) {
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
        }
    }
}

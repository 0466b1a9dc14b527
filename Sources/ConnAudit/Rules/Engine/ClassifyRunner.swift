/// Labels one generation for a `classify` rule: a label holds when the generation has an event
/// matching its `has` (if given) and none matching its `lacks` (if given). Selectors look back
/// over the generation, from the event being matched.
final class ClassifyRunner: Runner {
    private let labels: [Classification.Label]
    private var has: [Bool]
    private var lacks: [Bool]
    /// By ``EvNames`` id: whether any label's selector may match (nil: any event may).
    private let relevant: [Bool]?

    override init(_ compiled: CompiledRule, files: [String]) {
        if case .classify(let c, _, _, _) = compiled.rule.check { labels = c.labels } else { labels = [] }
        has = Array(repeating: false, count: labels.count)
        lacks = Array(repeating: false, count: labels.count)
        var ids: [Int32]? = []
        for label in labels {
            for sel in [label.has, label.lacks].compactMap({ $0 }) {
                guard let more = sel.ids, ids != nil else { ids = nil; break }
                ids! += more
            }
        }
        relevant = ids.map { ids in
            var table = Array(repeating: false, count: Int(ids.max() ?? 0) + 1)
            for id in ids where id >= 0 { table[Int(id)] = true }
            return table
        }
        super.init(compiled, files: files)
    }

    override func handle(_ e: Event, context: ContextScope, sink: FindingSink) {
        // Most events of a generation concern no label: a table lookup instead of copying labels.
        if let relevant, e.evID < 0 || Int(e.evID) >= relevant.count || !relevant[Int(e.evID)] { return }
        var ctx: EvalContext?
        for (i, label) in labels.enumerated() {
            if !has[i], let sel = label.has, sel.mayMatch(e.evID) {
                if ctx == nil { ctx = self.context(e) }
                if Evaluator.matches(sel, e, ctx!) != nil { has[i] = true }
            }
            if !lacks[i], let sel = label.lacks, sel.mayMatch(e.evID) {
                if ctx == nil { ctx = self.context(e) }
                if Evaluator.matches(sel, e, ctx!) != nil { lacks[i] = true }
            }
        }
    }

    override func finish(context: ContextScope, first: Event?, lastT: Double?, sink: FindingSink) {
        for (i, label) in labels.enumerated() {
            let holds = (label.has == nil || has[i]) && (label.lacks == nil || !lacks[i])
            sink.labels[compiled.index, default: [:]][label.name, default: 0] += holds ? 1 : 0
        }
    }
}

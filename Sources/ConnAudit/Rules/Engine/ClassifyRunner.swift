/// Labels one generation for a `classify` rule: a label holds when the generation has an event
/// matching its `has` (if given) and none matching its `lacks` (if given). Selectors look back
/// over the generation, from the event being matched.
final class ClassifyRunner: Runner {
    private let labels: [Classification.Label]
    private var has: [Bool]
    private var lacks: [Bool]

    override init(_ compiled: CompiledRule, files: [String]) {
        if case .classify(let c, _, _, _) = compiled.rule.check { labels = c.labels } else { labels = [] }
        has = Array(repeating: false, count: labels.count)
        lacks = Array(repeating: false, count: labels.count)
        super.init(compiled, files: files)
    }

    override func handle(_ e: Event, context: ContextScope, sink: FindingSink) {
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

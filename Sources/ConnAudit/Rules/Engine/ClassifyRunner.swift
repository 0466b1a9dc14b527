/// Labels one generation for a `classify` rule: a label holds when the generation has an event
/// matching its `has` (if given) and none matching its `lacks` (if given). Selectors look back
/// over the generation, from the event being matched.
final class ClassifyRunner: Runner {
    private let labels: [Classification.Label]
    private var has: [Bool]
    private var lacks: [Bool]
    /// The events any label's selector may match.
    private let relevant: EvIDSet

    override init(_ compiled: CompiledRule, files: [String]) {
        if case .classify(let c, _, _, _) = compiled.rule.check {
            labels = c.labels
        } else {
            labels = []
        }
        has = Array(repeating: false, count: labels.count)
        lacks = Array(repeating: false, count: labels.count)
        relevant = EvIDSet(labels.flatMap { [$0.has, $0.lacks].compactMap { $0 } })
        super.init(compiled, files: files)
    }

    override func handle(_ e: Event, context: ContextScope, sink: FindingSink) {
        // Most events of a generation concern no label: a table lookup instead of copying labels.
        guard relevant.contains(e.evID) else { return }
        var ctx: EvalContext?
        // Labels are read in place: a copy of one retains its name and both selectors.
        labels.withUnsafeBufferPointer { labels in
            for i in labels.indices {
                if !has[i], labels[i].has?.mayMatch(e.evID) == true {
                    if ctx == nil { ctx = self.context(e) }
                    if Evaluator.matches(labels[i].has!, e, ctx!) != nil { has[i] = true }
                }
                if !lacks[i], labels[i].lacks?.mayMatch(e.evID) == true {
                    if ctx == nil { ctx = self.context(e) }
                    if Evaluator.matches(labels[i].lacks!, e, ctx!) != nil { lacks[i] = true }
                }
            }
        }
    }

    /// Which labels hold on what the generation showed so far.
    private var results: [LabelResult] {
        labels.indices.map { i in
            LabelResult(
                rule: compiled.index, name: labels[i].name,
                holds: (labels[i].has == nil || has[i]) && (labels[i].lacks == nil || !lacks[i]))
        }
    }

    /// The runner's own state: each label's `has` flag, then each one's `lacks` flag; nil while
    /// all are unset (a fresh runner's).
    var flags: [Bool]? { has.contains(true) || lacks.contains(true) ? has + lacks : nil }

    /// Sets the state ``flags`` gave (a retired generation rebuilt without replaying its events).
    func restore(_ flags: [Bool]?) {
        guard let flags else {
            has = Array(repeating: false, count: labels.count)
            lacks = has
            return
        }
        has = Array(flags[..<labels.count])
        lacks = Array(flags[labels.count...])
    }

    /// A label depends on nothing but the generation's events: always retirable.
    override func retirement() -> Retirement { .now(results) }

    override func finish(context: ContextScope, first: Event?, lastT: Double?, sink: FindingSink) {
        sink.count(results)
    }
}

/// The rules of a run, split by the timelines they judge.
final class EvaluationPlan: @unchecked Sendable {
    let all: [CompiledRule]
    let generation: [CompiledRule]
    let source: [CompiledRule]
    let corpus: [CompiledRule]
    let generationDispatch: Dispatch
    let sourceDispatch: Dispatch
    let corpusDispatch: Dispatch
    /// Whether a corpus rule reacts to real events (then pass 1 keeps those events for it).
    let corpusWantsEvents: Bool
    let files: [String]

    init(rules: [Rule], overrides: [String: Value], files: [String]) {
        all = rules.enumerated().map { CompiledRule(rule: $0.element, index: $0.offset, overrides: overrides) }
        generation = all.filter { $0.rule.scope == .generation }
        source = all.filter { $0.rule.scope == .source }
        corpus = all.filter { $0.rule.scope == .corpus }
        generationDispatch = Dispatch(generation)
        sourceDispatch = Dispatch(source)
        corpusDispatch = Dispatch(corpus)
        corpusWantsEvents = corpus.contains { $0.wantsRealEvents }
        self.files = files
    }
}

/// One timeline: its rule runners, and where its findings take their context from.
final class Timeline {
    let runners: [RuleRunner]
    let dispatch: Dispatch
    let scope: ContextScope
    /// The timeline's first event (real, not a reader finding), for timeline-wide findings.
    private(set) var first: Event?

    init(rules: [CompiledRule], dispatch: Dispatch, scope: ContextScope, files: [String]) {
        runners = rules.map { RuleRunner($0, files: files) }
        self.dispatch = dispatch
        self.scope = scope
    }

    /// Hands `e` to the rules that react to it. The caller records `e` in the context afterwards.
    func observe(_ e: Event, sink: FindingSink) {
        if first == nil, !e.ev.hasPrefix("$") { first = e }
        for i in dispatch.rules(for: e.ev) { runners[i].observe(e, context: scope, sink: sink) }
    }

    func finish(sink: FindingSink) {
        for r in runners { r.finish(context: scope, first: first, sink: sink) }
    }
}

/// What one source's evaluation produced.
struct SourceOutcome {
    var sink: FindingSink
    var events: Int
    var generations: Int
}

/// Evaluates every rule scoped to one source and to its generations, fed in merged order.
///
/// Generation timelines are `(stream, gen)` of this source; events without `gen` reach only the
/// source timeline. Everything ends together at the source's last event (rules.md: the clock).
final class SourceEvaluator {
    let key: SourceKey
    private let plan: EvaluationPlan
    private let sink: FindingSink
    private let sourceTimeline: Timeline?
    private let context: TimelineContext
    private var generations: [GenerationKey: Timeline] = [:]
    private var generationOrder: [GenerationKey] = []
    private var seq = 0
    private var events = 0

    struct GenerationKey: Hashable {
        var stream: Substring
        var gen: Int64
    }

    init(key: SourceKey, plan: EvaluationPlan) {
        self.key = key
        self.plan = plan
        sink = FindingSink(files: plan.files)
        context = TimelineContext(source: key)
        sourceTimeline = plan.source.isEmpty ? nil
            : Timeline(rules: plan.source, dispatch: plan.sourceDispatch, scope: ContextScope(context: context), files: plan.files)
    }

    func feed(_ event: Event) {
        var e = event
        seq += 1
        e.seq = seq
        if !e.ev.hasPrefix("$") { events += 1 }
        sourceTimeline?.observe(e, sink: sink)
        if let gen = e.gen {
            let gk = GenerationKey(stream: e.stream, gen: gen)
            if let t = generations[gk] {
                t.observe(e, sink: sink)
            } else {
                generationOrder.append(gk)
                let t = Timeline(rules: plan.generation, dispatch: plan.generationDispatch,
                                 scope: ContextScope(context: context, stream: gk.stream, gen: gen), files: plan.files)
                generations[gk] = t
                t.observe(e, sink: sink)
            }
        }
        context.record(e, sink: sink)
    }

    func finish() -> SourceOutcome {
        sourceTimeline?.finish(sink: sink)
        for gk in generationOrder { generations[gk]!.finish(sink: sink) }
        return SourceOutcome(sink: sink, events: events, generations: generationOrder.count)
    }
}

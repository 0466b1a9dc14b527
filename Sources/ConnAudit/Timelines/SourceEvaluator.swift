/// The rules of a run, split by the timelines they judge.
final class EvaluationPlan: @unchecked Sendable {
    let all: [CompiledRule]
    let generation: [CompiledRule]
    let source: [CompiledRule]
    /// Corpus rules over the corpus timeline (not `classify`, which labels generations).
    let corpus: [CompiledRule]
    let classify: [CompiledRule]
    /// Per ``classify`` rule: what its `applies_if` contexts share (no history).
    let classifyShared: [EvalShared]
    let generationDispatch: Dispatch
    let sourceDispatch: Dispatch
    let corpusDispatch: Dispatch
    /// Generation rules plus the `classify` rules of a stream, for the streams classify names.
    let perStream: [String: (rules: [CompiledRule], dispatch: Dispatch)]
    /// Whether a corpus rule reacts to real events (then pass 1 keeps those events for it).
    let corpusWantsEvents: Bool
    let files: [String]

    init(rules: [Rule], overrides: [String: Value], files: [String]) {
        let all = rules.enumerated().map { CompiledRule(rule: $0.element, index: $0.offset, overrides: overrides) }
        for c in all { c.environment = EvalEnvironment(params: c.params, files: files) }
        self.all = all
        generation = all.filter { $0.rule.scope == .generation }
        source = all.filter { $0.rule.scope == .source }
        let classify = all.filter { if case .classify = $0.rule.check { return true } else { return false } }
        self.classify = classify
        classifyShared = classify.map { EvalShared(environment: $0.environment, statics: nil, runner: nil) }
        corpus = all.filter { r in r.rule.scope == .corpus && !classify.contains { $0 === r } }
        generationDispatch = Dispatch(generation)
        sourceDispatch = Dispatch(source)
        corpusDispatch = Dispatch(corpus)
        var perStream: [String: (rules: [CompiledRule], dispatch: Dispatch)] = [:]
        let generation = self.generation
        for c in classify {
            guard case .classify(let cl, _, _, _) = c.rule.check else { continue }
            let rules = (perStream[cl.stream]?.rules ?? generation) + [c]
            perStream[cl.stream] = (rules, Dispatch(rules))
        }
        self.perStream = perStream
        corpusWantsEvents = self.corpus.contains { $0.wantsRealEvents }
        self.files = files
    }
}

/// One timeline: its rule runners, and where its findings take their context from.
///
/// A runner is made when its rule first sees an event of the timeline: most generations meet
/// only a few of the rules (a `path` generation never wakes the `ws` rules), and a runner that
/// never saw an event is made at the end only if its rule can still say something then.
final class Timeline {
    private let rules: [CompiledRule]
    private var runners: [Runner?]
    private let files: [String]
    private weak var clock: SourceClock?
    let dispatch: Dispatch
    let scope: ContextScope
    /// The timeline's first event (real, not a reader finding), for timeline-wide findings.
    private(set) var first: Event?

    init(rules: [CompiledRule], dispatch: Dispatch, scope: ContextScope, files: [String], clock: SourceClock?) {
        self.rules = rules
        runners = Array(repeating: nil, count: rules.count)
        self.files = files
        self.clock = clock
        self.dispatch = dispatch
        self.scope = scope
    }

    private func runner(_ i: Int) -> Runner {
        if let r = runners[i] { return r }
        let compiled = rules[i]
        let runner: Runner
        switch compiled.rule.check {
        case .every, .never, .count: runner = BasicRunner(compiled, files: files)
        case .classify: runner = ClassifyRunner(compiled, files: files)
        default: runner = SequenceRunner(compiled, files: files)
        }
        runner.clock = clock
        runners[i] = runner
        return runner
    }

    /// Hands `e` to the rules that react to it. The caller records `e` in the context afterwards.
    func observe(_ e: Event, sink: FindingSink) {
        if first == nil, !e.isPseudo { first = e }
        for i in dispatch.rules(for: e.evID) { runner(i).observe(e, context: scope, sink: sink) }
    }

    func finish(lastT: Double?, sink: FindingSink) {
        for i in rules.indices where runners[i] != nil || rules[i].judgesEmptyTimelines {
            runner(i).finish(context: scope, first: first, lastT: lastT, sink: sink)
        }
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
/// source timeline. All of them share the source's clock: a deadline is decided by any event of
/// the source, and everything ends at the source's last event (rules.md: the clock).
final class SourceEvaluator {
    let key: SourceKey
    /// The line of this file where the source's last event is, when known (a large file is read
    /// ahead once for it): there the source ends and its state is freed.
    var endLine: Int?
    private let plan: EvaluationPlan
    private let sink: FindingSink
    private let sourceTimeline: Timeline?
    private let context: TimelineContext
    private let clock = SourceClock()
    private var generations: [GenerationKey: Timeline] = [:]
    private var generationOrder: [GenerationKey] = []
    private var seq = 0
    private var events = 0
    private var lastT: Double?
    /// The generation of the previous event: most events belong to the same one as the last.
    private var lastGeneration: (stream: String, streamIndex: Int32?, gen: Int64, timeline: Timeline)?

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
            : Timeline(rules: plan.source, dispatch: plan.sourceDispatch, scope: ContextScope(context: context),
                       files: plan.files, clock: clock)
    }

    /// Per `ev` id: the index in ``streamNames`` of its stream (-1: not worked out yet), so
    /// the generation of most events is found by comparing two integers.
    private var streamOfEvID: [Int32] = []
    private var streamNames: [String] = []

    /// The index of `e`'s stream in ``streamNames``; nil for a name no rule mentions (id -1).
    private func streamIndex(_ e: Event) -> Int32? {
        guard e.evID >= 0 else { return nil }
        let id = Int(e.evID)
        if id < streamOfEvID.count, streamOfEvID[id] >= 0 { return streamOfEvID[id] }
        if id >= streamOfEvID.count { streamOfEvID += Array(repeating: -1, count: id + 1 - streamOfEvID.count) }
        let stream = String(e.stream)
        let index: Int
        if let known = streamNames.firstIndex(of: stream) {
            index = known
        } else {
            streamNames.append(stream)
            index = streamNames.count - 1
        }
        streamOfEvID[id] = Int32(index)
        return Int32(index)
    }

    /// `classify` rules with an `applies_if` no event of this source has matched yet.
    private lazy var classifyPending = plan.classify.count { c in
        if case .classify(_, _, _, _?) = c.rule.check { return true }
        return false
    }

    func feed(_ e: Event) {
        seq += 1
        e.seq = seq
        let real = !e.isPseudo
        if real {
            events += 1
            lastT = e.t
            if classifyPending > 0 {
                for (i, c) in plan.classify.enumerated() where !sink.applicable.contains(c.index) {
                    if case .classify(_, _, _, let applies?) = c.rule.check {
                        let ctx = EvalContext(event: e, shared: plan.classifyShared[i])
                        if Evaluator.matches(applies, e, ctx) != nil {
                            sink.applicable.insert(c.index)
                            classifyPending -= 1
                        }
                    }
                }
            }
        }
        sourceTimeline?.observe(e, sink: sink)
        if let gen = e.gen {
            let timeline: Timeline
            let stream = streamIndex(e)
            // Same stream: by index when a rule names the `ev`, else by text.
            if let last = lastGeneration, last.gen == gen,
               stream.map({ $0 == last.streamIndex }) ?? (e.stream == last.stream) {
                timeline = last.timeline
            } else if let t = generations[GenerationKey(stream: e.stream, gen: gen)] {
                timeline = t
                lastGeneration = (String(e.stream), stream, gen, t)
            } else {
                let gk = GenerationKey(stream: e.stream, gen: gen)
                generationOrder.append(gk)
                let rules = plan.perStream[String(gk.stream)] ?? (plan.generation, plan.generationDispatch)
                timeline = Timeline(rules: rules.rules, dispatch: rules.dispatch,
                                    scope: ContextScope(context: context, stream: gk.stream, gen: gen),
                                    files: plan.files, clock: clock)
                generations[gk] = timeline
                lastGeneration = (String(gk.stream), stream, gen, timeline)
            }
            timeline.observe(e, sink: sink)
        }
        if real { clock.advance(to: e.t, sink: sink) }
        context.record(e, sink: sink)
    }

    func finish() -> SourceOutcome {
        sourceTimeline?.finish(lastT: lastT, sink: sink)
        for gk in generationOrder { generations[gk]!.finish(lastT: lastT, sink: sink) }
        return SourceOutcome(sink: sink, events: events, generations: generationOrder.count)
    }
}

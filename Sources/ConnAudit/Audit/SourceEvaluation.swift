/// Evaluates every rule scoped to one source and to its generations, fed in merged order (the
/// events a ``SourceEvaluator`` hands it).
///
/// Generation timelines are `(stream, gen)` of this source; events without `gen` reach only the
/// source timeline. All of them share the source's clock: a deadline is decided by any event of
/// the source, and everything ends at the source's last event (rules.md: the clock).
final class SourceEvaluation {
    private let plan: EvaluationPlan
    private let sink: FindingSink
    private let sourceTimeline: Timeline?
    private let context: TimelineContext
    private let clock = SourceClock()
    private var generations: [GenerationKey: Timeline] = [:]
    private var retired: [GenerationKey: RetiredTimeline] = [:]
    /// The names the encoded logs of ``retired`` refer to.
    private let retiredNames = EventLogNames()
    /// The distinct label lists of retired timelines, each kept once (most generations end up
    /// with the same): its index in ``labelListResults``.
    private var labelLists: [LabelList: Int32] = [:]
    private var labelListResults: [[LabelResult]] = []
    /// Per list of ``labelListResults``: how many timelines that have it are retired. The end
    /// counts each list's labels once for all of them.
    private var labelListRetired: [Int] = []
    private var generationOrder: [GenerationKey] = []
    /// Live generation timelines in the order they are due to be looked at for retirement.
    private var idle: [IdleEntry] = []
    private var idleHead = 0
    private var retirements = 0
    private var rebuilds = 0
    /// Runners of retired generations, set back for the next ones.
    private let spares: RunnerSpares

    private struct IdleEntry {
        var key: GenerationKey
        var timeline: Timeline?
        var checkAt: Int
    }

    /// A generation timeline's idle window (``EvaluationPlan/retireIdleAfter`` at first) doubles
    /// each time it is rebuilt, up to this.
    static let maxIdleWindow = 1 << 20
    private var seq = 0
    private var events = 0
    private var lastT: Double?
    /// The generation of the previous event (most events belong to the same one as the last):
    /// its `gen`, its stream's index in ``streamNames``, and its timeline. Apart, not one tuple:
    /// each event reads two numbers, not the timeline. ``generations`` owns the timeline;
    /// retiring it clears this first.
    private var lastTimeline: Unmanaged<Timeline>?
    private var lastGen: UInt64 = 0
    private var lastStreamIndex: Int32 = -1

    /// A label list as a key of ``labelLists``: hashed by its rules and flags, not its names
    /// (each rule's label names come in one order), and compared whole.
    struct LabelList: Hashable {
        var results: [LabelResult]

        func hash(into hasher: inout Hasher) {
            var h = UInt64(results.count)
            for r in results {
                h =
                    (h ^ UInt64(UInt(bitPattern: r.rule)) << 1 ^ (r.holds ? 1 : 0))
                    &* 0x9E37_79B9_7F4A_7C15
            }
            hasher.combine(h)
        }

        static func == (a: LabelList, b: LabelList) -> Bool { a.results == b.results }
    }

    /// A generation: its stream by index in ``streamNames`` (one index per text, as `==` tells
    /// texts apart), and its `gen`. Two integers: hashed and compared without reading a text.
    struct GenerationKey: Hashable {
        var stream: Int32
        var gen: UInt64
    }

    init(key: SourceKey, plan: EvaluationPlan) {
        self.plan = plan
        sink = FindingSink(files: plan.files, keep: plan.keepFindings, divert: plan.divert)
        context = TimelineContext(source: key, enabled: plan.showsContext)
        spares = RunnerSpares(rules: plan.all.count)
        classifyPending = plan.classify.count { c in
            if case .classify(_, _, _, _?) = c.rule.check { return true }
            return false
        }
        sourceTimeline =
            plan.source.isEmpty
            ? nil
            : Timeline(
                rules: plan.source, dispatch: plan.sourceDispatch,
                scope: ContextScope(context: context),
                files: plan.files, clock: clock, shapes: plan.classifyShapes)
    }

    /// Per `ev` id: the index in ``streamNames`` of its stream (-1: not worked out yet), so
    /// the generation of most events is found by comparing two integers.
    private var streamOfEvID: [Int32] = []
    /// Every stream met, each text once (as `==` tells them apart), and the rules of each.
    private var streamNames: [String] = []
    /// Each text of ``streamNames`` to its index: a source may name any number of streams, and
    /// finding one must not take longer the more there are.
    private var streamPlaces: [String: Int32] = [:]
    private var streamRules: [(rules: [CompiledRule], dispatch: Dispatch)] = []
    /// The last `ev` text no rule names (id -1) and its stream's index: the reader hands out
    /// one text per name, so the next such event is usually known by the text's two words.
    private var lastUnnamedEv = ""
    private var lastUnnamedStream: Int32 = -1

    /// The index of `e`'s stream in ``streamNames``.
    @inline(__always) private func streamIndex(_ e: Event) -> Int32 {
        guard e.evID >= 0 else {
            if lastUnnamedStream >= 0, e.ev.hasSameBytes(as: lastUnnamedEv) {
                return lastUnnamedStream
            }
            return unnamedStreamIndex(e)
        }
        let id = Int(e.evID)
        if id < streamOfEvID.count {
            let known = streamOfEvID[id]
            if known >= 0 { return known }
        }
        return newStreamIndex(e)
    }

    /// ``streamIndex(_:)`` for an id met the first time.
    @inline(never) private func newStreamIndex(_ e: Event) -> Int32 {
        let id = Int(e.evID)
        if id >= streamOfEvID.count {
            streamOfEvID += Array(repeating: -1, count: id + 1 - streamOfEvID.count)
        }
        let index = place(of: e.stream)
        streamOfEvID[id] = index
        return index
    }

    /// ``streamIndex(_:)`` for an `ev` no rule names, not the last such one: names of one stream
    /// that take turns are found by the stream's text, before the table.
    @inline(never) private func unnamedStreamIndex(_ e: Event) -> Int32 {
        let index =
            lastUnnamedStream >= 0 && e.stream == streamNames[Int(lastUnnamedStream)]
            ? lastUnnamedStream : place(of: e.stream)
        (lastUnnamedEv, lastUnnamedStream) = (e.ev, index)
        return index
    }

    /// The index of `stream` in ``streamNames``, added if new.
    private func place(of stream: Substring) -> Int32 {
        let text = String(stream)
        if let known = streamPlaces[text] { return known }
        let index = Int32(streamNames.count)
        streamPlaces[text] = index
        streamNames.append(text)
        streamRules.append(plan.perStream[text] ?? (plan.generation, plan.generationDispatch))
        return index
    }

    /// `classify` rules with an `applies_if` no event of this source has matched yet.
    private var classifyPending: Int

    func feed(_ e: Event) {
        seq += 1
        e.seq = seq
        let real = !e.isPseudo
        if real {
            events += 1
            lastT = e.t
            if classifyPending > 0 { noteApplicable(e) }
        }
        sourceTimeline?.observe(e, sink: sink)
        if let gen = e.gen {
            let timeline: Unmanaged<Timeline>
            let stream = streamIndex(e)
            if let last = lastTimeline, lastGen == gen, stream == lastStreamIndex {
                timeline = last
            } else {
                timeline = self.timeline(stream: stream, gen: gen)
            }
            // Unretained: ``generations`` holds the timeline, and nothing leaves it during a feed
            // but in ``retireIdle()``, below.
            timeline._withUnsafeGuaranteedRef {
                $0.lastSeen = seq
                $0.observe(e, sink: sink, logging: clock)
            }
        }
        if real { clock.advance(to: e.t, seq: seq, sink: sink) }
        context.record(e, sink: sink)
        if idleHead < idle.count, idle[idleHead].checkAt <= seq { retireIdle() }
    }

    /// The `classify` rules whose `applies_if` `e` matches, noted as applicable (while some
    /// are not yet).
    @inline(never) private func noteApplicable(_ e: Event) {
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

    /// The timeline of generation `gen` of the stream at `stream`, live, revived or made, and
    /// kept as the last one: for an event of another generation than the previous event's.
    @inline(never) private func timeline(stream: Int32, gen: UInt64) -> Unmanaged<Timeline> {
        let gk = GenerationKey(stream: stream, gen: gen)
        let found: Timeline
        if let t = generations[gk] {
            found = t
        } else if let r = retired.removeValue(forKey: gk) {
            found = revive(r, key: gk)
        } else {
            generationOrder.append(gk)
            found = makeTimeline(gk)
        }
        let timeline = Unmanaged.passUnretained(found)
        (lastTimeline, lastGen, lastStreamIndex) = (timeline, gen, stream)
        return timeline
    }

    private func makeTimeline(_ gk: GenerationKey, idleWindow: Int? = nil) -> Timeline {
        let rules = streamRules[Int(gk.stream)]
        let timeline = Timeline(
            rules: rules.rules, dispatch: rules.dispatch,
            scope: ContextScope(
                context: context, stream: streamNames[Int(gk.stream)][...], gen: gk.gen),
            files: plan.files, clock: clock, shapes: plan.classifyShapes, logNames: retiredNames,
            idleWindow: idleWindow ?? plan.retireIdleAfter, spares: spares)
        generations[gk] = timeline
        idle.append(IdleEntry(key: gk, timeline: timeline, checkAt: seq + timeline.idleWindow))
        return timeline
    }

    /// Rebuilds a retired timeline by replaying its events (see ``RetiredTimeline``).
    private func revive(_ r: RetiredTimeline, key gk: GenerationKey) -> Timeline {
        rebuilds += 1
        labelListRetired[Int(r.labelList)] -= 1
        let timeline = makeTimeline(
            gk, idleWindow: min(max(1, Int(r.idleWindow) * 2), Self.maxIdleWindow))
        context.replaying = true
        timeline.rebuild(
            from: r, names: retiredNames, clock: clock, discarded: FindingSink(files: plan.files))
        context.replaying = false
        return timeline
    }

    /// Retires the live generation timelines that have been idle long enough and whose runners
    /// wait for nothing; looks again later at those whose runners still wait.
    private func retireIdle() {
        while idleHead < idle.count, idle[idleHead].checkAt <= seq {
            let entry = idle[idleHead]
            idle[idleHead].timeline = nil
            idleHead += 1
            guard let timeline = entry.timeline, generations[entry.key] === timeline else {
                continue
            }
            if timeline.lastSeen + timeline.idleWindow > seq {
                idle.append(
                    IdleEntry(
                        key: entry.key, timeline: timeline,
                        checkAt: timeline.lastSeen + timeline.idleWindow))
                continue
            }
            switch timeline.retire(clock: clock) {
            case .retired(var r, let labels):
                generations[entry.key] = nil
                retirements += 1
                r.labelList = labelList(labels)
                labelListRetired[Int(r.labelList)] += 1
                retired[entry.key] = r
                timeline.giveRunnersBack()
                if lastTimeline?.toOpaque() == Unmanaged.passUnretained(timeline).toOpaque() {
                    lastTimeline = nil
                }
            case .later:
                // Looked at again later, and later each time it is still waiting (an obligation
                // that only the end decides must not cost a look every few events).
                timeline.busyChecks += 1
                let wait = max(1, timeline.idleWindow) << min(timeline.busyChecks, 4)
                idle.append(IdleEntry(key: entry.key, timeline: timeline, checkAt: seq + wait))
            case .never:
                break
            }
        }
        if idleHead > 1024, idleHead * 2 > idle.count {
            idle.removeFirst(idleHead)
            idleHead = 0
        }
    }

    /// The last list ``labelList(_:)`` answered, and its index: most generations retire with
    /// the same labels as the one before, found by one compare without hashing.
    private var lastLabelList: [LabelResult] = []
    private var lastLabelListIndex: Int32 = -1

    /// The index of `labels` in ``labelListResults``, added if new.
    private func labelList(_ labels: [LabelResult]) -> Int32 {
        if lastLabelListIndex >= 0, labels == lastLabelList { return lastLabelListIndex }
        let index = labelListIndex(labels)
        (lastLabelList, lastLabelListIndex) = (labels, index)
        return index
    }

    /// ``labelList(_:)`` by the table.
    private func labelListIndex(_ labels: [LabelResult]) -> Int32 {
        let key = LabelList(results: labels)
        if let known = labelLists[key] { return known }
        let index = Int32(labelListResults.count)
        labelLists[key] = index
        labelListResults.append(labels)
        labelListRetired.append(0)
        return index
    }

    func finish() -> SourceOutcome {
        sourceTimeline?.finish(lastT: lastT, sink: sink)
        for gk in generationOrder {
            if let timeline = generations[gk] { timeline.finish(lastT: lastT, sink: sink) }
        }
        // The retired timelines' runners agreed their finish would add their labels and nothing
        // else: each distinct list is counted once for all the timelines that have it.
        for (i, n) in labelListRetired.enumerated() where n > 0 {
            sink.count(labelListResults[i], times: n)
        }
        return SourceOutcome(
            sink: sink, events: events, generations: generationOrder.count,
            retirements: retirements, rebuilds: rebuilds, runnersReused: spares.taken)
    }
}

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
    /// Per ``classify`` rule, by its index in the run: what its runners share.
    let classifyShapes: [Int: ClassifyShape]
    /// Whether a corpus rule reacts to real events (then pass 1 keeps those events for it).
    let corpusWantsEvents: Bool
    let files: [String]
    /// See ``Auditor/retireIdleAfter``.
    let retireIdleAfter: Int
    /// See ``Auditor/keepFindings``.
    let keepFindings: Int?
    /// See ``Auditor/divert``.
    let divert: ViolationFilter?
    /// See ``Auditor/judged``: nil, every source is judged by every rule.
    let judged: (@Sendable (SourceKey) -> Bool)?
    /// For the sources ``judged`` leaves out: the same compiled rules, of which only the
    /// `classify` ones run (``init(labelsOf:)``).
    private(set) var labelsOnly: EvaluationPlan?
    /// Whether findings show the events around them: a plan whose sources and generations run
    /// only `classify` rules that never stop (``CompiledRule/movesAggregatesAlone``) makes no
    /// findings there, and keeps no ring of recent events.
    let showsContext: Bool

    init(
        rules: [Rule], overrides: [String: Value], files: [String], retireIdleAfter: Int = 256,
        keepFindings: Int? = nil,
        divert: ViolationFilter? = nil, judged: (@Sendable (SourceKey) -> Bool)? = nil
    ) {
        self.retireIdleAfter = retireIdleAfter
        self.keepFindings = keepFindings
        self.divert = divert
        self.judged = judged
        let all = rules.enumerated().map {
            CompiledRule(rule: $0.element, index: $0.offset, overrides: overrides)
        }
        for c in all { c.environment = EvalEnvironment(params: c.params, files: files) }
        self.all = all
        generation = all.filter { $0.rule.scope == .generation }
        source = all.filter { $0.rule.scope == .source }
        let classify = all.filter {
            if case .classify = $0.rule.check { return true } else { return false }
        }
        self.classify = classify
        classifyShapes = Dictionary(
            classify.map { ($0.index, ClassifyShape($0)) }, uniquingKeysWith: { a, _ in a })
        classifyShared = classify.map {
            EvalShared(environment: $0.environment, statics: nil, runner: nil)
        }
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
        showsContext =
            !generation.isEmpty || !source.isEmpty
            || !classify.allSatisfy(\.movesAggregatesAlone)
        if judged != nil { labelsOnly = EvaluationPlan(labelsOf: self) }
    }

    /// `full`'s rules (the same objects, so rule indexes and label counts agree), of which only
    /// the `classify` rules run on sources and generations: what a source adds to every report
    /// even when its own findings are not wanted (its generations' labels, whether a `classify`
    /// rule applies). Corpus rules run on the corpus timeline, which no source plan feeds.
    private init(labelsOf full: EvaluationPlan) {
        retireIdleAfter = full.retireIdleAfter
        keepFindings = full.keepFindings
        divert = full.divert
        judged = nil
        showsContext = false
        all = full.all
        generation = []
        source = []
        corpus = full.corpus
        classify = full.classify
        classifyShapes = full.classifyShapes
        classifyShared = full.classifyShared
        generationDispatch = Dispatch([])
        sourceDispatch = Dispatch([])
        corpusDispatch = full.corpusDispatch
        var perStream: [String: (rules: [CompiledRule], dispatch: Dispatch)] = [:]
        for c in classify {
            guard case .classify(let cl, _, _, _) = c.rule.check else { continue }
            let rules = (perStream[cl.stream]?.rules ?? []) + [c]
            perStream[cl.stream] = (rules, Dispatch(rules))
        }
        self.perStream = perStream
        corpusWantsEvents = full.corpusWantsEvents
        files = full.files
    }

    /// The plan a source is evaluated with: this one, or for a source ``judged`` leaves out,
    /// ``labelsOnly``.
    func plan(for key: SourceKey) -> EvaluationPlan {
        guard let judged, let labelsOnly, !judged(key) else { return self }
        return labelsOnly
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
    /// The same runners, not counted: ``observe`` calls them through these without a retain and
    /// a release per call (``runners`` owns them for as long as the timeline lives). A runner is
    /// set once and never replaced; code that ever clears one must clear both.
    private var borrowed: [Unmanaged<Runner>?]
    private let files: [String]
    /// See ``EvaluationPlan/classifyShapes``.
    private let shapes: [Int: ClassifyShape]
    /// The source's spare runners: taken before one is made, given the runners when the
    /// timeline is retired (nil: none, each runner is made).
    private let spares: RunnerSpares?
    private(set) weak var clock: SourceClock?
    let dispatch: Dispatch
    let scope: ContextScope
    /// The timeline's first event (real, not a reader finding), for timeline-wide findings.
    private(set) var first: Event?
    /// The events some rule reacted to, each with the highest time the source clock was advanced
    /// to since the previous one came (``SourceClock/highest(since:)``): what a replay needs to
    /// rebuild the runners once the timeline is retired (``RetiredTimeline``). Encoded as they
    /// come: the log holds no event, and retiring the timeline copies its bytes.
    /// A timeline none of whose rules needs a replay (``CompiledRule/needsReplay``) keeps only
    /// its first ``keepLogUpTo`` events: past them it retires to its runners' states alone, and
    /// ``logCount`` still counts what it would have logged.
    private var log: EventLogWriter
    /// Whether ``log`` is kept: false for a timeline that is never retired, and once the log
    /// grew past ``logLimit`` (or lost the clock's times): such a timeline is never retired.
    private var logs: Bool
    /// How many events ``log`` would hold were every one kept.
    private var logCount = 0
    /// Whether a rule of the timeline needs a replay: then ``log`` keeps every event.
    private let replays: Bool
    static let logLimit = 1024
    /// The `$seq` of the last event of ``log`` (nil: the log is empty), kept apart so that the
    /// clock is asked about a number, not the log's last entry and its event: the highest time
    /// it reached since then (``SourceClock/highest(since:)``) is each logged event's time.
    private var lastLoggedSeq: Int?
    /// False when the log starts after a retirement that kept no events (``retire()``):
    /// then the runners that need no replay are set back from their state, not rebuilt by it.
    private var logComplete = true
    /// A whole log of at most this many events is kept even when no runner needs a replay: a
    /// runner's saved state (aggregates of a few events each) is larger than a short log.
    static let keepLogUpTo = 8
    /// The source's `$seq` of the last event this timeline saw.
    var lastSeen = 0
    /// How many source events without one of its own before retiring it is tried.
    var idleWindow: Int

    /// - Parameter logNames: the source's table of names its logs refer to, for a timeline that
    ///   may be retired (generation timelines): then it keeps its log.
    init(
        rules: [CompiledRule], dispatch: Dispatch, scope: ContextScope, files: [String],
        clock: SourceClock?, shapes: [Int: ClassifyShape] = [:],
        logNames: EventLogNames? = nil, idleWindow: Int = 0, spares: RunnerSpares? = nil
    ) {
        self.spares = spares
        log = EventLogWriter(names: logNames)
        logs = logNames != nil
        replays = rules.contains { $0.needsReplay }
        self.idleWindow = idleWindow
        self.rules = rules
        runners = Array(repeating: nil, count: rules.count)
        borrowed = Array(repeating: nil, count: rules.count)
        self.files = files
        self.shapes = shapes
        self.clock = clock
        self.dispatch = dispatch
        self.scope = scope
    }

    private func runner(_ i: Int) -> Runner {
        if let r = runners[i] { return r }
        let compiled = rules[i]
        let runner: Runner
        if let spare = spares?.take(compiled.index) {
            runner = spare
        } else {
            runner = Self.makeRunner(compiled, files: files, shapes: shapes)
        }
        runner.clock = clock
        runners[i] = runner
        borrowed[i] = Unmanaged.passUnretained(runner)
        return runner
    }

    /// A new runner of `compiled`, of the kind its check needs (`shapes`: the plan's classify
    /// shapes, by rule index).
    static func makeRunner(
        _ compiled: CompiledRule, files: [String], shapes: [Int: ClassifyShape]
    ) -> Runner {
        switch compiled.rule.check {
        case .every, .never, .count: BasicRunner(compiled, files: files)
        case .classify: ClassifyRunner(compiled, files: files, shape: shapes[compiled.index])
        default: SequenceRunner(compiled, files: files)
        }
    }

    /// Hands the runners to the source's spares (``RunnerSpares``), once the timeline is retired:
    /// it is dropped right after, and judges nothing more.
    func giveRunnersBack() {
        guard let spares else { return }
        for i in runners.indices {
            guard let runner = runners[i] else { continue }
            runners[i] = nil
            borrowed[i] = nil
            spares.keep(runner)
        }
    }

    /// Hands `e` to the rules that react to it, and logs it when the timeline is retirable and
    /// `clock`, the source's, is given (not when it is being rebuilt: see
    /// ``rebuild(from:names:clock:discarded:)``). The caller records `e` in the context afterwards.
    ///
    /// The caller passes the clock it owns (the timeline's ``clock`` is that one whenever it
    /// logs): a parameter is borrowed for the call, where reading the weak ``clock`` would
    /// retain and release it per event, on its side table's slow path.
    ///
    /// Inlined where it is called: a source's feed calls it up to twice an event (its source
    /// and its generation timeline), and the call's frame is a large part of its cost.
    @inline(__always) func observe(
        _ e: Event, sink: FindingSink, logging clock: borrowing SourceClock? = nil
    ) {
        let isFirst = first == nil && !e.isPseudo
        if isFirst { first = e }
        let reacting = dispatch.rules(for: e.evID)
        guard !reacting.isEmpty else { return }
        if logs, clock != nil {
            if !replays, logCount > Self.keepLogUpTo {
                // Only counted: the log stays empty, and the retirement keeps the runners'
                // states, which no time decides (their rebuild replays no event). Whether the
                // clock still knows its times since the last event is asked once, at retirement.
                if logCount < Self.logLimit {
                    logCount += 1
                    lastLoggedSeq = e.seq
                } else {
                    giveUpLog()
                }
            } else {
                logEvent(e, clock: clock, isFirst: isFirst)
            }
        }
        for k in reacting {
            let entry = dispatch.entry(at: k)
            let r = borrowed[entry.rule] ?? Unmanaged.passUnretained(runner(entry.rule))
            r._withUnsafeGuaranteedRef {
                $0.observe(e, route: entry.route, context: scope, sink: sink)
            }
        }
    }

    /// ``observe(_:sink:logging:)``'s log while it keeps events (or may give them up).
    @inline(__always) private func logEvent(
        _ e: Event, clock: borrowing SourceClock?, isFirst: Bool
    ) {
        // Past its limit, or with the clock's times since its last event forgotten (t falling
        // for thousands of events), the log is given up: the timeline stays as it is.
        // The clock's highest time since the last logged event (-infinity before any); nil
        // when it no longer knows. Asked through `?`: the borrowed clock is not copied.
        let time: Double? =
            if let since = lastLoggedSeq { clock?.highest(since: since) } else { -.infinity }
        if logCount < Self.logLimit, let time {
            if replays || logCount < Self.keepLogUpTo {
                log.append(e, clock: time, isFirst: isFirst)
            } else if logCount == Self.keepLogUpTo {
                // Past it, only the runners' states are kept at retirement.
                log.reset()
            }
            logCount += 1
            lastLoggedSeq = e.seq
        } else {
            giveUpLog()
        }
    }

    /// The timeline keeps no log from here, and is never retired.
    @inline(never) private func giveUpLog() {
        logs = false
        log.discard()
    }

    /// Rebuilds the runners of a retired timeline by replaying its events, on a clock of its own
    /// set to each logged time in turn: its runners' deadlines are decided exactly where they were
    /// the first time, and no other timeline's deadline is touched. Then `clock`, the source's,
    /// takes over. The replay's findings go to `discarded`.
    func rebuild(
        from r: RetiredTimeline, names: EventLogNames, clock source: SourceClock,
        discarded: FindingSink
    ) {
        let replay = SourceClock()
        clock = replay
        let (events, first) = r.log.decode(names: names)
        for entry in events {
            replay.advance(to: entry.clock, sink: discarded)
            observe(entry.event, sink: discarded)
        }
        replay.advance(to: r.retiredAt, sink: discarded)
        for state in r.states {
            let runner = runner(state.rule)
            runner.aggregateState = state.aggregates
            (runner as? ClassifyRunner)?.restore(state.flags)
        }
        logComplete = r.logComplete
        clock = source
        for case let runner? in runners { runner.clock = source }
        replay.move(to: source)
        for entry in events {
            log.append(entry.event, clock: entry.clock, isFirst: entry.event === first)
        }
        logCount = events.count
        lastLoggedSeq = events.last?.event.seq
        self.first = first
    }

    /// Tries to retire the timeline: every runner must agree (``Runner/retirement()``) — nothing
    /// waits for the clock or for the end, so its events alone rebuild it exactly.
    /// Whether a timeline could be retired (see ``retire()``).
    enum Retirement {
        /// Retired, with the labels its finish would count.
        case retired(RetiredTimeline, labels: [LabelResult])
        /// Not yet: one of its runners waits for something.
        case later
        /// Never: it gave up its log, or one of its runners never allows it (then the log is
        /// given up now).
        case never
    }

    /// - Parameter clock: the source's clock, passed as ``observe(_:sink:logging:)`` gets it.
    func retire(clock: SourceClock) -> Retirement {
        guard logs else { return .never }
        var labels: [LabelResult] = []
        var anyReplay = false
        for i in rules.indices where runners[i] != nil || rules[i].judgesEmptyTimelines {
            let runner = runner(i)
            switch runner.retirement() {
            case .now(let said):
                if labels.isEmpty { labels = said } else { labels += said }
                if rules[i].needsReplay { anyReplay = true }
            case .later: return .later
            case .never:
                giveUpLog()
                return .never
            }
        }
        // The highest time the clock reached since the last logged event, as ``observe`` asks.
        let since = lastLoggedSeq.map { clock.highest(since: $0) } ?? -.infinity
        guard let retiredAt = since else {
            giveUpLog()
            return .never
        }
        // No runner needs a replay: their states are all it keeps (a fresh one's not even that) —
        // unless the log is whole and shorter than those states would be. Else the log, whole; or,
        // when it starts after a retirement that kept no events, the log and the states of the
        // runners that need no replay (each set back after the replay, fresh ones too).
        // The states are taken only when kept: a whole log that replays the runners (most
        // generations') keeps none.
        let restored: [RunnerState]
        let statesOnly = !anyReplay && (!logComplete || logCount > Self.keepLogUpTo)
        if statesOnly {
            log.reset()
            restored = states().filter { $0.flags != nil || $0.aggregates != nil }
        } else {
            restored = logComplete ? [] : states()
        }
        return .retired(
            RetiredTimeline(
                log: log.encoded(first: first), retiredAt: retiredAt,
                states: restored, idleWindow: Int32(clamping: idleWindow), labelList: -1,
                logComplete: !statesOnly && logComplete),
            labels: labels)
    }

    /// The states of the runners that need no replay (``RunnerState``), in rule order: those the
    /// timeline holds once ``retire(clock:)`` has asked each of its runners (asking makes those
    /// of rules that judge empty timelines).
    private func states() -> [RunnerState] {
        var states: [RunnerState] = []
        for i in rules.indices where !rules[i].needsReplay {
            guard let runner = runners[i] else { continue }
            states.append(
                RunnerState(
                    rule: i, flags: (runner as? ClassifyRunner)?.flags,
                    aggregates: runner.aggregateState))
        }
        return states
    }

    /// How many times in a row retiring it was tried while something of it waited.
    var busyChecks = 0

    func finish(lastT: Double?, sink: FindingSink) {
        for i in rules.indices where runners[i] != nil || rules[i].judgesEmptyTimelines {
            runner(i).finish(context: scope, first: first, lastT: lastT, sink: sink)
        }
    }
}

/// A generation timeline that went quiet, kept as the events that rebuild it.
///
/// A source can have a generation every few seconds for days, and an ended generation cannot be
/// forgotten: a late callback of it is exactly what the rules look for (`ws.single-close` must
/// still see a second close). But most of a timeline's memory is its runners, not its events.
/// So a generation timeline that saw no event of its own for a while, and none of whose runners
/// waits for anything (no open obligation on the clock, no look-ahead, nothing its finish would
/// report), is *retired*: its runners are dropped and it keeps only the events they reacted to,
/// with the clock as each found it, encoded as bytes (``EncodedEventLog``), and the `classify`
/// labels its finish would count. If an event
/// of it arrives after all, the runners are rebuilt by replaying those events on a clock set as it
/// was then (every decision they made depended on nothing else), the findings of the replay —
/// made and reported the first time — are thrown away, and the new event is judged as if nothing
/// had happened. At the end a retired timeline only counts its labels.
struct RetiredTimeline {
    /// The events to replay (none when no runner needs a replay: ``CompiledRule/needsReplay``)
    /// and the timeline's first event, encoded (a few bytes per event instead of an object).
    let log: EncodedEventLog
    /// The highest time the source clock reached after the last logged event: the replay ends
    /// there.
    let retiredAt: Double
    /// The states of runners that need no replay, set back after it
    /// (``Timeline/retire(clock:)``).
    let states: [RunnerState]
    /// The window it had (the next one doubles it, up to ``SourceEvaluator/maxIdleWindow``, which
    /// is far below `Int32.max`). Last, with ``labelList`` and ``logComplete``: the three share
    /// two words.
    let idleWindow: Int32
    /// The labels its finish would count, as an index into the evaluator's distinct lists (its
    /// `labelListResults`): most generations end up with the same.
    var labelList: Int32
    /// Whether ``log`` holds every event the rules reacted to since the generation began.
    let logComplete: Bool
}

/// The state of a runner that needs no replay (by its index in the timeline's rules): its running
/// aggregates and, for a `classify`, its flags; nil for a fresh runner's.
struct RunnerState {
    var rule: Int
    var flags: [Bool]?
    var aggregates: [Runner.Aggregate]?
}

/// What one source's evaluation produced.
struct SourceOutcome {
    var sink: FindingSink
    var events: Int
    var generations: Int
    /// How many times a generation timeline was retired, and rebuilt (``RetiredTimeline``).
    var retirements = 0
    var rebuilds = 0
    /// How many runners a generation took from the spares of retired ones (``RunnerSpares``).
    var runnersReused = 0
}

/// One source of a file, fed its events in merged order: they are held until the source has more
/// than a ring of context's worth (``holdUpTo``), and only then does its evaluation
/// (``SourceEvaluation``: runners, clock, context ring) begin, with the held events first.
///
/// A source's outcome depends on its own events alone, in their order: when they are judged
/// changes nothing a report says. But its evaluation costs about 20 KB before it has judged a
/// thing (a runner per rule that reacts, on the source timeline and each generation's), and a
/// file that interleaves thousands of devices keeps all of them open at once. Held, a source
/// costs its events, which the context ring would hold anyway: a device of three lines about
/// 0.5 KB. Past ``holdUpTo`` events the ring alone keeps as many, so holding never costs more
/// than judging would.
final class SourceEvaluator {
    let key: SourceKey
    /// The line of this file where the source's last event is, when known (a large file is read
    /// ahead once for it): there the source ends and its state is freed.
    var endLine: Int?
    private let plan: EvaluationPlan
    /// The events fed before the evaluation began, in order.
    private var held: [Event] = []
    private var evaluation: SourceEvaluation?
    /// ``evaluation``, not counted: ``feed(_:)`` calls it through this without a retain and a
    /// release per event (``evaluation`` owns it; both are set together, and cleared together).
    private var running: Unmanaged<SourceEvaluation>?
    static let holdUpTo = TimelineContext.ring
    /// A source whose plan shows no context (``EvaluationPlan/showsContext``: one evaluated only
    /// for its labels, or a run of `classify` rules that never stop) keeps no ring: it holds a
    /// few events, about what its evaluation costs.
    static let holdForLabelsUpTo = 8
    private let holdLimit: Int

    init(key: SourceKey, plan: EvaluationPlan) {
        self.key = key
        self.plan = plan.plan(for: key)
        holdLimit = self.plan.showsContext ? Self.holdUpTo : Self.holdForLabelsUpTo
    }

    func feed(_ e: Event) {
        if let running {
            running._withUnsafeGuaranteedRef { $0.feed(e) }
        } else if held.count < holdLimit {
            held.append(e)
        } else {
            begin().feed(e)
        }
    }

    private func begin() -> SourceEvaluation {
        let evaluation = SourceEvaluation(key: key, plan: plan)
        for e in held { evaluation.feed(e) }
        held = []
        self.evaluation = evaluation
        running = Unmanaged.passUnretained(evaluation)
        return evaluation
    }

    /// Judges what the end decides, and lets the evaluation go: the caller may keep this object
    /// (in a table of the file's sources) until every source of the file is finished.
    func finish() -> SourceOutcome {
        let outcome = (evaluation ?? begin()).finish()
        running = nil
        evaluation = nil
        return outcome
    }
}

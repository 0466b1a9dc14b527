/// Runs one rule over one timeline, event by event.
///
/// The base class holds what every check kind shares: the rule's history (the events its history
/// functions may look back at, and nothing else), how a finding is reported, and how its message is
/// written. Each check kind is a subclass (every/never/count, sequences and obligations, classify).
class Runner: HistoryProvider {
    let compiled: CompiledRule
    let files: [String]
    /// Events the history functions may read, oldest first: one list per set of `ev` names
    /// (``CompiledRule/historyLists``), each holding only events its selectors can match.
    var lists: [[Event]]
    /// Equality indexes over history lists, per history call (see ``keyedCandidates``); the
    /// call's outer side is its rule's (``CompiledRule/keyedShapes``). The table is made when a
    /// call first searches a list: many runners never do (a timeline's rule that only counts, or
    /// whose calls are all running aggregates), and a table covering the rule's calls costs its
    /// making on every runner of every generation.
    lazy var indexes = SlotTable<KeyedIndex>(covering: compiled.callSlots)
    /// The indexes made so far (each also in ``indexes``), in the order they were made.
    var madeIndexes: [KeyedIndex] = [] {
        didSet { hasMadeIndexes = !madeIndexes.isEmpty }
    }
    /// Whether ``madeIndexes`` holds any, and whether there are lists past the first 64: read
    /// for each event recorded, as a flag each (an array's count is a call there).
    private var hasMadeIndexes = false
    private let listsPast64: Bool
    /// Calls answered from a ``CountedIndex`` (by slot; ``CompiledRule/countedShapes``), and the
    /// indexes (calls keyed alike on one list, with the same tests, share one). The lists they
    /// read keep no events (``CompiledRule/countedLists``).
    /// Held uncounted: ``countedCalls`` keeps them for the runner's life, and a call reads its
    /// own without a retain.
    let counted: SlotTable<Unmanaged<CountedCall>>
    private let countedCalls: [CountedCall]
    /// (A `let`, made with the runner: a `var`'s buffer is retained for each call made while
    /// reading it, as any call may change a `var`.)
    let countedIndexes: [CountedIndex]
    /// The counted indexes each id may go to (nil: none, or more than 64 of them, each then
    /// asked in turn: ``addCounted(_:_:)``).
    let countedRows: CountedRows?
    /// Whether ``countedIndexes`` holds any: read for each event recorded, as a flag (an
    /// array's `isEmpty` there is a call for its count).
    private let hasCounted: Bool
    /// Running answers of the static history calls, in ``CompiledRule/staticCalls`` order
    /// (kept by ``Runner+Aggregates.swift`` alone): owned by the runner alone, so each is moved
    /// in place without a check that its storage is shared. Made when the first moves (nil:
    /// every one is empty).
    var aggregateStore: UnsafeMutablePointer<Aggregate>?
    /// The compiled rule's ``CompiledRule/staticCallTable``, read in place: the runner holds the
    /// compiled rule, and with it the table, for its whole life.
    let staticCalls: StaticCallTable.View
    /// The compiled rule's ``CompiledRule/routes``, read in place like ``staticCalls``.
    let routes: RunnerRoutes.View
    /// The compiled rule's ``CompiledRule/historyPlans``, read in place like ``staticCalls``.
    let historyPlans: HistoryPlans.View
    /// Whether the check must see every event the runner is given, whatever its id: a sequence's
    /// open obligations (any event's time may pass a deadline) and armed absences (each charged
    /// per event). Set by the check as it changes; otherwise an event reaches ``handle`` only when
    /// its route says the check may react to it.
    var takesEveryEvent = false
    /// Running aggregates (bit `i` for position `i`, the first 64) that nothing the runner will
    /// evaluate reads any more (a `classify` generation's, once the checks that read them are
    /// decided): ``updateAggregates(_:)`` leaves them as they are.
    var quietAggregates: UInt64 = 0

    struct Aggregate {
        var first: Event?
        var last: Event?
        var count = 0
        var max: Value?
        var min: Value?
    }
    /// The source's clock, for deadlines; nil on the corpus timeline.
    weak var clock: SourceClock?
    /// How many of the source clock's deadlines are this runner's (``SourceClock`` counts them):
    /// a runner with one is never set back, as the clock would wake it with its retired
    /// generation's scope.
    final var clockEntries = 0

    /// The events given so far, when history answers are cross-checked with a scan of them
    /// (``HistoryCrossCheck``); nil when they are not.
    let crossCheck =
        HistoryCrossCheck.enabled && HistoryCrossCheck.isOn ? HistoryCrossCheck() : nil

    /// Values of the static lets, valid until an aggregate changes.
    let letCache: StaticLetCache?
    /// When every let is static: the lets, without a scope per evaluation.
    private let statics: StaticLets?

    init(_ compiled: CompiledRule, files: [String]) {
        self.compiled = compiled
        self.files = files
        let usesRegex = compiled.usesRegex
        self.usesRegex = usesRegex
        check = compiled.rule.check
        movesAggregatesAlone = compiled.movesAggregatesAlone
        // One object when every let is static: the lets are their own cache.
        if !compiled.lets.isStatic.contains(true) {
            (letCache, statics) = (nil, nil)
        } else if !compiled.lets.isStatic.contains(false) {
            let lets = StaticLets(table: compiled.lets)
            (letCache, statics) = (lets, lets)
        } else {
            (letCache, statics) = (StaticLetCache(table: compiled.lets), nil)
        }
        plainKind =
            compiled.bindsHistoryResults
            ? nil : statics != nil ? .live : compiled.lets.names.isEmpty ? .plain : nil
        lists = compiled.emptyLists
        listsPast64 = lists.count > 64
        // Covering nothing (made without a search of the slots) unless a call is counted.
        var counted = SlotTable<Unmanaged<CountedCall>>(covering: [])
        var countedCalls: [CountedCall] = []
        var countedIndexes: [CountedIndex] = []
        for slot in compiled.callSlots {
            guard let shape = compiled.countedShapes[slot], let list = compiled.listOfSlot[slot]
            else { continue }
            if countedIndexes.isEmpty { counted = SlotTable(covering: compiled.callSlots) }
            let term = shape.term
            let index: CountedIndex
            if let made = countedIndexes.first(where: {
                $0.list == list && KeyedIndex.sameKey($0.key, shape.key)
                    && CountedIndex.sameTests($0.term, term)
            }) {
                index = made
            } else {
                let keys = countedIndexes.first?.keys ?? CountedKeys()
                index = CountedIndex(list: list, key: shape.key, term: term, keys: keys)
                countedIndexes.append(index)
            }
            let call = CountedCall(index: index, shape: shape)
            countedCalls.append(call)
            counted[slot] = .passUnretained(call)
        }
        self.counted = counted
        self.countedCalls = countedCalls
        self.countedIndexes = countedIndexes
        hasCounted = !countedIndexes.isEmpty
        countedRows =
            countedIndexes.isEmpty || countedIndexes.count > 64
            ? nil : CountedRows(countedIndexes)
        staticCalls = compiled.staticCallTable.view
        routes = compiled.routes.view
        historyPlans = compiled.historyPlans.view
        regexOrCrossCheck = usesRegex || crossCheck != nil
        statics?.runner = Unmanaged.passUnretained(self)
    }

    deinit {
        if let store = aggregateStore {
            store.deinitialize(count: compiled.staticCalls.count)
            store.deallocate()
        }
    }

    var rule: Rule { compiled.rule }
    /// The rule's check, kept here so the per-event paths do not copy the whole rule.
    let check: Check

    // MARK: - The work limit

    /// What a runner may do on its timeline: ``workBase`` units, and ``workPerEvent`` more for
    /// each event it is given. A unit is one thing looked at for an event: an open partial match
    /// or obligation tried, a past event a history call compares, a trigger waiting for a
    /// look-ahead judged again; a finding is ``workPerFinding`` units. So time is linear in the
    /// timeline's events, whatever the rule: a rule whose state would make each event cost more
    /// (open matches that every event must be compared with) stops, with one inconclusive finding
    /// at the event where it passed the limit, and judges nothing on that timeline from there —
    /// never a hang, never silence. The built-in pack stays far below it on device and soak logs
    /// (its checks look at a few things per event); docs/robustness.md lists the hostile shapes
    /// that reach it.
    static let workBase = 1 << 20
    static let workPerEvent = 64
    /// What a finding or an obligation opened costs: a rule whose findings or obligations
    /// outnumber its events (one per live generation per `app.scene`, with thousands of each)
    /// stops before they fill the memory.
    static let workPerFinding = 32

    /// Units spent, and the events given, on this timeline.
    private(set) var work = 0
    private var eventsGiven = 0
    /// Set once the work passed the limit: the runner ignores every later event and its finish
    /// and deadlines decide nothing (what came after could have answered them).
    private(set) var stopped = false
    private var stopReported = false
    private var reportingStop = false

    /// Whether the rule's expressions search with a regex (``CompiledRule/usesRegex``), read
    /// twice per event: the compiled rule's is made on first use, and each read of it is a call.
    let usesRegex: Bool

    /// The regex steps the rule's searches may take on this timeline, shared by all its
    /// contexts (nil: the rule has no regex). A search that would pass it is undecided, and the
    /// runner stops as it does at the work limit.
    private(set) lazy var regexBudget: RegexStepBudget? =
        usesRegex ? RegexStepBudget() : nil

    /// Whether a regex search ran out of steps (the budget is only looked at once made).
    @inline(__always) private var regexExhausted: Bool {
        guard usesRegex else { return false }
        return regexBudget?.isExhausted ?? false
    }

    /// Spends `units` of work; false once the limit is passed (then the runner has stopped, and
    /// its loops end at once).
    @inline(__always) final func spend(_ units: Int) -> Bool {
        work &+= units
        if work > Self.workBase &+ Self.workPerEvent &* eventsGiven { stopped = true }
        return !stopped
    }

    /// Runs `body`, then sets the work spent, the regex steps left and a pending look-ahead back
    /// as they were: what `body` did is not charged to the rule and cannot change its verdicts
    /// (the cross-check's scan).
    final func uncharged<T>(_ body: () -> T) -> T {
        let saved = (work, stopped, lookAheadPending, usesRegex ? regexBudget?.state : nil)
        defer {
            (work, stopped, lookAheadPending) = (saved.0, saved.1, saved.2)
            if let steps = saved.3 { regexBudget?.state = steps }
        }
        return body()
    }

    /// The limit's finding, once, at the event where the work (or the regex steps) passed it.
    private func reportStop(at e: Event, context: ContextScope, sink: FindingSink) {
        stopReported = true
        reportingStop = true
        defer { reportingStop = false }
        if let budget = regexBudget, budget.isExhausted {
            report(
                .inconclusive, at: budget.exhaustedAt ?? e, nil, context: context, sink: sink,
                message:
                    "not judged from here: this rule's regex searches took more than \(budget.steps) "
                    + "steps on this timeline (the regex step limit, docs/robustness.md)")
        } else {
            report(
                .inconclusive, at: e, nil, context: context, sink: sink,
                message:
                    "not judged from here: this rule looked at more than \(Self.workBase) + \(Self.workPerEvent) per event "
                    + "open matches, obligations and past events on this timeline (the work limit, docs/robustness.md)"
            )
        }
    }

    /// Handles `e` (the subclass's work), then remembers it for history functions. What the
    /// event's id decides is read from its route (``RunnerRoutes``), once.
    final func observe(_ e: Event, context: ContextScope, sink: FindingSink) {
        observe(e, route: routes.route(for: e.evID), context: context, sink: sink)
    }

    /// ``observe(_:context:sink:)`` with the route of `e`'s id already read (a timeline reads
    /// it from its ``Dispatch``, beside the rule).
    @inline(__always) final func observe(
        _ e: Event, route: RunnerRoutes.Route, context: ContextScope, sink: FindingSink
    ) {
        guard !stopped else { return }
        eventsGiven &+= 1
        if route.flags.contains(.handles) || takesEveryEvent {
            handle(e, context: context, sink: sink)
        }
        if regexOrCrossCheck {
            if regexExhausted { stopped = true }
            if !stopped { crossCheck?.add(e) }
        }
        if stopped {
            reportStop(at: e, context: context, sink: sink)
            return
        }
        guard route.flags.contains(.history) else { return }
        if movesAggregatesAlone {
            if route.flags.contains(.aggregates) { updateAggregates(e) }
        } else {
            record(e, route, context: context, sink: sink)
        }
    }

    /// Whether the rule searches with a regex or its history answers are cross-checked: only
    /// then does ``observe`` look at the regex budget and the cross-check after the check
    /// handled the event (one flag read where two would be).
    private let regexOrCrossCheck: Bool

    /// Whether recording an event only moves running aggregates: the rule keeps no history list
    /// (so no index either), looks ahead at nothing and searches with no regex. Then
    /// ``observe`` moves them without ``record``'s call: an aggregate's selector, `since` and
    /// value read no history, so they spend no work and cannot stop the runner.
    let movesAggregatesAlone: Bool

    /// Remembers `e`, which the rule's history records (its route says so), for history
    /// functions. Kept out of ``observe``: about half the events a runner is given go to no
    /// history, and ``observe`` without this part saves and restores fewer registers for each.
    @inline(never) private final func record(
        _ e: Event, _ route: RunnerRoutes.Route, context: ContextScope, sink: FindingSink
    ) {
        if route.flags.has(.aggregates) { updateAggregates(e) }
        var appends = route.appends
        while appends != 0 {
            lists[appends.trailingZeroBitCount].append(e)
            appends &= appends &- 1
        }
        if listsPast64 {
            for i in 64..<lists.count where !compiled.countedLists[i] && listKeeps(i, e.evID) {
                lists[i].append(e)
            }
        }
        if hasMadeIndexes {
            for i in madeIndexes.indices {
                madeIndexes.withElement(i) { index in
                    if route.keeps(index.list, self, e.evID) {
                        index.add(e, shared: sharedRef(.index))
                    }
                }
            }
        }
        if hasCounted { addCounted(e, route) }
        if route.flags.has(.lookAhead) { recorded(e, context: context, sink: sink) }
        if regexExhausted { stopped = true }
        if stopped, !stopReported { reportStop(at: e, context: context, sink: sink) }
    }

    /// What the check does with one event of its timeline. Subclasses override.
    func handle(_ e: Event, context: ContextScope, sink: FindingSink) {}

    /// Whether the runner may be dropped now and rebuilt later by replaying its timeline's events
    /// (see ``RetiredTimeline``).
    enum Retirement {
        /// Yes: nothing of it waits for the clock or for a later event, and its ``finish`` would
        /// add these labels (a `classify` generation) and nothing else.
        case now([LabelResult])
        /// Not yet: something of it waits (an obligation on the clock, a look-ahead).
        case later
        /// Never: its finish reports something only the end can say (a `count` with a minimum).
        case never
    }

    /// The base answer is `.never`: a check that does not say otherwise is never dropped.
    func retirement() -> Retirement { .never }

    /// Called once ``aggregateState`` was set back: what a subclass keeps from the aggregates'
    /// answers is stale.
    func aggregatesSetBack() {}

    // MARK: - Setting back (Runner+SetBack.swift)

    /// Whether ``setBack()`` leaves the runner as a new one of its rule would be, so that a
    /// retired generation's runner can judge the next generation (``RunnerSpares``). The base
    /// answer is no; a check kind that sets back all of its own state says yes while
    /// ``baseCanBeSetBack`` does.
    var canBeSetBack: Bool { false }

    /// Sets the runner back to what a new runner of its rule is (subclasses set back their own
    /// state, then call this; ``setBackBase()``). Only when ``canBeSetBack``.
    func setBack() { setBackBase() }

    /// ``Runner/setBack()``'s part for the state this file keeps to itself: the work, the stop
    /// and the frozen let scope, as a new runner's.
    final func setBackOwnState() {
        work = 0
        eventsGiven = 0
        stopped = false
        stopReported = false
        reportingStop = false
        frozenScope = nil
        frozenStamp = -1
        frozenTemplate = nil
    }

    /// The source's clock passed `now`: obligations whose deadline is before it are decided.
    func expire(now: Double, context: ContextScope, sink: FindingSink) {}

    /// The end of the timeline (its source's last event, at `lastT`): open obligations are judged.
    /// - Parameter first: the timeline's first event, where a timeline-wide finding points.
    func finish(context: ContextScope, first: Event?, lastT: Double?, sink: FindingSink) {}

    // MARK: - Contexts

    /// A context looking at `e` with `captures`, and the rule's lets bound lazily to it.
    /// - Parameter captures: taken over by the context (consumed): empty ones, or ones made for
    ///   it, move in without a retain.
    /// - Parameter frozen: the context outlives this event (an obligation): its lets keep the
    ///   values they have now, even static ones.
    @inline(__always) final func context(
        _ e: Event, captures: consuming Captures = Captures(), frozen: Bool = false
    ) -> EvalContext {
        // The common context, made where it is asked for: what ``madeContext`` would make.
        if !frozen, let kind = plainKind, let shared = sharedRefs[kind] {
            var ctx = EvalContext(event: e, borrowing: shared)
            ctx.captures = consume captures
            return ctx
        }
        return madeContext(e, captures: consume captures, frozen: frozen)
    }

    /// The common context of ``context(_:captures:frozen:)`` with no captures, made in the
    /// caller (nil when this runner's contexts are made out of line): one that binds nothing,
    /// so the caller drops it without a release.
    @inline(__always) final func plainContext(_ e: Event) -> EvalContext? {
        guard let kind = plainKind, let shared = sharedRefs[kind] else { return nil }
        return EvalContext(event: e, borrowing: shared)
    }

    /// The shared object of a context that is not frozen, when such a context binds nothing but
    /// its captures: the static lets' (`live`: every let is static) or the plain one (the rule
    /// has no lets), and no history results. Nil otherwise.
    private let plainKind: SharedKind?

    /// ``context(_:captures:frozen:)``, in full.
    @inline(never) final func madeContext(
        _ e: Event, captures: consuming Captures, frozen: Bool
    ) -> EvalContext {
        let live = statics != nil && !frozen
        if frozen, let template = frozenTemplate, letCache?.changes == frozenStamp {
            // A copy of the template shares its box of bindings (the frozen scope): setting the
            // scope on a new context would make a box per obligation.
            var ctx = template
            ctx.event = e
            ctx.captures = consume captures
            return ctx
        }
        // The runner owns the shared object and every context made here (see ``sharedRefs``).
        var ctx = EvalContext(event: e, borrowing: live ? sharedRef(.live) : sharedRef(.plain))
        ctx.captures = consume captures
        if compiled.bindsHistoryResults {
            ctx.historyResults = HistoryResults(declared: compiled.historyResultNames)
        }
        if !live, !compiled.lets.names.isEmpty {
            // Frozen static lets: their values depend on the running aggregates only, so
            // obligations opened while no aggregate changed share one evaluated scope.
            let stamp = statics != nil ? letCache?.changes : nil
            if let stamp, stamp == frozenStamp, let shared = frozenScope {
                ctx.letScope = shared
                return ctx
            }
            let scope = LetScope(table: compiled.lets)
            scope.cache = letCache
            ctx.letScope = scope
            scope.context = ctx
            if let stamp {
                scope.evaluateAll()
                frozenScope = scope
                frozenStamp = stamp
                // Its history results are each context's own: such a context is no template.
                frozenTemplate = compiled.bindsHistoryResults ? nil : ctx
            }
        }
        return ctx
    }

    /// The last frozen scope of static lets, and the count of aggregate changes it was evaluated
    /// at (``StaticLetCache/changes``).
    private var frozenScope: LetScope?
    private var frozenStamp = -1

    /// Whether `scope` is the last frozen scope: one evaluated in full when it was made.
    final func isFrozenScope(_ scope: LetScope) -> Bool { scope === frozenScope }
    /// A context with the last frozen scope and no other binding of its own, copied for each
    /// context frozen while that scope is current (``context(_:captures:frozen:)``). Its event
    /// and captures are replaced in each copy, and never read from it.
    private var frozenTemplate: EvalContext?

    /// What this runner's contexts share (see ``EvalShared``), made on first use: with the static
    /// lets (`live`), without them (an obligation's frozen lets, or a rule with other lets), and
    /// without history (a running aggregate's own selector), and an index's key (the runner's
    /// params and files, no history).
    enum SharedKind: Int { case live, plain, noHistory, index }
    /// The objects made so far, owned here for the runner's life: never replaced or dropped, so
    /// every context and index of this runner may hold one uncounted (``sharedRefs``). Fields,
    /// not an array: no buffer is made, grown or freed for them.
    private var sharedMade = SharedSlots<EvalShared>()
    /// The same objects by kind, uncounted: handing one to a context costs no retain. Plain
    /// fields, not an array: reading an array's element retains its buffer for the read.
    private var sharedRefs = SharedSlots<Unmanaged<EvalShared>>()

    struct SharedSlots<Slot> {
        var live, plain, noHistory, index: Slot?

        @inline(__always) subscript(kind: SharedKind) -> Slot? {
            get {
                switch kind {
                case .live: live
                case .plain: plain
                case .noHistory: noHistory
                case .index: index
                }
            }
            set {
                switch kind {
                case .live: live = newValue
                case .plain: plain = newValue
                case .noHistory: noHistory = newValue
                case .index: index = newValue
                }
            }
        }
    }

    /// The shared object of `kind`, uncounted: it lives as long as the runner (``sharedMade``).
    @inline(__always) final func sharedRef(_ kind: SharedKind) -> Unmanaged<EvalShared> {
        if let made = sharedRefs[kind] { return made }
        return makeShared(kind)
    }

    @inline(__always) final func shared(_ kind: SharedKind) -> EvalShared {
        sharedRef(kind).takeUnretainedValue()
    }

    @inline(never) private func makeShared(_ kind: SharedKind) -> Unmanaged<EvalShared> {
        let environment =
            kind == .index
            ? EvalEnvironment(params: compiled.params, files: files) : compiled.environment
        let made = EvalShared(
            environment: environment, statics: kind == .live ? statics : nil,
            runner: kind == .live || kind == .plain ? self : nil)
        made.regexBudget = regexBudget
        sharedMade[kind] = made
        let ref = Unmanaged.passUnretained(made)
        sharedRefs[kind] = ref
        return ref
    }

    // MARK: - Findings

    enum Kind { case violation, inconclusive }

    /// The events of one history list (oldest first).
    func history(list: Int) -> [Event] { lists[list] }

    /// Records a finding at `anchor`; `ctx` fills the message's holes.
    func report(
        _ kind: Kind, at anchor: Event?, _ ctx: EvalContext?, context: ContextScope,
        sink: FindingSink,
        note: String? = nil, waitForAfter: Bool = true, message fixed: String? = nil
    ) {
        // Past the work limit, what the interrupted evaluation would report is not a finding:
        // the limit's own is.
        guard !(stopped || regexExhausted) || reportingStop else { return }
        // Charged, not checked: the next unit of work spent stops the runner if this passed it.
        if !reportingStop { work &+= Self.workPerFinding }
        let shown = context.context.lines(anchor: anchor, scope: context)
        var finding = Finding(
            file: anchor?.file, line: anchor?.line, t: anchor.flatMap { $0.t.isNaN ? nil : $0.t },
            shared: context.context.sharedSource, gen: findingGen(anchor: anchor, ctx),
            message: compiled.messages.shared(
                fixed.map { $0 + (note.map { " (\($0))" } ?? "") } ?? message(for: ctx, note: note)),
            context: shown.lines, ev: anchor?.ev)
        if let anchor, !compiled.findingFields.isEmpty {
            finding.eventFields = compiled.findingFields.compactMap { f in
                anchor.value(of: f.name, id: f.id).map { Value.ObjectEntry(f.name, $0) }
            }
        }
        let index = compiled.index
        // Events after the anchor that have not arrived yet are added as they come.
        let missing = waitForAfter && anchor != nil ? TimelineContext.after - shown.after : 0
        switch kind {
        case .violation:
            if let divert = sink.divert, let entry = divert(compiled.rule.id, finding) {
                sink.diverted[index, default: [:]][entry, default: 0] += 1
                return
            }
            sink.violations[index, default: []].append(finding)
            context.context.awaitAfter(
                violation: true, rule: index, index: sink.violations[index]!.count - 1,
                scope: context,
                count: missing, anchorSeq: anchor?.seq ?? .max)
        case .inconclusive:
            sink.inconclusive[index, default: []].append(finding)
            context.context.awaitAfter(
                violation: false, rule: index, index: sink.inconclusive[index]!.count - 1,
                scope: context,
                count: missing, anchorSeq: anchor?.seq ?? .max)
        }
        // Only the first findings in report order are kept when no report lists them all.
        if sink.overflows(violation: kind == .violation, rule: index) {
            context.context.trim(sink, violation: kind == .violation, rule: index)
        }
    }

    /// The last message ``filled(_:_:)`` made, with the values of its holes, and the holes'
    /// values being evaluated (kept by `Runner+Messages.swift` alone).
    var lastFilled: (pseudo: Bool, text: String)?
    var lastHoles: [Eval] = []
    var holes: [Eval] = []

    // MARK: - Look-ahead

    /// The trigger being judged again after later events arrived (`next(SEL)`): history looks back
    /// from it and ahead of it, not from the latest event.
    var judging: Event?
    /// Whether the timeline ended: a look-ahead that found nothing by then finds null.
    var ended = false
    /// Set when an evaluation met a look-ahead that may still be answered.
    var lookAheadPending = false

    func lookAheadIncomplete() { lookAheadPending = true }

    /// Called after `e` was recorded in the rule's history (subclasses judge what waited for it).
    func recorded(_ e: Event, context: ContextScope, sink: FindingSink) {}
}

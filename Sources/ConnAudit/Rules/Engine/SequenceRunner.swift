/// Checks built on a trigger sequence: `forbid`, and `each` with `followed_by` (response),
/// `preceded_by` (precedence) or `never_after` (absence after each trigger).
///
/// Steps match in order with gaps allowed. A partial match remembers its stage and captures;
/// identical partials are kept once, and a partial dies when its gap sees a `without` event. A
/// complete match is a violation (`forbid`), an obligation (`followed_by`), a look back
/// (`preceded_by`) or the start of an absence (`never_after`).
///
/// What an event costs does not grow with the partials and obligations open, where the rule lets
/// that be seen when it is compiled (``SelectorPlan``): an event is tried only at the stages it
/// concerns, only if it passes what a step tests of the event alone, only against the partials
/// of its key where a step's `where` equates the event with a capture, and a `forbid` that
/// reports at its last step stops trying once the event completed a match. What is left is
/// charged to the work limit (``Runner/spend(_:)``).
final class SequenceRunner: Runner {
    let sequence: Sequence
    let sequenceWithout: Selector?
    /// Open partial matches by stage (index 0 is unused: a partial has matched at least one
    /// step): ``stageCount`` of them, made when the first partial opens (most runners never open
    /// one) and kept until the runner is freed. Until then it points at no stage and is not read.
    /// A stage is changed in place: a list of them would be checked to be held once at each
    /// change.
    var stages = SequenceRunner.noStages
    var stageCount = 0
    /// What ``stages`` holds before the first partial opens: room for no stage that is ever read.
    private static let noStages = UnsafeMutablePointer<Stage>.allocate(capacity: 1)
    /// The stages that have partials, a bit each (a sequence has at most 64 steps, so a
    /// partial's stage is at most 63).
    var openStages: UInt64 = 0
    static let keyedFrom = 16
    /// How many open partials (or obligations) a stage holds before an event is tried only
    /// against those its plans say it can concern (``SelectorPlan``).
    static let plannedFrom = 8

    /// Per stage: how an event is tried there — the step's selector, the step's `without`, the
    /// sequence's `without` (index 0: the first step's selector alone).
    let plans: [[SelectorPlan?]]
    enum Role: Int { case step = 0, without = 1, sequenceWithout = 2 }

    struct Stage {
        /// The stage's partials, in the order they were opened (by ordinal); those that died stay
        /// until more than half have (``compact``), so a death costs no move of the others. Once
        /// all died, the first stage keeps one, dead, for the next start to open in
        /// (``reopen(_:on:)``).
        var partials = PartialList()
        var live = 0
        /// The keys of its live partials once there are many of them (see ``isKnown``).
        var keys: Set<MatchKey>?
        /// Per ``Role``: the live partials by their side of that selector's key.
        var indexes = KeyIndexes()
        /// Which of ``indexes`` are made, a bit per ``Role``: read in one test where an opening
        /// partial is added to them.
        var indexed: UInt8 = 0
        /// Scratch of ``advance``: the next growth candidate when an event concerns several stages.
        var cursor = 0
    }

    /// The next partial's ordinal: partials of several stages are tried in the order they opened.
    var nextOrdinal = 0
    /// How many times a partial match or an obligation was looked at (tests: an event that
    /// concerns none of them looks at none).
    var visits = 0
    var obligations = Obligations()
    /// Tests: whether the one obligation open is settled in place when an event may answer it
    /// (``settleOne(_:context:sink:)``; off: by the pass over every open one), and how many
    /// times it was.
    var settlesOneInPlace = true
    var settledInPlace = 0
    /// Whether the next trigger opens its obligation in the answered one's slot, in place
    /// (``reopenObligation(_:context:)``; ``SequenceFacts/reopensObligations``, tests clear it),
    /// and how many times one did.
    var reopensObligations: Bool
    var obligationsReopened = 0
    /// The earliest of this runner's deadlines on the source's clock (nil: none there). Every
    /// open obligation's deadline is at or after one of them, so the clock wakes the runner in
    /// time for each (``keepOnClock(_:scope:)``).
    var onClock: Double?
    /// Whether `within_ms` reads only lets and params (``LetsOnlyExpression``): obligations
    /// opened under one frozen let scope then share its value, evaluated once.
    let withinReadsLetsOnly: Bool
    /// The last `within_ms` that was a number, and the let scope it was evaluated under.
    var withinMemo: Double?
    var withinMemoScope: LetScope?
    /// The parts of an `each … followed_by` (nil for other checks), kept apart: the per-event
    /// paths read them in place, where taking them out of ``Runner/check`` copies them.
    let responseFollowedBy: Selector?
    let responseUnless: Selector?
    /// The rule's facts (``SequenceFacts``), shared with its other runners: those read only as
    /// an obligation opens (`within_ms`, the keyed captures of a complete match) are read there.
    let facts: SequenceFacts
    /// The first step's terms (a bit each) whose `where` is kept between events
    /// (``matchesStart(_:_:_:)``); of those, the ones whose truth is known, and that truth.
    let startWhereKept: UInt64
    var startWhereKnown: UInt64 = 0
    var startWhereHolds: UInt64 = 0
    /// Tests: how many times a start with kept `where`s made a context to be decided
    /// (``matchesStart(_:_:)``).
    var startContextsMade = 0
    /// Whether the last event given may have moved an aggregate (``startWhereSees(_:)``).
    var aggregatesMayHaveMoved = false

    /// Aggregates set back (a retired timeline rebuilt) make every kept truth stale.
    override func aggregatesSetBack() { startWhereKnown = 0 }
    var armed: [Captures] = []
    var armedKeys = Set<MatchKey>()
    /// Anchors already reported (a forbidden sequence is matched existentially: once per anchor).
    var reportedAnchors = Set<Int>()
    /// Complete matches of the event being processed (the same captures count once).
    /// The first is kept alone: a set is made only when a second match completes on the event.
    var firstMatchKey: MatchKey?
    var matchKeys = Set<MatchKey>()

    /// Whether a complete match with `key` is the first such on the event being processed.
    func isNewMatch(_ key: MatchKey) -> Bool {
        guard let first = firstMatchKey else {
            firstMatchKey = key
            return true
        }
        if matchKeys.isEmpty { matchKeys.insert(first) }
        return matchKeys.insert(key).inserted
    }
    /// Scratch lists of ``advance``, kept between events so they allocate nothing: the partials
    /// an event grew (empty between events; a start is made after them, from the term it
    /// matched), and the partials it is tried against.
    var grown: [Partial] = []
    var visitScratch: [Visit] = []
    /// Captures of dropped partials and obligations, unbound (``Captures/unbindAll()``) and kept
    /// for the next partial to start: a trigger per ping that dies at its pong would otherwise
    /// allocate its captures' storage and free it again each time. They bind nothing, so they
    /// keep no event alive, and a value like any other: one still shared is copied when unbound.
    var spareCaptures = SpareCaptures()
    static let sparesKept = SpareCaptures.capacity

    /// Keeps `captures` (which the caller is dropping) as spare storage, unbound, when there is
    /// room.
    @inline(__always) func recycle(_ captures: inout Captures) {
        guard spareCaptures.count < Self.sparesKept, !captures.isEmpty else { return }
        var spare = Captures()
        swap(&spare, &captures)
        spare.unbindAll()
        spareCaptures.append(consume spare)
    }
    /// The first step (nil: the sequence has none), not counted: the compiled rule holds it for
    /// as long as this runner lives. Read with `_withUnsafeGuaranteedRef` for every event the
    /// runner is given, it costs no retain, where a read out of the rule's list of steps
    /// retains the list for the call.
    let firstStep: Unmanaged<StepSelectors>?
    /// The compiled rule's steps, shared: read out of this runner's own `let`, a step costs no
    /// retain of the list, where a read through the compiled rule retains the list for the call.
    let steps: [StepSelectors]
    /// Per step, the captures bound up to it that anything after it reads; others are dropped
    /// from partial matches, so partials that differ only in them merge.
    /// (A handful of names per step: a linear search is cheaper than hashing one.)
    let kept: [[String]]
    /// Per term of the first step's selector (the first 64, a bit each): whether a start on it
    /// binds its capture (it has one, and a later step reads it or there is none).
    let startBinds: UInt64

    /// Whether every start binds one name: each term of the first step binds its capture, and
    /// all have the same. A partial of the first stage, made only by a start, then binds that
    /// name alone.
    let startsBindOneName: Bool

    /// ``startsBindOneName`` of a first step `selector` whose terms bind as `startBinds` says.
    static func bindsOneName(_ selector: Selector, _ startBinds: UInt64) -> Bool {
        let terms = selector.terms
        guard !terms.isEmpty, terms.count <= 64,
            startBinds == UInt64.max >> UInt64(64 - terms.count),
            let name = terms[0].capture
        else { return false }
        return terms.allSatisfy { $0.capture == name }
    }

    /// Whether a start on term `i` of the first step binds its capture (``startBinds``).
    @inline(__always) func startBindsCapture(_ i: Int) -> Bool {
        if i < 64 { return startBinds & (1 << UInt64(i)) != 0 }
        return firstStep!._withUnsafeGuaranteedRef {
            Self.binds($0.selector.terms[i], kept, sequence)
        }
    }

    static func binds(_ term: Selector.Term, _ kept: [[String]], _ s: Sequence) -> Bool {
        guard let name = term.capture else { return false }
        return s.steps.count == 1 || kept[0].contains(name)
    }

    /// Per step, the kept captures that make two partials different: not those only the message
    /// reads (partials differing in those merge; the first one's are shown).
    let keyed: [[String]]
    /// Whether a match completed on an event is reported at that event (a `forbid` whose
    /// `report_at` is unset or names its last step): once one is, the others would be dropped
    /// as the same anchor, so the last stage stops trying.
    let reportsAtLastStep: Bool
    /// Per step (a bit each): whether its selector, and whether what kills a partial waiting for
    /// it, match by the event's id alone (``matchByID(_:_:)``): then no context is made for them.
    /// Tests clear them to try every step with a context.
    var stepsByID: UInt64
    var withoutsByID: UInt64
    /// Per step (a bit each): whether a partial its `without` kills cannot grow on the same
    /// event (``deathsExcludeGrowth(_:lets:)``): the `without` is tried first. Tests clear it.
    var deathsExcludeGrowth: UInt64
    /// Tests: how many times a step was not tried because its `without` matched first.
    var stepsSpared = 0
    /// Per step (a bit each): whether its selector is decided by `ev` names and time bounds
    /// (``TimeBoundPlans/stepsByTime``), and those bounds per step. Tests clear the bits, and
    /// ``usesTimeBounds``, to evaluate every `where:` in full.
    var stepsByTime: UInt64
    let stepBounds: [SelectorBounds]
    /// The time bounds of `followed_by` and `unless` (``TimeBoundPlans``), not counted (``facts``
    /// holds them), and whether an obligation is answered with them.
    let followedByBounds: Unmanaged<SelectorBounds>?
    let unlessBounds: Unmanaged<SelectorBounds>?
    var usesTimeBounds = true
    /// The runner's static lets (``Runner/letCache``, when every let is static), not counted: the
    /// runner holds them for its life. What a partial's context reads its lets from.
    private(set) var staticLets: Unmanaged<StaticLets>?

    /// Whether nothing after the first step tells its matches apart (none of its captures is
    /// keyed): every partial of stage 1 then has one key, and at most one is open. And whether
    /// the step reads no let: a let is evaluated at the step (later captures unbound) and
    /// elsewhere (bound), so a step whose evaluation reaches beyond itself is always evaluated.
    let startsAlike: Bool

    /// Whether `selector` reads any of `lets` (its `where:`s, and those of the history calls in
    /// them).
    static func readsLets(_ selector: Selector, _ lets: [String]) -> Bool {
        guard !lets.isEmpty else { return false }
        var reads = false
        NameWalker.walkSelector(selector) {
            if case .name(let n, _, _) = $0, lets.contains(n) { reads = true }
        }
        return reads
    }

    /// Whether a partial the first step would open on this event is sure to be dropped as one
    /// already open (``isKnown``): its matches are all alike, and the open one is not dying on
    /// this event (`died`). Its selector — the test of every such event, often the rule's
    /// costliest — is then not evaluated: its match would be dropped (partials that merge show
    /// the first one's captures).
    @inline(__always) func startIsKnown(died: UInt64) -> Bool {
        skipsKnownStarts && startsAlike && stageCount > 1 && stages[1].live > 0
            && died & (1 << 1) == 0
    }
    /// Tests: whether a start opens in the first stage's dead slot (``reopen(_:on:)``; off:
    /// every start makes its partial), and how many times one did.
    var reopensInPlace = true
    var reopened = 0
    /// Tests: whether ``startIsKnown(died:)`` may spare the first step's selector (off: every
    /// event it may match is tried), and how many times that selector was tried.
    var skipsKnownStarts = true
    var startsTried = 0

    /// What identifies a partial: its stage and the events of its keyed captures.
    func key(_ p: Partial) -> MatchKey {
        p.captures.seqs(of: keyed[p.stage - 1], after: p.stage)
    }

    /// Where a ``Partial`` holds its captures, read in place through a pointer to it.
    static let capturesOffset = MemoryLayout<Partial>.offset(of: \Partial.captures)!

    struct Partial {
        var stage: Int
        var captures: Captures
        var last: Event
        /// When it opened, among all the rule's partials (see ``nextOrdinal``).
        var ordinal = 0
        var dead = false
        /// For a complete match: the ordinal of the partial it grew from (see
        /// ``retire(origin:)``).
        var origin = -1

        /// The partial taken apart: its captures and last event move out, not counted again.
        consuming func parts() -> (captures: Captures, last: Event, origin: Int) {
            (captures, last, origin)
        }
    }

    /// A partial the event is tried against: where it is, and which of its tests apply.
    struct Visit {
        var ordinal: Int
        var stage: Int
        var position: Int
        var grows: Bool
        var dies: Bool
    }

    override init(_ compiled: CompiledRule, files: [String]) {
        let facts = compiled.sequenceFacts
        sequence = facts.sequence
        sequenceWithout = facts.sequenceWithout
        firstStep = compiled.steps.first.map { Unmanaged.passUnretained($0) }
        steps = compiled.steps
        kept = compiled.keptCaptureNames
        stageConcerns = compiled.stageConcerns
        keyed = compiled.keyCaptureNames
        startBinds = facts.startBinds
        startsBindOneName = facts.startsBindOneName
        startsAlike = facts.startsAlike
        plans = compiled.stagePlans
        reportsAtLastStep = facts.reportsAtLastStep
        stepsByID = facts.stepsByID
        withoutsByID = facts.withoutsByID
        deathsExcludeGrowth = facts.deathsExcludeGrowth
        stepsByTime = facts.timeBounds.stepsByTime
        stepBounds = facts.timeBounds.steps
        followedByBounds = facts.timeBounds.followedBy.map { Unmanaged.passUnretained($0) }
        unlessBounds = facts.timeBounds.unless.map { Unmanaged.passUnretained($0) }
        responseFollowedBy = facts.responseFollowedBy
        responseUnless = facts.responseUnless
        self.facts = facts
        startWhereKept = facts.startWhereKept
        withinReadsLetsOnly = facts.withinReadsLetsOnly
        reopensObligations = facts.reopensObligations
        super.init(compiled, files: files)
        staticLets = (letCache as? StaticLets).map { Unmanaged.passUnretained($0) }
    }

    deinit {
        if stageCount > 0 {
            for i in 0..<stageCount { stages[i].partials.deallocate() }
            stages.deinitialize(count: stageCount)
            stages.deallocate()
        }
    }

    override func handle(_ e: Event, context: ContextScope, sink: FindingSink) {
        // Obligations and armed absences open only here: while any is, every event is handled.
        defer { takesEveryEvent = obligations.live > 0 || !armed.isEmpty }
        startWhereSees(e)
        // Open obligations and armed absences see the event before it can start anything new:
        // an event never answers its own trigger.
        if obligations.live > 0 { answer(e, context: context, sink: sink) }
        if !armed.isEmpty { answerArmed(e, context: context, sink: sink) }
        // A runner the work limit stopped (in either call above) tries nothing more.
        guard !sequence.steps.isEmpty, !stopped else { return }
        advance(e, context: context, sink: sink)
    }

    /// Tries `e` against the armed absences (`never_after`), in the order they were armed: the
    /// first it breaks is reported. Out of line: most runners arm none, and the loop's set-up
    /// would be paid in ``handle(_:context:sink:)`` for every event.
    @inline(never) private func answerArmed(_ e: Event, context: ContextScope, sink: FindingSink) {
        guard case .neverAfter(_, let forbidden) = check else { return }
        for captures in armed {
            visits += 1
            guard spend(1) else { return }
            let ctx = self.context(e, captures: captures)
            if let term = Evaluator.matches(forbidden, e, ctx),
                reportedAnchors.insert(e.seq).inserted
            {
                var c = captures
                if let name = term.capture(in: forbidden) { c[name] = e }
                report(
                    .violation, at: e, self.context(e, captures: c), context: context,
                    sink: sink)
                break
            }
        }
    }

    /// Per stage: the events that may advance or end a partial match there (its step's selector,
    /// the step's `without`, the sequence's `without`).
    let stageConcerns: [EvIDSet]

    override func expire(now: Double, context: ContextScope, sink: FindingSink) {
        expireObligations(now: now, context: context, sink: sink)
    }

    override func finish(context: ContextScope, first: Event?, lastT: Double?, sink: FindingSink) {
        finishObligations(lastT: lastT, context: context, sink: sink)
    }

    /// See `SequenceRunner+Reset.swift`.
    override var canBeSetBack: Bool { sequenceCanBeSetBack }
    override func setBack() {
        // Each stage is set back to a new one, which has no room for partials: the room is freed.
        for i in 0..<stageCount { stages[i].partials.deallocate() }
        setBackSequence()
        super.setBack()
    }

    /// No obligation open (nothing on the clock, nothing for the finish to judge): partial
    /// matches and armed absences are rebuilt exactly by a replay. A runner stopped by the work
    /// limit is kept as it is.
    override func retirement() -> Retirement {
        if stopped { return .never }
        return obligations.live == 0 ? .now([]) : .later
    }
}

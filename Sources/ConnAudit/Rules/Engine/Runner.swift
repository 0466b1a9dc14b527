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
    private var lists: [[Event]]
    /// Equality indexes over history lists, per history call (see ``keyedCandidates``), with the
    /// call's outer side.
    private var indexes: SlotTable<KeyedLookup>
    /// The indexes made so far (each also in ``indexes``), in the order they were made.
    private var madeIndexes: [KeyedIndex] = []
    /// Calls found not to be indexable.
    private var unindexable: SlotTable<Bool>
    /// Calls answered from a ``CountedIndex`` (by slot; ``CompiledRule/countedShapes``), and the
    /// indexes (calls keyed alike on one list, with the same tests, share one). The lists they
    /// read keep no events (``CompiledRule/countedLists``).
    private var counted: SlotTable<CountedCall>
    private var countedIndexes: [CountedIndex] = []
    /// Running answers of the static history calls, in ``CompiledRule/staticCalls`` order.
    private var aggregates: [Aggregate]

    struct Aggregate {
        var first: Event?
        var last: Event?
        var count = 0
        var max: Value?
        var min: Value?
    }
    /// The source's clock, for deadlines; nil on the corpus timeline.
    weak var clock: SourceClock?

    /// The events given so far, when history answers are cross-checked with a scan of them
    /// (``HistoryCrossCheck``); nil when they are not.
    let crossCheck =
        HistoryCrossCheck.enabled && HistoryCrossCheck.isOn ? HistoryCrossCheck() : nil

    /// Values of the static lets, valid until an aggregate changes.
    private let letCache: StaticLetCache?
    /// When every let is static: the lets, without a scope per evaluation.
    private let statics: StaticLets?

    init(_ compiled: CompiledRule, files: [String]) {
        self.compiled = compiled
        self.files = files
        check = compiled.rule.check
        letCache =
            !compiled.lets.isStatic.contains(true)
            ? nil
            : StaticLetCache(
                slots: compiled.lets.names.count, aggregates: compiled.staticCalls.count)
        if let letCache, !compiled.lets.isStatic.contains(false) {
            statics = StaticLets(table: compiled.lets, cache: letCache)
        } else {
            statics = nil
        }
        lists = Array(repeating: [], count: compiled.historyLists.count)
        indexes = SlotTable(covering: compiled.callSlots)
        unindexable = SlotTable(covering: compiled.callSlots)
        counted = SlotTable(covering: compiled.callSlots)
        for slot in compiled.callSlots {
            guard let shape = compiled.countedShapes[slot], let list = compiled.listOfSlot[slot]
            else { continue }
            let term = shape.term
            let index: CountedIndex
            if let made = countedIndexes.first(where: {
                $0.list == list && KeyedIndex.sameKey($0.key, shape.key)
                    && CountedIndex.sameTests($0.term, term)
            }) {
                index = made
            } else {
                index = CountedIndex(list: list, key: shape.key, term: term)
                countedIndexes.append(index)
            }
            counted[slot] = CountedCall(index: index, shape: shape)
        }
        seqBounds = SlotTable(covering: compiled.callSlots)
        aggregates = Array(repeating: Aggregate(), count: compiled.staticCalls.count)
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

    /// The regex steps the rule's searches may take on this timeline, shared by all its
    /// contexts (nil: the rule has no regex). A search that would pass it is undecided, and the
    /// runner stops as it does at the work limit.
    private(set) lazy var regexBudget: RegexStepBudget? =
        compiled.usesRegex ? RegexStepBudget() : nil

    /// Whether a regex search ran out of steps (the budget is only looked at once made).
    @inline(__always) private var regexExhausted: Bool {
        guard compiled.usesRegex else { return false }
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
        let saved = (work, stopped, lookAheadPending, compiled.usesRegex ? regexBudget?.state : nil)
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

    /// Handles `e` (the subclass's work), then remembers it for history functions.
    final func observe(_ e: Event, context: ContextScope, sink: FindingSink) {
        guard !stopped else { return }
        eventsGiven &+= 1
        handle(e, context: context, sink: sink)
        if regexExhausted { stopped = true }
        if stopped {
            reportStop(at: e, context: context, sink: sink)
            return
        }
        crossCheck?.add(e)
        guard compiled.usesHistory, compiled.historyIDs?.contains(e.evID) ?? true else { return }
        if !aggregates.isEmpty { updateAggregates(e) }
        for (i, ids) in compiled.historyListIDs.enumerated()
        where !compiled.countedLists[i] && ids?.contains(e.evID) ?? true {
            lists[i].append(e)
        }
        if !madeIndexes.isEmpty {
            for index in madeIndexes
            where compiled.historyListIDs[index.list]?.contains(e.evID) ?? true {
                index.add(e, shared: shared(.index))
            }
        }
        if !countedIndexes.isEmpty {
            for index in countedIndexes
            where compiled.historyListIDs[index.list]?.contains(e.evID) ?? true {
                index.add(e, shared: shared(.index))
            }
        }
        if compiled.usesLookAhead, compiled.lookAheadIDs?.contains(e.evID) ?? true {
            recorded(e, context: context, sink: sink)
        }
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

    /// The source's clock passed `now`: obligations whose deadline is before it are decided.
    func expire(now: Double, context: ContextScope, sink: FindingSink) {}

    /// The end of the timeline (its source's last event, at `lastT`): open obligations are judged.
    /// - Parameter first: the timeline's first event, where a timeline-wide finding points.
    func finish(context: ContextScope, first: Event?, lastT: Double?, sink: FindingSink) {}

    // MARK: - Contexts

    /// A context looking at `e` with `captures`, and the rule's lets bound lazily to it.
    /// - Parameter frozen: the context outlives this event (an obligation): its lets keep the
    ///   values they have now, even static ones.
    func context(_ e: Event, captures: Captures = Captures(), frozen: Bool = false) -> EvalContext {
        let live = statics != nil && !frozen
        var ctx = EvalContext(event: e, shared: live ? shared(.live) : shared(.plain))
        ctx.captures = captures
        if compiled.bindsHistoryResults {
            ctx.historyResults = HistoryResults(declared: compiled.historyResultNames)
        }
        if !live, !compiled.lets.names.isEmpty {
            // Frozen static lets: their values depend on the running aggregates only, so
            // obligations opened while no aggregate changed share one evaluated scope.
            let stamp = statics != nil ? letCache?.versions.reduce(0, &+) : nil
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
            }
        }
        return ctx
    }

    /// The last frozen scope of static lets, and the aggregate versions' sum it was evaluated at
    /// (versions only grow: the sum changes whenever one does).
    private var frozenScope: LetScope?
    private var frozenStamp = -1

    /// What this runner's contexts share (see ``EvalShared``), made on first use: with the static
    /// lets (`live`), without them (an obligation's frozen lets, or a rule with other lets), and
    /// without history (a running aggregate's own selector), and an index's key (the runner's
    /// params and files, no history).
    enum SharedKind: Int { case live, plain, noHistory, index }
    private var sharedMade: [EvalShared?] = [nil, nil, nil, nil]

    @inline(__always) func shared(_ kind: SharedKind) -> EvalShared {
        if let made = sharedMade[kind.rawValue] { return made }
        let environment =
            kind == .index
            ? EvalEnvironment(params: compiled.params, files: files) : compiled.environment
        let made = EvalShared(
            environment: environment, statics: kind == .live ? statics : nil,
            runner: kind == .live || kind == .plain ? self : nil)
        made.regexBudget = regexBudget
        sharedMade[kind.rawValue] = made
        return made
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

    /// The `gen` a finding carries: its anchor's, or with `report_gen:` that capture's (none when
    /// the capture's event has none).
    @inline(__always) private func findingGen(anchor: Event?, _ ctx: EvalContext?) -> UInt64? {
        guard let name = compiled.reportGen, let captured = ctx?.captures[name] else {
            return anchor?.gen
        }
        return captured.gen
    }

    /// The rule's `message:` with its holes filled in (the title when it has none).
    func message(for ctx: EvalContext?, note: String?) -> String {
        var text: String
        if let template = rule.message, let ctx {
            text = filled(template, ctx)
        } else {
            text = rule.title
        }
        if let note { text += " (\(note))" }
        return text
    }

    /// The last message ``filled(_:_:)`` made, with the values of its holes.
    private var lastFilled: (pseudo: Bool, text: String)?
    private var lastHoles: [Eval] = []
    private var holes: [Eval] = []

    /// `template` with its holes filled in for `ctx`. A rule's findings often fill them with the
    /// same values (a file of lines that are not JSON: one reason for them all): when every hole
    /// evaluates to what it did for the last message made, that text is given again (one string,
    /// which ``MessageTable`` then answers at once) instead of being built, escaped and looked up.
    private func filled(_ template: MessageTemplate, _ ctx: EvalContext) -> String {
        holes.truncate(to: 0)
        for part in template.parts {
            if case .expr(let x) = part { holes.append(Evaluator.evaluate(x, ctx)) }
        }
        if let last = lastFilled, last.pseudo == ctx.event.isPseudo, lastHoles.count == holes.count,
            zip(lastHoles, holes).allSatisfy({ Self.renderAlike($0, $1) })
        {
            return last.text
        }
        var text = ""
        var hole = 0
        for part in template.parts {
            switch part {
            case .text(let s): text += s
            case .expr:
                // Every interpolated value is escaped (the log's, and a rule's own literals):
                // a value cannot break or forge a report line. A long one of the log's is
                // clipped; the reader's own findings hold values it bounded already (a
                // secret's key path keeps its last key, which a clip would cut off).
                // Secrets are hidden before a value is clipped: a clip could cut one in two.
                switch holes[hole] {
                case .value(let v):
                    let shown =
                        (v.shown(under: template.holeKeys[hole]) ?? .string(SecretShapes.marker))
                        .rendered()
                    text += (ctx.event.isPseudo ? shown : shown.clipped()).visibleControls
                case .event(let ev):
                    let name = SecretShapes.text(ev.ev).clipped()
                    text +=
                        "\(name) at \(Int(ev.file) < files.count ? files[Int(ev.file)] : "?"):\(ev.line)"
                        .visibleControls
                case .undecided: text += "?"
                }
                hole += 1
            }
        }
        lastFilled = (ctx.event.isPseudo, text)
        // The two lists trade places, so neither is copied when the other is emptied.
        swap(&holes, &lastHoles)
        return text
    }

    /// Whether two values of a hole are shown alike for certain: the same event, the same bytes
    /// of text, the same bits of a number. (Lists and maps are not compared: they are made again.)
    private static func renderAlike(_ a: Eval, _ b: Eval) -> Bool {
        switch (a, b) {
        case (.undecided, .undecided): return true
        case (.event(let x), .event(let y)): return x === y
        case (.value(let x), .value(let y)):
            switch (x, y) {
            case (.null, .null): return true
            case (.bool(let p), .bool(let q)): return p == q
            case (.int(let p), .int(let q)): return p == q
            case (.double(let p), .double(let q)): return p.bitPattern == q.bitPattern
            case (.bigInt(let p), .bigInt(let q)), (.string(let p), .string(let q)):
                return p.hasSameBytes(as: q)
            default: return false
            }
        default: return false
        }
    }

    // MARK: - HistoryProvider

    private func updateAggregates(_ e: Event) {
        let slots = compiled.staticCalls(for: e.evID)
        guard !slots.isEmpty else { return }
        let ctx = EvalContext(event: e, shared: shared(.noHistory))
        for slot in slots {
            let call = compiled.staticCalls[slot]
            let sinceMay = call.sinceMayMatch(e.evID)
            let selMay = call.selectorMayMatch(e.evID)
            guard sinceMay || selMay else { continue }
            if sinceMay, let since = call.since, Evaluator.matches(since, e, ctx) != nil {
                aggregates[slot] = Aggregate()
                letCache?.versions[slot] += 1
            } else if selMay, call.kind == .first, aggregates[slot].first != nil {
                // A `first` already found stays found until its `since` cut: nothing to match.
                continue
            } else if selMay, Evaluator.matches(call.selector, e, ctx) != nil {
                // The answer of the call's kind changed? (`first` changes once, `last` and `count`
                // always.)
                var changed = call.kind != .first || aggregates[slot].first == nil
                if aggregates[slot].first == nil { aggregates[slot].first = e }
                aggregates[slot].last = e
                aggregates[slot].count += 1
                if let value = call.value, let v = Evaluator.evaluate(value, ctx).value,
                    v.number != nil
                {
                    if aggregates[slot].max.map({ (v.numericOrder($0) ?? 0) > 0 }) ?? true {
                        aggregates[slot].max = v; changed = true
                    }
                    if aggregates[slot].min.map({ (v.numericOrder($0) ?? 0) < 0 }) ?? true {
                        aggregates[slot].min = v; changed = true
                    }
                }
                if changed { letCache?.versions[slot] += 1 }
            }
        }
    }

    /// The running aggregates, to be set back as they were (``RetiredTimeline``): every cached
    /// let value is then stale. Nil when none has seen anything (a fresh runner's).
    var aggregateState: [Aggregate]? {
        get {
            aggregates.contains { $0.count > 0 || $0.first != nil || $0.max != nil }
                ? aggregates : nil
        }
        set {
            // Set back, they stand for events this runner was not given: no scan can check them.
            if newValue != nil { crossCheck?.giveUp() }
            aggregates =
                newValue ?? Array(repeating: Aggregate(), count: compiled.staticCalls.count)
            if let letCache { for i in letCache.versions.indices { letCache.versions[i] += 1 } }
        }
    }

    /// The answer of a static history call, from its running aggregate; nil for other calls.
    func answer(_ call: HistoryCall, context: EvalContext) -> Eval? {
        guard let i = compiled.staticSlots[call.slot] else {
            return counted[call.slot]?.answer(context, existence: call.existence)
        }
        let a = aggregates[i]
        switch call.kind {
        case .first: return a.first.map { .event($0) } ?? .null
        case .last: return a.last.map { .event($0) } ?? .null
        case .count: return .value(.int(Int64(a.count)))
        case .maxof: return .value(a.max ?? .null)
        case .minof: return .value(a.min ?? .null)
        case .next: return nil
        }
    }

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

    /// The events before the current one that `call` may match, after its `since` cut; for
    /// `next`, the events after it seen so far.
    func candidates(for call: HistoryCall, context: EvalContext) -> HistoryCandidates {
        guard let listIndex = compiled.listOfSlot[call.slot] else {
            return HistoryCandidates(events: [])
        }
        if call.kind == .next {
            let from = (judging ?? context.event).seq
            let list = lists[listIndex]
            var lo = 0, hi = list.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if list[mid].seq <= from { lo = mid + 1 } else { hi = mid }
            }
            return HistoryCandidates(events: list[lo...], incomplete: !ended)
        }
        // Everything after the latest `since` event (or the capture) and before the current one.
        var cut = Int.min
        switch call.since {
        case nil: break
        case .capture(let name)?:
            guard let captured = context.captures[name] else {
                return HistoryCandidates(events: [])
            }
            cut = captured.seq
        case .selector(let s)?:
            // Judged late (look-ahead), the latest `since` event is the latest before the trigger.
            let before = judging?.seq ?? Int.max
            if let sinceList = compiled.sinceListOfSlot[call.slot] {
                var tried = 0
                for e in lists[sinceList].reversed() where e.seq < before {
                    tried += 1
                    if Evaluator.matches(s, e, context.looking(at: e)) != nil {
                        cut = e.seq
                        break
                    }
                }
                guard spend(tried) else { return HistoryCandidates(events: []) }
            }
        }
        if let bound = seqBound(call, context: context) { cut = max(cut, bound) }
        var events = keyedCandidates(call, context: context) ?? lists[listIndex][...]
        if cut != Int.min {
            // Lists are in seq order: find the first event after the cut.
            var lo = events.startIndex, hi = events.endIndex
            while lo < hi {
                let mid = (lo + hi) / 2
                if events[mid].seq <= cut { lo = mid + 1 } else { hi = mid }
            }
            events = events[lo...]
        }
        if let judging {
            // Judged later: only what came before the trigger.
            var lo = events.startIndex, hi = events.endIndex
            while lo < hi {
                let mid = (lo + hi) / 2
                if events[mid].seq < judging.seq { lo = mid + 1 } else { hi = mid }
            }
            events = events[..<lo]
        }
        return HistoryCandidates(events: events)
    }

    /// For a call whose single selector term has a conjunct `$seq > X` (or `>=`) with X reading
    /// only what is bound outside (`$seq > q.$seq`: after the captured event), the seq before
    /// which no candidate can match: the look-back starts there instead of at the oldest event.
    private func seqBound(_ call: HistoryCall, context: EvalContext) -> Int? {
        guard call.slot >= 0 else { return nil }
        let found: OuterSide?
        if let known = seqBounds[call.slot] {
            found = known
        } else {
            found = seqConjunct(call.selector)
            seqBounds[call.slot] = .some(found)
        }
        guard let found, Self.binds(found.bindings, context),
            case .value(let v) = Evaluator.evaluate(found.expr, context),
            let n = v.number, n.isFinite, abs(n) < 9e15
        else { return nil }
        let strict = found.strict
        // Candidates need seq > n (strict) or seq >= n: everything at or before the bound is cut.
        let whole = n.rounded(.down)
        return strict || whole != n ? Int(whole) : Int(whole) - 1
    }

    /// Per call slot: its `$seq > X` conjunct (X as an ``OuterSide``), or nil when it has none.
    private var seqBounds: SlotTable<OuterSide?>

    private func seqConjunct(_ selector: Selector) -> OuterSide? {
        guard !compiled.bindsResults(selector),
            let (whereExpr, outerNames, own) = KeyedIndex.whereParts(
                selector, outer: compiled.declaredNames)
        else { return nil }
        for conjunct in KeyedIndex.conjuncts(whereExpr) {
            switch conjunct {
            case .binary(let op, .field("$seq", _), let x, _)
            where op == .greater || op == .greaterEqual:
                if KeyedIndex.reads(x, candidateOnly: false, outer: outerNames, own: own),
                    let side = outerSide(x, strict: op == .greater)
                {
                    return side
                }
            case .binary(let op, let x, .field("$seq", _), _) where op == .less || op == .lessEqual:
                if KeyedIndex.reads(x, candidateOnly: false, outer: outerNames, own: own),
                    let side = outerSide(x, strict: op == .less)
                {
                    return side
                }
            default: continue
            }
        }
        return nil
    }

    /// `x`, an expression of what is bound outside a history call, with the names it reads that
    /// are bound only sometimes (captures, history results: not lets). Nil when `x` reads the
    /// current event (a bare `params`, or a let that reads one): inside a `where:` that is the
    /// candidate, so `x` is no outer side; nil too when it reads a let that names a history
    /// result (``CompiledRule/resultLets``): taken once before the candidates, it would bind
    /// that name where the scan binds it only if a candidate is tried.
    private func outerSide(_ x: Expr, strict: Bool = false) -> OuterSide? {
        var bindings: [String] = []
        var unkeyable = false
        NameWalker.walk(x) { sub in
            guard case .name(let n, _, _) = sub else { return }
            if n == "params" || compiled.eventLets.contains(n) || compiled.resultLets.contains(n) {
                unkeyable = true; return
            }
            if !compiled.letNames.contains(n), !bindings.contains(n) { bindings.append(n) }
        }
        return unkeyable ? nil : OuterSide(expr: x, strict: strict, bindings: bindings)
    }

    /// Whether every one of `names` is bound in `context` as the evaluator reads a name (a bound
    /// value, a capture, a history result). One that is not is null there; the call then scans,
    /// which answers that without an index made for bound names.
    static func binds(_ names: [String], _ context: EvalContext) -> Bool {
        for name in names {
            if context.boundLets?[name] != nil { continue }
            if !context.captures.isEmpty, context.captures[name] != nil { continue }
            if let results = context.historyResults, results.lookup(name) != nil { continue }
            return false
        }
        return true
    }

    /// For a call like `count({ev: sse.processed, where: "text(id) == text(c.id)"})`, whose single
    /// selector term has a conjunct `A == B` with A reading only the candidate and B only what is
    /// bound outside (captures, lets, params), the events with A equal to B's value, from a hash
    /// index kept up to date as events are retained. Nil when the call is not of that shape.
    private func keyedCandidates(_ call: HistoryCall, context: EvalContext) -> ArraySlice<Event>? {
        // (`candidates` only asks for calls with a list, all of which the tables cover.)
        guard indexes.covers(call.slot), unindexable[call.slot] == nil else { return nil }
        if let lookup = indexes[call.slot] {
            guard Self.binds(lookup.outer.bindings, context) else { return nil }
            guard case .value(let key) = Evaluator.evaluate(lookup.outer.expr, context) else {
                return []
            }
            return lookup.index.candidates(for: key)
        }
        // A selector whose `where:` (or `not:`) names a history result binds it for each candidate
        // the scan tries: the index, trying only those of the key, would bind it or not by the key
        // (``CompiledRule/bindsResults(_:)``).
        guard let listIndex = compiled.listOfSlot[call.slot], !compiled.bindsResults(call.selector),
            let (candidateSide, outerExpr) = KeyedIndex.split(
                call.selector, outer: compiled.declaredNames),
            let outer = outerSide(outerExpr)
        else {
            unindexable[call.slot] = true
            return nil
        }
        // Calls that key the same list by the same expression share one index (the selector's other
        // tests are still checked on each event found).
        let index: KeyedIndex
        if let made = madeIndexes.first(where: {
            $0.list == listIndex && KeyedIndex.sameKey($0.key, candidateSide)
        }) {
            index = made
        } else {
            index = KeyedIndex(list: listIndex, key: candidateSide)
            for e in lists[listIndex] { index.add(e, shared: shared(.index)) }
            madeIndexes.append(index)
        }
        indexes[call.slot] = KeyedLookup(index: index, outer: outer)
        guard Self.binds(outer.bindings, context) else { return nil }
        guard case .value(let key) = Evaluator.evaluate(outer.expr, context) else { return [] }
        return index.candidates(for: key)
    }
}

/// The side of a history `where:` conjunct that reads only what is bound outside the candidate:
/// an index's key looked up, or a `$seq` bound (`strict`: `>`, not `>=`). `bindings`: the names
/// it reads that must be bound where the call runs for it to mean that (``Runner/binds(_:_:)``).
struct OuterSide {
    let expr: Expr
    var strict = false
    let bindings: [String]
}

/// A history call answered from a ``KeyedIndex``: the index, and the call's outer side (whose
/// value is the key looked up).
final class KeyedLookup {
    let index: KeyedIndex
    let outer: OuterSide

    init(index: KeyedIndex, outer: OuterSide) {
        self.index = index
        self.outer = outer
    }
}

/// A hash index of one history list by an expression over the candidate event.
final class KeyedIndex {
    let list: Int
    let key: Expr
    /// The events by their key, exactly (``normalized(_:)``).
    private var buckets = ValueBuckets()
    /// The events whose key is an integer that a double cannot hold (2^53 and up, in magnitude),
    /// by the double it rounds to: `==` compares an integer with a double as doubles, so a double
    /// key finds them here. Empty unless such keys come (a `gen` from a nanosecond clock).
    private var byRounding = ValueBuckets()

    init(list: Int, key: Expr) {
        self.list = list
        self.key = key
    }

    /// Literal values that are the same, bit for bit: `0.0` and `-0.0` are `==` but not the same
    /// text (`text(-0.0)` is "-0.0"), so two keys differing in them must not share an index.
    static func identical(_ x: Value, _ y: Value) -> Bool {
        switch (x, y) {
        case (.double(let a), .double(let b)): return a.bitPattern == b.bitPattern
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { identical($0, $1) }
        case (.object(let a), .object(let b)):
            return a.count == b.count
                && zip(a, b).allSatisfy { $0.key == $1.key && identical($0.value, $1.value) }
        case (.string(let a), .string(let b)): return a.hasSameBytes(as: b)
        default: return x == y
        }
    }

    /// Whether two candidate-side keys are the same expression (then they index a list the same
    /// way). Conservative: shapes not listed here are never the same, which only costs an index.
    static func sameKey(_ a: Expr, _ b: Expr) -> Bool {
        switch (a, b) {
        case (.literal(let x), .literal(let y)): return identical(x, y)
        case (.field(let m, _), .field(let n, _)): return m == n
        case (.name(let m, _, _), .name(let n, _, _)): return m == n
        case (.member(let x, let m, _, _), .member(let y, let n, _, _)):
            return m == n && sameKey(x, y)
        case (.index(let x, let i), .index(let y, let j)): return sameKey(x, y) && sameKey(i, j)
        case (.unary(let o, let x), .unary(let p, let y)): return o == p && sameKey(x, y)
        case (.binary(let o, let x, let y, _), .binary(let p, let u, let v, _)):
            return o == p && sameKey(x, u) && sameKey(y, v)
        case (.conditional(let c, let x, let y), .conditional(let d, let u, let v)):
            return sameKey(c, d) && sameKey(x, u) && sameKey(y, v)
        case (.call(let f, let xs, _), .call(let g, let ys, _)):
            return f == g && xs.count == ys.count && zip(xs, ys).allSatisfy { sameKey($0, $1) }
        default: return false
        }
    }

    func add(_ e: Event, shared: EvalShared) {
        let ctx = EvalContext(event: e, shared: shared)
        // `null == null` holds, so null is a key like any other; undecided is none.
        guard case .value(let k) = Evaluator.evaluate(key, ctx) else { return }
        let exact = Self.normalized(k)
        buckets.append(e, for: exact)
        if let rounded = Self.rounding(exact) { byRounding.append(e, for: rounded) }
    }

    /// The events whose key `==` calls equal to `key` (and maybe others, which the selector's
    /// full test, run on each, drops), in the order they were added.
    ///
    /// `==` compares two integers exactly and an integer with a double as doubles: from 2^53 up,
    /// 2^53 + 1 equals the double 2^53 but not the integer 2^53. So an integer key finds the
    /// integer's events and those of its double; a double key past 2^53 finds its doubles and the
    /// integers that round to it. Integers stay in buckets of their own: a `gen` taken from a
    /// nanosecond clock shares a double with 256 others, which one bucket would make a scan.
    func candidates(for key: Value) -> ArraySlice<Event> {
        let exact = Self.normalized(key)
        let found = buckets.events(for: exact)
        let also: ArraySlice<Event>?
        switch exact {
        case .int, .bigInt:
            guard let rounded = Self.rounding(exact) else { return found ?? [] }
            also = buckets.events(for: rounded)
        case .double(let d) where d.magnitude >= 0x1p53:
            also = byRounding.events(for: exact)
        default:
            return found ?? []
        }
        guard let also, !also.isEmpty else { return found ?? [] }
        guard let found, !found.isEmpty else { return also }
        // Both: merged by seq, the order of the list they came from.
        var merged: [Event] = []
        merged.reserveCapacity(found.count + also.count)
        var i = found.startIndex, j = also.startIndex
        while i < found.endIndex, j < also.endIndex {
            if found[i].seq <= also[j].seq {
                merged.append(found[i])
                i += 1
            } else {
                merged.append(also[j])
                j += 1
            }
        }
        merged.append(contentsOf: found[i...])
        merged.append(contentsOf: also[j...])
        return merged[...]
    }

    /// A key as its bucket holds it: numbers by value (1 and 1.0 are one key), a whole double
    /// below 2^53 as the integer it is; integers that a double cannot hold stay exact (see
    /// ``candidates(for:)``).
    static func normalized(_ v: Value) -> Value {
        if case .double(let d) = v, d.magnitude < 0x1p53, let i = Int64(exactly: d) {
            return .int(i)
        }
        return v
    }

    /// For an integer key a double cannot hold (2^53 and up in magnitude, `.bigInt` too), the
    /// double `==` compares it as; nil for any other key.
    static func rounding(_ exact: Value) -> Value? {
        switch exact {
        case .int(let i) where i.magnitude >= 1 << 53: return .double(Double(i))
        case .bigInt: return exact.number.map { .double($0) }
        default: return nil
        }
    }

    /// For a one-term selector with a `where`: the expression, the names bound outside it
    /// (`outer`: every name the rule declares — ``CompiledRule/declaredNames``), and the term's own
    /// capture — which is the candidate while `where` runs, but not when an index is built or a
    /// bound is taken: a side that reads it is neither (see ``reads``).
    ///
    /// The names are the rule's, not those bound when a call first runs: a call in a let runs
    /// where a later step's capture is not bound yet (the name is then null) and where it is,
    /// and a shape decided from the first of those made verdicts depend on which came first. A
    /// declared name is never a candidate's field; where it is not bound, the call scans
    /// (``Runner/binds(_:_:)``).
    static func whereParts(_ selector: Selector, outer: Set<String>) -> (
        Expr, Set<String>, String?
    )? {
        guard selector.terms.count == 1, let whereExpr = selector.terms[0].whereExpr else {
            return nil
        }
        var outerNames = outer
        let own = selector.terms[0].capture
        if let own { outerNames.remove(own) }
        return (whereExpr, outerNames, own)
    }

    /// Splits a selector's `where` into (candidate side, outer side) of an equality conjunct.
    static func split(_ selector: Selector, outer: Set<String>) -> (Expr, Expr)? {
        guard let (whereExpr, outerNames, own) = KeyedIndex.whereParts(selector, outer: outer)
        else { return nil }
        for conjunct in conjuncts(whereExpr) {
            guard case .binary(.equal, let a, let b, _) = conjunct else { continue }
            if reads(a, candidateOnly: true, outer: outerNames, own: own),
                reads(b, candidateOnly: false, outer: outerNames, own: own)
            {
                return (a, b)
            }
            if reads(b, candidateOnly: true, outer: outerNames, own: own),
                reads(a, candidateOnly: false, outer: outerNames, own: own)
            {
                return (b, a)
            }
        }
        return nil
    }

    static func conjuncts(_ e: Expr) -> [Expr] {
        if case .binary(.and, let a, let b, _) = e { return conjuncts(a) + conjuncts(b) }
        return [e]
    }

    /// Whether `e` reads only the candidate's fields (`candidateOnly`), or only outer names and
    /// params (not). Neither side may use history functions.
    static func reads(_ e: Expr, candidateOnly: Bool, outer: Set<String>, own: String? = nil)
        -> Bool
    {
        var ok = true
        var sawName = false
        NameWalker.walk(e) { sub in
            switch sub {
            case .history: ok = false
            case .name(let n, _, _):
                if n == own { ok = false; return }
                if n == "params" { if candidateOnly { ok = false }; return }
                sawName = true
                if outer.contains(n) == candidateOnly { ok = false }
            case .field:
                // A field of the candidate.
                sawName = true
                if !candidateOnly { ok = false }
            default: break
            }
        }
        return ok && (sawName || !candidateOnly)
    }
}

/// The deadlines of one source: obligations are decided as soon as an event of the source has a
/// later `t` (rules.md: the clock is the source's, whatever the timeline).
final class SourceClock {
    /// A binary heap of deadlines, with each deadline's owner (an index into ``owners``) at the
    /// same position in ``slots``: the heap moves plain numbers only, never an owner (whose copy
    /// would retain its runner and scope).
    private var deadlines: [Double] = []
    private var slots: [Int32] = []
    /// The runner and scope of each scheduled deadline; nil for a free place (listed in ``free``).
    private var owners: [(runner: Runner, scope: ContextScope)?] = []
    private var free: [Int32] = []
    /// Owners due at one `advance`, kept between calls so it allocates nothing.
    private var dueScratch: [(runner: Runner, scope: ContextScope)] = []

    func schedule(_ deadline: Double, runner: Runner, scope: ContextScope) {
        let slot: Int32
        if let reused = free.popLast() {
            slot = reused
            owners[Int(slot)] = (runner, scope)
        } else {
            slot = Int32(owners.count)
            owners.append((runner, scope))
        }
        deadlines.append(deadline)
        slots.append(slot)
        var i = deadlines.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            if deadlines[parent] <= deadlines[i] { break }
            swap(parent, i)
            i = parent
        }
    }

    @inline(__always) private func swap(_ a: Int, _ b: Int) {
        deadlines.swapAt(a, b)
        slots.swapAt(a, b)
    }

    /// The times the clock was advanced to, as suffix maxima: `(seq, t)` with `t` falling, so the
    /// first entry at or after a `seq` holds the highest `t` since then (``highest(since:)``). With
    /// `t` that never falls this is one entry; while `t` keeps falling it grows, up to
    /// ``maxPeaks``: then the older half is forgotten.
    private var peaks: [(seq: Int, t: Double)] = []
    private var forgottenThrough = Int.min
    static let maxPeaks = 4096

    /// The highest time the clock was advanced to by the event with `$seq` `seq` or a later one;
    /// -infinity if none; nil if that is no longer known (``maxPeaks``). A deadline scheduled while
    /// that event was judged has been decided since exactly when it is before this (a replay sets
    /// a clock to it: ``RetiredTimeline``).
    func highest(since seq: Int) -> Double? {
        guard seq > forgottenThrough else { return nil }
        var lo = 0, hi = peaks.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if peaks[mid].seq < seq { lo = mid + 1 } else { hi = mid }
        }
        return lo < peaks.count ? peaks[lo].t : -.infinity
    }

    /// Advances the clock for the event with `$seq` `seq` (see ``advance(to:sink:)``).
    func advance(to now: Double, seq: Int, sink: FindingSink) {
        if !now.isNaN {
            while let last = peaks.last, last.t <= now { peaks.removeLast() }
            peaks.append((seq, now))
            if peaks.count > Self.maxPeaks {
                forgottenThrough = peaks[Self.maxPeaks / 2 - 1].seq
                peaks.removeFirst(Self.maxPeaks / 2)
            }
        }
        advance(to: now, sink: sink)
    }

    /// Moves every scheduled deadline to `other` (a replay's clock handing over to the source's).
    func move(to other: SourceClock) {
        for (i, deadline) in deadlines.enumerated() {
            if let owner = owners[Int(slots[i])] {
                other.schedule(deadline, runner: owner.runner, scope: owner.scope)
            }
        }
        deadlines = []
        slots = []
        owners = []
        free = []
    }

    /// Tells every runner with a deadline before `now` to decide; each runner checks its own.
    func advance(to now: Double, sink: FindingSink) {
        guard let first = deadlines.first, first < now else { return }
        var due = dueScratch
        dueScratch = []
        while let top = deadlines.first, top < now {
            let last = deadlines.count - 1
            swap(0, last)
            deadlines.removeLast()
            let slot = Int(slots.removeLast())
            due.append(owners[slot]!)
            owners[slot] = nil
            free.append(Int32(slot))
            var i = 0
            let n = deadlines.count
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < n, deadlines[l] < deadlines[m] { m = l }
                if r < n, deadlines[r] < deadlines[m] { m = r }
                if m == i { break }
                swap(i, m)
                i = m
            }
        }
        // A runner due several times decides once (it checks all its deadlines).
        if due.count <= 8 {
            for k in due.indices where !due[..<k].contains(where: { $0.runner === due[k].runner }) {
                due[k].runner.expire(now: now, context: due[k].scope, sink: sink)
            }
        } else {
            var seen = Set<ObjectIdentifier>()
            for (runner, scope) in due where seen.insert(ObjectIdentifier(runner)).inserted {
                runner.expire(now: now, context: scope, sink: sink)
            }
        }
        due.truncate(to: 0)
        dueScratch = due
    }
}

/// A rule ready to run: its params resolved (command line over rule over file) and what it
/// needs to remember about a timeline worked out once.
final class CompiledRule: @unchecked Sendable {
    let rule: Rule
    let index: Int
    let params: [String: Value]
    /// Params and file paths, shared by every evaluation of the rule (set by the plan).
    var environment = EvalEnvironment(params: [:], files: [])
    /// The rule's messages made so far, for its findings to share (see ``MessageTable``).
    var messages = MessageTable()
    /// `ev` names whose events the history functions may look back at; nil: any event.
    let historyNames: Set<String>?
    /// The same as ids, and the ids of each history list (nil: any).
    let historyIDs: [Int32]?
    let historyListIDs: [[Int32]?]
    /// For each correlated call (by slot): its list, and its `since` selector's list.
    let listOfSlot: SlotTable<Int>
    let sinceListOfSlot: SlotTable<Int>
    /// The slots of the rule's history calls (for the runner's per-call tables).
    let callSlots: [Int]
    /// For `preceded_by`: the history list of the enabling selector.
    let precedenceList: Int?
    /// The rule's lets, one slot per name; `isStatic` marks those whose value depends only on
    /// static history calls, params and other such lets.
    let lets: LetTable
    /// The message's holes, compiled, in the order its template holds them. Compiled when the
    /// rule's first finding is rendered: most rules of a run make none. (A plan's rules are its
    /// thread's own, ``Auditor/makePlan(files:judging:)``: nothing else can read this meanwhile.)
    private(set) lazy var messageHoles: [CompiledExpression] =
        (rule.message?.parts ?? []).compactMap { part in
            if case .expr(let e) = part { return CompiledExpression(e) }
            return nil
        }
    /// `count`'s `by:` and `response`'s `within_ms:`, compiled (nil: the check has none).
    let countBy: CompiledExpression?
    let responseWithin: CompiledExpression?
    /// Each static call's value (``StaticCall/value``), compiled: by position in ``staticCalls``.
    let staticValues: [CompiledExpression?]
    /// Per correlated call (by slot): its `$seq > X` bound and its equality index's shape, for
    /// the calls that have one (``seqSideTable()``, ``keyedShapeTable()``). Made with the
    /// rule's ``historyPlans``. (A plan's rules are its thread's own,
    /// ``Auditor/makePlan(files:judging:)``.)
    private(set) lazy var seqSides: SlotTable<OuterSide> = seqSideTable()
    private(set) lazy var keyedShapes: SlotTable<KeyedShape> = keyedShapeTable()
    /// How a runner answers each history call (``HistoryPlans``), made for the first runner.
    private(set) lazy var historyPlans = HistoryPlans(self)
    /// The calls the two tables above are made for (``lookupCalls(_:lists:)``).
    let lookupCalls: [HistoryCall]
    /// Whether the message reads history (then an obligation renders it when it opens, so it
    /// describes the trigger's moment, not the moment the deadline was decided).
    let messageReadsHistory: Bool
    /// The capture whose `gen` a finding carries instead of its anchor's (`report_gen:`).
    let reportGen: String?
    /// ``Rule/findingFields`` with their ``FieldNames`` ids: what a finding records of its event.
    let findingFields: [(name: String, id: Int32)]
    /// Whether any history function is used at all (if not, nothing is retained).
    let usesHistory: Bool
    /// Whether a runner of this rule keeps state that only replaying its timeline's events
    /// rebuilds (``RetiredTimeline``): not a `classify`, an `every` or a timeline-wide `never`
    /// whose history calls are all running aggregates and that does not look ahead — such a
    /// runner's state (its aggregates, a `classify`'s flags) can be set back as it was.
    let needsReplay: Bool
    /// Whether a history call names its result with `as:` (`last({ev: ws.ping, as: q})`): each
    /// evaluation then carries a ``HistoryResults`` for those names.
    let bindsHistoryResults: Bool
    /// Those names (an index's outer side may read them: they are never fields of the candidate).
    let historyResultNames: [String]
    /// Every name the rule binds anywhere: its lets, its captures (history selectors' too) and
    /// its history results. Whether a name in a history `where:` is the candidate's field or
    /// something bound outside is decided from these, once (``KeyedIndex/whereParts(_:outer:)``),
    /// never from what happens to be bound when a call first runs.
    let declaredNames: Set<String>
    /// The rule's lets (a name that is one is bound wherever the rule evaluates).
    let letNames: Set<String>
    /// Lets that read a bare `params`, or such a let: the current event's field, which inside a
    /// `where:` is the candidate's. An index's outer side must not read them.
    let eventLets: Set<String>
    /// Lets whose evaluation may name a history result (a `first`/`last`/`next` with `as:` in
    /// them, or in a let they read): evaluating one binds that name for the rest of the
    /// evaluation. An index's outer side must not read them, nor may the selector it splits name
    /// a result, in a `where:` or a `not:` (``bindsResults(_:)``): a key or bound taken before the
    /// candidates are tried, or trying only those of the key, would bind or read the name where
    /// the scan, trying each candidate in turn, does not.
    let resultLets: Set<String>
    /// Whether the rule looks ahead (`next(SEL)`, in an `every` expectation): its triggers may be
    /// judged later than they arrive, so its history calls are answered from lists, not aggregates.
    let usesLookAhead: Bool
    /// The ``EvNames`` ids a `next(SEL)` of the rule may find (nil: any): only their arrival can
    /// answer a waiting trigger.
    let lookAheadIDs: [Int32]?
    /// Whether the message reads `next(SEL)`: a failing trigger then waits for it too.
    let messageLooksAhead: Bool
    /// One history list per distinct set of `ev` names the correlated history selectors name
    /// (nil: any event), so a look-back only walks events of the kinds it asks for.
    let historyLists: [Set<String>?]
    /// A runner's history lists as they start, all empty, made for the first runner: each runner
    /// shares them until it first writes one (most runners never add to a list), so they cost
    /// neither an allocation nor a free per runner.
    private(set) lazy var emptyLists: [[Event]] = Array(repeating: [], count: historyLists.count)
    /// History calls a ``CountedIndex`` answers (by slot): `count`s and existence tests keyed by a
    /// `text(…)` of the candidate (``CountedShape``), each on a list that every call reading it
    /// reads that way (``countedLists``). Such a list keeps no events: its indexes keep seqs.
    let countedShapes: SlotTable<CountedShape>
    let countedLists: [Bool]
    /// History calls answered from running aggregates; `staticSlots` maps a call's slot to its
    /// position here. Calls asked alike (``StaticCall/answersAlike(kind:selector:since:value:)``)
    /// share one position.
    let staticCalls: [StaticCall]
    /// The static calls an event of each ``EvNames`` id can move, in one flat table, for runners
    /// to read in place (``StaticCallTable``).
    let staticCallTable: StaticCallTable
    /// What a runner does with an event of each id (``RunnerRoutes``), made with the plan's
    /// ``Dispatch``, which keeps each rule's row beside it. Runners keep plain pointers into it, so
    /// it is made once, on one thread: every worker compiles its own plan.
    private(set) lazy var routes = RunnerRoutes(self)

    /// The events that can matter to the check itself (any of its selectors may match them), not
    /// only to its history.
    let checkConcerns: EvIDSet

    /// The static calls an event with ``EvNames`` id `id` can move (valid while this rule lives).
    @inline(__always) func staticCalls(for id: Int32) -> UnsafeBufferPointer<StaticCallTable.Entry>
    {
        staticCallTable.view.entries(for: id)
    }
    let staticSlots: SlotTable<Int>
    /// `ev` names this rule reacts to; nil: every event.
    let interest: Set<String>?

    /// Whether the rule has something to say about a timeline none of whose events it saw:
    /// a `count` with `min`, or a `classify` label.
    var judgesEmptyTimelines: Bool {
        switch rule.check {
        case .count(_, let min?, _, _): return min > 0
        case .classify: return true
        default: return false
        }
    }

    /// Whether the rule can react to real events, not only the reader's `$` findings.
    var wantsRealEvents: Bool {
        guard let interest else { return true }
        return interest.contains { !$0.hasPrefix("$") }
    }

    /// The check with its `min`/`max` read from the params they name (after `--param`; the
    /// command line refuses a value that is not a whole number >= 0).
    static func boundsFromParams(_ rule: Rule, _ params: [String: Value]) -> Check {
        guard !rule.boundParams.isEmpty else { return rule.check }
        func value(_ key: String, _ written: Int?) -> Int? {
            guard let name = rule.boundParams[key], let v = params[name],
                let n = FileLoader.wholeCount(v)
            else { return written }
            return n
        }
        switch rule.check {
        case .count(let sel, let minimum, let maximum, let by):
            return .count(sel, min: value("min", minimum), max: value("max", maximum), by: by)
        case .classify(let c, let required, let minimum, let applies):
            return .classify(
                c, require: required, min: value("min", minimum) ?? minimum, appliesIf: applies)
        default:
            return rule.check
        }
    }

    init(rule written: Rule, index: Int, overrides: [String: Value]) {
        // File-level lets the rule never reads are dropped: they would only cost evaluations
        // and the history they look back at.
        var rule = written
        rule.lets = Self.letsRead(by: written)
        var params = rule.params
        // `NAME=` first, then `RULE_ID.NAME=`, so the rule-specific value wins whatever the order.
        for (name, value) in overrides where params[name] != nil { params[name] = value }
        for (name, value) in overrides {
            if let dot = name.lastIndex(of: "."), name[..<dot] == rule.id {
                params[String(name[name.index(after: dot)...])] = value
            }
        }
        rule = NameResolution.resolve(rule, params: params)
        rule.check = Self.boundsFromParams(rule, params)
        self.rule = rule
        self.index = index
        self.params = params
        environment = EvalEnvironment(params: params, files: [])

        // Every history call of the rule, wherever it is written (nested selectors too).
        var calls: [HistoryCall] = []
        func collect(_ e: Expr) {
            NameWalker.walk(e) { sub in
                if case .history(let call) = sub, !calls.contains(where: { $0.slot == call.slot }) {
                    calls.append(call)
                }
            }
        }
        for (_, e) in rule.lets { collect(e) }
        let selectors = rule.check.selectors
        rule.check.expressions.forEach(collect)
        for s in selectors { NameWalker.whereExpressions(of: s).forEach(collect) }
        if let message = rule.message {
            for part in message.parts { if case .expr(let e) = part { collect(e) } }
        }

        // A call that reads nothing bound outside its selector can be answered from a running
        // aggregate (first, last, count since the cut) instead of a list of past events.
        // Names bound anywhere in the rule: top-level captures, lets, and captures bound inside
        // history selectors (visible to calls nested in their `where`).
        var outer = Set(rule.lets.map(\.name)).union(selectors.flatMap(Self.captureNames))
        for call in calls {
            outer.formUnion(Self.captureNames(call.selector))
            if case .selector(let s)? = call.since { outer.formUnion(Self.captureNames(s)) }
        }
        let lookAhead = calls.contains { $0.kind == .next }
        usesLookAhead = lookAhead
        var aheadIDs: [Int32]? = []
        for call in calls where call.kind == .next {
            guard let ids = call.selector.ids, aheadIDs != nil else { aheadIDs = nil; break }
            aheadIDs! += ids
        }
        lookAheadIDs = aheadIDs
        var aggregates: [StaticCall] = []
        var aggregateValues: [CompiledExpression?] = []
        var slots: [Int: Int] = [:]
        var listOfSlot: [Int: Int] = [:]
        var sinceListOfSlot: [Int: Int] = [:]
        var history: Set<String>? = []
        var lists: [Set<String>?] = []
        func note(_ s: Selector) { s.addEvNames(to: &history) }
        for call in calls {
            note(call.selector)
            var since: Selector?
            var sinceIsStatic = true
            switch call.since {
            case nil: break
            case .selector(let s)?:
                note(s)
                since = s
                sinceIsStatic = Self.isStatic(s, outer: outer)
            case .capture?:
                sinceIsStatic = false
            }
            let valueIsStatic = call.value.map { Self.isStaticValue($0, outer: outer) } ?? true
            // A rule that looks ahead judges a trigger again later: running aggregates would by
            // then include events after it.
            if !lookAhead, sinceIsStatic, valueIsStatic, Self.isStatic(call.selector, outer: outer)
            {
                // Calls asked alike share one aggregate: it moves once per event for all of them.
                if let shared = aggregates.firstIndex(where: {
                    $0.answersAlike(selector: call.selector, since: since, value: call.value)
                }) {
                    slots[call.slot] = shared
                    aggregates[shared] = aggregates[shared].merged(with: call.kind)
                    continue
                }
                slots[call.slot] = aggregates.count
                aggregates.append(
                    StaticCall(
                        kind: call.kind, selector: call.selector, since: since, value: call.value))
                aggregateValues.append(call.compiledValue)
                continue
            }
            // Each selector's names once: ``Selector/evNames`` is a union made on each read.
            let names = call.selector.evNames
            if !lists.contains(where: { $0 == names }) { lists.append(names) }
            listOfSlot[call.slot] = lists.firstIndex { $0 == names }
            if let since {
                let sinceNames = since.evNames
                if !lists.contains(where: { $0 == sinceNames }) { lists.append(sinceNames) }
                sinceListOfSlot[call.slot] = lists.firstIndex { $0 == sinceNames }
            }
        }
        // `preceded_by` looks back through a list of its own.
        var precedence: Int?
        if case .precedence(_, let enabling) = rule.check {
            note(enabling)
            let names = enabling.evNames
            if let i = lists.firstIndex(where: { $0 == names }) {
                precedence = i
            } else {
                lists.append(names)
                precedence = lists.count - 1
            }
        }
        precedenceList = precedence
        usesHistory = !calls.isEmpty || precedence != nil
        bindsHistoryResults = calls.contains { !$0.resultCaptures.isEmpty }
        var resultNames: [String] = []
        for call in calls {
            for n in call.resultCaptures where !resultNames.contains(n) { resultNames.append(n) }
        }
        historyResultNames = resultNames
        historyLists = lists
        switch rule.check {
        case .classify, .every, .never(_, .global): needsReplay = !lists.isEmpty || lookAhead
        default: needsReplay = true
        }
        staticCalls = aggregates
        staticValues = aggregateValues
        staticCallTable = StaticCallTable(aggregates)
        checkConcerns = EvIDSet(selectors)
        callSlots = calls.map(\.slot)
        staticSlots = SlotTable(covering: callSlots, slots)
        historyNames = usesHistory ? history : []
        var messageHistory = false
        if let message = rule.message {
            for case .expr(let e) in message.parts {
                NameWalker.walk(e) { if case .history = $0 { messageHistory = true } }
            }
        }
        messageReadsHistory = messageHistory
        if case .count(_, _, _, let by?) = rule.check {
            countBy = CompiledExpression(by)
        } else {
            countBy = nil
        }
        if case .response(_, _, let within?, _, _) = rule.check {
            responseWithin = CompiledExpression(within)
        } else {
            responseWithin = nil
        }
        findingFields = rule.findingFields.map { ($0, FieldNames.id($0)) }
        switch rule.check {
        case .response(let trigger, _, _, _, _), .precedence(let trigger, _),
            .neverAfter(let trigger, _):
            reportGen = trigger.reportGen
        default:
            reportGen = nil
        }
        var messageAhead = false
        if let message = rule.message {
            for case .expr(let e) in message.parts {
                NameWalker.walk(e) {
                    if case .history(let call) = $0, call.kind == .next { messageAhead = true }
                }
            }
        }
        messageLooksAhead = messageAhead
        var staticNames = Set<String>()
        // For each static let, the aggregates (by position) its value depends on.
        var dependsOn: [String: Set<Int>] = [:]
        for (name, expr) in rule.lets {
            var ok = true
            var deps = Set<Int>()
            NameWalker.walk(expr, intoSelectors: false) { sub in
                switch sub {
                case .history(let call):
                    // A call that names its result (`as:`) binds it for the evaluation: never
                    // cached.
                    if let i = slots[call.slot], call.resultCaptures.isEmpty {
                        deps.insert(i)
                    } else {
                        ok = false
                    }
                case .name(let n, _, _):
                    if n == "params" { break }
                    if staticNames.contains(n) {
                        deps.formUnion(dependsOn[n] ?? [])
                    } else {
                        ok = false
                    }
                case .field: ok = false
                default: break
                }
            }
            // A later definition of the same name replaces it: judge the last one.
            if ok {
                staticNames.insert(name)
                dependsOn[name] = deps
            } else {
                staticNames.remove(name)
                dependsOn[name] = nil
            }
        }
        lets = LetTable(rule.lets, staticNames: staticNames, dependsOn: dependsOn)
        historyIDs = historyNames.map { $0.map { EvNames.id($0) } }
        historyListIDs = lists.map { $0.map { $0.map { EvNames.id($0) } } }
        self.listOfSlot = SlotTable(covering: callSlots, listOfSlot)
        lookupCalls = Self.lookupCalls(calls, lists: listOfSlot)
        self.sinceListOfSlot = SlotTable(covering: callSlots, sinceListOfSlot)
        // Counted lists: not in a rule that looks ahead (a trigger judged later counts only what
        // came before it), nor a list a `since:` or `preceded_by` reads.
        var shapes: [Int: CountedShape] = [:]
        var countedLists = Array(repeating: false, count: lists.count)
        let letNames = Set(rule.lets.map(\.name))
        let results = Set(resultNames)
        // Lets that read a bare `params` (the current event's field), or such a let.
        let paramLets = Self.lets(of: rule) { sub, found in
            if case .name(let n, _, _) = sub { return n == "params" || found.contains(n) }
            return false
        }
        // Lets that name a history result, or read such a let.
        let namingLets = Self.lets(of: rule, where: Self.namesResult)
        declaredNames = outer.union(results)
        self.letNames = letNames
        eventLets = paramLets
        resultLets = namingLets
        if !lookAhead {
            for call in calls {
                guard let list = listOfSlot[call.slot],
                    // A let that names a result is no outer side either (``resultLets``).
                    let shape = CountedShape.of(
                        call, outer: outer.union(results),
                        paramLets: paramLets.union(namingLets), results: results)
                else { continue }
                shapes[call.slot] = shape
                countedLists[list] = true
            }
            for call in calls {
                if let list = listOfSlot[call.slot], shapes[call.slot] == nil {
                    countedLists[list] = false
                }
                if let list = sinceListOfSlot[call.slot] { countedLists[list] = false }
            }
            if let precedence { countedLists[precedence] = false }
        }
        // Only calls on counted lists are answered from counts; the others from events.
        shapes = shapes.filter { countedLists[listOfSlot[$0.key]!] }
        countedShapes = SlotTable(covering: callSlots, shapes)
        self.countedLists = countedLists

        var interest: Set<String>? = []
        for s in selectors { s.addEvNames(to: &interest) }
        if usesHistory {
            if let h = historyNames, interest != nil {
                interest!.formUnion(h)
            } else {
                interest = nil
            }
        }
        self.interest = interest
        switch rule.check {
        case .forbid(let s, let w):
            (keptCaptures, keyCaptures) = Self.capturesReadLater(rule, s, without: w)
            stageConcerns = s.steps.map { EvIDSet([$0.selector, $0.without, w].compactMap { $0 }) }
            steps = s.steps.map(StepSelectors.init)
        case .response(let s, _, _, _, _), .precedence(let s, _), .neverAfter(let s, _):
            (keptCaptures, keyCaptures) = Self.capturesReadLater(rule, s, without: nil)
            stageConcerns = s.steps.map { EvIDSet([$0.selector, $0.without].compactMap { $0 }) }
            steps = s.steps.map(StepSelectors.init)
        default:
            keptCaptures = []
            keyCaptures = []
            stageConcerns = []
            steps = []
        }
        keptCaptureNames = keptCaptures.map { $0.sorted() }
        keyCaptureNames = keyCaptures.map { $0.sorted() }
        if case .every(let selector, let expect, let policy) = rule.check {
            every = EveryCheck(selector: selector, expect: expect, policy: policy)
        } else {
            every = nil
        }
    }

    /// For sequence checks: per step, the captures read after it (see ``SequenceRunner``).
    /// (Computed in init: runners on several threads read it.)
    let keptCaptures: [Set<String>]
    /// The same without what only the message reads: two matches that differ only in captures
    /// the message shows are one match (the first one's captures are shown).
    let keyCaptures: [Set<String>]
    /// The two, sorted, as sequence runners read them; and per step, the events that may advance
    /// or end a partial match there. Made once per rule: every timeline's runner shares them
    /// (made per runner, they would be most of a finished source's memory).
    let keptCaptureNames: [[String]]
    let keyCaptureNames: [[String]]
    let stageConcerns: [EvIDSet]
    /// A sequence check's steps, each in a box (``StepSelectors``).
    let steps: [StepSelectors]
    /// An `every` check's parts, in a box (``EveryCheck``); nil for any other check.
    let every: EveryCheck?
    /// A sequence check's plans (``SelectorPlan``), made once for all its runners: per step, its
    /// selector's, its `without`'s and the sequence's `without`'s; and `followed_by`'s and
    /// `unless`'s for its obligations.
    private(set) lazy var stagePlans: [[SelectorPlan?]] = SelectorPlan.stages(of: self)
    private(set) lazy var obligationPlans: [SelectorPlan?] = SelectorPlan.obligations(of: self)
    /// ``SelectorPlan/completedMatchesRetire(_:)``.
    private(set) lazy var completedMatchesRetire: Bool = SelectorPlan.completedMatchesRetire(self)
    /// Whether the rule searches with a regex anywhere (then its runners carry a regex step
    /// budget: ``Runner/regexBudget``).
    private(set) lazy var usesRegex: Bool = Self.readsRegex(rule)

    /// Whether recording an event only moves the rule's running aggregates: the rule keeps no
    /// history list (every history call is a running aggregate, whose selector, `since` and
    /// value read no history), looks ahead at nothing and searches with no regex. Its runners
    /// then spend no work and no regex budget, so they never stop, and a `classify` rule of this
    /// kind never reports: the work or regex limit's finding is the only one such a rule makes.
    var movesAggregatesAlone: Bool { historyLists.isEmpty && !usesLookAhead && !usesRegex }
    /// A sequence check's facts its runners read (``SequenceFacts``), made once for all of them:
    /// a rule makes a runner per generation.
    private(set) lazy var sequenceFacts = SequenceFacts(self)

}

/// One step of a sequence check: its selector and its `without`, in a box the compiled rule holds
/// for as long as its runners live. Runners read a step in place (``Array/withElement(_:_:)``) and
/// hand its selectors to the evaluator as they are: a step copied out of the sequence retains
/// every part of both selectors, and releases them again.
final class StepSelectors: @unchecked Sendable {
    let selector: Selector
    let without: Selector?

    init(_ step: Step) {
        selector = step.selector
        without = step.without
    }
}

/// An `every` check's trigger, expectation and undecided policy, in a box the compiled rule holds
/// for as long as its runners live: a runner reads them in place, where taking them out of the
/// rule's ``Check`` copies (and retains) the selector or expression for every event judged.
final class EveryCheck: @unchecked Sendable {
    let selector: Selector
    let expect: Expectation
    /// An expectation that is an expression, compiled (``CompiledExpression``); for a selector,
    /// null, never run.
    let expectRun: CompiledExpression
    let policy: UndecidedPolicy

    init(selector: Selector, expect: Expectation, policy: UndecidedPolicy) {
        self.selector = selector
        self.expect = expect
        if case .expression(let x) = expect {
            expectRun = CompiledExpression(x)
        } else {
            expectRun = CompiledExpression(.literal(.null))
        }
        self.policy = policy
    }
}

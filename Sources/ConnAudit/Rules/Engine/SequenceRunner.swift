/// Checks built on a trigger sequence: `forbid`, and `each` with `followed_by` (response),
/// `preceded_by` (precedence) or `never_after` (absence after each trigger).
///
/// Steps match in order with gaps allowed. A partial match remembers its stage and captures;
/// identical partials are kept once, and a partial dies when its gap sees a `without` event. A
/// complete match is a violation (`forbid`), an obligation (`followed_by`), a look back
/// (`preceded_by`) or the start of an absence (`never_after`).
final class SequenceRunner: Runner {
    private let sequence: Sequence
    private let sequenceWithout: Selector?
    /// Open partial matches by stage (index 0 is unused: a partial has matched at least one
    /// step). An event is tried only against the stages it concerns, so a generation with
    /// thousands of partials waiting at one stage (pings that never got a pong) costs nothing per
    /// unrelated event. Empty until the first partial opens (most runners never open one: one
    /// list made per runner costs more than the matching it saves).
    private var stages: [Stage] = []
    /// The stages that have partials, a bit each (a sequence has at most 64 steps,
    /// so a partial's stage is at most 63).
    private var openStages: UInt64 = 0
    private static let keyedFrom = 16

    private struct Stage {
        /// The stage's partials, in the order they were opened.
        var partials: [Partial] = []
        /// The keys of its partials once there are many of them (see ``isKnown``).
        var keys: Set<[Int]>?
        /// Scratch of ``advance``: the partials the event killed, ascending.
        var dead: [Int] = []
        /// Scratch of ``advance``: the next partial tried when an event concerns several stages.
        var cursor = 0
    }
    /// The next partial's ordinal: partials of several stages are tried in the order they opened.
    private var nextOrdinal = 0
    /// How many times a partial match or an obligation was looked at (tests: an event that
    /// concerns none of them looks at none).
    private(set) var visits = 0
    private var obligations: [Obligation] = []
    /// The earliest deadline of the open obligations (infinity: none has one). Most events pass
    /// no deadline and answer nothing: they are let through without a look at each obligation.
    private var earliestDeadline = Double.infinity
    private var armed: [Captures] = []
    private var armedKeys = Set<[Int]>()
    /// Anchors already reported (a forbidden sequence is matched existentially: once per anchor).
    private var reportedAnchors = Set<Int>()
    /// Complete matches of the event being processed (the same captures count once).
    /// The first is kept alone: a set is made only when a second match completes on the event.
    private var firstMatchKey: [Int]?
    private var matchKeys = Set<[Int]>()

    /// Whether a complete match with `key` is the first such on the event being processed.
    private func isNewMatch(_ key: [Int]) -> Bool {
        guard let first = firstMatchKey else {
            firstMatchKey = key
            return true
        }
        if matchKeys.isEmpty { matchKeys.insert(first) }
        return matchKeys.insert(key).inserted
    }
    /// Scratch list of ``advance``, kept between events so it allocates nothing for it.
    private var grownScratch: [Partial] = []
    /// Per step, the captures bound up to it that anything after it reads; others are dropped
    /// from partial matches, so partials that differ only in them merge.
    /// (A handful of names per step: a linear search is cheaper than hashing one.)
    private let kept: [[String]]
    /// Per step, the kept captures that make two partials different: not those only the message
    /// reads (partials differing in those merge; the first one's are shown).
    private let keyed: [[String]]

    /// Whether nothing after the first step tells its matches apart (none of its captures is
    /// keyed): every partial of stage 1 then has one key, and at most one is open. And whether the
    /// step reads no let. A let is evaluated at the step (later captures unbound) and elsewhere
    /// (a message, an obligation opening: bound); when a history call still decided how it looks
    /// (a hash index, a `$seq` bound) from the names bound where it first ran, skipping the step
    /// changed which came first, and a verdict (a review's rule). That decision is now made from
    /// the names the rule declares (``KeyedIndex/whereParts(_:outer:)``), so the condition is a
    /// margin only: it keeps a step whose evaluation reaches beyond itself always evaluated, and
    /// costs the built-in pack nothing (582.1 M instructions on the profile corpus either way).
    private let startsAlike: Bool

    /// Whether `selector` reads any of `lets` (its `where:`s, and those of the history calls in them).
    private static func readsLets(_ selector: Selector, _ lets: [String]) -> Bool {
        guard !lets.isEmpty else { return false }
        var reads = false
        NameWalker.walkSelector(selector) { if case .name(let n, _, _) = $0, lets.contains(n) { reads = true } }
        return reads
    }

    /// Whether a partial the first step would open on this event is sure to be dropped as one
    /// already open (``isKnown``): its matches are all alike, and the open one is not dying on
    /// this event (`died`). Its selector — the test of every such event, often the rule's
    /// costliest (`reconnect.resets-after-open` counts a generation's opens and ends for every
    /// pong) — is then not evaluated: its match would be dropped (partials that merge show the
    /// first one's captures), and what its evaluation leaves behind — how its history calls look,
    /// decided the first time they run — comes out the same whenever they first run (see
    /// ``startsAlike``).
    @inline(__always) private func startIsKnown(died: UInt64) -> Bool {
        skipsKnownStarts && startsAlike && stages.count > 1 && !stages[1].partials.isEmpty && died & (1 << 1) == 0
    }
    /// Tests: whether ``startIsKnown(died:)`` may spare the first step's selector (off: every
    /// event it may match is tried, as before), and how many times that selector was tried.
    var skipsKnownStarts = true
    private(set) var startsTried = 0

    /// What identifies a partial: its stage and the events of its keyed captures.
    private func key(_ p: Partial) -> [Int] { p.captures.seqs(of: keyed[p.stage - 1], after: p.stage) }

    private struct Partial {
        var stage: Int
        var captures: Captures
        var last: Event
        /// When it opened, among all the rule's partials (see ``nextOrdinal``).
        var ordinal = 0
    }

    private struct Obligation {
        var anchor: Event
        var context: EvalContext
        var deadline: Double?
        /// The message, rendered when the obligation opened (when it reads history).
        var message: String?
    }

    override init(_ compiled: CompiledRule, files: [String]) {
        switch compiled.rule.check {
        case .forbid(let s, let without):
            sequence = s
            sequenceWithout = without
        case .response(let s, _, _, _, _), .precedence(let s, _), .neverAfter(let s, _):
            sequence = s
            sequenceWithout = nil
        default:
            sequence = Sequence(steps: [], reportAt: nil)
            sequenceWithout = nil
        }
        kept = compiled.keptCaptureNames
        stageConcerns = compiled.stageConcerns
        keyed = compiled.keyCaptureNames
        startsAlike = sequence.steps.count > 1
            && Set(CompiledRule.captureNames(sequence.steps[0].selector)).isDisjoint(with: keyed[0])
            && !Self.readsLets(sequence.steps[0].selector, compiled.lets.names)
        super.init(compiled, files: files)
    }

    override func handle(_ e: Event, context: ContextScope, sink: FindingSink) {
        // Open obligations and armed absences see the event before it can start anything new:
        // an event never answers its own trigger.
        if !obligations.isEmpty { answer(e, context: context, sink: sink) }
        if !armed.isEmpty, case .neverAfter(_, let forbidden) = check {
            for captures in armed {
                let ctx = self.context(e, captures: captures)
                if let term = Evaluator.matches(forbidden, e, ctx), reportedAnchors.insert(e.seq).inserted {
                    var c = captures
                    if let name = term.capture(in: forbidden) { c[name] = e }
                    report(.violation, at: e, self.context(e, captures: c), context: context, sink: sink)
                    break
                }
            }
        }
        guard !sequence.steps.isEmpty else { return }
        advance(e, context: context, sink: sink)
    }

    // MARK: - Matching

    /// Whether `e` can advance or end a partial at `stage` (a cheap id test).
    @inline(__always) private func concerns(_ e: Event, stage: Int) -> Bool {
        stageConcerns[stage].contains(e.evID)
    }

    /// Per stage: the events that may advance or end a partial match there (its step's selector,
    /// the step's `without`, the sequence's `without`).
    private let stageConcerns: [EvIDSet]

    private func advance(_ e: Event, context: ContextScope, sink: FindingSink) {
        // Most events concern no partial and start none: leave everything as it is.
        let starts = sequence.steps[0].selector.mayMatch(e.evID)
        var concerned: UInt64 = 0
        var open = openStages
        while open != 0 {
            let stage = open.trailingZeroBitCount
            open &= open - 1
            if concerns(e, stage: stage) { concerned |= 1 << stage }
        }
        if !starts, concerned == 0 { return }
        var grown = grownScratch
        grownScratch = []
        defer {
            grown.truncate(to: 0)
            grownScratch = grown
        }
        var died: UInt64 = 0
        /// Tries the partial `i` of `stage` on `e`: it may grow a step (kept in `grown`) and it
        /// may die (its gap saw a `without` event).
        @inline(__always) func attempt(_ stage: Int, _ i: Int) {
            let p = stages[stage].partials[i]
            let step = sequence.steps[stage]
            let ctx = self.context(e, captures: p.captures)
            if let term = Evaluator.matches(step.selector, e, ctx) {
                var q = p
                q.stage += 1
                if let name = term.capture(in: step.selector), kept[stage].contains(name) || q.stage == sequence.steps.count {
                    q.captures[name] = e
                }
                q.last = e
                grown.append(q)
            }
            // The event is now in the gap before this partial's next step.
            if let without = step.without, Evaluator.matches(without, e, ctx) != nil {
                stages[stage].dead.append(i)
                died |= 1 << stage
            } else if let without = sequenceWithout, Evaluator.matches(without, e, ctx) != nil {
                stages[stage].dead.append(i)
                died |= 1 << stage
            }
        }
        if concerned.nonzeroBitCount == 1 {
            let stage = concerned.trailingZeroBitCount
            visits += stages[stage].partials.count
            for i in stages[stage].partials.indices { attempt(stage, i) }
        } else if concerned != 0 {
            // The concerned stages' partials, in the order they opened (a merge of a few lists).
            var each = concerned
            while each != 0 {
                let stage = each.trailingZeroBitCount
                each &= each - 1
                stages[stage].cursor = 0
                visits += stages[stage].partials.count
            }
            while true {
                var pick = 0, ordinal = Int.max
                each = concerned
                while each != 0 {
                    let stage = each.trailingZeroBitCount
                    each &= each - 1
                    let cursor = stages[stage].cursor
                    if cursor < stages[stage].partials.count, stages[stage].partials[cursor].ordinal < ordinal {
                        ordinal = stages[stage].partials[cursor].ordinal
                        pick = stage
                    }
                }
                if pick == 0 { break }
                stages[pick].cursor += 1
                attempt(pick, stages[pick].cursor - 1)
            }
        }
        if starts, !startIsKnown(died: died) {
            startsTried += 1
            if let term = Evaluator.matches(sequence.steps[0].selector, e, self.context(e)) {
                var captures = Captures()
                if let name = term.capture(in: sequence.steps[0].selector), kept[0].contains(name) || sequence.steps.count == 1 {
                    captures[name] = e
                }
                grown.append(Partial(stage: 1, captures: captures, last: e))
            }
        }
        while died != 0 {
            let stage = died.trailingZeroBitCount
            died &= died - 1
            removeDead(at: stage)
        }
        firstMatchKey = nil
        if !matchKeys.isEmpty { matchKeys.removeAll(keepingCapacity: true) }
        for var q in grown {
            if q.stage == sequence.steps.count {
                complete(q, context: context, sink: sink)
            } else {
                if stages.isEmpty { stages = Array(repeating: Stage(), count: sequence.steps.count) }
                guard !isKnown(q) else { continue }
                q.ordinal = nextOrdinal
                nextOrdinal += 1
                stages[q.stage].keys?.insert(key(q))
                stages[q.stage].partials.append(q)
                openStages |= 1 << q.stage
            }
        }
    }

    /// Removes the partials of `stage` the event killed (its `dead` list); the live ones move down
    /// in place, in order, through the list's buffer (whose swap moves; Array's copies both).
    private func removeDead(at stage: Int) {
        // Most often every partial of the stage died (one waited, and its gap saw the event).
        if stages[stage].dead.count == stages[stage].partials.count {
            stages[stage].partials.truncate(to: 0)
            stages[stage].dead.truncate(to: 0)
            stages[stage].keys = nil
            openStages &= ~(1 << stage)
            return
        }
        var list = Stage()
        swap(&list, &stages[stage])
        defer { swap(&list, &stages[stage]) }
        let dead = list.dead
        var keys = list.keys
        list.keys = nil
        let live = list.partials.withUnsafeMutableBufferPointer { buffer -> Int in
            var next = 0, live = 0
            for i in buffer.indices {
                if next < dead.count, dead[next] == i {
                    next += 1
                    keys?.remove(key(buffer[i]))
                    continue
                }
                if live != i { buffer.swapAt(live, i) }
                live += 1
            }
            return live
        }
        list.keys = keys
        list.partials.truncate(to: live)
        list.dead.truncate(to: 0)
        if live == 0 { openStages &= ~(1 << stage) }
    }

    /// Whether an identical partial (same stage, same captured events) is already open. A few
    /// partials are compared one by one; past ``keyedFrom`` a stage keeps them in a set of keys.
    private func isKnown(_ q: Partial) -> Bool {
        let stage = q.stage
        if stages[stage].keys == nil, stages[stage].partials.count >= Self.keyedFrom {
            stages[stage].keys = Set(stages[stage].partials.map(key))
        }
        if let keys = stages[stage].keys { return keys.contains(key(q)) }
        return stages[stage].partials.contains { $0.captures.sameEvents(as: q.captures, for: keyed[stage - 1]) }
    }

    private func anchor(of match: Partial) -> Event {
        if let name = sequence.reportAt, let e = match.captures[name] { return e }
        return match.last
    }

    private func complete(_ match: Partial, context: ContextScope, sink: FindingSink) {
        let anchor = anchor(of: match)
        // Bare names in messages read the event the finding points at. An obligation keeps its
        // context until it is answered: its lets are frozen.
        var isResponse = false
        if case .response = check { isResponse = true }
        let ctx = self.context(anchor, captures: match.captures, frozen: isResponse)
        switch check {
        case .forbid:
            if reportedAnchors.insert(anchor.seq).inserted {
                report(.violation, at: anchor, ctx, context: context, sink: sink, waitForAfter: anchor.seq == match.last.seq)
            }
        case .response(_, _, let within, _, _):
            let key = match.captures.seqs(of: keyed[sequence.steps.count - 1], after: match.last.seq)
            guard isNewMatch(key) else { return }
            // With `report_at`, the anchor is one event however many matches share it: one
            // obligation at a time for it, and one finding at most.
            if sequence.reportAt != nil,
               reportedAnchors.contains(anchor.seq) || obligations.contains(where: { $0.anchor.seq == anchor.seq }) { return }
            // An obligation keeps its trigger's lets: they are evaluated now.
            ctx.letScope?.evaluateAll()
            var deadline: Double?
            if let within {
                guard let ms = Evaluator.evaluate(within, ctx).value?.number else {
                    report(.inconclusive, at: anchor, ctx, context: context, sink: sink, note: "within_ms is undecided")
                    return
                }
                // A negative bound (from --param or a log field) would put the deadline before the
                // trigger: no answer could be in time. Not judged, as a literal one is refused.
                guard ms >= 0 else {
                    report(.inconclusive, at: anchor, ctx, context: context, sink: sink,
                           note: "within_ms is negative (\(Value.double(ms).normalizedNumber.rendered()))")
                    return
                }
                deadline = DecimalRounding.sum(match.last.t, ms)
                clock?.schedule(deadline!, runner: self, scope: context)
            }
            let text = compiled.messageReadsHistory ? message(for: ctx, note: nil) : nil
            obligations.append(Obligation(anchor: anchor, context: ctx, deadline: deadline, message: text))
            if let deadline { earliestDeadline = min(earliestDeadline, deadline) }
        case .precedence(_, let enabling):
            let found = compiled.precedenceList.map { history(list: $0) }?
                .contains { Evaluator.matches(enabling, $0, ctx) != nil } ?? false
            if !found { report(.violation, at: anchor, ctx, context: context, sink: sink) }
        case .neverAfter:
            let key = match.captures.seqs(of: keyed[sequence.steps.count - 1])
            if armedKeys.insert(key).inserted { armed.append(match.captures) }
        default:
            break
        }
    }

    // MARK: - Obligations

    private func fail(_ o: Obligation, _ kind: Kind, note: String, context: ContextScope, sink: FindingSink) {
        if sequence.reportAt != nil { reportedAnchors.insert(o.anchor.seq) }
        // A rule's own message says what was missing; the note is for rules without one, and
        // for inconclusive cases (why the log could not decide).
        report(kind, at: o.anchor, o.context, context: context, sink: sink,
               note: rule.message == nil || kind == .inconclusive ? note : nil, message: o.message)
    }

    private func answer(_ e: Event, context: ContextScope, sink: FindingSink) {
        guard case .response(_, let followedBy, _, let unless, _) = check else { return }
        let concerned = followedBy.mayMatch(e.evID) || (unless?.mayMatch(e.evID) ?? false)
        // Most events neither answer nor pass a deadline: leave the obligations as they are.
        if !concerned, !(e.t > earliestDeadline) { return }
        // A selector reads the candidate `e` itself (its `where` looks at it), and the
        // obligation's captures and lets.
        settle(now: e.t, context: context, sink: sink, answers: concerned) { ctx in
            Evaluator.matches(followedBy, e, ctx) != nil
                || (unless.map { Evaluator.matches($0, e, ctx) != nil } ?? false)
        }
    }

    override func expire(now: Double, context: ContextScope, sink: FindingSink) {
        // A deadline of an obligation already answered: nothing to decide.
        guard now > earliestDeadline else { return }
        settle(now: now, context: context, sink: sink, answers: false) { _ in false }
    }

    /// Decides the obligations whose deadline `now` has passed (each a violation) and those
    /// `answered` says the event answers (asked only when it `answers` any), in one pass and in
    /// order; the open ones move down in place. An open obligation is never copied (each holds a
    /// whole evaluation context): its deadline is read in place, and its context is read only
    /// when there is an event to answer.
    private func settle(
        now: Double, context: ContextScope, sink: FindingSink, answers: Bool,
        answered: (EvalContext) -> Bool
    ) {
        // The list is taken out of the runner and settled through its buffer: open obligations
        // move down with the buffer's swap, which moves (Array's own swapAt copied both, about
        // 450 instructions for each open obligation after a decided one, on every event past a
        // deadline). Nothing called below reads the runner's obligations.
        var list: [Obligation] = []
        swap(&list, &obligations)
        defer { swap(&list, &obligations) }
        var earliest = Double.infinity
        visits += list.count
        let open = list.withUnsafeMutableBufferPointer { buffer -> Int in
            var open = 0
            for i in buffer.indices {
                if let d = buffer[i].deadline, now > d {
                    fail(buffer[i], .violation, note: "no answer by t=\(JSONWriter.number(d))", context: context, sink: sink)
                    continue
                }
                if answers, answered(buffer[i].context) { continue }
                if open != i { buffer.swapAt(open, i) }
                if let d = buffer[open].deadline { earliest = min(earliest, d) }
                open += 1
            }
            return open
        }
        list.truncate(to: open)
        earliestDeadline = earliest
    }

    /// No obligation open (nothing on the clock, nothing for the finish to judge): partial
    /// matches and armed absences are rebuilt exactly by a replay.
    override func retirement() -> Retirement {
        obligations.isEmpty ? .now([]) : .later
    }

    override func finish(context: ContextScope, first: Event?, lastT: Double?, sink: FindingSink) {
        guard case .response(_, _, _, _, let atEnd) = check else { return }
        for o in obligations {
            // A deadline the log reached is decided (a last event exactly at it too).
            if let d = o.deadline, let lastT, lastT >= d {
                fail(o, .violation, note: "no answer by t=\(JSONWriter.number(d))", context: context, sink: sink)
                continue
            }
            switch atEnd {
            case .fail:
                fail(o, .violation, note: "the log ends without an answer", context: context, sink: sink)
            case .inconclusive:
                let until = o.deadline.map { " before t=\(JSONWriter.number($0))" } ?? ""
                fail(o, .inconclusive, note: "the log ends\(until) without an answer", context: context, sink: sink)
            case .pass:
                break
            }
        }
        obligations.removeAll()
        earliestDeadline = .infinity
    }
}

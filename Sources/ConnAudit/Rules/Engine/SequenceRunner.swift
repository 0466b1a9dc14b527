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
    private var partials: [Partial] = []
    /// Keys of ``partials`` once there are many of them (see ``isKnown``).
    private var partialKeys: Set<[Int]>?
    private static let keyedFrom = 16
    private var obligations: [Obligation] = []
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
    /// Scratch lists of ``advance``, kept between events so it allocates nothing for them.
    private var deadScratch: [Int] = []
    private var grownScratch: [Partial] = []
    /// Per step, the captures bound up to it that anything after it reads; others are dropped
    /// from partial matches, so partials that differ only in them merge.
    /// (A handful of names per step: a linear search is cheaper than hashing one.)
    private let kept: [[String]]
    /// Per step, the kept captures that make two partials different: not those only the message
    /// reads (partials differing in those merge; the first one's are shown).
    private let keyed: [[String]]

    /// What identifies a partial: its stage and the events of its keyed captures.
    private func key(_ p: Partial) -> [Int] { p.captures.seqs(of: keyed[p.stage - 1], after: p.stage) }

    private struct Partial {
        var stage: Int
        var captures: Captures
        var last: Event
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
        if !starts, !partials.contains(where: { concerns(e, stage: $0.stage) }) { return }
        var dead = deadScratch
        var grown = grownScratch
        deadScratch = []
        grownScratch = []
        defer {
            dead.truncate(to: 0)
            grown.truncate(to: 0)
            deadScratch = dead
            grownScratch = grown
        }
        for i in partials.indices where concerns(e, stage: partials[i].stage) {
            let p = partials[i]
            let step = sequence.steps[p.stage]
            let ctx = self.context(e, captures: p.captures)
            if let term = Evaluator.matches(step.selector, e, ctx) {
                var q = p
                q.stage += 1
                if let name = term.capture(in: step.selector), kept[p.stage].contains(name) || q.stage == sequence.steps.count {
                    q.captures[name] = e
                }
                q.last = e
                grown.append(q)
            }
            // The event is now in the gap before this partial's next step.
            if let without = step.without, Evaluator.matches(without, e, ctx) != nil {
                dead.append(i)
            } else if let without = sequenceWithout, Evaluator.matches(without, e, ctx) != nil {
                dead.append(i)
            }
        }
        if starts, let term = Evaluator.matches(sequence.steps[0].selector, e, self.context(e)) {
            var captures = Captures()
            if let name = term.capture(in: sequence.steps[0].selector), kept[0].contains(name) || sequence.steps.count == 1 { captures[name] = e }
            grown.append(Partial(stage: 1, captures: captures, last: e))
        }
        if !dead.isEmpty {
            // In place, in order: the live partials move down over the dead ones.
            var next = 0, live = 0
            for i in partials.indices {
                if next < dead.count, dead[next] == i {
                    next += 1
                    continue
                }
                if live != i { partials.swapAt(live, i) }
                live += 1
            }
            partials.truncate(to: live)
            if partialKeys != nil { partialKeys = Set(partials.map(key)) }
        }
        firstMatchKey = nil
        if !matchKeys.isEmpty { matchKeys.removeAll(keepingCapacity: true) }
        for q in grown {
            if q.stage == sequence.steps.count {
                complete(q, context: context, sink: sink)
            } else if !isKnown(q) {
                partials.append(q)
                partialKeys?.insert(key(q))
            }
        }
    }

    /// Whether an identical partial (same stage, same captured events) is already open. A few
    /// partials are compared one by one; past ``keyedFrom`` they are kept in a set of keys.
    private func isKnown(_ q: Partial) -> Bool {
        if partialKeys == nil, partials.count >= Self.keyedFrom { partialKeys = Set(partials.map(key)) }
        if let keys = partialKeys { return keys.contains(key(q)) }
        return partials.contains { $0.stage == q.stage && $0.captures.sameEvents(as: q.captures, for: keyed[q.stage - 1]) }
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
        if !concerned, !obligations.contains(where: { o in o.deadline.map { e.t > $0 } ?? false }) { return }
        dropObligations { o in
            if let d = o.deadline, e.t > d {
                fail(o, .violation, note: "no answer by t=\(JSONWriter.number(d))", context: context, sink: sink)
                return true
            }
            // A selector reads the candidate `e` itself (its `where` looks at it), and the
            // obligation's captures and lets.
            return concerned && (Evaluator.matches(followedBy, e, o.context) != nil
                || (unless.map { Evaluator.matches($0, e, o.context) != nil } ?? false))
        }
    }

    override func expire(now: Double, context: ContextScope, sink: FindingSink) {
        // A deadline of an obligation already answered: nothing to decide.
        guard obligations.contains(where: { o in o.deadline.map { now > $0 } ?? false }) else { return }
        dropObligations { o in
            guard let d = o.deadline, now > d else { return false }
            fail(o, .violation, note: "no answer by t=\(JSONWriter.number(d))", context: context, sink: sink)
            return true
        }
    }

    /// Drops the obligations `decided` says are decided, in one pass and in order; the open ones
    /// move down in place (never copied: each holds a whole evaluation context).
    private func dropObligations(_ decided: (Obligation) -> Bool) {
        var open = 0
        for i in obligations.indices where !decided(obligations[i]) {
            if open != i { obligations.swapAt(open, i) }
            open += 1
        }
        obligations.truncate(to: open)
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
    }
}

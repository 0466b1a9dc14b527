/// The open obligations of an `each` with `followed_by`: one per complete trigger match, each
/// waiting for its answer, its deadline, or the end.
///
/// An event looks only at the obligations it can concern: those whose deadline it passed (a heap
/// of deadlines gives them in order), and — when it passes what `followed_by` and `unless` test
/// of it alone — those of its key where `followed_by` equates it with a capture (``SelectorPlan``),
/// else every open one.
struct Obligations {
    struct Item {
        var anchor: Event
        /// Looks at ``anchor``, which holds that event for it (an engine context does not).
        var context: EvalContext
        var deadline: Double?
        /// The message, rendered when the obligation opened (when it reads history).
        var message: String?
        var ordinal: Int
        var dead = false
        /// The count of aggregate changes its context was made at (``StaticLetCache/changes``;
        /// -1: no cache): its frozen lets are the current ones while the count is the same.
        var stamp = -1
    }

    /// The open obligations in the order they opened; decided ones stay until more than half are
    /// (the one answered in place, until the next opens in its slot).
    fileprivate(set) var items: [Item] = []
    fileprivate(set) var live = 0
    fileprivate var nextOrdinal = 0
    /// The deadlines, earliest first at the top: (deadline, ordinal) pairs of a binary heap.
    fileprivate(set) var heap: [Deadline] = []

    /// An obligation's deadline in the heap. A struct, not a tuple: an array of tuples is
    /// appended to and its elements swapped through the runtime's generic tuple code.
    struct Deadline {
        var deadline: Double
        var ordinal: Int
    }
    /// With `report_at`: the anchors with an open obligation (one at a time per anchor).
    fileprivate(set) var openAnchors = Set<Int>()
    /// The key indexes of `followed_by` (0) and `unless` (1) (``CompiledRule/obligationPlans``),
    /// made when first asked for.
    fileprivate var indexes = KeyIndexes()

    /// The earliest deadline of an open obligation (infinity: none has one).
    var earliestDeadline: Double { heap.first?.deadline ?? .infinity }

    fileprivate func position(of ordinal: Int) -> Int? {
        var lo = 0, hi = items.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if items[mid].ordinal < ordinal { lo = mid + 1 } else { hi = mid }
        }
        return lo < items.count && items[lo].ordinal == ordinal ? lo : nil
    }

    fileprivate func isLive(_ ordinal: Int) -> Bool {
        position(of: ordinal).map { !items[$0].dead } ?? false
    }

    fileprivate mutating func push(_ deadline: Double, _ ordinal: Int) {
        heap.append(Deadline(deadline: deadline, ordinal: ordinal))
        var i = heap.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            if Self.precedes(heap[parent], heap[i]) { break }
            heap.swapAt(parent, i)
            i = parent
        }
    }

    fileprivate mutating func pop() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < heap.count, Self.precedes(heap[l], heap[m]) { m = l }
            if r < heap.count, Self.precedes(heap[r], heap[m]) { m = r }
            if m == i { break }
            heap.swapAt(i, m)
            i = m
        }
    }

    private static func precedes(
        _ a: Deadline, _ b: Deadline
    ) -> Bool {
        a.deadline < b.deadline || (a.deadline == b.deadline && a.ordinal < b.ordinal)
    }

    /// Drops deadlines of obligations decided otherwise from the heap's top.
    fileprivate mutating func trimHeap() {
        while let top = heap.first, !isLive(top.ordinal) { pop() }
    }

    /// `count` obligations answered and dropped from the list at once (their anchors closed with
    /// ``closeAnchor(_:)``). With none left open no deadline is left to wait for: the heap is
    /// emptied, rather than its entries popped one by one as their deadlines pass. Made where it
    /// is used, once per event that answers: a call costs about as much as its work.
    @inline(__always) fileprivate mutating func answered(_ count: Int) {
        live -= count
        if live == 0 { heap.truncate(to: 0) }
    }

    /// An answered obligation's anchor is open no more (with `report_at`, ``openAnchors``).
    fileprivate mutating func closeAnchor(_ seq: Int) { openAnchors.remove(seq) }

    fileprivate mutating func kill(at position: Int) {
        guard !items[position].dead else { return }
        items[position].dead = true
        live -= 1
        if !openAnchors.isEmpty { openAnchors.remove(items[position].anchor.seq) }
    }

    /// Drops decided obligations once they are more than half of the list.
    fileprivate mutating func compact() {
        if live == 0 {
            items.removeAll(keepingCapacity: true)
            heap.removeAll(keepingCapacity: true)
            indexes = KeyIndexes()
            return
        }
        guard items.count - live > max(16, items.count / 2) else { return }
        items.removeAll { $0.dead }
        indexes = KeyIndexes()
    }
}

extension SequenceRunner {
    /// Opens the obligation of a complete trigger match, whose last event has `$seq` `lastSeq`
    /// and time `lastT` (or reports it at once: an undecided or negative `within_ms`). The
    /// match's captures are in `ctx` (``complete(_:context:sink:)``). The anchor and the context
    /// are given up to it: the obligation keeps them as they are.
    func open(
        lastSeq: Int, lastT: Double, anchor: consuming Event, _ ctx: consuming EvalContext,
        context: ContextScope, sink: FindingSink
    ) {
        guard responseFollowedBy != nil else { return }
        // A trigger of one step completes one match per event at most: no other to tell it from.
        if sequence.steps.count > 1 {
            guard isNewMatch(ctx.captures.seqs(of: facts.lastKeyed, after: lastSeq)) else {
                return
            }
        }
        // With `report_at`, the anchor is one event however many matches share it: one
        // obligation at a time for it, and one finding at most.
        if sequence.reportAt != nil,
            reportedAnchors.contains(anchor.seq) || obligations.openAnchors.contains(anchor.seq)
        {
            return
        }
        // An obligation keeps its trigger's lets: they are evaluated now. The runner's frozen
        // scope, shared by the obligations opened while no aggregate changed, was evaluated in
        // full when it was made, and an evaluated binding never changes.
        // The scope is read in place (the context's box holds it): not retained for the call.
        // The test is a closure of its own, inlined; the evaluation, rare (most obligations
        // open under the frozen scope), is another.
        let scope = ctx.letsInPlace.scope
        if let scope, !scope._withUnsafeGuaranteedRef({ isFrozenScope($0) }) {
            scope._withUnsafeGuaranteedRef { $0.evaluateAll() }
        }
        var deadline: Double?
        if facts.responseWithin != nil {
            // Read only lets and params: the same under the same frozen scope (the scope is held
            // with the value, so another made at its address cannot pass for it).
            let number: Double?
            if withinReadsLetsOnly, let memo = withinMemo,
                withinMemoScope.map({ Unmanaged.passUnretained($0).toOpaque() })
                    == scope?.toOpaque()
            {
                number = memo
            } else {
                number = compiled.responseWithin!(ctx).value?.number
                if withinReadsLetsOnly, let number {
                    withinMemo = number
                    withinMemoScope = scope?.takeUnretainedValue()
                }
            }
            guard let ms = number else {
                report(
                    .inconclusive, at: anchor, ctx, context: context, sink: sink,
                    note: "within_ms is undecided")
                return
            }
            // A negative bound (from --param or a log field) would put the deadline before the
            // trigger: no answer could be in time. Not judged, as a literal one is refused.
            guard ms >= 0 else {
                report(
                    .inconclusive, at: anchor, ctx, context: context, sink: sink,
                    note: "within_ms is negative (\(Value.double(ms).normalizedNumber.rendered()))")
                return
            }
            deadline = DecimalRounding.sum(lastT, ms)
            keepOnClock(deadline!, scope: context)
        }
        let text = compiled.messageReadsHistory ? message(for: ctx, note: nil) : nil
        // An obligation is charged as a finding (it may become one): the next unit spent stops
        // the runner if this passed the limit.
        _ = spend(Self.workPerFinding)
        let ordinal = obligations.nextOrdinal
        obligations.nextOrdinal += 1
        if sequence.reportAt != nil { obligations.openAnchors.insert(anchor.seq) }
        // Made where it goes: the anchor and the context move into it, not copied.
        if obligations.live == 0, obligations.items.count == 1 {
            // The one obligation, answered (``settleOne(_:context:sink:)``), left its slot: the
            // new one takes it, and the list is not changed.
            obligations.items[0] = Obligations.Item(
                anchor: consume anchor, context: consume ctx, deadline: deadline, message: text,
                ordinal: ordinal, stamp: letCache?.changes ?? -1)
        } else {
            obligations.items.append(
                Obligations.Item(
                    anchor: consume anchor, context: consume ctx, deadline: deadline,
                    message: text, ordinal: ordinal, stamp: letCache?.changes ?? -1))
        }
        opened(deadline, ordinal)
    }

    /// Opens the obligation the start `e` of the one step completes in the slot of the one
    /// obligation, answered (``settleOne(_:context:sink:)``), in place: the slot's capture is
    /// bound to `e` again, and `e` is its anchor and its context's event. The rest of the slot is
    /// what ``open(lastSeq:lastT:anchor:_:context:sink:)`` would make: the context it is given
    /// copies the frozen template (``Runner/context(_:captures:frozen:)``) while no aggregate
    /// changed, which the slot's context copied too (its scope is still the frozen one); its
    /// `within_ms` is the one kept for that scope; and its message is nil (it reads no history).
    /// False, with the slot's captures given to the spares (unbound), where any of that does not
    /// hold: `e` then opens its obligation as any trigger does.
    func reopenObligation(_ e: Event, context: ContextScope) -> Bool {
        guard let scope = obligations.items[0].context.letsInPlace.scope,
            scope._withUnsafeGuaranteedRef({ isFrozenScope($0) }),
            obligations.items[0].stamp == letCache?.changes ?? -1
        else { return slotNotReopened() }
        var deadline: Double?
        if facts.responseWithin != nil {
            guard let ms = withinMemo, ms >= 0,
                withinMemoScope.map({ Unmanaged.passUnretained($0).toOpaque() })
                    == scope.toOpaque()
            else { return slotNotReopened() }
            deadline = DecimalRounding.sum(e.t, ms)
        }
        guard obligations.items[0].context.captures.bindAgain(to: e) else {
            return slotNotReopened()
        }
        obligationsReopened += 1
        if let deadline { keepOnClock(deadline, scope: context) }
        _ = spend(Self.workPerFinding)
        let ordinal = obligations.nextOrdinal
        obligations.nextOrdinal += 1
        obligations.items[0].anchor = e
        obligations.items[0].context.event = e
        obligations.items[0].deadline = deadline
        obligations.items[0].ordinal = ordinal
        obligations.items[0].dead = false
        opened(deadline, ordinal)
        return true
    }

    /// The slot not reopened: its captures go to the spares, for the start to bind.
    private func slotNotReopened() -> Bool {
        recycle(&obligations.items[0].context.captures)
        return false
    }

    /// Counts the obligation just opened, the last item (the slot, when reopened), with its
    /// `deadline` and `ordinal`, and adds it to the key indexes made.
    private func opened(_ deadline: Double?, _ ordinal: Int) {
        obligations.live += 1
        if let deadline { obligations.push(deadline, ordinal) }
        for role in 0..<2 where obligations.indexes.isMade(role) {
            // Taken out while the key is added: making it reads the obligations.
            var index = obligations.indexes[role]!
            obligations.indexes[role] = nil
            addKey(of: obligations.items.count - 1, role: role, to: &index)
            obligations.indexes[role] = index
        }
    }

    private func addKey(of position: Int, role: Int, to index: inout PartialIndex) {
        guard let key = compiled.obligationPlans[role]?.compiledKey else { return }
        // The obligation's context is read in place (a copy would count its references).
        if case .value(let v) = key.partial(obligations.items[position].context) {
            index.add(obligations.items[position].ordinal, key: v)
        }
    }

    /// The obligations an event may answer through `role`'s selector: nil when it fails what the
    /// selector tests of it alone; `all` when any open one.
    private func answerable(_ role: Int, _ e: Event, _ ctx: EvalContext) -> (
        all: Bool, ordinals: [Int]
    )? {
        guard let plan = compiled.obligationPlans[role], plan.admits(e, ctx) else { return nil }
        guard let key = plan.compiledKey else { return (true, []) }
        guard case .value(let value) = key.event.run(ctx, e) else {
            return (false, [])
        }
        if obligations.indexes[role] == nil {
            var index = PartialIndex()
            for i in obligations.items.indices where !obligations.items[i].dead {
                addKey(of: i, role: role, to: &index)
            }
            obligations.indexes[role] = index
        }
        let items = obligations.items
        return (
            false,
            obligations.indexes[role]!.ordinals(for: value) { ordinal in
                var lo = 0, hi = items.count
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if items[mid].ordinal < ordinal { lo = mid + 1 } else { hi = mid }
                }
                return lo < items.count && items[lo].ordinal == ordinal && !items[lo].dead
            }
        )
    }

    private func fail(
        _ o: Obligations.Item, _ kind: Kind, note: String, context: ContextScope, sink: FindingSink
    ) {
        if sequence.reportAt != nil { reportedAnchors.insert(o.anchor.seq) }
        // A rule's own message says what was missing; the note is for rules without one, and
        // for inconclusive cases (why the log could not decide).
        report(
            kind, at: o.anchor, o.context, context: context, sink: sink,
            note: rule.message == nil || kind == .inconclusive ? note : nil, message: o.message)
    }

    func answer(_ e: Event, context: ContextScope, sink: FindingSink) {
        guard responseFollowedBy != nil else { return }
        if obligations.live < Self.plannedFrom {
            // A few obligations are each asked in full. No list of candidates is made (nor
            // released again) for them.
            let all =
                responseFollowedBy!.mayMatch(e.evID) || (responseUnless?.mayMatch(e.evID) ?? false)
            if !all, !(e.t > obligations.earliestDeadline) { return }
            if all, settlesOneInPlace, obligations.live == 1, obligations.items.count == 1,
                !(e.t > obligations.earliestDeadline)
            {
                settleOne(e, context: context, sink: sink)
                return
            }
            settle(now: e.t, context: context, sink: sink, all: all, answering: [], by: e)
            return
        }
        var answers: [(all: Bool, ordinals: [Int])] = []
        let ctx = self.context(e)
        if let a = answerable(0, e, ctx) { answers.append(a) }
        if let a = answerable(1, e, ctx) { answers.append(a) }
        let all = answers.contains(where: \.all)
        // Most events neither answer nor pass a deadline: leave the obligations as they are.
        if !all, answers.isEmpty, !(e.t > obligations.earliestDeadline) { return }
        settle(now: e.t, context: context, sink: sink, all: all, answering: answers, by: e)
    }

    /// ``settle(now:context:sink:all:answering:by:)`` of the one obligation open, by `e`, which
    /// may answer it and passes no deadline (a heartbeat's ping waiting for its pong): asked in
    /// place, with no pass over the list. Answered, it stays in the list, dead, and the next
    /// obligation opens in its slot (``open(lastSeq:lastT:anchor:_:context:sink:)``): a trigger
    /// answered before the next one opens then moves and drops no obligation out of the list.
    /// The slot keeps its anchor and lets until then; its captures go to the spares, or stay for
    /// the next trigger to bind again (``reopenObligation(_:context:)``).
    private func settleOne(_ e: Event, context: ContextScope, sink: FindingSink) {
        settledInPlace += 1
        visits += 1
        guard spend(1) else { return }
        // In place: handed on by value, the context would be copied (its captures and lets
        // retained). The evaluation reads no obligation.
        guard answersObligation(e, &obligations.items[0].context) else { return }
        if sequence.reportAt != nil { obligations.closeAnchor(obligations.items[0].anchor.seq) }
        if !reopensObligations { recycle(&obligations.items[0].context.captures) }
        obligations.items[0].dead = true
        obligations.answered(1)
    }

    /// Whether `e` answers the obligation of `ctx`: its selector reads the candidate `e` itself
    /// (its `where` looks at it), and the obligation's captures and lets. A selector whose `ev`
    /// names leave `e` out is passed over here, without a call (most answers are an `unless`).
    @inline(__always) private func answersObligation(_ e: Event, _ ctx: inout EvalContext) -> Bool {
        (responseFollowedBy!.mayMatch(e.evID)
            && answers(responseFollowedBy!, followedByBounds, e, ctx))
            || (responseUnless != nil && responseUnless!.mayMatch(e.evID)
                && answers(responseUnless!, unlessBounds, e, ctx))
    }

    /// Whether `e` matches `selector` (`followed_by` or `unless`) in an obligation's `ctx`, with
    /// the selector's time bounds (``TimeBound``) where it has some.
    @inline(__always) private func answers(
        _ selector: Selector, _ bounds: Unmanaged<SelectorBounds>?, _ e: Event,
        _ ctx: EvalContext
    ) -> Bool {
        if let bounds, usesTimeBounds {
            return bounds._withUnsafeGuaranteedRef { Self.matches(selector, $0, e, ctx) } != nil
        }
        return Evaluator.matches(selector, e, ctx) != nil
    }

    /// Puts `deadline` on the source's clock unless the runner has an earlier one there already
    /// (``onClock``): that one wakes the runner first, and it then puts its next deadline there.
    /// So an obligation answered in time costs the clock nothing, and the clock holds a handful
    /// of the runner's deadlines, not one per obligation.
    func keepOnClock(_ deadline: Double, scope: ContextScope) {
        if let at = onClock, !(deadline < at) { return }
        guard let clock else { return }
        clock.schedule(deadline, runner: self, scope: scope)
        onClock = deadline
    }

    /// The source's clock passed `now` (``Runner/expire(now:context:sink:)``): it woke the runner
    /// for one of its deadlines before `now`, and dropped every such one.
    func expireObligations(now: Double, context: ContextScope, sink: FindingSink) {
        if let at = onClock, at < now { onClock = nil }
        // A deadline of an obligation already answered, or a runner stopped: nothing to decide.
        if !stopped, now > obligations.earliestDeadline {
            settle(now: now, context: context, sink: sink, all: false, answering: [], by: nil)
        }
        // The earliest deadline still open goes on the clock (every later one waits behind it).
        guard !stopped, obligations.live > 0 else { return }
        obligations.trimHeap()
        if let next = obligations.heap.first { keepOnClock(next.deadline, scope: context) }
    }

    /// Decides the obligations whose deadline `now` has passed (each a violation, in the order
    /// they opened), then those the event `e` (nil: none) answers, of every open one (`all`) or
    /// the candidates `answering` names. The event is a parameter, not captured by a closure:
    /// a closure's captures are retained and released around each call.
    private func settle(
        now: Double, context: ContextScope, sink: FindingSink, all: Bool,
        answering: [(all: Bool, ordinals: [Int])], by e: Event?
    ) {
        if let top = obligations.heap.first, top.deadline < now {
            // Made only where a deadline passed: most events that answer pass none.
            var due: [Int] = []
            obligations.trimHeap()
            while let top = obligations.heap.first, top.deadline < now {
                obligations.pop()
                if let i = obligations.position(of: top.ordinal), !obligations.items[i].dead {
                    due.append(i)
                }
                obligations.trimHeap()
            }
            if !due.isEmpty { due.sort() }
            for i in due {
                visits += 1
                guard spend(1) else { return }
                let o = obligations.items[i]
                obligations.kill(at: i)
                fail(
                    o, .violation, note: "no answer by t=\(NumberText.json(o.deadline!))",
                    context: context, sink: sink)
            }
        }
        // The answering event, not counted: the caller holds it for the call. Bound to a name
        // per obligation asked, it would be retained and released for each.
        let answerer = e.map { Unmanaged.passUnretained($0) }
        if all {
            // Every open one, in one pass that also drops the decided ones: the list is taken out
            // and settled through its buffer, so an open obligation (a whole evaluation context)
            // is moved, never copied.
            var list: [Obligations.Item] = []
            swap(&list, &obligations.items)
            var answeredCount = 0
            let open = list.withUnsafeMutableBufferPointer { buffer -> Int in
                var open = 0
                for i in buffer.indices {
                    if buffer[i].dead { continue }
                    visits += 1
                    if !spend(1) { return buffer.count }
                    // In place: handed on by value, the context would be copied (its captures
                    // and lets retained) for every obligation asked.
                    if let answerer,
                        answerer._withUnsafeGuaranteedRef({
                            answersObligation($0, &buffer[i].context)
                        })
                    {
                        answeredCount += 1
                        // Closed in place: a list of them would be allocated per event.
                        if sequence.reportAt != nil {
                            obligations.closeAnchor(buffer[i].anchor.seq)
                        }
                        continue
                    }
                    if open != i { buffer.swapAt(open, i) }
                    open += 1
                }
                return open
            }
            for i in open..<list.count { recycle(&list[i].context.captures) }
            list.truncate(to: open)
            swap(&list, &obligations.items)
            obligations.answered(answeredCount)
            if stopped { return }
        } else if !answering.isEmpty {
            for ordinal in Set(answering.flatMap(\.ordinals)).sorted() {
                guard let i = obligations.position(of: ordinal), !obligations.items[i].dead else {
                    continue
                }
                visits += 1
                guard spend(1) else { return }
                var ctx = obligations.items[i].context
                if let e, answersObligation(e, &ctx) { obligations.kill(at: i) }
            }
        }
        if obligations.live < obligations.items.count {
            obligations.trimHeap()
            obligations.compact()
        }
    }

    /// The end of the timeline: open obligations are judged
    /// (``Runner/finish(context:first:lastT:sink:)``).
    func finishObligations(lastT: Double?, context: ContextScope, sink: FindingSink) {
        guard !stopped, case .response(_, _, _, _, let atEnd) = check else { return }
        for o in obligations.items where !o.dead {
            // A deadline the log reached is decided (a last event exactly at it too).
            if let d = o.deadline, let lastT, lastT >= d {
                fail(
                    o, .violation, note: "no answer by t=\(NumberText.json(d))", context: context,
                    sink: sink)
                continue
            }
            switch atEnd {
            case .fail:
                fail(
                    o, .violation, note: "the log ends without an answer", context: context,
                    sink: sink)
            case .inconclusive:
                let until = o.deadline.map { " before t=\(NumberText.json($0))" } ?? ""
                fail(
                    o, .inconclusive, note: "the log ends\(until) without an answer",
                    context: context, sink: sink)
            case .pass:
                break
            }
        }
        obligations = Obligations()
    }
}

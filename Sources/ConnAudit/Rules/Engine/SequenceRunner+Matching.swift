extension SequenceRunner {
    /// Whether `e` can advance or end a partial at `stage` (a cheap id test).
    @inline(__always) func concerns(_ e: Event, stage: Int) -> Bool {
        stageConcerns[stage].contains(e.evID)
    }

    /// Which partials of `stage` a test of `role` may concern, when it has to be tried at all: nil
    /// when the event fails what the selector tests of it alone; `[]`+`all` when every live one.
    func candidates(_ role: Role, stage: Int, _ e: Event, _ ctx: EvalContext) -> (
        all: Bool, ordinals: [Int]
    )? {
        guard let plan = plans[stage][role.rawValue], plan.admits(e, ctx) else { return nil }
        guard let key = plan.compiledKey else { return (true, []) }
        // The key of the event: undecided matches nothing (`==` with it is undecided).
        guard case .value(let value) = key.event.run(ctx, e) else {
            return (false, [])
        }
        if stages[stage].indexes[role.rawValue] == nil { buildIndex(role, stage: stage) }
        let partials = stages[stage].partials
        return (
            false,
            stages[stage].indexes[role.rawValue]!.ordinals(for: value) { ordinal in
                Self.position(of: ordinal, in: partials).map { !partials[$0].dead } ?? false
            }
        )
    }

    /// The index of `role`'s key over the live partials of `stage` (made when first asked for,
    /// and again after ``compact``).
    func buildIndex(_ role: Role, stage: Int) {
        var index = PartialIndex()
        for p in stages[stage].partials where !p.dead { addKey(of: p, role: role, to: &index) }
        stages[stage].indexes[role.rawValue] = index
        stages[stage].indexed |= 1 << role.rawValue
    }

    func addKey(of p: Partial, role: Role, to index: inout PartialIndex) {
        guard let key = plans[p.stage][role.rawValue]?.compiledKey else { return }
        // A partial whose side is undecided can never be equal: it is in no bucket.
        if case .value(let v) = key.partial(context(p.last, captures: p.captures)) {
            index.add(p.ordinal, key: v)
        }
    }

    /// Where the partial with `ordinal` lies in `partials` (ordered by ordinal), if it is there.
    static func position(of ordinal: Int, in partials: PartialList) -> Int? {
        var lo = 0, hi = partials.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if partials[mid].ordinal < ordinal { lo = mid + 1 } else { hi = mid }
        }
        return lo < partials.count && partials[lo].ordinal == ordinal ? lo : nil
    }

    /// Tries `e` against the open partials and the first step. Most events concern no partial
    /// and start none: they are let go here, inlined where the runner is given the event, with no
    /// call made for them (``advance(_:concerned:starts:context:sink:)``).
    @inline(__always) func advance(_ e: Event, context: ContextScope, sink: FindingSink) {
        let starts = firstStep!._withUnsafeGuaranteedRef { $0.selector.mayMatch(e.evID) }
        var concerned: UInt64 = 0
        var open = openStages
        while open != 0 {
            let stage = open.trailingZeroBitCount
            open &= open - 1
            if concerns(e, stage: stage) { concerned |= 1 << stage }
        }
        // An event whose only use is a start sure to be dropped as known is let go too (see
        // ``startIsKnown(died:)``: no partial dies when none is concerned).
        if concerned == 0, !starts || startIsKnown(died: 0) { return }
        advance(e, concerned: concerned, starts: starts, context: context, sink: sink)
    }

    /// ``advance(_:context:sink:)`` of an event that concerns the open partials of the
    /// `concerned` stages, or may start one (`starts`).
    @inline(never) private func advance(
        _ e: Event, concerned: UInt64, starts: Bool, context: ContextScope, sink: FindingSink
    ) {
        // The grown partials go to the runner's scratch list, used in place: a local list
        // swapped in and out would release the empty one it held, once per event.
        var died: UInt64 = 0
        if concerned != 0 {
            guard visit(e, concerned: concerned, grown: &grown, died: &died) else {
                grown.truncate(to: 0)
                return
            }
        }
        // A partial the event starts opens after every one it grew: the first step's term it
        // matched is kept, and the partial made last (``start(_:on:context:sink:)``).
        var startedOn: SelectorMatch?
        if starts, !startIsKnown(died: died) {
            startsTried += 1
            startedOn = firstStep!._withUnsafeGuaranteedRef { first in
                stepsByID & 1 != 0
                    ? Self.matchByID(first.selector, e) : matchesStart(first.selector, e)
            }
        }
        while died != 0 {
            let stage = died.trailingZeroBitCount
            died &= died - 1
            compact(stage)
        }
        // Most events grow none: the list and the match keys are left as they are.
        if !grown.isEmpty { takeGrown(context: context, sink: sink) }
        if let term = startedOn { start(e, on: term, context: context, sink: sink) }
    }

    /// Takes the partials the event grew (``take(_:context:sink:)``), in the order they opened.
    /// The complete matches among them are told apart by their keys (``isNewMatch(_:)``), which
    /// are of this event alone: emptied once all are taken.
    private func takeGrown(context: ContextScope, sink: FindingSink) {
        // The grown partials are taken out of the list, in order, rather than copied out of it
        // (which retains what each holds, and releases it again when the list is emptied). Most
        // events grow one at most: nothing to reverse (a call).
        if grown.count > 1 { grown.reverse() }
        while let q = grown.popLast() { take(q, context: context, sink: sink) }
        if firstMatchKey != nil { firstMatchKey = nil }
        if !matchKeys.isEmpty { matchKeys.removeAll(keepingCapacity: true) }
    }

    /// Makes ``stages``, a stage per step, as the first partial opens.
    private func makeStages() {
        let count = sequence.steps.count
        stages = .allocate(capacity: count)
        stages.initialize(repeating: Stage(), count: count)
        stageCount = count
    }

    /// Completes `q`, grown or started by the event, or opens it at its stage (unless an
    /// identical partial is open there).
    @inline(__always) func take(
        _ q: consuming Partial, context: ContextScope, sink: FindingSink
    ) {
        if q.stage == sequence.steps.count {
            complete(q, context: context, sink: sink)
            return
        }
        if stageCount == 0 { makeStages() }
        let stage = q.stage
        let s = stages + stage
        // A stage with no live partial knows none (its keys, when kept, are the live
        // ones'): the search is not made.
        guard s.pointee.live == 0 || !isKnown(q) else { return }
        q.ordinal = nextOrdinal
        nextOrdinal += 1
        // Most stages keep neither keys nor indexes: one test of the stage spares both.
        if s.pointee.indexed != 0 || s.pointee.keys != nil { addKeys(of: q) }
        s.pointee.live += 1
        openStages |= 1 << stage
        // Its last use: the partial moves into the stage's list.
        s.pointee.partials.append(q)
    }

    /// Adds the partial `q`, opening at its stage, to the stage's keys and made indexes.
    func addKeys(of q: borrowing Partial) {
        if stages[q.stage].keys != nil { stages[q.stage].keys!.insert(key(q)) }
        for r in 0..<3 where stages[q.stage].indexed & (1 << r) != 0 {
            // Taken out while the key is added (an evaluation must not meet the stage
            // being changed).
            var index = stages[q.stage].indexes[r]!
            stages[q.stage].indexes[r] = nil
            addKey(of: q, role: Role(rawValue: r)!, to: &index)
            stages[q.stage].indexes[r] = index
        }
    }

    /// Tries `e` against the partials of the `concerned` stages it may grow or kill: the grown
    /// ones go to `grown` in the order they opened, the killed ones are marked dead (their stages
    /// in `died`). False when the work limit stopped the runner.
    func visit(_ e: Event, concerned: UInt64, grown: inout [Partial], died: inout UInt64)
        -> Bool
    {
        var planned = false
        var each = concerned
        while each != 0 {
            let stage = each.trailingZeroBitCount
            each &= each - 1
            if stages[stage].live >= Self.plannedFrom { planned = true }
        }
        if planned { return visitPlanned(e, concerned: concerned, grown: &grown, died: &died) }
        // A few partials each: every one is tried in full (its tests reject an event they cannot
        // concern at once), in the order they opened.
        var completed = false
        if concerned.nonzeroBitCount == 1 {
            let stage = concerned.trailingZeroBitCount
            for i in stages[stage].partials.indices where !stages[stage].partials[i].dead {
                guard
                    attempt(
                        e, stage: stage, at: i, grows: true, dies: true, completed: &completed,
                        grown: &grown, died: &died)
                else { return false }
            }
            return true
        }
        each = concerned
        while each != 0 {
            let stage = each.trailingZeroBitCount
            each &= each - 1
            stages[stage].cursor = 0
        }
        while true {
            var pick = 0, ordinal = Int.max, at = 0
            each = concerned
            while each != 0 {
                let stage = each.trailingZeroBitCount
                each &= each - 1
                var cursor = stages[stage].cursor
                while cursor < stages[stage].partials.count, stages[stage].partials[cursor].dead {
                    cursor += 1
                }
                stages[stage].cursor = cursor
                if cursor < stages[stage].partials.count,
                    stages[stage].partials[cursor].ordinal < ordinal
                {
                    ordinal = stages[stage].partials[cursor].ordinal
                    pick = stage
                    at = cursor
                }
            }
            if pick == 0 { break }
            stages[pick].cursor += 1
            guard
                attempt(
                    e, stage: pick, at: at, grows: true, dies: true, completed: &completed,
                    grown: &grown, died: &died)
            else { return false }
        }
        return true
    }

    /// ``visit(_:concerned:grown:died:)`` where a stage holds ``plannedFrom`` partials or more:
    /// its plans say which partials the event may grow or kill.
    func visitPlanned(
        _ e: Event, concerned: UInt64, grown: inout [Partial], died: inout UInt64
    ) -> Bool {
        var tried:
            [(
                stage: Int, growth: (all: Bool, ordinals: [Int])?,
                deaths: [(all: Bool, ordinals: [Int])]
            )] = []
        var planned: EvalContext?
        var each = concerned
        while each != 0 {
            let stage = each.trailingZeroBitCount
            each &= each - 1
            // A few partials are each tried in full (their tests reject an event they cannot
            // concern at once); the plans pay for themselves from ``plannedFrom``.
            guard stages[stage].live >= Self.plannedFrom else {
                tried.append((stage, (true, []), [(true, [])]))
                continue
            }
            if planned == nil { planned = self.context(e) }
            let growth = candidates(.step, stage: stage, e, planned!)
            var deaths: [(all: Bool, ordinals: [Int])] = []
            if let d = candidates(.without, stage: stage, e, planned!) { deaths.append(d) }
            if let d = candidates(.sequenceWithout, stage: stage, e, planned!) { deaths.append(d) }
            if growth != nil || !deaths.isEmpty { tried.append((stage, growth, deaths)) }
        }
        var completed = false
        if tried.count == 1 {
            // One stage (the usual case): its partials in order, with no list made of them.
            let (stage, growth, deaths) = tried[0]
            let growsAll = growth?.all == true, diesAll = deaths.contains(where: \.all)
            if growsAll || diesAll {
                let grows = growsAll ? [] : Set(growth?.ordinals ?? [])
                let dies = diesAll ? [] : Set(deaths.flatMap(\.ordinals))
                var i = 0
                while i < stages[stage].partials.count {
                    let p = stages[stage].partials[i]
                    defer { i += 1 }
                    guard !p.dead else { continue }
                    let g = growth != nil && (growsAll || grows.contains(p.ordinal))
                    let d = diesAll || dies.contains(p.ordinal)
                    guard
                        attempt(
                            e, stage: stage, at: i, grows: g, dies: d, completed: &completed,
                            grown: &grown, died: &died)
                    else { return false }
                    // A match completed at the last stage: only the partials of the `without`'s
                    // key are left to try.
                    if completed, stage == sequence.steps.count - 1, !diesAll {
                        for o in dies.sorted() where o > p.ordinal {
                            guard let at = Self.position(of: o, in: stages[stage].partials) else {
                                continue
                            }
                            guard
                                attempt(
                                    e, stage: stage, at: at, grows: false, dies: true,
                                    completed: &completed, grown: &grown, died: &died)
                            else { return false }
                        }
                        break
                    }
                }
                return true
            }
        }
        // Keyed partials only, or several stages: the partials to try, in the order they opened.
        var visits = visitScratch
        visitScratch = []
        defer {
            visits.truncate(to: 0)
            visitScratch = visits
        }
        for (stage, growth, deaths) in tried {
            let partials = stages[stage].partials
            if growth?.all == true || deaths.contains(where: \.all) {
                let growsAll = growth?.all == true, diesAll = deaths.contains(where: \.all)
                let grows = growsAll ? [] : Set(growth?.ordinals ?? [])
                let dies = diesAll ? [] : Set(deaths.flatMap(\.ordinals))
                for (i, p) in partials.enumerated() where !p.dead {
                    visits.append(
                        Visit(
                            ordinal: p.ordinal, stage: stage, position: i,
                            grows: growth != nil && (growsAll || grows.contains(p.ordinal)),
                            dies: diesAll || dies.contains(p.ordinal)))
                }
            } else {
                var merged: [Int: (grows: Bool, dies: Bool)] = [:]
                for o in growth?.ordinals ?? [] { merged[o, default: (false, false)].grows = true }
                for d in deaths {
                    for o in d.ordinals { merged[o, default: (false, false)].dies = true }
                }
                for (o, tests) in merged.sorted(by: { $0.key < $1.key }) {
                    guard let i = Self.position(of: o, in: partials) else { continue }
                    visits.append(
                        Visit(
                            ordinal: o, stage: stage, position: i, grows: tests.grows,
                            dies: tests.dies))
                }
            }
        }
        if tried.count > 1 { visits.sort { $0.ordinal < $1.ordinal } }
        for v in visits {
            guard
                attempt(
                    e, stage: v.stage, at: v.position, grows: v.grows, dies: v.dies,
                    completed: &completed, grown: &grown, died: &died)
            else { return false }
        }
        return true
    }

    /// Tries the partial at `position` of `stage`: whether the event grows it by a step (kept in
    /// `grown`) and whether it kills it (its gap saw a `without` event). After a match completed
    /// at the last stage (`completed`), the others there would be dropped as the same anchor:
    /// they are only tried for a `without`. False when the work limit stopped the runner.
    @inline(__always) func attempt(
        _ e: Event, stage: Int, at position: Int, grows: Bool, dies: Bool,
        completed: inout Bool, grown: inout [Partial], died: inout UInt64
    ) -> Bool {
        let grows = grows && !(completed && stage == sequence.steps.count - 1)
        guard grows || dies else { return true }
        visits += 1
        guard spend(1) else { return false }
        // The step is read in place (see ``StepSelectors``).
        steps.withElement(stage) { step in
            attempt(
                e, step, stage: stage, at: position, grows: grows, dies: dies,
                completed: &completed, grown: &grown, died: &died)
        }
        return true
    }

    /// ``attempt(_:stage:at:grows:dies:completed:grown:died:)`` with the stage's `step`, once the
    /// work is charged.
    @inline(__always) private func attempt(
        _ e: Event, _ step: StepSelectors, stage: Int, at position: Int, grows: Bool, dies: Bool,
        completed: inout Bool, grown: inout [Partial], died: inout UInt64
    ) {
        let bit: UInt64 = 1 << stage
        if !grows || stepsByID & bit != 0, !dies || withoutsByID & bit != 0 {
            // Every test the partial is given here reads the event's id alone: no context.
            if grows, let term = Self.matchByID(step.selector, e) {
                grow(e, step, term, stage: stage, at: position, completed: &completed, into: &grown)
            }
            guard dies else { return }
            if let without = step.without, without.mayMatch(e.evID) {
                kill(stage: stage, at: position)
                died |= bit
            } else if let without = sequenceWithout, without.mayMatch(e.evID) {
                kill(stage: stage, at: position)
                died |= bit
            }
            return
        }
        if grows, stepsByTime & bit != 0, !dies || withoutsByID & bit != 0 {
            // Decided by names and time bounds with no context, where the bounds are read in
            // place; else evaluated in full.
            switch matchByTime(e, step, stage: stage, at: position) {
            case .match(let term):
                grow(e, step, term, stage: stage, at: position, completed: &completed, into: &grown)
            case .none:
                break
            case .undecided:
                attemptInFull(
                    e, step, stage: stage, at: position, grows: grows, dies: dies,
                    completed: &completed, grown: &grown, died: &died)
                return
            }
            if dies, killedByID(e, step) {
                kill(stage: stage, at: position)
                died |= bit
            }
            return
        }
        attemptInFull(
            e, step, stage: stage, at: position, grows: grows, dies: dies, completed: &completed,
            grown: &grown, died: &died)
    }

    /// ``attempt(_:_:stage:at:grows:dies:completed:grown:died:)`` with a context for the partial.
    private func attemptInFull(
        _ e: Event, _ step: StepSelectors, stage: Int, at position: Int, grows: Bool, dies: Bool,
        completed: inout Bool, grown: inout [Partial], died: inout UInt64
    ) {
        let bit: UInt64 = 1 << stage
        let pctx = self.context(e, captures: stages[stage].partials[position].captures)
        if grows, dies, deathsExcludeGrowth & bit != 0, let without = step.without {
            // A partial the `without` kills cannot grow on the event: the step is not tried.
            if Evaluator.matches(without, e, pctx) != nil {
                stepsSpared += 1
                kill(stage: stage, at: position)
                died |= bit
                return
            }
            if let term = Evaluator.matches(step.selector, e, pctx) {
                grow(e, step, term, stage: stage, at: position, completed: &completed, into: &grown)
            }
            if let without = sequenceWithout, Evaluator.matches(without, e, pctx) != nil {
                kill(stage: stage, at: position)
                died |= bit
            }
            return
        }
        if grows, let term = Evaluator.matches(step.selector, e, pctx) {
            grow(e, step, term, stage: stage, at: position, completed: &completed, into: &grown)
        }
        guard dies else { return }
        if withoutsByID & bit != 0 {
            if step.without?.mayMatch(e.evID) == true || sequenceWithout?.mayMatch(e.evID) == true {
                kill(stage: stage, at: position)
                died |= bit
            }
            return
        }
        // The event is now in the gap before this partial's next step.
        if let without = step.without, Evaluator.matches(without, e, pctx) != nil {
            kill(stage: stage, at: position)
            died |= 1 << stage
        } else if let without = sequenceWithout, Evaluator.matches(without, e, pctx) != nil {
            kill(stage: stage, at: position)
            died |= 1 << stage
        }
    }

    /// Adds to `grown` the partial at `position` of `stage` grown by `e`, which matched `step`'s
    /// selector at `term`.
    @inline(__always) private func grow(
        _ e: Event, _ step: StepSelectors, _ term: SelectorMatch, stage: Int, at position: Int,
        completed: inout Bool, into grown: inout [Partial]
    ) {
        var q = stages[stage].partials[position]
        q.stage += 1
        if let name = term.capture(in: step.selector),
            kept[stage].contains(name) || q.stage == sequence.steps.count
        {
            q.captures[name] = e
        }
        q.last = e
        if q.stage == sequence.steps.count {
            q.origin = stages[stage].partials[position].ordinal
            if reportsAtLastStep { completed = true }
        }
        grown.append(q)
    }

    /// Marks the partial at `position` of `stage` dead. Made where it is used: most events that
    /// concern a partial end it, and a call costs about as much as marking it.
    @inline(__always) func kill(stage: Int, at position: Int) {
        let s = stages + stage
        guard !s.pointee.partials[position].dead else { return }
        s.pointee.partials[position].dead = true
        s.pointee.live -= 1
        if s.pointee.keys != nil { forgetKey(stage: stage, at: position) }
    }

    /// Drops the key of the partial at `position` of `stage` from the stage's keys.
    private func forgetKey(stage: Int, at position: Int) {
        stages[stage].keys!.remove(key(stages[stage].partials[position]))
    }

    /// Drops the dead partials of `stage` once they are more than half of its list (the live ones
    /// move down in order); its key indexes are made again when next asked for. Where nothing is
    /// to be dropped — the first stage's one partial died (it is kept, ``reopen(_:on:)``) and the
    /// stage keeps no keys or index, or few died — no call is made.
    @inline(__always) func compact(_ stage: Int) {
        let s = stages + stage
        if s.pointee.live == 0 {
            if stage == 1, s.pointee.partials.count == 1, s.pointee.keys == nil,
                s.pointee.indexed == 0
            {
                openStages &= ~(1 << 1)
                return
            }
            empty(stage)
            return
        }
        let count = s.pointee.partials.count
        guard count - s.pointee.live > max(16, count / 2) else { return }
        dropDead(stage)
    }

    /// Empties `stage`, whose partials all died. Each partial moves out of the list (which keeps
    /// its room), and its captures out of it: nothing is copied to be dropped. The first stage
    /// keeps its first partial, dead, for the next start to open in (``reopen(_:on:)``).
    @inline(never) private func empty(_ stage: Int) {
        let s = stages + stage
        let kept = stage == 1 ? 1 : 0
        while s.pointee.partials.count > kept, var p = s.pointee.partials.popLast() {
            recycle(&p.captures)
        }
        if s.pointee.keys != nil { s.pointee.keys = nil }
        if s.pointee.indexed != 0 {
            s.pointee.indexes = KeyIndexes()
            s.pointee.indexed = 0
        }
        openStages &= ~(1 << stage)
    }

    /// Drops the dead partials of `stage`, the live ones moved down in order.
    @inline(never) private func dropDead(_ stage: Int) {
        // Read and changed through a copy, which shares the stage's storage: its count is set
        // on the stage's own list last.
        let list = stages[stage].partials
        var live = 0
        for i in list.indices where !list[i].dead {
            list.swapAt(live, i)
            live += 1
        }
        for i in live..<list.count { recycle(&list[i].captures) }
        stages[stage].partials.truncate(to: live)
        stages[stage].indexes = KeyIndexes()
        stages[stage].indexed = 0
    }

    /// Whether an identical partial (same stage, same captured events) is already open. A few
    /// partials are compared one by one; past ``keyedFrom`` a stage keeps them in a set of keys.
    func isKnown(_ q: Partial) -> Bool {
        let stage = q.stage
        if stages[stage].keys == nil, stages[stage].live >= Self.keyedFrom {
            stages[stage].keys = Set(stages[stage].partials.lazy.filter { !$0.dead }.map(key))
        }
        if let keys = stages[stage].keys { return keys.contains(key(q)) }
        return stages[stage].partials.contains {
            !$0.dead && $0.captures.sameEvents(as: q.captures, for: keyed[stage - 1])
        }
    }
}

/// `every`, `never` and `count`: checks decided event by event.
final class BasicRunner: Runner {
    private var matched = 0
    /// `count … by:`: the count of each key (a table hashing a key by its bytes, as a history
    /// index does: on an SSE session's ids a `[Value: Int]` takes about three times the memory).
    /// Made at the first key, behind a reference: every other runner keeps one word for it.
    private var perKey: PerKey?

    private final class PerKey {
        var counts = KeyCounts()
    }
    private var firstMatch: Event?
    // never: the state of its scope.
    private var afterOpen = false
    private var beforeClosed = false
    private var inInterval = false
    /// `between` and `before`: violations inside a scope wait for it to close. Each context looks
    /// at the event beside it, which holds that event for it (an engine context does not).
    private var pending: [(Event, EvalContext)] = []
    /// `every` with `next(SEL)`: triggers whose expectation waits for events after them (each
    /// with its context, looking at it, as in ``pending``).
    private var waiting: [(Event, EvalContext)] = []

    /// The `every` check's parts (nil for another check), not counted: the compiled rule holds
    /// them for as long as this runner lives. Read with `_withUnsafeGuaranteedRef`, they are
    /// handed on without a retain.
    private let every: Unmanaged<EveryCheck>?
    /// Whether every event ``handle`` is given (one the check may react to) triggers `every`, with
    /// nothing captured: its selector tests `ev` names alone (``Selector/matchesByIDAlone``) and
    /// binds no `as:` name, and its expectation is an expression, so the check's ids are the
    /// selector's (``CompiledRule/checkConcerns``). Then no call to ``Evaluator/matches(_:_:_:)``
    /// is needed to find the trigger.
    private let everyByID: Bool
    /// The `every` expectation's fused form (``FusedTruth``), where it has one: asked first, the
    /// compiled expression answering where it reads nothing. Held here, read uncounted
    /// (``fused``).
    private let fusedForm: FusedTruth?
    private let fused: Unmanaged<FusedTruth>?

    override init(_ compiled: CompiledRule, files: [String]) {
        every = compiled.every.map { Unmanaged.passUnretained($0) }
        fusedForm = compiled.every.flatMap {
            guard case .expression(let x) = $0.expect else { return nil }
            return FusedTruth(x, table: compiled.lets, staticSlots: compiled.staticSlots)
        }
        fused = fusedForm.map { Unmanaged.passUnretained($0) }
        everyByID =
            compiled.every.map {
                guard case .expression = $0.expect else { return false }
                return $0.selector.matchesByIDAlone
                    && $0.selector.terms.allSatisfy { $0.capture == nil }
            } ?? false
        super.init(compiled, files: files)
        afterOpen = Self.opensAtStart(compiled.rule.check)
    }

    /// Whether a `never` window is open before any event: one with no `after`.
    private static func opensAtStart(_ check: Check) -> Bool {
        if case .never(_, .window(let after, _)) = check { return after == nil }
        return false
    }

    override var canBeSetBack: Bool { baseCanBeSetBack }

    override func setBack() {
        matched = 0
        perKey = nil
        firstMatch = nil
        afterOpen = Self.opensAtStart(check)
        beforeClosed = false
        inInterval = false
        pending = []
        waiting = []
        triggerCaptures = Captures()
        triggerName = nil
        super.setBack()
    }

    /// Called only for an event the check may react to: its route says so (``RunnerRoutes``:
    /// for these checks ``CompiledRule/checkConcerns`` alone sets the flag), and a basic runner
    /// never asks for every event (``takesEveryEvent``).
    override func handle(_ e: Event, context: ContextScope, sink: FindingSink) {
        assert(compiled.checkConcerns.contains(e.evID) && !takesEveryEvent)
        // The common context is made here, where the compiler sees that it holds no captures and
        // no box: dropping it then releases nothing (one from ``context(_:captures:frozen:)``,
        // which may come from either path, is dropped with two releases).
        if let base = plainContext(e) {
            // A trigger by id alone is judged here: no call to match it, nothing to bind.
            if everyByID {
                judgeByID(e, base, context: context, sink: sink)
            } else {
                handle(e, base, context: context, sink: sink)
            }
        } else {
            handle(e, self.context(e), context: context, sink: sink)
        }
    }

    /// ``handle(_:context:sink:)`` with the event's base context, which the caller drops.
    @inline(never) private func handle(
        _ e: Event, _ base: EvalContext, context: ContextScope, sink: FindingSink
    ) {
        switch check {
        case .every:
            if everyByID {
                judgeByID(e, base, context: context, sink: sink)
                return
            }
            every?._withUnsafeGuaranteedRef { every in
                guard let term = Evaluator.matches(every.selector, e, base) else { return }
                // Without a capture the trigger's context is the base one (not copied).
                if let name = term.capture(in: every.selector) {
                    let ctx = self.context(e, captures: bindTrigger(name, e))
                    if !judge(e, ctx, every, context: context, sink: sink, late: false) {
                        waiting.append((e, ctx))
                    }
                } else if !judge(e, base, every, context: context, sink: sink, late: false) {
                    waiting.append((e, base))
                }
            }

        case .never(let selector, let scope):
            switch scope {
            case .global:
                if let term = Evaluator.matches(selector, e, base) {
                    report(
                        .violation, at: e, bind(term, selector, e, base), context: context,
                        sink: sink)
                }
            case .window(let after, let before):
                if !afterOpen {
                    if let after, Evaluator.matches(after, e, base) != nil { afterOpen = true }
                } else if !beforeClosed {
                    if let before, Evaluator.matches(before, e, base) != nil {
                        beforeClosed = true
                        reportPending(context: context, sink: sink)
                    } else if let term = Evaluator.matches(selector, e, base) {
                        if before == nil {
                            report(
                                .violation, at: e, bind(term, selector, e, base), context: context,
                                sink: sink)
                        } else {
                            // Dwyer's "before R": a trace in which R never comes satisfies it.
                            pending.append((e, bind(term, selector, e, base)))
                        }
                    }
                }
            case .intervals(let from, let to, let open):
                if !inInterval {
                    if Evaluator.matches(from, e, base) != nil { inInterval = true }
                } else if Evaluator.matches(to, e, base) != nil {
                    inInterval = false
                    reportPending(context: context, sink: sink)
                } else if let term = Evaluator.matches(selector, e, base) {
                    if open {
                        report(
                            .violation, at: e, bind(term, selector, e, base), context: context,
                            sink: sink)
                    } else {
                        pending.append((e, bind(term, selector, e, base)))
                    }
                }
            }

        case .count(let selector, _, let maximum, let by):
            guard let term = Evaluator.matches(selector, e, base) else { return }
            let ctx = bind(term, selector, e, base)
            if firstMatch == nil { firstMatch = e }
            let n: Int
            if by != nil {
                guard case .value(let key) = compiled.countBy!(ctx) else { return }
                if perKey == nil { perKey = PerKey() }
                n = perKey!.counts.increment(key)
            } else {
                matched += 1
                n = matched
            }
            if let maximum, n > maximum {
                report(.violation, at: e, ctx, context: context, sink: sink)
            }

        default:
            break
        }
    }

    /// The captures of the latest `every` trigger (`as:`), and the name they bind: binding the
    /// next trigger to the same name writes the event in place once no context holds them (a
    /// trigger that waits keeps its own copy), where a new binding made storage per trigger.
    private var triggerCaptures = Captures()
    private var triggerName: String?

    /// `name` bound to `e` alone.
    private func bindTrigger(_ name: String, _ e: Event) -> Captures {
        if triggerName == name {
            triggerCaptures[name] = e
        } else {
            triggerCaptures = [name: e]
            triggerName = name
        }
        return triggerCaptures
    }

    /// A `never` scope (`between`, `before`) closed: what happened inside it is judged now.
    private func reportPending(context: ContextScope, sink: FindingSink) {
        for (event, ctx) in pending {
            report(.violation, at: event, ctx, context: context, sink: sink, waitForAfter: false)
        }
        pending.removeAll()
    }

    /// Judges an `every` trigger; false when its expectation looked ahead and the answer has not
    /// come yet (it is judged again as later events arrive, and at the end of the timeline).
    private func judge(
        _ e: Event, _ ctx: EvalContext, context: ContextScope, sink: FindingSink, late: Bool
    ) -> Bool {
        guard let every else { return true }
        return every._withUnsafeGuaranteedRef {
            judge(e, ctx, $0, context: context, sink: sink, late: late)
        }
    }

    private func judge(
        _ e: Event, _ ctx: EvalContext, _ every: EveryCheck, context: ContextScope,
        sink: FindingSink, late: Bool
    ) -> Bool {
        lookAheadPending = false
        // `judging` is nil but while a late judgement runs: only those set it back.
        if late { judging = e }
        defer { if late { judging = nil } }
        let verdict: Bool?
        switch every.expect {
        case .expression: verdict = ctx.withEvent { holds(every, ctx, $0) }
        case .selector(let s): verdict = Evaluator.matches(s, e, ctx) != nil
        }
        return settle(e, ctx, every, verdict, context: context, sink: sink, late: late)
    }

    /// An `every` trigger of ``everyByID`` judged as it comes, in its base context `ctx`; kept
    /// waiting when its expectation looked ahead. An expectation that holds, having looked
    /// ahead at nothing, is all of it: the common answer, decided without ``judge``'s frame.
    @inline(__always) private func judgeByID(
        _ e: Event, _ ctx: EvalContext, context: ContextScope, sink: FindingSink
    ) {
        every.unsafelyUnwrapped._withUnsafeGuaranteedRef { every in
            lookAheadPending = false
            let verdict = ctx.withEvent { holds(every, ctx, $0) }
            if verdict == true, !lookAheadPending { return }
            if !settle(e, ctx, every, verdict, context: context, sink: sink, late: false) {
                waiting.append((e, ctx))
            }
        }
    }

    /// What ``judge`` makes of the expectation's `verdict` for trigger `e`: false when it
    /// looked ahead and the answer has not come yet; else its finding, if any, is reported.
    @inline(never) private func settle(
        _ e: Event, _ ctx: EvalContext, _ every: EveryCheck, _ verdict: Bool?,
        context: ContextScope, sink: FindingSink, late: Bool
    ) -> Bool {
        if lookAheadPending, !ended { return false }
        let policy = every.policy
        let outcome = verdict ?? (policy == .pass ? true : policy == .fail ? false : nil)
        // A finding whose message looks ahead waits for that answer too.
        if outcome != true, compiled.messageLooksAhead, !ended {
            lookAheadPending = false
            _ = message(for: ctx, note: nil)
            if lookAheadPending { return false }
        }
        // Judged late, the events after the trigger have already gone by: no waiting for them.
        switch outcome {
        case true?: break
        case false?:
            report(.violation, at: e, ctx, context: context, sink: sink, waitForAfter: !late)
        case nil:
            report(
                .inconclusive, at: e, ctx, context: context, sink: sink,
                note: "undecided: data is missing", waitForAfter: !late)
        }
        return true
    }

    /// The truth of the `every` expectation for `e` in `ctx`: its fused form's where that reads
    /// it in place, else the compiled expression's (checked against the fused form's where the
    /// runner cross-checks its answers).
    @inline(__always) private func holds(_ every: EveryCheck, _ ctx: EvalContext, _ e: Event)
        -> Bool?
    {
        guard let fused else { return every.expectRun.holds(ctx, e) }
        let answer = fused._withUnsafeGuaranteedRef { $0.answer(ctx, e) }
        if answer != .unread { return answer.truth }
        let general = every.expectRun.holds(ctx, e)
        if crossCheck != nil { fused._withUnsafeGuaranteedRef { $0.check(general, ctx, e) } }
        return general
    }

    /// No trigger waiting for a look-ahead, and no `count` with a minimum (whose finish reports):
    /// what stays is rebuilt exactly by a replay. (Violations pending inside an open `between` or
    /// `before` scope are state like any other: the finish drops them.)
    override func retirement() -> Retirement {
        if stopped { return .never }
        if case .count(_, _?, _, _) = check { return .never }
        return waiting.isEmpty ? .now([]) : .later
    }

    override func recorded(_ e: Event, context: ContextScope, sink: FindingSink) {
        guard !waiting.isEmpty, spend(waiting.count) else { return }
        waiting = waiting.filter { !judge($0.0, $0.1, context: context, sink: sink, late: true) }
    }

    override func finish(context: ContextScope, first: Event?, lastT: Double?, sink: FindingSink) {
        guard !stopped else { return }
        ended = true
        for (e, ctx) in waiting { _ = judge(e, ctx, context: context, sink: sink, late: true) }
        waiting.removeAll()
        // `between`, `before`: a scope the log ends inside is not judged; its findings are dropped.
        pending.removeAll()
        guard case .count(_, let minimum?, _, let by) = check else { return }
        // Too few matches: reported at the timeline's first event.
        let anchor = first ?? firstMatch
        func tooFew(_ n: Int, _ what: String) {
            report(
                .violation, at: anchor, anchor.map { self.context($0) }, context: context,
                sink: sink,
                note:
                    "\(n) matching event\(n == 1 ? "" : "s")\(what), at least \(minimum) required",
                waitForAfter: false)
        }
        if by == nil, matched < minimum {
            tooFew(matched, "")
        } else if by != nil {
            let counts = perKey?.counts.counts ?? []
            for (key, n) in counts.sorted(by: { $0.key.rendered() < $1.key.rendered() })
            where n < minimum {
                tooFew(n, " for \(key.renderedClipped().visibleControls)")
            }
        }
    }

    private func bind(_ term: SelectorMatch, _ selector: Selector, _ e: Event, _ base: EvalContext)
        -> EvalContext
    {
        guard let name = term.capture(in: selector) else { return base }
        return context(e, captures: [name: e])
    }
}

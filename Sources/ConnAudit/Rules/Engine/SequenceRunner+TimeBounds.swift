/// `where:`s that compare the event's time with a captured event's time moved by a fixed amount,
/// decided without running the expression.
///
/// `t < p.t + T` (or `<=`, `>`, `>=`; `- L`; the two sides swapped), where `p` is a capture of
/// the rule and the amount is a number or a let (``TimeBound``), is found in a term's `where:`
/// when the rule's facts are made (``TimeBoundPlans``). Where a sequence tries the term, the
/// captured time and the let's kept value are read in place, added as ``Evaluator`` adds two
/// numbers, and compared as ``Scalar/combine(_:_:_:)`` compares them: what the compiled
/// expression gives, with no closure run and no operand made an ``Eval``. A read it cannot make
/// in place (the capture unbound, the let not kept, an amount that is no number) leaves the term
/// to ``Evaluator/termMatches(_:_:_:)``, which then reads everything again, as it would have.
/// A comparison that is the left part of an `and` decides the term only where it is false (the
/// `and` is false without its right part).
///
/// A step whose terms test `ev` names and such bounds alone (``TimeBoundPlans/stepsByTime``) is
/// tried against a partial with no context made: the partial's captures are read where the
/// stage holds them, and the lets from the runner's static ones.
/// Tests: `TimeBoundsGiveTheGeneralAnswerTests`.
final class TimeBound: Sendable {
    /// Whether the term has a bound: a term without one holds ``none``, so that a selector's
    /// bounds are one list of references, read in place (``Swift/Array/withElement(_:_:)``).
    let decides: Bool
    /// The comparison, with the event's `t` on the left (`timeFirst`) or on the right, and the
    /// captured time moved by the amount (added, or taken away: `subtract`).
    let comparison: TimeComparison
    var op: Expr.BinaryOp { comparison.op }
    var timeFirst: Bool { comparison.timeFirst }
    var subtract: Bool { comparison.subtract }
    /// The capture whose time is moved, and its place among the rule's captures
    /// (``LetSlot/capture``).
    let capture: String
    let captureSlot: Int
    /// The amount: the let laid out as `amountLet` says (its slot >= 0), else `constant`.
    let amountLet: LetSlot
    let constant: Scalar
    /// Whether the comparison is the whole `where:` (else the left part of its `and`).
    let whole: Bool

    /// The bound of a term's `where:` (`expr`), when it has that shape; `ownCapture` is the term's
    /// `as:` name, which the `where:` reads as the candidate.
    static let none = TimeBound()

    private init() {
        decides = false
        comparison = TimeComparison(op: .less, timeFirst: true, subtract: false)
        capture = ""
        captureSlot = 0
        amountLet = .unresolved
        constant = .other
        whole = false
    }

    init?(_ expr: Expr, ownCapture: String?) {
        var whole = true
        var compared = expr
        if case .binary(.and, let left, _, _) = expr {
            whole = false
            compared = left
        }
        guard let parts = TimeComparison.parts(compared), Self.isTime(parts.plain),
            let amount = parts.amount,
            case .member(.name(let capture, _, let hint), _, let id, _) = parts.base,
            id == FieldNames.t, capture != "params", capture != ownCapture, hint.layout >= 0,
            hint.slot < 0, hint.capture >= 0
        else { return nil }
        switch TimeComparison.Amount(amount) {
        case .constant(let s)?:
            amountLet = .unresolved
            constant = s
        case .slot(let slot)?:
            amountLet = slot
            constant = .other
        case nil:
            return nil
        }
        decides = true
        comparison = parts.comparison
        self.capture = capture
        captureSlot = Int(hint.capture)
        self.whole = whole
    }

    /// Whether `expr` is the current event's `t`.
    private static func isTime(_ expr: Expr) -> Bool {
        if case .field(_, let id) = expr, id == FieldNames.t { return true }
        return false
    }

    /// What the comparison gives for `e`, with the capture read from `captures` and the amount
    /// given (``amount(_:)``, ``amount(statics:)``): nil where the capture is not bound there.
    @inline(__always) func compare(_ e: Event, _ captures: borrowing Captures, amount: Scalar)
        -> Scalar?
    {
        guard let at = captures.withEvent(slot: captureSlot, capture, { $0.t }) else { return nil }
        return compare(e.t, at: at, amount: amount)
    }

    /// The comparison of the time `t` with `at` moved by `amount`
    /// (``TimeComparison/compare(_:at:amount:)``).
    @inline(__always) func compare(_ t: Double, at: Double, amount: Scalar) -> Scalar {
        comparison.compare(t, at: at, amount: amount)
    }

    /// The amount as the compiled expression reads it in `ctx`, where that evaluates nothing:
    /// the constant, or the let from the context's scope (an obligation's, evaluated in full as
    /// it opened) or from the runner's static lets where they keep it fresh. Nil otherwise, and
    /// for an amount that is no scalar.
    @inline(__always) func amount(_ ctx: EvalContext) -> Scalar? {
        guard amountLet.slot >= 0 else { return constant }
        let slot = Int(amountLet.slot)
        let lets = ctx.letsInPlace
        guard !lets.byName else { return nil }
        let kept: Scalar?
        if let scope = lets.scope {
            kept = scope._withUnsafeGuaranteedRef {
                $0.table.layout == amountLet.layout ? $0.scalar(slot: slot) : nil
            }
        } else {
            kept = ctx.withShared { $0.withStatics { amount(statics: $0) } }
        }
        guard let kept, !kept.isOtherOrNonScalar else { return nil }
        return kept
    }

    /// The amount as a context of the runner with static lets `statics` and no scope of its own
    /// reads it, where that evaluates nothing (see ``amount(_:)``).
    @inline(__always) func amount(statics: StaticLets?) -> Scalar? {
        guard amountLet.slot >= 0 else { return constant }
        guard let statics, statics.table.layout == amountLet.layout,
            let kept = statics.cachedScalar(slot: Int(amountLet.slot)), !kept.isOtherOrNonScalar
        else { return nil }
        return kept
    }
}

/// One selector's time bounds, term by term (nil: a term without one): in a box, so that a
/// runner reads a step's in place (``Swift/Array/withElement(_:_:)``).
final class SelectorBounds: @unchecked Sendable {
    /// Per term: its bound, or ``TimeBound/none``.
    let terms: [TimeBound]

    init(_ terms: [TimeBound]) { self.terms = terms }

    /// `selector`'s bounds; nil when no term has one.
    static func of(_ selector: Selector) -> SelectorBounds? {
        let terms = selector.terms.map { term -> TimeBound in
            guard term.negated == nil, !term.whereReadsCapture, let expr = term.whereExpr else {
                return .none
            }
            return TimeBound(expr, ownCapture: term.capture) ?? .none
        }
        return terms.contains { $0.decides } ? SelectorBounds(terms) : nil
    }

    /// Whether every term of `selector` tests known `ev` names and nothing else but a bound that
    /// is its whole `where:`.
    func decideByTime(_ selector: Selector) -> Bool {
        guard let ids = selector.ids, ids.allSatisfy({ $0 >= 0 }) else { return false }
        return selector.terms.indices.allSatisfy { i in
            let term = selector.terms[i]
            guard term.evIDs != nil, !term.checksFields, term.negated == nil else { return false }
            if term.whereExpr == nil { return true }
            return terms[i].decides && terms[i].whole
        }
    }
}

/// The time bounds of a sequence rule's selectors, found once per compiled rule
/// (``SequenceFacts``).
struct TimeBoundPlans: Sendable {
    /// Per step: its selector's bounds (no term's where it has none).
    let steps: [SelectorBounds]
    /// Per step (a bit each): whether its selector tests `ev` names alone, and bounds that are
    /// whole `where:`s (no field, no `not:`), in terms that have one or the other: decided with
    /// no context (``SequenceRunner/matchByTime(_:_:_:_:statics:)``).
    let stepsByTime: UInt64
    /// An `each … followed_by`'s `followed_by` and `unless` bounds.
    let followedBy: SelectorBounds?
    let unless: SelectorBounds?

    init(steps: [StepSelectors], followedBy: Selector?, unless: Selector?) {
        let none = SelectorBounds([])
        var byTime: UInt64 = 0
        self.steps = steps.enumerated().map { i, step in
            guard let bounds = SelectorBounds.of(step.selector) else { return none }
            if i < 64, bounds.decideByTime(step.selector) { byTime |= 1 << i }
            return bounds
        }
        stepsByTime = byTime
        self.followedBy = followedBy.flatMap(SelectorBounds.of)
        self.unless = unless.flatMap(SelectorBounds.of)
    }
}

extension SequenceRunner {
    /// What trying a step decided by time gives (``matchByTime(_:_:_:_:statics:)``).
    enum TimeMatch {
        case match(SelectorMatch)
        case none
        /// A bound could not be read in place: the step is evaluated in full.
        case undecided
    }

    /// ``matchByTime(_:_:_:_:statics:)`` of the step at `stage` for its partial at `position`,
    /// whose captures are read where the stage holds them: its list is not changed meanwhile.
    @inline(__always) func matchByTime(
        _ e: Event, _ step: StepSelectors, stage: Int, at position: Int
    ) -> TimeMatch {
        let partial = stages[stage].partials.address(position)
        let captures = (UnsafeRawPointer(partial) + Self.capturesOffset)
            .assumingMemoryBound(to: Captures.self)
        return stepBounds.withElement(stage) { bounds in
            Self.matchByTime(step.selector, bounds, e, captures, statics: staticLets)
        }
    }

    /// ``Evaluator/matches(_:_:_:)`` of a step decided by time (``TimeBoundPlans/stepsByTime``),
    /// for a partial with `captures`: the first term that names `e`'s id and whose bound, if it
    /// has one, holds. The lets are read from the runner's static ones (`statics`, not counted).
    @inline(__always) static func matchByTime(
        _ selector: Selector, _ bounds: SelectorBounds, _ e: Event,
        _ captures: UnsafePointer<Captures>, statics: Unmanaged<StaticLets>?
    ) -> TimeMatch {
        guard selector.mayMatch(e.evID) else { return .none }
        return selector.terms.withUnsafeBufferPointer { terms in
            for i in terms.indices where terms[i].evIDs?.contains(e.evID) ?? false {
                let decided = bounds.terms.withElement(i) { bound -> TimeMatch? in
                    guard bound.decides else { return .match(SelectorMatch(term: i)) }
                    guard
                        let amount = statics?._withUnsafeGuaranteedRef({
                            bound.amount(statics: $0)
                        }) ?? bound.amount(statics: nil),
                        let holds = bound.compare(e, captures.pointee, amount: amount)
                    else { return .undecided }
                    return holds.truth == true ? .match(SelectorMatch(term: i)) : nil
                }
                if let decided { return decided }
            }
            return .none
        }
    }

    /// ``Evaluator/matches(_:_:_:)`` of `selector` with its terms' `bounds`: a term with a bound
    /// is decided by it where it can be (``TimeBound``), every other one as the evaluator decides.
    static func matches(
        _ selector: Selector, _ bounds: SelectorBounds, _ e: Event, _ ctx: EvalContext
    ) -> SelectorMatch? {
        guard selector.mayMatch(e.evID) else { return nil }
        return selector.terms.withUnsafeBufferPointer { terms in
            for i in terms.indices {
                let term = terms.baseAddress! + i
                // true: the term matches; false: it does not; nil: the evaluator decides.
                let decided = bounds.terms.withElement(i) { bound -> Bool? in
                    guard bound.decides else { return nil }
                    guard Evaluator.termTestsHold(term, e, ctx) else { return false }
                    guard let amount = bound.amount(ctx),
                        let holds = bound.compare(e, ctx.captures, amount: amount)
                    else { return nil }
                    if bound.whole { return holds.truth == true }
                    return holds.truth == false ? false : nil
                }
                if decided ?? Evaluator.termMatches(term, e, ctx) { return SelectorMatch(term: i) }
            }
            return nil
        }
    }
}

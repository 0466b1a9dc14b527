#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Evaluator {
    /// Whether `candidate` matches; returns the matching term (for its capture), or nil.
    /// Bare names in `where:` read the candidate; captures and lets of `ctx` stay visible.
    public static func matches(_ selector: Selector, _ candidate: Event, _ ctx: EvalContext)
        -> SelectorMatch?
    {
        guard selector.mayMatch(candidate.evID) else { return nil }
        // Terms are read in place, through a pointer into the selector's array, which the caller
        // holds for the whole call: a term handed on by value would be retained and released
        // around every test.
        return selector.terms.withUnsafeBufferPointer { terms in
            for i in terms.indices where termMatches(terms.baseAddress! + i, candidate, ctx) {
                return SelectorMatch(term: i)
            }
            return nil
        }
    }

    /// Whether the term at `term` (in a selector the caller holds) matches `candidate`.
    static func termMatches(
        _ term: UnsafePointer<Selector.Term>, _ candidate: Event, _ ctx: EvalContext
    ) -> Bool {
        guard termTestsHold(term, candidate, ctx) else { return false }
        if let negated = term.pointee.negated, matches(negated, candidate, ctx) != nil {
            return false
        }
        if let whereRef = term.pointee.whereRef {
            // The expression is read in its box, which the term holds, and the caller the term,
            // for the whole call (not copied, so not retained). The candidate is the current
            // event; the context is copied only to bind a capture.
            let holds = whereRef._withUnsafeGuaranteedRef { box in
                if term.pointee.whereReadsCapture, let name = term.pointee.capture {
                    // A `where:` of counted calls keyed by the candidate binds it only where the
                    // counted indexes do not answer (``CountedWhere``), and where it answers under
                    // the cross-check, to check it.
                    if let counted = term.pointee.countedWhereRef,
                        let truth = counted._withUnsafeGuaranteedRef({ $0.holds(candidate, ctx) })
                    {
                        return truth
                    }
                    let general = ctx.binding(name, to: candidate) {
                        box.compiled.holds($0, candidate) == true
                    }
                    _ = term.pointee.countedWhereRef?._withUnsafeGuaranteedRef {
                        $0.check(general, candidate, ctx)
                    }
                    return general
                }
                return box.compiled.holds(ctx, candidate) == true
            }
            guard holds else { return false }
        }
        return true
    }

    /// ``termTestsHold(_:_:_:)-(UnsafePointer<Selector.Term>,_,_)`` for a term held by value.
    @inline(__always)
    static func termTestsHold(_ term: Selector.Term, _ candidate: Event, _ ctx: EvalContext) -> Bool
    {
        withUnsafePointer(to: term) { termTestsHold($0, candidate, ctx) }
    }

    /// Whether `candidate` passes a term's `ev` names and field tests (not its `not:` or `where:`),
    /// which read nothing but the candidate (and the file names).
    @inline(__always)
    static func termTestsHold(
        _ term: UnsafePointer<Selector.Term>, _ candidate: Event, _ ctx: EvalContext
    ) -> Bool {
        if let ids = term.pointee.evIDs, !ids.contains(candidate.evID) { return false }
        guard term.pointee.checksFields else { return true }
        // ``Selector/Term/leftToCheck(_:evIDs:)``, with the test's id read in place and the ids
        // only asked whether they are there: neither is copied, so neither is retained for the
        // loop. The tests are read in their box (``Selector/Term/testsRef``), which the term
        // holds: not retained either.
        let idsAnswerEv = term.pointee.evIDs != nil
        return term.pointee.testsRef._withUnsafeGuaranteedRef { box in
            box.tests.withUnsafeBufferPointer { tests in
                for i in tests.indices where tests[i].fieldID != FieldNames.ev || !idsAnswerEv {
                    // `exists` and a boolean `equals` read the field where the event holds it
                    // (``Event/holds(_:id:)``): no copy of its value.
                    if tests[i].fieldID >= 0,
                        let held = candidate.holds(tests.baseAddress! + i, id: tests[i].fieldID)
                    {
                        guard held else { return false }
                        continue
                    }
                    let v: Value
                    let present: Bool
                    if tests[i].fieldID == FieldNames.file {
                        v = fileName(of: candidate, ctx)
                        present = true
                    } else if let found = candidate.value(of: tests[i].field, id: tests[i].fieldID)
                    {
                        v = found
                        present = true
                    } else {
                        v = .null
                        present = false
                    }
                    let holds = ctx.withShared { shared in
                        predicate(
                            of: tests.baseAddress! + i, v, present: present, shared, candidate)
                    }
                    guard holds == true else {
                        return false
                    }
                }
                return true
            }
        }
    }

    /// ``predicate(_:_:present:_:_:)`` of the test at `test` (in a term the caller holds): the
    /// tests most selectors make, `equals` and `exists`, are decided here, without a call.
    @inline(__always) static func predicate(
        of test: UnsafePointer<Selector.FieldTest>, _ v: Value, present: Bool,
        _ shared: EvalShared, _ e: Event
    ) -> Bool? {
        switch test.pointee.predicate {
        case .equals(let x): return v.looselyEquals(x)
        case .exists(let wanted): return (present && v != .null) == wanted
        default: return predicate(test.pointee.predicate, v, present: present, shared, e)
        }
    }

    /// A field predicate of `e`; nil is undecided (which a selector treats as no match). A regex
    /// takes its steps from `shared`'s budget, if it has one.
    static func predicate(
        _ p: Selector.Predicate, _ v: Value, present: Bool, _ shared: EvalShared, _ e: Event
    )
        -> Bool?
    {
        switch p {
        case .equals(let x): return v.looselyEquals(x)
        case .glob(let g):
            guard case .string(let s) = v else { return false }
            return g.matches(s)
        case .oneOf(let options):
            for option in options where predicate(option, v, present: present, shared, e) == true {
                return true
            }
            return false
        case .exists(let wanted): return (present && v != .null) == wanted
        case .notIn(let values): return !values.contains { $0.looselyEquals(v) }
        case .compare(let op, let x):
            guard v != .null, let order = v.order(x) else { return nil }
            switch op {
            case .less: return order < 0
            case .lessEqual: return order <= 0
            case .greater: return order > 0
            default: return order >= 0
            }
        case .all(let ps):
            for q in ps {
                guard let r = predicate(q, v, present: present, shared, e) else { return nil }
                if !r { return false }
            }
            return true
        case .not(let q):
            return predicate(q, v, present: present, shared, e).map { !$0 }
        case .matches(let regex):
            guard case .string(let s) = v else { return nil }
            guard let budget = shared.regexBudget else { return regex.matches(s) }
            return budget.matches(regex, s, at: e)
        }
    }
}

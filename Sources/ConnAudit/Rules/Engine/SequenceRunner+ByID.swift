/// Steps decided by the event's id alone.
///
/// A selector that tests plain `ev` names and nothing else (``Selector/matchesByIDAlone``)
/// matches an event exactly when its id is one of the selector's: no field is read, no `where:`
/// runs, so the answer needs no evaluation context. A partial tried only against such tests (its
/// step's selector, its `without`, the sequence's `without`) is decided with no context made and
/// none of its captures copied, and a first step of that kind starts a partial the same way.
/// Where only the `without`s are of that kind, a partial's death is decided by id and its step
/// alone is evaluated. The answer is the one ``Evaluator/matches(_:_:_:)`` gives, term for term
/// (a capture is the matching term's).
extension SequenceRunner {
    /// Per step (bit `i` for step `i`): whether its selector matches by id alone.
    static func stepsByID(_ steps: [StepSelectors]) -> UInt64 {
        var bits: UInt64 = 0
        for (i, step) in steps.enumerated() where i < 64 && step.selector.matchesByIDAlone {
            bits |= 1 << i
        }
        return bits
    }

    /// Per step (bit `i` for step `i`): whether what kills a partial waiting for it — the step's
    /// `without` and `sequenceWithout`, where there are — matches by id alone.
    static func withoutsByID(_ steps: [StepSelectors], sequenceWithout: Selector?) -> UInt64 {
        guard sequenceWithout?.matchesByIDAlone ?? true else { return 0 }
        var bits: UInt64 = 0
        for (i, step) in steps.enumerated() where i < 64 && step.without?.matchesByIDAlone ?? true {
            bits |= 1 << i
        }
        return bits
    }

    /// ``Evaluator/matches(_:_:_:)`` of a `selector` that matches by id alone: the first term that
    /// names `e`'s id.
    @inline(__always) static func matchByID(_ selector: Selector, _ e: Event) -> SelectorMatch? {
        guard selector.mayMatch(e.evID) else { return nil }
        return selector.terms.withUnsafeBufferPointer { terms in
            if terms.count == 1 { return SelectorMatch(term: 0) }
            for i in terms.indices where terms[i].evIDs?.contains(e.evID) ?? false {
                return SelectorMatch(term: i)
            }
            return nil
        }
    }

    /// Whether `e` kills a partial waiting for `step`, where what kills it (``withoutsByID``)
    /// matches by id alone.
    @inline(__always) func killedByID(_ e: Event, _ step: StepSelectors) -> Bool {
        step.without?.mayMatch(e.evID) == true || sequenceWithout?.mayMatch(e.evID) == true
    }
}

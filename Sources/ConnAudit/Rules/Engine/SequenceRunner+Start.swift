/// Starting a partial match: the first step matched an event.
///
/// The first stage, once all its partials died, keeps the slot of the first in its list
/// (``compact(_:)``), and the next start opens there, in place (``reopen(_:on:)``): a
/// trigger that starts on one event and dies on the next (a ping and its pong) then makes,
/// moves and drops no partial. The kept slot holds its dead partial's events until then.
extension SequenceRunner {
    /// Opens (or completes) the partial `e` starts, having matched the first step at `term`.
    /// Where the first stage holds one partial, dead (``compact(_:)`` keeps it), the new one
    /// opens in its place (``reopen(_:on:)``); else it is made and taken as a grown one is.
    @inline(__always) func start(
        _ e: Event, on term: SelectorMatch, context: ContextScope, sink: FindingSink
    ) {
        if reopensObligations, obligations.live == 0, obligations.items.count == 1,
            reopenObligation(e, context: context)
        {
            return
        }
        if stageCount > 1, stages[1].live == 0, stages[1].partials.count == 1, reopensInPlace {
            reopen(e, on: term)
            return
        }
        let name = startName(term)
        // The spare storage (or empty captures) is taken as it is: no empty list is made and
        // released per start. Taken with `removeLast`, read in place, where `popLast` is a call
        // that wraps the spare in an optional.
        if let name {
            var captures = spareCaptures.isEmpty ? Captures() : spareCaptures.removeLast()
            captures[name] = e
            take(
                Partial(stage: 1, captures: consume captures, last: e), context: context,
                sink: sink)
            return
        }
        take(Partial(stage: 1, captures: Captures(), last: e), context: context, sink: sink)
    }

    /// The name a start on `term` binds (nil: none).
    @inline(__always) private func startName(_ term: SelectorMatch) -> String? {
        firstStep!._withUnsafeGuaranteedRef { first -> String? in
            startBindsCapture(term.term) ? term.capture(in: first.selector) : nil
        }
    }

    /// Opens the partial `e` starts on `term` in the one slot of the first stage, whose partial
    /// died: the slot's captures are bound again in place (``Captures/bindAlone(_:to:)``), so a
    /// start after a death makes, moves and drops no partial, and the name bound again is not
    /// retained again. Where every start binds one name (``startsBindOneName``), the slot's one
    /// binding is that name's, and takes `e` with the name not read at all
    /// (``Captures/bindAgain(to:)``). Nothing of the dead partial is left: its events are
    /// replaced, its other captures unbound, its ordinal and origin set as a new partial's.
    @inline(__always) private func reopen(_ e: Event, on term: SelectorMatch) {
        reopened += 1
        let s = stages + 1
        let ordinal = nextOrdinal
        nextOrdinal += 1
        let p = s.pointee.partials.address(0)
        if !startsBindOneName || !p.pointee.captures.bindAgain(to: e) {
            p.pointee.captures.bindAlone(startName(term), to: e)
        }
        p.pointee.last = e
        p.pointee.ordinal = ordinal
        p.pointee.origin = -1
        p.pointee.dead = false
        if s.pointee.indexed != 0 || s.pointee.keys != nil { addKeys(of: s.pointee.partials[0]) }
        s.pointee.live = 1
        openStages |= 1 << 1
    }
}

/// Complete matches: a partial grown by its last step is reported, opens an obligation, looks
/// back or arms an absence, as the check says.
extension SequenceRunner {
    /// Reports, opens or arms what the complete `match` calls for. The match is taken apart
    /// (``Partial/parts()``): its captures move into the context it is judged with, which an
    /// obligation keeps, and its last event is the anchor unless `report_at` names another.
    func complete(_ match: consuming Partial, context: ContextScope, sink: FindingSink) {
        let (captures, last, origin) = match.parts()
        let lastSeq = last.seq
        let lastT = last.t
        let anchor: Event
        if let name = sequence.reportAt, let e = captures[name] {
            anchor = e
        } else {
            anchor = consume last
        }
        // Bare names in messages read the event the finding points at. An obligation keeps its
        // context until it is answered: its lets are frozen.
        var isResponse = false
        if case .response = check { isResponse = true }
        let ctx = self.context(anchor, captures: consume captures, frozen: isResponse)
        let anchorSeq = anchor.seq
        switch check {
        case .forbid:
            if reportedAnchors.insert(anchor.seq).inserted {
                report(
                    .violation, at: anchor, ctx, context: context, sink: sink,
                    waitForAfter: anchorSeq == lastSeq)
            }
        case .response:
            // The anchor and the context move into the obligation: not copied, then dropped.
            open(
                lastSeq: lastSeq, lastT: lastT, anchor: consume anchor, consume ctx,
                context: context, sink: sink)
        case .precedence(_, let enabling):
            var found = false
            var looked = 0
            for e in compiled.precedenceList.map({ history(list: $0) }) ?? [] {
                looked += 1
                if Evaluator.matches(enabling, e, ctx) != nil { found = true; break }
            }
            guard spend(looked) else { return }
            if !found { report(.violation, at: anchor, ctx, context: context, sink: sink) }
        case .neverAfter:
            let key = ctx.captures.seqs(of: keyed[sequence.steps.count - 1])
            if armedKeys.insert(key).inserted { armed.append(ctx.captures) }
        default:
            break
        }
        if facts.completedMatchesRetire,
            reportedAnchors.contains(anchorSeq) || obligations.openAnchors.contains(anchorSeq)
        {
            retire(origin: origin)
        }
    }

    /// Ends the partial a complete match grew from (its ordinal `origin`, -1: none): all it could
    /// complete from now on would be dropped as its anchor's
    /// (``SelectorPlan/completedMatchesRetire(_:)``).
    func retire(origin: Int) {
        let stage = sequence.steps.count - 1
        guard origin >= 0, stage < stageCount,
            let at = Self.position(of: origin, in: stages[stage].partials)
        else { return }
        kill(stage: stage, at: at)
        compact(stage)
    }
}

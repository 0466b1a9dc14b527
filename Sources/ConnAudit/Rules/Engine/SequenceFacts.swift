/// What a sequence rule's runners know from the rule alone: made once per compiled rule
/// (``CompiledRule/sequenceFacts``) and read by every runner of every timeline, which a rule
/// makes once per generation. Each fact is described where ``SequenceRunner`` keeps it.
///
/// One object, shared: a runner holds it with one reference and copies out only the facts it
/// reads per event, so starting and freeing a runner do not copy and drop the rest.
final class SequenceFacts {
    let sequence: Sequence
    let sequenceWithout: Selector?
    let startBinds: UInt64
    let startsBindOneName: Bool
    let startsAlike: Bool
    let reportsAtLastStep: Bool
    let stepsByID: UInt64
    let withoutsByID: UInt64
    let deathsExcludeGrowth: UInt64
    let responseFollowedBy: Selector?
    let responseWithin: Expr?
    let responseUnless: Selector?
    let lastKeyed: [String]
    let startWhereKept: UInt64
    let withinReadsLetsOnly: Bool
    /// Whether a complete match ends the partial it grew from once its anchor is reported or has
    /// its obligation open (``SelectorPlan/completedMatchesRetire(_:)``): read as a match
    /// completes, here rather than through the compiled rule's lazy property (a call each).
    let completedMatchesRetire: Bool
    let timeBounds: TimeBoundPlans
    /// Whether the next trigger may open its obligation in the slot of the one answered, in place
    /// (``SequenceRunner/reopenObligation(_:context:)``): an `each` of one step whose every start
    /// binds one name, with no `report_at`, a message that reads no history, no history result
    /// bound by name, lets that are all static (their frozen scope is shared; each start checks
    /// it is still current), and a `within_ms` (if any) that reads lets and params alone.
    let reopensObligations: Bool

    init(_ compiled: CompiledRule) {
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
        let kept = compiled.keptCaptureNames
        let keyed = compiled.keyCaptureNames
        var startBinds: UInt64 = 0
        if !compiled.steps.isEmpty {
            let first = compiled.steps.withElement(0) { $0.selector }
            for (i, term) in first.terms.enumerated()
            where i < 64 && SequenceRunner.binds(term, kept, sequence) {
                startBinds |= 1 << UInt64(i)
            }
        }
        self.startBinds = startBinds
        startsBindOneName =
            compiled.steps.first.map { SequenceRunner.bindsOneName($0.selector, startBinds) }
            ?? false
        startsAlike =
            sequence.steps.count > 1
            && Set(CompiledRule.captureNames(sequence.steps[0].selector)).isDisjoint(with: keyed[0])
            && !SequenceRunner.readsLets(sequence.steps[0].selector, compiled.lets.names)
        var atLast = false
        if case .forbid = compiled.rule.check, let last = sequence.steps.last {
            atLast =
                sequence.reportAt.map { CompiledRule.captureNames(last.selector).contains($0) }
                ?? true
        }
        reportsAtLastStep = atLast
        stepsByID = SequenceRunner.stepsByID(compiled.steps)
        withoutsByID = SequenceRunner.withoutsByID(
            compiled.steps, sequenceWithout: sequenceWithout)
        deathsExcludeGrowth = SequenceRunner.deathsExcludeGrowth(
            compiled.steps, lets: compiled.lets.names)
        if case .response(_, let followedBy, let within, let unless, _) = compiled.rule.check {
            responseFollowedBy = followedBy
            responseWithin = within
            responseUnless = unless
        } else {
            responseFollowedBy = nil
            responseWithin = nil
            responseUnless = nil
        }
        lastKeyed = sequence.steps.isEmpty ? [] : keyed[sequence.steps.count - 1]
        startWhereKept =
            compiled.steps.isEmpty
            ? 0
            : SequenceRunner.startWhereKept(compiled.steps.withElement(0) { $0.selector }, compiled)
        if let within = responseWithin {
            let captured = sequence.steps.flatMap { CompiledRule.captureNames($0.selector) }
            withinReadsLetsOnly = LetsOnlyExpression.holds(
                within, lets: compiled.lets.names, captures: captured)
        } else {
            withinReadsLetsOnly = false
        }
        completedMatchesRetire = compiled.completedMatchesRetire
        var reopens = false
        if case .response = compiled.rule.check {
            reopens =
                sequence.steps.count == 1 && sequence.reportAt == nil && startsBindOneName
                && !compiled.messageReadsHistory && !compiled.bindsHistoryResults
                && !compiled.lets.names.isEmpty && !compiled.lets.isStatic.contains(false)
                && (responseWithin == nil || withinReadsLetsOnly)
        }
        reopensObligations = reopens
        timeBounds = TimeBoundPlans(
            steps: compiled.steps, followedBy: responseFollowedBy, unless: responseUnless)
    }
}

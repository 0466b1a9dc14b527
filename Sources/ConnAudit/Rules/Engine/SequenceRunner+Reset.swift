/// Setting a sequence runner back to its start (``Runner/setBack()``), for the next generation
/// of its source (``RunnerSpares``).
extension SequenceRunner {
    /// ``Runner/canBeSetBack``: the base class's condition, and nothing of it on the source's
    /// clock, where a deadline would wake it with the retired generation's scope (``onClock``
    /// is nil exactly when the clock holds none of its deadlines).
    var sequenceCanBeSetBack: Bool { baseCanBeSetBack && onClock == nil }

    /// ``Runner/setBack()``'s part for the sequence's own state: every field as a new runner
    /// starts with it, but the storage of its stages (each set back to
    /// an empty stage: a stage with no partial is read as one never made) and its spare
    /// captures (unbound: they hold no event).
    func setBackSequence() {
        for i in 0..<stageCount { stages[i] = Stage() }
        openStages = 0
        nextOrdinal = 0
        visits = 0
        obligations = Obligations()
        settlesOneInPlace = true
        settledInPlace = 0
        reopensObligations = facts.reopensObligations
        obligationsReopened = 0
        withinMemo = nil
        withinMemoScope = nil
        startWhereKnown = 0
        startWhereHolds = 0
        startContextsMade = 0
        aggregatesMayHaveMoved = false
        armed = []
        armedKeys = []
        reportedAnchors = []
        firstMatchKey = nil
        matchKeys = []
        grown.removeAll(keepingCapacity: grown.capacity <= Runner.listCapacityKept)
        visitScratch.removeAll(keepingCapacity: visitScratch.capacity <= Runner.listCapacityKept)
        stepsByID = facts.stepsByID
        withoutsByID = facts.withoutsByID
        deathsExcludeGrowth = facts.deathsExcludeGrowth
        stepsSpared = 0
        skipsKnownStarts = true
        startsTried = 0
        reopensInPlace = true
        reopened = 0
    }
}

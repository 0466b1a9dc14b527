/// The regex steps a timeline's rule evaluations may still take, shared by reference by the
/// contexts that draw on it (``EvalShared/regexBudget``).
///
/// A regex search (`matches(x, re)`, a field's `matches:`) takes its steps from here. One that
/// would need more than are left evaluates to undecided, and the budget records that it ran out
/// and at which event. It is then empty: every later search that needs the VM is undecided too,
/// so a rule judged from there on cannot depend on which searches happened to be cheap.
public final class RegexStepBudget {
    /// Steps left.
    public private(set) var remaining: Int
    /// Whether a search ran out of steps.
    public private(set) var isExhausted = false
    /// The event being evaluated when the first search ran out.
    public private(set) var exhaustedAt: Event?

    /// The steps it started with.
    public let steps: Int

    /// The steps a rule's searches may take on one timeline:
    /// ``BoundedRegex/defaultTimelineStepBudget`` (a test on the calling thread may set less).
    @TaskLocal public static var perTimeline = BoundedRegex.defaultTimelineStepBudget

    public init(steps: Int = RegexStepBudget.perTimeline) {
        self.steps = max(0, steps)
        remaining = max(0, steps)
    }

    /// What it has left and where it ran out, to be set back (an evaluation that must not count).
    var state: (remaining: Int, isExhausted: Bool, exhaustedAt: Event?) {
        get { (remaining, isExhausted, exhaustedAt) }
        set { (remaining, isExhausted, exhaustedAt) = newValue }
    }

    /// Sets it back to what a new budget of its steps is: none taken, not run out (a runner set
    /// back for its source's next generation: ``Runner/setBack()``). The same object: the
    /// runner's shared objects hold it.
    func setBack() {
        remaining = steps
        isExhausted = false
        exhaustedAt = nil
    }

    /// Searches `text` with the steps left; nil (undecided) when they run out, recorded at `event`.
    func matches(_ regex: BoundedRegex, _ text: String, at event: Event) -> Bool? {
        switch regex.matches(text, budget: &remaining) {
        case .match: return true
        case .noMatch: return false
        case .exhausted:
            if !isExhausted {
                isExhausted = true
                exhaustedAt = event
            }
            return nil
        }
    }
}

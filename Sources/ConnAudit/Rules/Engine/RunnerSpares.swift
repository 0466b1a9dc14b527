/// Runners of a source's retired generations, set back to their start (``Runner/setBack()``),
/// for its next generations: a runner made and freed per generation costs far more than one set
/// back. A runner is made only when its rule has no spare, so a rule's runners, live and
/// spare, never outnumber those it had live at once, and at most ``kept`` per rule are kept: a
/// source holds at most the runners it held at its peak, until it ends. A runner that cannot be set back
/// exactly (``Runner/canBeSetBack``) is freed.
final class RunnerSpares {
    /// How many spare runners a rule keeps (tests: 0 makes a new runner for every generation).
    @TaskLocal static var kept = 8

    private let limit: Int
    /// Per rule, by its index in the run.
    private var spares: [[Runner]]

    init(rules: Int) {
        limit = Self.kept
        spares = Array(repeating: [], count: limit > 0 ? rules : 0)
    }

    /// How many runners were taken.
    private(set) var taken = 0

    /// A spare runner of the rule at `index` in the run, if one is kept.
    @inline(__always) func take(_ index: Int) -> Runner? {
        guard index < spares.count, !spares[index].isEmpty else { return nil }
        taken += 1
        return spares[index].removeLast()
    }

    /// Keeps `runner`, set back, when its rule has room and it can be set back; frees it otherwise.
    func keep(_ runner: Runner) {
        let index = runner.compiled.index
        guard index < spares.count, spares[index].count < limit, runner.canBeSetBack else {
            return
        }
        runner.setBack()
        spares[index].append(runner)
    }
}

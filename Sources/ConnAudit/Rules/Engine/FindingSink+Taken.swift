/// Findings found elsewhere (a shard's partial result, read back by a merge) added to a sink as
/// the rules would have added them.
extension FindingSink {
    /// Adds one violation of rule `rule` (its id `id`) found elsewhere (a shard's partial result):
    /// diverted, kept or counted as a violation found here would be.
    func take(violation f: Finding, rule: Int, id: String) {
        if let divert, let entry = divert(id, f) {
            diverted[rule, default: [:]][entry, default: 0] += 1
            return
        }
        violations[rule, default: []].append(f)
        if overflows(violation: true, rule: rule) { _ = trim(violation: true, rule: rule) }
    }

    /// Adds one inconclusive finding of rule `rule` found elsewhere.
    func take(inconclusive f: Finding, rule: Int) {
        inconclusive[rule, default: []].append(f)
        if overflows(violation: false, rule: rule) { _ = trim(violation: false, rule: rule) }
    }
}

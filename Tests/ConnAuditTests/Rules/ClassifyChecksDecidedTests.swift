import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A `classify` runner passes over an event whose checks (each label's `has` or `lacks` that may
/// match it) all set their flags already; an event with a check still open makes it, in order,
/// though another check of the same event was decided before.
@Suite struct ClassifyChecksDecidedTests {
    @Test func aCheckStillOpenRunsBesideOnesDecidedAlready() throws {
        let rule = try #require(
            try RuleRuns.rules(
                [
                    """
                    id: t.decided
                    title: Checks decided early
                    for: corpus
                    classify:
                      per: generation
                      stream: x
                      labels:
                        first: { has: { ev: x.a } }
                        late: { has: { ev: x.a, where: "count({ev: x.b}) > 0" } }
                        none: { lacks: { ev: x.a, where: "count({ev: x.b}) > 1" } }
                    require: [first]
                    min: 1
                    """
                ], file: "rules/checks.yaml"
            ).first)
        let log = """
            {"t":0,"ev":"x.a","gen":1}
            {"t":1,"ev":"x.a","gen":1}
            {"t":2,"ev":"x.b","gen":1}
            {"t":3,"ev":"x.a","gen":1}
            {"t":4,"ev":"x.b","gen":1}
            {"t":5,"ev":"x.a","gen":1}
            {"t":6,"ev":"x.a","gen":1}
            {"t":7,"ev":"x.a","gen":2}
            {"t":8,"ev":"x.a","gen":2}
            {"t":9,"ev":"x.b","gen":2}
            """
        let report = RuleRuns.audit([rule], files: [("a.jsonl", log)])
        // gen 1: first at t 0, late at t 3, none's `lacks` matched at t 5 (so not none);
        // gen 2: first, and none (its `lacks` never matched).
        let labels = try #require(report.results[0].labels)
        #expect(labels.map(\.name) == ["first", "late", "none"])
        #expect(labels.map(\.count) == [2, 1, 1])
    }
}

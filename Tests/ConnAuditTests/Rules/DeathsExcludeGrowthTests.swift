import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// A step whose `where` first asks `X != Y`, with a `without` that requires `X == Y`, is not
/// tried on an event that kills the partial (``SequenceRunner/deathsExcludeGrowth(_:lets:)``):
/// the findings are those of trying it.
@Suite struct DeathsExcludeGrowthTests {
    private static func rule(_ body: String) throws -> CompiledRule {
        let rule = try #require(try RuleRuns.rules([body], file: "rules/seq.yaml").first)
        return CompiledRule(rule: rule, index: 0, overrides: [:])
    }

    /// Feeds `(ev, k)` events (t = their place) of generation 1 to a runner of `compiled`, with
    /// the `without` tried first where it can be (`spare`) or the step always tried first.
    private static func feed(
        _ compiled: CompiledRule, _ events: [(String, Int)], spare: Bool
    ) -> (SequenceRunner, FindingSink) {
        StepsDecidedByIDTests.feed(compiled, events) { runner in
            if !spare { runner.deathsExcludeGrowth = 0 }
        }
    }

    /// sse.no-lost-events' shape: the step asks first for another `k`, the `without` for the same.
    static let lost = """
        id: t.lost
        title: lost
        each:
          - { ev: x.a, as: e, where: "count({ev: x.a, where: 'k == e.k'}) == 0" }
          - ev: [x.b, x.c, x.a]
            as: q
            where: "text(k) != text(e.k) and count({ev: x.b, where: 'k == q.k'}) > 0"
            without: { ev: x.b, where: "text(k) == text(e.k)" }
        followed_by: { ev: x.b, where: "k == e.k" }
        at_end: fail
        report_at: e
        message: "{e.k} {q.k}"
        """

    @Test func onlyAWithoutThatRequiresTheStepsFirstTestFalseExcludesIt() throws {
        #expect(SequenceRunner(try Self.rule(Self.lost), files: []).deathsExcludeGrowth == 0b10)
        let others = [
            // The step's first test is not `!=`.
            """
            forbid:
              - { ev: x.a, as: e }
              - { ev: x.b, where: "k > 0 and k != e.k", without: { ev: x.b, where: "k == e.k" } }
            """,
            // The `without` does not require the same pair equal.
            """
            forbid:
              - { ev: x.a, as: e }
              - { ev: x.b, where: "k != e.k", without: { ev: x.b, where: "k == e.t" } }
            """,
            // The `without` reads history: trying it first would spend work first.
            """
            forbid:
              - { ev: x.a, as: e }
              - { ev: x.b, where: "k != e.k", without: { ev: x.b, where: "k == e.k and count({ev: x.a}) > 0" } }
            """,
            // The pair reads a let.
            """
            let: { z: "1" }
            forbid:
              - { ev: x.a, as: e }
              - { ev: x.b, where: "k != z", without: { ev: x.b, where: "k == z" } }
            """,
            // The step tests a field before its `where`.
            """
            forbid:
              - { ev: x.a, as: e }
              - { ev: x.b, k: 1, where: "k != e.k", without: { ev: x.b, where: "k == e.k" } }
            """
        ]
        for (n, body) in others.enumerated() {
            let compiled = try Self.rule("id: t.o\(n)\ntitle: o\(n)\n" + body)
            #expect(SequenceRunner(compiled, files: []).deathsExcludeGrowth == 0, "shape \(n)")
        }
        let same = try Self.rule(
            """
            id: t.same
            title: same
            forbid:
              - { ev: x.a, as: e }
              - { ev: x.b, where: "e.k != k and k > 0", without: { ev: x.b, where: "k > 1 and k == e.k" } }
            """)
        #expect(SequenceRunner(same, files: []).deathsExcludeGrowth == 0b10)
    }

    /// Random logs: the same findings with the step spared as with it tried, and it is spared.
    @Test(arguments: 0..<40)
    func sparedStepsChangeNoFinding(seed: Int) throws {
        let forbid = """
            id: t.forbid
            title: forbid
            forbid:
              - { ev: x.a, as: e }
              - { ev: [x.b, x.c], as: q, where: "k != e.k and k > 0", without: { ev: x.b, where: "k == e.k" } }
              - { ev: x.c, without: { ev: x.a } }
            without: { ev: x.c, k: 3 }
            message: "{e.k} {q.k}"
            """
        var random = SplitMix64(seed: UInt64(seed) &+ 0xDEA7)
        let names = ["x.a", "x.b", "x.b", "x.c"]
        let log = (0..<(20 + random.below(200))).map { _ in
            (names[random.below(names.count)], random.below(4))
        }
        var spared = 0
        for body in [Self.lost, forbid] {
            let compiled = try Self.rule(body)
            let (runner, a) = Self.feed(compiled, log, spare: true)
            let (plain, b) = Self.feed(compiled, log, spare: false)
            let found = { (s: FindingSink) in
                (s.violations.values.flatMap { $0 } + s.inconclusive.values.flatMap { $0 })
                    .map { "\($0.line ?? 0) \($0.message)" }.sorted()
            }
            #expect(found(a) == found(b), "seed \(seed)")
            #expect(plain.stepsSpared == 0)
            spared += runner.stepsSpared
        }
        #expect(spared > 0)
    }
}

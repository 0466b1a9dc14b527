import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A name the rule binds (a capture, a named result) is fixed as that binding when the rule
/// loads. Where it is not bound it is null, never the current event's or a candidate's field of
/// the same name: a log cannot change what a rule means by carrying a field named like a capture.
/// Each case runs twice, the second time with its history call hidden from the indexes
/// (`or false`), so the scan and the index are held to the same answer.
@Suite struct UnboundNamesReadNullTests {
    private static func run(_ body: String, _ log: [String]) throws -> [RuleResult] {
        let hidden = body.replacing("WHERE", with: "false or ")
        let shown = body.replacing("WHERE", with: "")
        let rules = try RuleRuns.rules(
            [
                "id: t.shown\ntitle: T\nfor: source\n" + shown,
                "id: t.hidden\ntitle: T\nfor: source\n" + hidden
            ],
            file: "rules/unbound.yaml")
        return RuleRuns.audit(rules, log.joined(separator: "\n") + "\n", path: "u.jsonl").results
    }

    @Test("a capture of an any-of term that did not match is null, not the event's field")
    func anyOfTermNotMatched() throws {
        let body = """
            every: [{ ev: A, as: x }, { ev: B, as: y }]
            expect: "y == null or y.ev == 'B'"
            """
        // The A carries a field y: read as the capture y (unbound at A), it is null.
        let results = try Self.run(
            body, [#"{"t":0,"ev":"A","y":{"ev":"C"}}"#, #"{"t":1,"ev":"B"}"#])
        for r in results { #expect(r.status == .pass, "\(r.rule.id)") }
    }

    @Test("a later step's capture read by a let at the first step is null there")
    func laterStepsCapture() throws {
        let body = """
            let: { L: "count({ev: C, where: 'WHEREk == b.k'})" }
            forbid:
              - { ev: A, where: "L > 0" }
              - { ev: B, as: b }
            """
        // Each C's own field b has the C's k: read as a field, L would be 1 at A and the
        // sequence A, B would be forbidden. b is unbound at A: L is 0, and nothing starts.
        let log = [
            #"{"t":0,"ev":"C","k":1,"b":{"k":1}}"#, #"{"t":1,"ev":"A"}"#,
            #"{"t":2,"ev":"B","k":1}"#
        ]
        let results = try Self.run(body, log)
        for r in results {
            #expect(r.status == .pass, "\(r.rule.id)")
            #expect(r.violations.isEmpty, "\(r.rule.id)")
        }
    }

    @Test("a named result read before its call binds it is null")
    func resultBeforeItsCall() throws {
        let body = """
            every: { ev: A }
            expect: "z == null and first({ev: C, as: z, where: 'WHEREk == 1'}) != null"
            """
        // The A's own field z is not the result z, which is not bound on the left of `and`.
        let results = try Self.run(
            body, [#"{"t":0,"ev":"C","k":1}"#, #"{"t":1,"ev":"A","z":5}"#])
        for r in results { #expect(r.status == .pass, "\(r.rule.id)") }
    }

    @Test("a count whose capture is unbound counts nothing, whatever the counted events carry")
    func countWithUnboundCapture() throws {
        let body = """
            every: [{ ev: A, as: x }, { ev: B, as: y }]
            expect: "count({ev: P, where: 'WHEREtext(id) == text(y.id)'}) == 0"
            """
        // At A, y is unbound: null, so no P counts, although this P's own y.id equals its id.
        // At B, y is the B, and the P whose id is the B's counts: the B fails.
        let log = [
            #"{"t":0,"ev":"P","id":"1","y":{"id":"1"}}"#, #"{"t":1,"ev":"A","id":"1"}"#,
            #"{"t":2,"ev":"B","id":"1"}"#
        ]
        let results = try Self.run(body, log)
        for r in results { #expect(r.violations.map(\.line) == [3], "\(r.rule.id)") }
    }
}

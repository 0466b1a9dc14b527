import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// How a history call is answered — from a hash index keyed by what is bound outside it, with a
/// `$seq` bound, or by scanning — is decided from the names the rule declares, never from what
/// happens to be bound where the call first runs. A capture that is not bound is null (rules.md),
/// so a let read by a sequence's first step (a later step's capture unbound) and by its message
/// (bound) means two things; the answer must not depend on which of them came first in the log,
/// nor on the fields named like a capture that the events have.
@Suite struct IndexShapeTests {
    private static func rules(_ bodies: [String]) throws -> [Rule] {
        try RuleRuns.rules(bodies, file: "rules/shape.yaml")
    }

    private static func audit(_ rules: [Rule], _ log: String, jobs: Int = 1) -> AuditReport {
        RuleRuns.audit(rules, log, path: "s.jsonl", jobs: jobs)
    }

    private static func findings(_ result: RuleResult) -> [String] {
        (result.violations + result.inconclusive).map {
            "\($0.line.map(String.init) ?? "-") \($0.message)"
        }
    }

    /// A let read across steps: the first step reads a let whose call reads the capture `b` of the
    /// second step. At the step `b` is not bound and is null, whatever `b` the candidates have; an
    /// index made where it is bound (the obligation) must not look up the current event's `b`
    /// there instead.
    static let letAcrossStepsRule = """
        id: t.each
        title: each with a let read by the first step
        for: source
        let: { L: "count({ev: x.c, where: 'k == b.k'})" }
        each:
          - { ev: x.a, where: "f == 1 or L > 0" }
          - { ev: x.b, as: b, without: { ev: x.w } }
        followed_by: { ev: x.d }
        at_end: fail
        """

    static let letAcrossStepsLog = [
        #"{"t":1,"ev":"x.c","k":1,"b":{"k":1}}"#, #"{"t":2,"ev":"x.a","f":1}"#,
        #"{"t":3,"ev":"x.a","f":0}"#,
        #"{"t":4,"ev":"x.b"}"#, #"{"t":5,"ev":"x.d"}"#, #"{"t":6,"ev":"x.w"}"#,
        #"{"t":7,"ev":"x.a","f":1}"#,
        #"{"t":8,"ev":"x.b"}"#
    ]

    @Test func aVerdictDoesNotDependOnWhereACallFirstRan() throws {
        let rule = try Self.rules([Self.letAcrossStepsRule])
        // At every x.a, `b` is unbound and null: L is 0 although the x.c's own b.k (1) equals its
        // k, so only the x.a with f == 1 start a match, and the last (t = 7, 8) is never
        // followed by an x.d.
        let whole = Self.audit(rule, Self.letAcrossStepsLog.joined(separator: "\n") + "\n").results[
            0]
        #expect(whole.status == .fail)
        #expect(whole.violations.map(\.line) == [8])
        // Without the third line the first call does not run in the obligation first: the same.
        var shorter = Self.letAcrossStepsLog
        shorter.remove(at: 2)
        let short = Self.audit(rule, shorter.joined(separator: "\n") + "\n").results[0]
        #expect(short.status == .fail)
        #expect(short.violations.map(\.line) == [7])
    }

    /// A rule whose history calls an index answers, and what to write instead so that they are
    /// scanned: `or false` hides an equality or a bound from the index and changes no truth.
    static let shapes: [(rule: String, hidden: String, scanned: String)] = [
        (letAcrossStepsRule, "'k == b.k'", "'k == b.k or false'"),
        (
            // a forbidden sequence whose message reads the let where the capture is bound
            """
            for: source
            let: { L: "count({ev: x.c, where: 'k == o.k'})" }
            forbid:
              - { ev: x.a, where: "f == 1 or L > 0" }
              - { ev: x.c, as: o, without: { ev: x.w } }
            message: "L={L} k={o.k}"
            """,
            "'k == o.k'", "'k == o.k or false'"
        ),
        (
            // a `$seq` bound on a later capture, read at the first step and in the message
            """
            for: source
            let: { S: "count({ev: x.c, where: '$seq > o.$seq and k >= 1'})" }
            forbid:
              - { ev: x.a, where: "f == 1 or S > 0" }
              - { ev: x.c, as: o, without: { ev: x.w } }
            message: "S={S}"
            """,
            "'$seq > o.$seq and", "'($seq > o.$seq or false) and"
        ),
        (
            // a history result read before its call binds it (the candidate's `z`), then after
            """
            for: source
            every: { ev: x.a, as: a }
            expect: "count({ev: x.c, where: 'k == z.k'}) == 0 or first({ev: x.c, where: 'k == 2', as: z}) == null or count({ev: x.c, where: 'k == z.k'}) < 2"
            """,
            "'k == z.k'", "'k == z.k or false'"
        ),
        (
            // an outer side reading a let that names a result: taken before the candidates, it
            // bound `z` where the scan, with no candidate to try, does not
            """
            for: source
            let: { L: "first({ev: x.a, as: z}) != null" }
            every: { ev: x.d }
            expect: "count({ev: x.c, where: 'k == L'}) == 0 and z == null"
            """,
            "'k == L'", "'k == L or false'"
        ),
        (
            // the same answered from counts (`text(…)` keys)
            """
            for: source
            let: { L: "first({ev: x.a, as: z}) != null" }
            every: { ev: x.d }
            expect: "count({ev: x.c, where: 'text(k) == text(L)'}) == 0 and z == null"
            """,
            "'text(k) == text(L)'", "'text(k) == text(L) or false'"
        ),
        (
            // a `where` that names a result itself: `z.k` is the x.b it finds for each candidate,
            // not the x.a bound outside
            """
            for: source
            every: { ev: x.d }
            expect: "first({ev: x.a, as: z}) == null or count({ev: x.c, where: 'last({ev: x.b, as: z}) != null and k == z.k'}) == 0"
            """,
            "and k == z.k'", "and (k == z.k or false)'"
        ),
        (
            // a count from counts whose capture is unbound at one trigger (`b` at x.d), with
            // counted events that have a field `b`: null there, for the index as for a scan
            """
            for: source
            every: [{ ev: x.b, as: b }, { ev: x.d, as: o }]
            expect: "count({ev: x.c, where: 'text(k) == text(b.k)'}) == 0"
            undecided: inconclusive
            """,
            "'text(k) == text(b.k)'", "'text(k) == text(b.k) or false'"
        ),
        (
            // a `not:` that names a result: the scan binds `z` for every candidate it tries, the
            // index only for those of the key
            """
            for: source
            every: { ev: x.d, as: d }
            expect: >-
              count({ev: x.c, where: 'k == d.k', not: {ev: x.c, where: "last({ev: x.b, as: z}) == null"}}) >= 0 and z == null
            message: "z={z}"
            """,
            "'k == d.k'", "'k == d.k or false'"
        ),
        (
            // the same through a let, with a `$seq` bound
            """
            for: source
            let: { L: "last({ev: x.b, as: z})" }
            every: { ev: x.d, as: d }
            expect: >-
              count({ev: x.c, where: '$seq > d.$seq - 9', not: {ev: x.c, where: "L == null"}}) >= 0 and z == null
            message: "z={z}"
            """,
            "'$seq > d.$seq - 9'", "'$seq > d.$seq - 9 or false'"
        ),
        (
            // an equality on a trigger capture, always bound: the index serves every call
            """
            for: source
            every: { ev: x.d, as: d }
            expect: "count({ev: x.c, where: 'k == d.k'}) < 3"
            """,
            "'k == d.k'", "'k == d.k or false'"
        )
    ]

    /// Events whose fields are named like the rules' captures (`b`, `o`, `z`), so that a road
    /// that read such a field where the capture is unbound would answer otherwise; two sources.
    static func log(seed: UInt64, events: Int = 160) -> String {
        var rng = SplitMix64(seed: seed)
        var t = 0
        var lines: [String] = []
        func object() -> String {
            switch rng.below(4) {
            case 0: return ""
            case 1: return #"{"k":\#(rng.below(3))}"#
            case 2: return #"{"k":\#(rng.below(3)),"$seq":\#(rng.below(events))}"#
            default: return "\(rng.below(3))"
            }
        }
        func named(_ names: [String]) -> String {
            var out = ""
            for name in names where rng.chance(50) {
                let value = object()
                if !value.isEmpty { out += #","\#(name)":\#(value)"# }
            }
            return out
        }
        for _ in 0..<events {
            t += rng.below(3)
            let src = rng.chance(70) ? "" : #","src":"d2""#
            let k = rng.chance(90) ? #","k":\#(rng.below(3))"# : ""
            switch rng.below(100) {
            case 0..<25:
                lines.append(
                    #"{"t":\#(t),"ev":"x.a"\#(src),"f":\#(rng.below(2) == 0 && rng.chance(60) ? 0 : 1)\#(named(["b", "o", "z"]))}"#
                )
            case 25..<45: lines.append(#"{"t":\#(t),"ev":"x.b"\#(src)\#(k)\#(named(["b"]))}"#)
            case 45..<75:
                lines.append(#"{"t":\#(t),"ev":"x.c"\#(src)\#(k)\#(named(["b", "o", "z"]))}"#)
            case 75..<90: lines.append(#"{"t":\#(t),"ev":"x.d"\#(src)\#(k)}"#)
            default: lines.append(#"{"t":\#(t),"ev":"x.w"\#(src)}"#)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test(arguments: 0..<IndexShapeTests.shapes.count)
    func indexedAndScannedCallsAgree(_ index: Int) throws {
        let shape = Self.shapes[index]
        let named = shape.rule.hasPrefix("id:") ? shape.rule : "id: t.p\ntitle: pair\n" + shape.rule
        let parts = named.split(separator: shape.hidden, omittingEmptySubsequences: false)
        #expect(parts.count >= 2, "shape \(index) names what it hides")
        let indexed = try Self.rules([named])
        let scanned = try Self.rules([parts.joined(separator: shape.scanned)])
        var failing = 0
        var passing = 0
        for seed: UInt64 in 1...40 {
            // Short logs and longer ones: the rules pass on some and fail on others.
            let log = Self.log(seed: seed &* 7919 &+ UInt64(index), events: 6 + Int(seed % 8) * 10)
            for jobs in [1, 2] {
                let a = Self.audit(indexed, log, jobs: jobs).results[0]
                let b = Self.audit(scanned, log, jobs: jobs).results[0]
                #expect(a.status == b.status, "shape \(index), seed \(seed), jobs \(jobs)")
                #expect(
                    Self.findings(a) == Self.findings(b),
                    "shape \(index), seed \(seed), jobs \(jobs)")
                if jobs == 1 { if a.violations.isEmpty { passing += 1 } else { failing += 1 } }
            }
        }
        // The logs make the rules fail and pass both (the comparison would prove little otherwise).
        #expect(failing >= 5, "shape \(index)")
        #expect(passing >= 5, "shape \(index)")
    }
}

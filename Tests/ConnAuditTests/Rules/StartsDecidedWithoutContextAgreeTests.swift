import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// A first step whose `where`s are kept (they read only aggregates) is decided from `ev` ids and
/// the kept truths where it can (``SequenceRunner/matchesStart(_:_:)``), and with a context
/// where a term needs one. Over random first steps and logs, every rule must give the findings
/// of the same rule whose `where`s are kept by none (`and t >= 0` reads the event; every `t` of
/// the logs is at least 0), which the evaluator decides in full for every event.
@Suite struct StartsDecidedWithoutContextAgreeTests {
    static let evs = ["ws.ping", "ws.pong", "ws.send", "ws.recv_error", "ws.close", "ws.closed"]

    /// `where`s that read only aggregates and the static let `ending`: kept between events.
    static let keptWheres = [
        "count({ev: ws.recv_error}) == 0", "count({ev: ws.send}) > 1",
        "last({ev: ws.closed}) != null", "ending == null",
        "ending == null or not (ending.ev == 'ws.closed' or ending.reason != 'pong_timeout')",
        "first({ev: ws.send}) == null or count({ev: ws.recv_error}) > 0"
    ]

    /// `where`s that read the event: never kept.
    static let unkeptWheres = ["code == 1", "reason == 'user' or count({ev: ws.send}) == 0"]

    /// A random first step's terms, as (term with the kept `where`s as drawn, the same term with
    /// every `where` read with the event).
    static func firstStep(_ rng: inout SplitMix64) -> (kept: String, full: String) {
        var kept: [String] = []
        var full: [String] = []
        for n in 0..<(1 + rng.below(4)) {
            var tests: [String] = []
            let hasWhere = rng.chance(75)
            switch rng.below(5) {
            case 0 where hasWhere: break
            case 1: tests.append("ev: [\(evs[rng.below(6)]), \(evs[rng.below(6)])]")
            default: tests.append("ev: \(rng.chance(50) ? "ws.ping" : evs[rng.below(6)])")
            }
            if rng.chance(15) { tests.append("code: \(rng.below(3))") }
            if rng.chance(25) {
                tests.append(["not: { reason: user }", "not: { code: 1 }"][rng.below(2)])
            }
            if rng.chance(15) { tests.append("as: p\(n)") }
            var fullTests = tests
            if hasWhere {
                let w =
                    rng.chance(80)
                    ? keptWheres[rng.below(keptWheres.count)] : unkeptWheres[rng.below(2)]
                tests.append("where: \"\(w)\"")
                fullTests.append("where: \"(\(w)) and t >= 0\"")
            }
            kept.append("{ " + tests.joined(separator: ", ") + " }")
            full.append("{ " + fullTests.joined(separator: ", ") + " }")
        }
        return ("[" + kept.joined(separator: ", ") + "]", "[" + full.joined(separator: ", ") + "]")
    }

    static func rule(_ id: String, _ each: String) -> String {
        """
        id: \(id)
        title: start
        for: generation
        let:
          ending: "first({ev: [ws.close, ws.closed]})"
        each: \(each)
        followed_by: { ev: ws.pong, code: 2 }
        within_ms: 40
        """
    }

    static func log(_ rng: inout SplitMix64) -> String {
        var t = 0
        var gen = 1
        var lines: [String] = []
        for _ in 0..<(5 + rng.below(60)) {
            t += [0, 1, 10, 30][rng.below(4)]
            if rng.chance(4) { gen += 1 }
            // Mostly pings and pongs, which move no aggregate: kept truths stay known.
            let ev = rng.chance(60) ? evs[rng.below(2)] : evs[rng.below(evs.count)]
            var line = #"{"t":\#(t),"gen":\#(gen),"ev":"\#(ev)""#
            if rng.chance(50) { line += #","code":\#(rng.below(3))"# }
            if rng.chance(50) { line += #","reason":"\#(["user", "pong_timeout"][rng.below(2)])""# }
            lines.append(line + "}")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func fingerprint(_ result: RuleResult) -> [String] {
        ["\(result.status)"]
            + (result.violations + result.inconclusive).map {
                "\($0.line.map(String.init) ?? "-") \($0.message)"
            }
    }

    /// The `SequenceRunner` made for `rule`.
    static func runner(_ rule: Rule) -> SequenceRunner {
        SequenceRunner(CompiledRule(rule: rule, index: 0, overrides: [:]), files: ["s.jsonl"])
    }

    @Test func keptStartsGiveTheFullPathsFindings() throws {
        var rng = SplitMix64(seed: 0x5747_6f63)
        var keptRules = 0
        var findings = 0
        for r in 0..<80 {
            let step = Self.firstStep(&rng)
            let rules = try RuleRuns.rules(
                [Self.rule("k.r\(r)", step.kept), Self.rule("f.r\(r)", step.full)],
                file: "rules/starts.yaml")
            try #require(rules.count == 2)
            if Self.runner(rules[0]).startWhereKept != 0 { keptRules += 1 }
            #expect(Self.runner(rules[1]).startWhereKept == 0)
            for _ in 0..<6 {
                let log = Self.log(&rng)
                let report = RuleRuns.audit(rules, log, path: "s.jsonl")
                let (kept, full) = (report.results[0], report.results[1])
                #expect(
                    Self.fingerprint(kept) == Self.fingerprint(full),
                    "first step \(step.kept) on\n\(log)")
                findings += kept.violations.count + kept.inconclusive.count
            }
        }
        #expect(keptRules > 40)
        #expect(findings > 500)
    }
}

import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// The next trigger of an `each` of one step opens its obligation in the slot of the one
/// answered, in place (``SequenceRunner/reopenObligation(_:context:)``): the same findings as
/// an obligation made anew, and the lets of the aggregates as they are when it opens.
@Suite struct ObligationReopenedInPlaceTests {
    private static func rule(_ body: String) throws -> CompiledRule {
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
        let text =
            "params: { T: 3 }\nlet:\n  D: \"params.T + count({ev: x.err})\"\nrules:\n  - "
            + lines.joined(separator: "\n    ") + "\n"
        let rule = try #require(try RuleLoader.load(files: [("rules/seq.yaml", text)]).rules.first)
        return CompiledRule(rule: rule, index: 0, overrides: [:])
    }

    private static func findings(_ s: FindingSink) -> [String] {
        (s.violations.values.flatMap { $0 } + s.inconclusive.values.flatMap { $0 })
            .map { "\($0.line ?? 0) \($0.message)" }.sorted()
    }

    /// A heartbeat whose lets move with `x.err`, and one whose `within_ms` reads the capture.
    private static let shapes = [
        """
        each: { ev: x.ping, as: p }
        followed_by: { ev: x.close, where: "t >= p.t + D" }
        within_ms: "D + 1"
        unless:
          - { ev: x.pong, where: "t < p.t + D" }
          - { ev: x.err, where: "t < p.t + D" }
        message: "{p.t} {D}"
        """,
        """
        each: { ev: x.ping, as: p }
        followed_by: { ev: x.close }
        within_ms: "p.k + D"
        unless: { ev: x.pong, where: "k == p.k" }
        message: "{p.t} {p.k} {D}"
        """
    ]

    /// Random logs: the same findings with the slot reopened in place and without.
    @Test(arguments: 0..<60)
    func reopeningInPlaceChangesNoFinding(seed: Int) throws {
        var random = SplitMix64(seed: UInt64(seed) &+ 0x5E7)
        let names = ["x.ping", "x.ping", "x.pong", "x.pong", "x.close", "x.err", "x.other"]
        let log = (0..<(20 + random.below(200))).map { _ in
            (names[random.below(names.count)], random.below(3))
        }
        for (n, shape) in Self.shapes.enumerated() {
            let compiled = try Self.rule("id: t.r\(n)\ntitle: r\(n)\n" + shape)
            let (inPlace, a) = StepsDecidedByIDTests.feed(compiled, log) { _ in }
            let (_, b) = StepsDecidedByIDTests.feed(compiled, log) {
                $0.reopensObligations = false
            }
            #expect(Self.findings(a) == Self.findings(b), "shape \(n), seed \(seed)")
            if n == 1 { #expect(inPlace.obligationsReopened == 0, "seed \(seed)") }
        }
    }

    /// Which rules may reopen an obligation in place (``SequenceFacts/reopensObligations``):
    /// only an `each` of one step binding one name, with no `report_at`, no history read by the
    /// message or bound by name, static lets, and a `within_ms` of lets and params alone.
    @Test(
        arguments: [
            ("", true, "", ""),
            ("", false, "within_ms: \"D + 1\"", "within_ms: \"p.k + D\""),
            ("report_at: p", false, "", ""),
            (
                "", false, "each: { ev: x.ping, as: p }",
                "each:\n  - { ev: x.ping, as: p }\n  - { ev: x.hello, as: h }"
            ),
            ("", false, "message: \"{p.t} {D}\"", "message: \"{p.t} {count({ev: x.err})}\""),
            (
                "", false, "where: \"t >= p.t + D\"",
                "where: \"t >= p.t + D and last({ev: x.err, as: r}) == null\""
            ),
            ("let:\n  L: \"t + 1\"", false, "{p.t} {D}", "{p.t} {D} {L}")
        ] as [(String, Bool, String, String)])
    func onlyRulesOfTheShapeReopen(extra: String, reopens: Bool, old: String, new: String)
        throws
    {
        var shape = Self.shapes[0]
        if !old.isEmpty { shape = shape.replacingOccurrences(of: old, with: new) }
        if !extra.isEmpty { shape += "\n" + extra }
        let compiled = try Self.rule("id: t.g\ntitle: gate\n" + shape)
        #expect(SequenceFacts(compiled).reopensObligations == reopens, "\(extra) \(new)")
    }

    /// A rule with no lets never reopens: a slot's context has no frozen scope to share.
    @Test func aRuleWithNoLetsDoesNotReopen() throws {
        let text =
            "rules:\n  - id: t.n\n    title: n\n    each: { ev: x.ping, as: p }\n"
            + "    followed_by: { ev: x.close }\n    within_ms: \"1000\"\n"
            + "    unless: { ev: x.pong }\n    message: \"{p.t}\"\n"
        let rule = try #require(try RuleLoader.load(files: [("rules/n.yaml", text)]).rules.first)
        let compiled = CompiledRule(rule: rule, index: 0, overrides: [:])
        #expect(!SequenceFacts(compiled).reopensObligations)
    }

    /// Ping, pong, ping: the second ping's obligation is the first one's slot, bound to it.
    @Test func theNextPingReopensTheAnsweredSlot() throws {
        let compiled = try Self.rule("id: t.hb\ntitle: heartbeat\n" + Self.shapes[0])
        let log = [("x.ping", 0), ("x.pong", 0), ("x.ping", 0)]
        let (runner, _) = StepsDecidedByIDTests.feed(compiled, log) { _ in }
        #expect(runner.obligationsReopened == 1)
    }

    /// An aggregate that moved between the answer and the next ping (an `x.err`, which `D`
    /// counts) leaves the slot as it is: the next obligation reads `D` as it is then.
    @Test func anAggregateMovedOpensTheObligationAnew() throws {
        let compiled = try Self.rule("id: t.hb\ntitle: heartbeat\n" + Self.shapes[0])
        let log =
            [("x.ping", 0), ("x.pong", 0), ("x.err", 0), ("x.ping", 0)]
            + Array(repeating: ("x.other", 0), count: 10)
        let (runner, sink) = StepsDecidedByIDTests.feed(compiled, log) { _ in }
        #expect(runner.obligationsReopened == 0)
        // The ping at t=3 waits D = 4 (three, and one x.err), and a tick more.
        #expect(Self.findings(sink) == ["4 3 4"])
    }
}

import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// The parts of `and`, `or`, `if` and `??`, and a comparison's let fields and bare lets, are read
/// in their operator's closure where they are leaves (a let's null test, a bare let, a
/// constant, a field, a let's field: ``ScalarRead``), and through their own closure otherwise.
/// Read either way, each must give what the tree walker gives, in every layout of lets, and in
/// the engine, where a let that is a running aggregate's `first` or `last` is read from the
/// aggregate.
@Suite struct ScalarPartsReadInPlaceTests {
    typealias Resolved = ResolvedNamesGiveTheTreeWalkersAnswerTests
    typealias Truth = CompiledTruthIsTheAnswersTruthTests

    /// Lets (`a` `b` `w` `x`), a capture (`c`) and a field (`gen`) in each shape.
    static let names = ["a", "b", "w", "x", "c", "gen"]

    static func shapes(_ n: String, _ m: String) -> [String] {
        [
            "if \(n) == null then t else w.t", "if \(n) != null then 1 else true",
            "if \(n) == null then (if \(m) != null then false else 2) else t + 1",
            "\(n) == null and t > 0", "t > 0 or \(n) != null", "\(n) != null and \(m) == null",
            "\(n) == null or \(m) != null", "\(n) != null and b", "not (\(n) == null) or a",
            "w.t ?? 5", "gen ?? 2", "(last({ev: ws.connect}).gen ?? gen) >= t",
            "w.timeout_ms ?? code", "gen ?? w.t", "(w.t ?? \(m)) == t",
            "w.t + a < b", "a >= w.t", "b == a", "t >= w.t + a", "w.t < c.t + b",
            "\(n) == null and (if \(m) == null then t >= a else \(m) != null and t < b + 1)"
        ]
    }

    @Test func eachShapeGivesTheTreeWalkersAnswer() throws {
        let rule = try Resolved.rule()
        let resolver = NameResolution.resolver(for: rule)
        let lets = rule.lets.map { (name: $0.name, expr: resolver.expr($0.expr)) }
        var withTruth = 0
        for n in Self.names {
            for m in Self.names where m != n {
                for source in Self.shapes(n, m) {
                    let expr = resolver.expr(try IndexKeyAgreesWithTreeWalkerTests.parse(source))
                    let compiled = CompiledExpression(expr)
                    if compiled.hasTruth { withTruth += 1 }
                    Truth.agree(compiled, expr, source, lets: lets)
                }
            }
        }
        #expect(withTruth > 500)
    }

    /// The heartbeat rule's shape: lets that are running aggregates' events, tested with null
    /// as an `if`'s test and as a part of `and`, their fields beside a bare let, a constant
    /// branch.
    private static let rule = """
        id: t.parts
        title: Parts read in place
        for: source
        let:
          open: "first({ev: x.open})"
          prev: "last({ev: x.ping})"
          answer: "first({ev: x.pong}, since: {ev: x.ping})"
          I: "count({ev: x.open}) * 10"
        every: { ev: x.ping }
        expect: >
          open != null and (
            if prev == null then t >= open.t + I
            else if answer != null and answer.t < prev.t + 100 then t >= answer.t + I
            else (late ?? true))
        message: "ping at {t}"
        """

    private static let log = """
        {"t":0,"ev":"x.open"}
        {"t":5,"ev":"x.ping"}
        {"t":12,"ev":"x.ping"}
        {"t":20,"ev":"x.pong"}
        {"t":25,"ev":"x.ping"}
        {"t":31,"ev":"x.ping"}
        {"t":40,"ev":"x.pong"}
        {"t":55,"ev":"x.ping"}
        {"t":500,"ev":"x.pong"}
        {"t":505,"ev":"x.ping","late":false}
        {"t":506,"ev":"x.ping","late":true}
        """

    @Test(arguments: [false, true])
    func theEngineReadsEachPartAsTheWholeLetGivesIt(crossCheck: Bool) throws {
        let rule = try RuleRuns.rules([Self.rule], file: "rules/checks.yaml")[0]
        let result = HistoryCrossCheck.$isOn.withValue(crossCheck) {
            RuleRuns.audit([rule], files: [("a.jsonl", Self.log)]).results[0]
        }
        // The first ping comes before open.t + I (line 2); the ping at 25 comes sooner than I
        // after the pong at 20 (line 5), the one at 55 an interval after the pong at 40; the
        // pong at 500 came late, and the ping after it says `late: false` (line 10); a ping
        // with no pong since the last one passes.
        #expect(result.violations.map(\.line) == [2, 5, 10])
        #expect(result.inconclusive.isEmpty)
    }
    /// A running aggregate's field as the left part of `??`, read where the aggregate holds
    /// its event.
    private static let staleRule = """
        id: t.stale
        title: No stale generation
        for: source
        every: { ev: x.state }
        expect: "gen == null or gen >= (last({ev: x.start}).gen ?? gen)"
        message: "state of {gen}"
        """

    private static let staleLog = """
        {"t":0,"ev":"x.state","gen":1}
        {"t":1,"ev":"x.start"}
        {"t":2,"ev":"x.state","gen":1}
        {"t":3,"ev":"x.start","gen":2}
        {"t":4,"ev":"x.state","gen":1}
        {"t":5,"ev":"x.state"}
        {"t":6,"ev":"x.state","gen":3}
        """

    @Test(arguments: [false, true])
    func anAggregatesFieldBeforeACoalesceIsTheCallsField(crossCheck: Bool) throws {
        let rule = try RuleRuns.rules([Self.staleRule], file: "rules/checks.yaml")[0]
        let result = HistoryCrossCheck.$isOn.withValue(crossCheck) {
            RuleRuns.audit([rule], files: [("a.jsonl", Self.staleLog)]).results[0]
        }
        // Before any start, and after a start without gen, the state's own gen is the bar; only
        // the state of gen 1 after the start of gen 2 is stale.
        #expect(result.violations.map(\.line) == [5])
        #expect(result.inconclusive.isEmpty)
    }
}

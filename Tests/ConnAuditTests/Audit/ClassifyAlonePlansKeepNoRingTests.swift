import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A plan whose sources and generations run only `classify` rules that can never stop makes no
/// findings there, so its sources keep no ring of recent events. A `classify` rule that may stop
/// (a regex search, which has a step limit) or any rule with findings keeps the ring.
@Suite struct ClassifyAlonePlansKeepNoRingTests {
    private static func classify(_ where: String, as name: String? = nil) -> String {
        let capture = name.map { "as: \($0), " } ?? ""
        return """
            id: t.labels
            title: T
            for: corpus
            classify:
              per: generation
              stream: ws
              labels:
                answered: { has: { ev: ws.pong, \(capture)where: "\(`where`)" } }
            require: [answered]
            min: 1
            """
    }

    private static let generationRule = """
        id: t.reason
        title: T
        for: generation
        every: { ev: ws.close }
        expect: "reason != null"
        """

    private static func plan(_ bodies: [String]) throws -> EvaluationPlan {
        EvaluationPlan(
            rules: try RuleRuns.rules(bodies, file: "rules/labels.yaml"), overrides: [:],
            files: ["a.jsonl"])
    }

    @Test func aPlanOfClassifyRulesThatNeverStopKeepsNoRing() throws {
        let counts = try Self.plan([Self.classify("count({ev: ws.ping}) > 0")])
        #expect(!counts.showsContext)
        let regex = try Self.plan([Self.classify("matches(reason, 'a+b')")])
        #expect(regex.showsContext)
        // A correlated call keeps a history list, and its work may stop the runner.
        let correlated = try Self.plan([
            Self.classify("count({ev: ws.ping, where: 'id == p.id'}) > 0", as: "p")
        ])
        #expect(correlated.showsContext)
        let withFindings = try Self.plan([
            Self.classify("count({ev: ws.ping}) > 0"), Self.generationRule
        ])
        #expect(withFindings.showsContext)
    }

    /// A context that shows nothing holds no event it is given.
    @Test func aContextThatShowsNothingHoldsNoEvent() {
        let context = TimelineContext(source: nil, enabled: false)
        let sink = FindingSink(files: ["t"])
        weak var recorded: Event?
        do {
            let e = Event(t: 1, ev: "ws.ping", gen: 1, line: 1)
            e.seq = 1
            recorded = e
            context.record(e, sink: sink)
        }
        #expect(recorded == nil)
    }
}

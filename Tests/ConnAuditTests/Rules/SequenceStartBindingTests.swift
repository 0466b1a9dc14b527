import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// Whether a start binds its first step's capture is worked out per term when the runner is made
/// (``SequenceRunner/startBinds``): a term's capture is bound when a later step reads it, or when
/// the sequence has one step (its match is complete at once), and never otherwise.
@Suite struct SequenceStartBindingTests {
    private static func runner(_ body: String) throws -> SequenceRunner {
        let rule = try #require(try RuleRuns.rules([body], file: "t.yaml").first)
        return SequenceRunner(CompiledRule(rule: rule, index: 0, overrides: [:]), files: ["t"])
    }

    private static func feed(_ runner: SequenceRunner, _ names: [String]) {
        let scope = ContextScope(context: TimelineContext(source: nil))
        let sink = FindingSink(files: ["t"])
        for (n, ev) in names.enumerated() {
            let e = Event(t: Double(n), ev: ev, gen: 1, line: n + 1)
            e.seq = n
            runner.observe(e, context: scope, sink: sink)
        }
    }

    @Test(arguments: [("t > p.t", true), ("t > 0", false)])
    func aStartBindsItsCaptureOnlyWhenALaterStepReadsIt(later: String, binds: Bool) throws {
        let runner = try Self.runner(
            """
            id: t.start
            title: start
            forbid:
              - { ev: ws.ping, as: p }
              - { ev: ws.close, where: "\(later)" }
            """)
        #expect((runner.startBinds == 1) == binds)
        Self.feed(runner, ["ws.ping"])
        let partial = try #require(runner.stages[1].partials.first)
        #expect(!partial.captures.isEmpty == binds)
    }

    @Test func aOneStepSequenceBindsItsCapture() throws {
        let runner = try Self.runner(
            """
            id: t.one
            title: one
            forbid:
              - { ev: ws.close, as: c }
            message: "closed at {c.t}"
            """)
        #expect(runner.startBinds == 1)
    }
}

import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A runner reads what an event's id decides from its rule's route table (``RunnerRoutes``):
/// each row must answer what the rule's id sets answer for that id, for the ids known when the
/// table was made and for any other (-1, a name interned later); and a check whose state makes
/// every event matter (a sequence's armed absences, its open obligations) must be handed every
/// event, whatever its route says.
@Suite struct RunnerRoutesTests {
    @Test func aRouteAnswersWhatTheRulesIdSetsAnswer() throws {
        let rules = RuleLoader.builtin().rules
        #expect(!rules.isEmpty)
        for (i, rule) in rules.enumerated() {
            let compiled = CompiledRule(rule: rule, index: i, overrides: [:])
            let view = compiled.routes.view
            // Interned after the table was made: answered by the last row.
            let later = EvNames.id("t.routes.later.\(i)")
            for id in Array(Int32(0)..<Int32(EvNames.count)) + [-1, later] {
                let route = view.route(for: id)
                let history = compiled.usesHistory && (compiled.historyIDs?.contains(id) ?? true)
                let moves =
                    !compiled.staticCalls.isEmpty && !compiled.staticCalls(for: id).isEmpty
                var sequence = true
                switch rule.check {
                case .every, .never, .count, .classify: sequence = false
                default: break
                }
                let what = "\(rule.id), id \(id)"
                #expect(
                    route.flags.contains(.handles)
                        == (compiled.checkConcerns.contains(id) || (sequence && moves)), "\(what)")
                #expect(route.flags.contains(.history) == history, "\(what)")
                #expect(route.flags.contains(.aggregates) == (history && moves), "\(what)")
                #expect(
                    route.flags.contains(.lookAhead)
                        == (history && compiled.usesLookAhead
                            && (compiled.lookAheadIDs?.contains(id) ?? true)),
                    "\(what)")
                for list in compiled.historyLists.indices where list < 64 {
                    let keeps = history && (compiled.historyListIDs[list]?.contains(id) ?? true)
                    let bit: UInt64 = 1 << UInt64(list)
                    #expect((route.keeps & bit != 0) == keeps, "\(what), list \(list)")
                    #expect(
                        (route.appends & bit != 0) == (keeps && !compiled.countedLists[list]),
                        "\(what), list \(list)")
                }
            }
        }
    }

    private static func runner(_ body: String) throws -> SequenceRunner {
        let rule = try #require(try RuleRuns.rules([body], file: "t.yaml").first)
        return SequenceRunner(CompiledRule(rule: rule, index: 0, overrides: [:]), files: ["t"])
    }

    @Test func anArmedAbsenceIsChargedForEveryEventItsRunnerIsGiven() throws {
        let runner = try Self.runner(
            """
            id: t.absence
            title: No message after a close
            each: { ev: ws.close }
            never_after: { ev: ws.message }
            """)
        var seq = 0
        // A ping concerns none of the check's selectors; once the close armed the absence, each
        // event given is tried against it, and charged.
        RunnerFeed.feed(runner, ["ws.ping"], seq: &seq)
        #expect(runner.visits == 0)
        RunnerFeed.feed(runner, ["ws.close", "ws.ping", "ws.ping"], seq: &seq)
        #expect(runner.takesEveryEvent)
        #expect(runner.visits == 2)
    }

    @Test func anOpenObligationSeesEveryEventUntilItIsAnswered() throws {
        let runner = try Self.runner(
            """
            id: t.response
            title: A ping is answered
            each: { ev: ws.ping }
            followed_by: { ev: ws.pong }
            within_ms: 100
            """)
        var seq = 0
        RunnerFeed.feed(runner, ["ws.message"], seq: &seq)
        #expect(!runner.takesEveryEvent)
        RunnerFeed.feed(runner, ["ws.ping", "ws.message"], seq: &seq)
        #expect(runner.takesEveryEvent)
        #expect(runner.obligations.live == 1)
        RunnerFeed.feed(runner, ["ws.pong", "ws.message"], seq: &seq)
        #expect(runner.obligations.live == 0)
        #expect(!runner.takesEveryEvent)
    }
}

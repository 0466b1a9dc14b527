import Testing

@testable import ConnAudit

/// A ``SelectorPlan`` runs its key's sides compiled (``SelectorPlan/compiledKey``): each gives
/// what the tree walker gives for the side it was made from, so the partials and obligations an
/// event is tried against are the same ones.
@Suite struct SelectorPlanRunsItsKeyCompiledTests {
    typealias Agree = CompiledExpressionAgreesWithTreeWalkerTests

    @Test func everyKeyOfTheBuiltInPackGivesTheTreeWalkersAnswer() {
        var keys = 0
        for (index, rule) in RuleLoader.builtin(fixtures: false).rules.enumerated() {
            let compiled = CompiledRule(rule: rule, index: index, overrides: [:])
            let plans = compiled.stagePlans.flatMap { $0 } + compiled.obligationPlans
            for case let plan? in plans {
                guard let key = plan.key else {
                    #expect(plan.compiledKey == nil, "\(rule.id): a key compiled from none")
                    continue
                }
                guard let run = plan.compiledKey else {
                    Issue.record("\(rule.id): a key left uncompiled")
                    continue
                }
                keys += 1
                for e in Agree.events {
                    for (walking, running) in zip(Agree.contexts(for: e), Agree.contexts(for: e)) {
                        #expect(
                            Outcome(run.event.run(running, e))
                                == Outcome(Evaluator.evaluate(key.event, walking, e)),
                            "\(rule.id): the event's side \(key.event)")
                        #expect(
                            Outcome(run.partial(running))
                                == Outcome(Evaluator.evaluate(key.partial, walking)),
                            "\(rule.id): the partial's side \(key.partial)")
                    }
                }
            }
        }
        #expect(keys > 0, "the pack's keyed plans were found")
    }
}

import Testing

@testable import ConnAudit

/// A context's history results, bound lets and let scope are its own: they share one box between
/// copies until one is changed, and a change to a copy is never seen by the context it was copied
/// from (nor the other way round).
@Suite struct EvalContextCopyTests {
    private func context() -> EvalContext {
        EvalContext(
            event: Event(t: 0, ev: "ws.ping"), params: [:], history: nil, files: [])
    }

    @Test func aFreshContextBindsNothing() {
        let ctx = context()
        #expect(ctx.historyResults == nil)
        #expect(ctx.letScope == nil)
        #expect(ctx.boundLets == nil)
        #expect(ctx.lets.isEmpty)
    }

    @Test func settingOnACopyLeavesTheOriginalAsItWas() {
        var original = context()
        let results = HistoryResults(declared: ["a"])
        original.historyResults = results
        original.lets = ["x": .value(.int(1))]

        var copy = original
        copy.historyResults = HistoryResults(declared: ["b"])
        copy.lets = ["x": .value(.int(2))]
        copy.letScope = LetScope([(name: "y", expr: .literal(.int(3)))])

        #expect(original.historyResults === results)
        #expect(original.lets["x"]?.value == .int(1))
        #expect(original.letScope == nil)
        #expect(copy.historyResults?.declared == ["b"])
        #expect(copy.lets["x"]?.value == .int(2))
        #expect(copy.letScope != nil)
    }

    @Test func clearingOnACopyLeavesTheOriginalAsItWas() {
        var original = context()
        let scope = LetScope([(name: "y", expr: .literal(.int(3)))])
        original.letScope = scope
        original.historyResults = HistoryResults()

        var copy = original
        copy.letScope = nil
        copy.historyResults = nil
        copy.lets = [:]

        #expect(original.letScope === scope)
        #expect(original.historyResults != nil)
        #expect(copy.letScope == nil)
        #expect(copy.historyResults == nil)
        #expect(copy.boundLets == nil)
    }

    @Test func aContextChangedTwiceKeepsBothChanges() {
        var ctx = context()
        let results = HistoryResults()
        let scope = LetScope([(name: "y", expr: .literal(.int(3)))])
        ctx.historyResults = results
        ctx.letScope = scope
        #expect(ctx.historyResults === results)
        #expect(ctx.letScope === scope)
    }

    /// A scope keeps its trigger's context without the scope itself (no cycle): the context it
    /// was given keeps its scope.
    @Test func aScopeKeepsItsContextWithoutTakingTheScopeFromTheCaller() {
        var ctx = context()
        let scope = LetScope([(name: "y", expr: .literal(.int(3)))])
        ctx.letScope = scope
        scope.context = ctx
        #expect(ctx.letScope === scope)
        #expect(scope.context?.letScope == nil)
        #expect(Evaluator.evaluate(.name("y", at: 0), ctx).value == .int(3))
    }
}

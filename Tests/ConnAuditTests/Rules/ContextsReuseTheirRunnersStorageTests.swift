import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A runner reuses what its contexts would otherwise each allocate: contexts frozen while no
/// aggregate changed are copies of one template sharing one box of bindings (the frozen lets),
/// and an `every` trigger's captures are written in place once no context holds them. Each
/// context still has its own event and captures.
@Suite struct ContextsReuseTheirRunnersStorageTests: SingleRuleRunning {
    private static func event(_ n: Int, _ ev: String = "x") -> Event {
        Event(t: Double(n), ev: ev, line: n)
    }

    @Test func contextsFrozenAtOneCountShareTheirLetsButNotTheirEventOrCaptures() throws {
        let r = try rule(
            """
            id: t.frozen
            title: Pings are answered within T
            for: generation
            let: { T: "first({ev: ws.config}).timeout_ms ?? 100" }
            each: { ev: ws.ping, as: p }
            followed_by: { ev: ws.pong }
            within_ms: "T"
            """)
        let runner = BasicRunner(CompiledRule(rule: r, index: 0, overrides: [:]), files: [])
        let (e1, e2, e3) = (Self.event(1), Self.event(2), Self.event(3))
        let first = runner.context(e1, captures: ["p": e1], frozen: true)
        let second = runner.context(e2, captures: ["q": e2], frozen: true)
        #expect(first.letScope != nil)
        #expect(first.letScope === second.letScope)
        #expect(first.event === e1 && second.event === e2)
        #expect(first.captures["p"] === e1 && first.captures["q"] == nil)
        #expect(second.captures["q"] === e2 && second.captures["p"] == nil)
        // Every aggregate set back: the lets are evaluated again, in a scope of their own.
        runner.aggregateState = nil
        let third = runner.context(e3, frozen: true)
        #expect(third.letScope !== first.letScope)
        #expect(third.event === e3 && third.captures.isEmpty)
    }

    /// An obligation opened under the runner's shared frozen scope is not evaluated again (the
    /// scope was evaluated in full when made): each keeps the values of its own aggregate state.
    @Test func obligationsSharingAFrozenScopeKeepTheLetsOfTheirTrigger() throws {
        let r = try rule(
            """
            id: t.kept
            title: Pings are answered within T
            for: generation
            let: { T: "count({ev: ws.config}) * 10 + 10" }
            each: { ev: ws.ping, as: p }
            followed_by: { ev: ws.pong }
            within_ms: "T"
            message: "no pong within {T}"
            """)
        let runner = BasicRunner(CompiledRule(rule: r, index: 0, overrides: [:]), files: [])
        let (e1, e2) = (Self.event(1), Self.event(2))
        let first = runner.context(e1, captures: ["p": e1], frozen: true)
        let scope = try #require(first.letScope)
        #expect(runner.isFrozenScope(scope))
        #expect(runner.context(e2, captures: ["p": e2], frozen: true).letScope === scope)
        let log = """
            {"t":0,"ev":"ws.ping","gen":1}
            {"t":1,"ev":"ws.ping","gen":1}
            {"t":2,"ev":"ws.config","gen":1}
            {"t":3,"ev":"ws.ping","gen":1}
            {"t":100,"ev":"ws.state","gen":1}
            """
        let found = run(r, log).violations
        #expect(lines(found) == [1, 2, 4])
        #expect(
            found.map(\.message) == [
                "no pong within 10", "no pong within 10", "no pong within 20"
            ])
    }

    @Test func aTriggerThatWaitsKeepsItsOwnCapture() throws {
        let r = try rule(
            """
            id: t.answered
            title: Each a is answered by a b of its id
            for: source
            every: { ev: a, as: c }
            expect: "next({ev: b, where: 'id == c.id'}) != null"
            """)
        let log = """
            {"t":0,"ev":"a","id":1}
            {"t":1,"ev":"a","id":2}
            {"t":2,"ev":"b","id":2}
            {"t":3,"ev":"a","id":3}
            {"t":4,"ev":"b","id":3}
            """
        #expect(lines(run(r, log).violations) == [1])
    }
}

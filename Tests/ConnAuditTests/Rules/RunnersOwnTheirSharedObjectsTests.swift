import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A runner makes each kind of object its contexts share (``Runner/SharedKind``) once, on first
/// use, and owns it for its life: asked again, it gives the same object; another kind, or another
/// runner of the same rule, has its own.
@Suite struct RunnersOwnTheirSharedObjectsTests: SingleRuleRunning {
    @Test func eachKindIsMadeOnceAndOwnedByItsRunner() throws {
        let r = try rule(
            """
            id: t.owned
            title: Pings are answered within T
            for: generation
            let: { T: "first({ev: ws.config}).timeout_ms ?? 100" }
            each: { ev: ws.ping, as: p }
            followed_by: { ev: ws.pong }
            within_ms: "T"
            """)
        let compiled = CompiledRule(rule: r, index: 0, overrides: [:])
        let runner = BasicRunner(compiled, files: [])
        let other = BasicRunner(compiled, files: [])
        let kinds: [Runner.SharedKind] = [.live, .plain, .noHistory, .index]
        var made: [ObjectIdentifier] = []
        for kind in kinds {
            let shared = runner.shared(kind)
            #expect(runner.shared(kind) === shared)
            #expect(other.shared(kind) !== shared)
            made.append(ObjectIdentifier(shared))
        }
        #expect(Set(made).count == kinds.count)
        // The index's has an environment of its own (the runner's files); the others the rule's.
        #expect(runner.shared(.index).environment !== runner.shared(.live).environment)
        #expect(runner.shared(.plain).environment === runner.shared(.live).environment)
    }
}

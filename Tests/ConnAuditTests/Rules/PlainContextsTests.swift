import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A runner makes the common context (not frozen, binding nothing but its captures) where it is
/// asked for, without the full path (``Runner/madeContext(_:captures:frozen:)``): it must be what
/// the full path makes, for every rule, whatever its lets and history results.
@Suite struct PlainContextsTests {
    private static func runner(_ compiled: CompiledRule) -> Runner {
        switch compiled.rule.check {
        case .every, .never, .count: BasicRunner(compiled, files: ["t"])
        case .classify: ClassifyRunner(compiled, files: ["t"])
        default: SequenceRunner(compiled, files: ["t"])
        }
    }

    @Test func aPlainContextIsTheOneTheFullPathMakes() throws {
        let rules = RuleLoader.builtin().rules
        #expect(!rules.isEmpty)
        for (i, rule) in rules.enumerated() {
            let runner = Self.runner(CompiledRule(rule: rule, index: i, overrides: [:]))
            let e = Event(t: 1, ev: "ws.ping", gen: 1, line: 1)
            let p = Event(t: 0, ev: "ws.open", gen: 1, line: 0)
            // The first context makes the runner's shared object; the later ones find it.
            for _ in 0..<2 {
                let quick = runner.context(e, captures: ["c": p])
                let full = runner.madeContext(e, captures: ["c": p], frozen: false)
                #expect(quick.shared === full.shared, "\(rule.id)")
                #expect(quick.isLooking(at: e), "\(rule.id)")
                #expect(quick.captures["c"] === p, "\(rule.id)")
                #expect((quick.letScope == nil) == (full.letScope == nil), "\(rule.id)")
                #expect(
                    (quick.historyResults == nil) == (full.historyResults == nil), "\(rule.id)")
            }
        }
    }

    /// ``Runner/plainContext(_:)`` (made in the caller, dropped without a release) is there
    /// exactly when the full path binds nothing of its own, and is then the one it makes.
    @Test func aContextMadeInTheCallerIsThereWhenTheFullOneBindsNothing() throws {
        let rules = RuleLoader.builtin().rules
        var made = 0
        for (i, rule) in rules.enumerated() {
            let runner = Self.runner(CompiledRule(rule: rule, index: i, overrides: [:]))
            let e = Event(t: 1, ev: "ws.ping", gen: 1, line: 1)
            _ = runner.context(e)
            let full = runner.madeContext(e, captures: Captures(), frozen: false)
            let plain = runner.plainContext(e)
            #expect((plain != nil) == full.hasNoLocals, "\(rule.id)")
            guard let plain else { continue }
            made += 1
            #expect(plain.shared === full.shared, "\(rule.id)")
            #expect(plain.isLooking(at: e), "\(rule.id)")
            #expect(plain.captures.isEmpty && plain.hasNoLocals, "\(rule.id)")
        }
        #expect(made > 0)
    }
}

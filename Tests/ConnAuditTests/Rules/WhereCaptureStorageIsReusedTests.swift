import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A `where:` that reads its own `as:` name binds it in a copy of the context
/// (``EvalContext/binding(_:to:_:)``), whose captures (the context's and the candidate) are
/// written into the spare storage of the context's ``EvalShared``. The storage is given back
/// emptied, and a copy of those captures kept beyond the evaluation keeps its own bindings.
@Suite struct WhereCaptureStorageIsReusedTests {
    private func context(_ e: Event) -> EvalContext {
        EvalContext(event: e, params: [:], history: nil, files: [])
    }

    @Test func theSpareStorageServesEachBindingAndComesBackEmpty() {
        let a = Event(t: 1, ev: "x.a"), b = Event(t: 2, ev: "x.b")
        let ctx = context(a)
        let first = ctx.binding("x", to: a) { $0.captures["x"] }
        #expect(first === a)
        let spare = ctx.withShared { $0.spareCaptures }
        #expect(spare.isEmpty)
        let second = ctx.binding("x", to: b) { inner in
            // The spare is in use: a binding nested in this evaluation makes its own.
            #expect(ctx.withShared { $0.spareCaptures.isEmpty })
            let nested = ctx.binding("y", to: a) { ($0.captures["y"], $0.captures["x"]) }
            #expect(nested.0 === a && nested.1 == nil)
            return inner.captures["x"]
        }
        #expect(second === b)
        #expect(ctx.withShared { $0.spareCaptures.isEmpty })
    }

    @Test func capturesKeptBeyondTheEvaluationKeepTheirBinding() {
        let a = Event(t: 1, ev: "x.a"), b = Event(t: 2, ev: "x.b")
        let ctx = context(a)
        // The evaluation keeps its context (as a let scope keeps its trigger's).
        let kept = ctx.binding("x", to: a) { $0 }
        _ = ctx.binding("x", to: b) { $0.captures["x"] }
        _ = ctx.binding("z", to: b) { $0.captures["z"] }
        #expect(kept.captures["x"] === a)
        #expect(kept.captures.names == ["x"])
    }

    @Test func aContextThatBindsNamesKeepsThemAndAddsTheCandidate() {
        let a = Event(t: 1, ev: "x.a"), b = Event(t: 2, ev: "x.b")
        var ctx = context(a)
        ctx.captures["p"] = a
        let names = ctx.binding("x", to: b) { $0.captures.names }
        #expect(names == ["p", "x"])
        #expect(ctx.captures.names == ["p"])
        // The copy's captures went into the spare storage, which came back empty.
        #expect(ctx.withShared { $0.spareCaptures.isEmpty })
        let kept = ctx.binding("x", to: b) { $0 }
        let other = ctx.binding("q", to: a) { $0.captures.names }
        #expect(other == ["p", "q"])
        #expect(kept.captures.names == ["p", "x"])
        #expect(kept.captures["x"] === b && kept.captures["p"] === a)
    }

    /// Through a selector: every candidate is judged with its own binding.
    @Test func aSelectorJudgesEachCandidateByItsOwnBinding() throws {
        let rule = try RuleRuns.rules(
            [
                """
                id: t.own
                title: A where reads its own capture
                for: source
                every: { ev: x.a, as: c, where: "c.v > 1" }
                expect: "false"
                message: "{c.v}"
                """
            ], file: "rules/checks.yaml")[0]
        let log = (0..<200).map { #"{"t":\#($0),"ev":"x.a","v":\#($0 % 4)}"# }
            .joined(separator: "\n")
        let result = RuleRuns.audit([rule], files: [("a.jsonl", log)]).results[0]
        #expect(
            result.violations.map(\.message) == (0..<200).filter { $0 % 4 > 1 }.map { "\($0 % 4)" })
    }
}

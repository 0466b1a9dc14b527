import Testing

@testable import ConnAudit

/// A capture's field that none of the captured events carries in connlog, and that is a near miss
/// of one they do (`c.gne`), is most likely misspelt: the rule loads with a warning at the read.
/// A field of the app's own (`c.build`), or a capture whose events connlog does not define, is
/// not looked at.
@Suite struct CaptureFieldNearMissWarningTests {
    @Test func aNearMissOfACapturedEventsFieldIsWarnedAboutAtItsPlace() throws {
        let marked = MarkedRules(
            """
            rules:
              - id: t.field
                title: T
                for: generation
                each: { ev: [ws.connect, ws.reconnect], as: c }
                followed_by: { ev: ws.open, where: "gen == 1️⃣c.gne" }
                within_ms: 100
            """)
        let warnings = try RuleLoader.load(files: [("rules/f.yaml", marked.text)]).warnings
        #expect(warnings.count == 1, "\(warnings)")
        let w = try #require(warnings.first)
        #expect(w.severity == .warning)
        #expect([w.line, w.column] == [marked.line, marked.column])
        #expect(
            w.message
                == "no ws.connect or ws.reconnect event carries 'gne' in connlog (c.gne) (did you mean 'gen'?)"
        )
    }

    @Test func fieldsOfTheAppsOwnAndOpenCapturesAreNotLookedAt() throws {
        let text = """
            rules:
              - id: t.quiet
                title: T
                for: generation
                every: [{ ev: ws.connect, as: c }, { ev: myapp.login, as: m }, { as: o }]
                expect: "c.build != null or c.interval_ms > 0 or m.gne != null or o.gne != null or c.$seq > 0"
            """
        #expect(try RuleLoader.load(files: [("rules/q.yaml", text)]).warnings.isEmpty)
    }
}

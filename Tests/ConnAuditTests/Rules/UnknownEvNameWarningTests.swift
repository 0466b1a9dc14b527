import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// An `ev:` in a stream connlog defines (`ws`, `sse`, `path`) that is not one of its events and
/// that no other rule names is most likely misspelt: the rules still load, with a warning at the
/// rule's `id:`. Other streams are the logging app's own and are not looked at.
@Suite struct UnknownEvNameWarningTests {
    private static func warnings(_ bodies: [String]) throws -> [Diagnostic] {
        let text =
            "rules:\n"
            + bodies.map { "  - " + $0.replacing("\n", with: "\n    ") }
            .joined(separator: "\n")
        return try RuleLoader.load(files: [("rules/ev.yaml", text)]).warnings
    }

    @Test func aMisspeltEventOfAKnownStreamIsNamedAtItsRule() throws {
        let found = try Self.warnings([
            "id: t.a\ntitle: A\nevery: { ev: ws.pnog }\nexpect: \"gen != null\"",
            "id: t.b\ntitle: B\nevery: { ev: ws.close }\nexpect: \"count({ev: sse.comit}) >= 0\""
        ])
        #expect(found.count == 2, "\(found)")
        #expect(found.map(\.line) == [2, 6])
        #expect(found.map(\.column) == [9, 9])
        #expect(found.allSatisfy { $0.severity == .warning })
        #expect(found[0].message.contains("'t.a' names ev 'ws.pnog'"))
        #expect(found[1].message.contains("'t.b' names ev 'sse.comit'"))
    }

    @Test func knownEventsOwnStreamsAndSharedNamesAreNotWarnedAbout() throws {
        let found = try Self.warnings([
            "id: t.a\ntitle: A\nevery: { ev: [ws.close, path.update, myapp.login] }\nexpect: \"gen != null\"",
            // A name outside the vocabulary that two rules name is the team's own.
            "id: t.b\ntitle: B\nnever: { ev: ws.resumed }",
            "id: t.c\ntitle: C\nevery: { ev: ws.open }\nexpect: \"count({ev: ws.resumed}) >= 0\""
        ])
        #expect(found.isEmpty, "\(found)")
    }

    @Test func theBuiltInPackNamesOnlyConnlogsEvents() throws {
        // Loaded with the checks for likely misspellings, which the binary skips for it.
        let pack = try RuleLoader.load(
            files: BuiltinPack.files.map { ("<built-in>/" + $0.name, $0.text) }, lint: true)
        #expect(pack.warnings.isEmpty, "\(pack.warnings)")
        for rule in pack.rules {
            for name in RuleLoader.evNames(of: rule) {
                #expect(!ConnlogVocabulary.isUnknownInKnownStream(name), "\(rule.id): \(name)")
            }
        }
    }
}

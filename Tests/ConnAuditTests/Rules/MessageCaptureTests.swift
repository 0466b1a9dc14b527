import Testing

@testable import ConnAudit
import ConnAuditTestSupport

extension CheckKindTests {
    @Suite struct MessageCaptures {
        static let log = """
            {"t":0,"ev":"a"}
            {"t":1,"ev":"a"}
            {"t":2,"ev":"b"}
            """

        static func rule(message: String?) -> String {
            """
            id: t.abc
            title: a then b is followed by c
            for: source
            each:
              - { ev: a, as: x }
              - { ev: b }
            followed_by: { ev: c }
            at_end: fail
            """ + (message.map { "\nmessage: \"\($0)\"" } ?? "")
        }

        /// rules.md: one anchor is reported once. A message that shows `x` must not turn the two
        /// ways of matching a–b into two violations at the same b.
        @Test func aMessageDoesNotChangeHowManyViolations() throws {
            let plain = judge(try loadRule(Self.rule(message: nil)), Self.log)
            let shown = judge(try loadRule(Self.rule(message: "a at {x.t}")), Self.log)
            #expect(CheckKindVerdict(plain) == CheckKindVerdict(.fail, [3]))
            #expect(CheckKindVerdict(shown) == CheckKindVerdict(.fail, [3]))
            #expect(shown.violations.first?.message == "a at 0")
        }

        @Test func whatTheAnswerReadsStillMakesMatchesDifferent() throws {
            // followed_by reads x: each a is its own obligation (as app.inactive-releases'
            // generations are).
            let v = try verdict(
                """
                id: t.abc
                title: a then b is followed by a c naming the a
                for: source
                each:
                  - { ev: a, as: x }
                  - { ev: b }
                followed_by: { ev: c, where: "t > x.t" }
                at_end: fail
                message: "a at {x.t}"
                """, Self.log)
            #expect(v == CheckKindVerdict(.fail, [3, 3]))
        }
    }
}

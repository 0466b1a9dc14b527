import Testing

@testable import ConnAudit
import ConnAuditTestSupport

extension CheckKindTests {
    @Suite struct Precedence {
        @Test func eachTriggerNeedsAnEarlierEnablingEvent() throws {
            let rule = """
                id: t.opened
                title: Sends come after an open
                each: { ev: ws.send }
                preceded_by: { ev: ws.open }
                """
            let v = try verdict(
                rule,
                """
                {"t":0,"ev":"ws.send","gen":1}
                {"t":1,"ev":"ws.open","gen":1}
                {"t":2,"ev":"ws.send","gen":1}
                {"t":3,"ev":"ws.send","gen":2}
                """)
            #expect(v == CheckKindVerdict(.fail, [1, 4]))

            // Without any enabling event, every trigger fails (this holds either way).
            #expect(
                try verdict(
                    rule,
                    """
                    {"t":0,"ev":"ws.send","gen":1}
                    {"t":1,"ev":"ws.send","gen":1}
                    """) == CheckKindVerdict(.fail, [1, 2]))
        }

        @Test func triggerCapturesAreVisibleInPrecededBy() throws {
            let rule = """
                id: t.opened
                title: Sends come after their connection opened
                each: { ev: ws.send, as: s }
                preceded_by: { ev: ws.open, where: "conn == s.conn" }
                """
            let v = try verdict(
                rule,
                """
                {"t":0,"ev":"ws.open","gen":1,"conn":"a"}
                {"t":1,"ev":"ws.send","gen":1,"conn":"a"}
                {"t":2,"ev":"ws.send","gen":1,"conn":"b"}
                {"t":3,"ev":"ws.open","gen":1,"conn":"b"}
                {"t":4,"ev":"ws.send","gen":1,"conn":"b"}
                """)
            #expect(v == CheckKindVerdict(.fail, [3]))

        }
    }
}

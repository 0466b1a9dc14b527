import Testing

@testable import ConnAudit
import ConnAuditTestSupport

extension CheckKindTests {
    @Suite struct NeverAfter {
        @Test func absenceAfterEachTriggerToTheEnd() throws {
            let v = try verdict(
                """
                id: t.no-send-after-close
                title: Nothing is sent after a close
                each: { ev: ws.close }
                never_after: { ev: ws.send }
                """,
                """
                {"t":0,"ev":"ws.send","gen":1}
                {"t":1,"ev":"ws.close","gen":1,"reason":"user"}
                {"t":2,"ev":"ws.send","gen":1}
                {"t":3,"ev":"ws.message","gen":1}
                {"t":9000,"ev":"ws.send","gen":1}
                {"t":9001,"ev":"ws.send","gen":2}
                """)
            #expect(v == CheckKindVerdict(.fail, [3, 5]))
        }

        @Test func oneViolationPerForbiddenEventHoweverManyTriggersArmedIt() throws {
            // The trigger matches the forbidden selector too: it never forbids itself.
            let v = try verdict(
                """
                id: t.single-close
                title: No close after a close
                each: { ev: ws.close }
                never_after: { ev: ws.close }
                """,
                """
                {"t":0,"ev":"ws.close","gen":1}
                {"t":1,"ev":"ws.close","gen":1}
                {"t":2,"ev":"ws.close","gen":1}
                """)
            #expect(v == CheckKindVerdict(.fail, [2, 3]))
        }

        @Test func triggerCapturesAreVisibleInNeverAfter() throws {
            let v = try verdict(
                """
                id: t.no-send-after-close
                title: Nothing is sent on a closed connection
                each: { ev: ws.close, as: c }
                never_after: { ev: ws.send, where: "conn == c.conn" }
                """,
                """
                {"t":0,"ev":"ws.close","gen":1,"conn":"a"}
                {"t":1,"ev":"ws.send","gen":1,"conn":"b"}
                {"t":2,"ev":"ws.send","gen":1,"conn":"a"}
                {"t":3,"ev":"ws.close","gen":1,"conn":"b"}
                {"t":4,"ev":"ws.send","gen":1,"conn":"b"}
                """)
            #expect(v == CheckKindVerdict(.fail, [3, 5]))
        }

        @Test func corpusNeverAfterKeepsEveryArmedCapture() throws {
            let rule = try loadRule(
                """
                id: t.use-after-free
                title: nothing is used after it is freed
                for: corpus
                each: { ev: x.free, as: f }
                never_after: { ev: x.use, where: "id == f.id" }
                """)
            let log = """
                {"t":0,"ev":"x.free","id":1}
                {"t":1,"ev":"x.free","id":2}
                {"t":2,"ev":"x.use","id":2}
                {"t":3,"ev":"x.use","id":2}

                """
            #expect(CheckKindVerdict(judge(rule, log)) == CheckKindVerdict(.fail, [3, 4]))
        }
    }
}

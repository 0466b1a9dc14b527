import Testing

@testable import ConnAudit
import ConnAuditTestSupport

extension CheckKindTests {
    @Suite struct Counting {
        @Test func maxReportsEachExcessEventAtItsLine() throws {
            let v = try verdict(
                """
                id: t.two-closes
                title: At most two closes
                count: { ev: ws.close }
                max: 2
                """,
                """
                {"t":0,"ev":"ws.close","gen":1}
                {"t":1,"ev":"ws.close","gen":2}
                {"t":2,"ev":"ws.close","gen":1}
                {"t":3,"ev":"ws.close","gen":1}
                {"t":4,"ev":"ws.close","gen":1}
                """)
            #expect(v == CheckKindVerdict(.fail, [4, 5]))
        }

        @Test func minIsOneViolationAtTheTimelinesFirstEvent() throws {
            let result = judge(
                try loadRule(
                    """
                    id: t.pongs
                    title: Two pongs per generation
                    count: { ev: ws.pong }
                    min: 2
                    """),
                """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":1,"ev":"ws.pong","gen":1}
                {"t":2,"ev":"ws.pong","gen":1}
                {"t":3,"ev":"ws.connect","gen":2}
                {"t":4,"ev":"ws.pong","gen":2}
                {"t":5,"ev":"ws.message","gen":3}
                """)
            #expect(CheckKindVerdict(result) == CheckKindVerdict(.fail, [4, 6]))
            #expect(result.violations.map(\.gen) == [2, 3])
            #expect(
                result.violations.map(\.message) == [
                    "Two pongs per generation (1 matching event, at least 2 required)",
                    "Two pongs per generation (0 matching events, at least 2 required)"
                ])
        }

        @Test func byCountsPerKey() throws {
            let v = try verdict(
                """
                id: t.one-send
                title: One send per connection
                count: { ev: ws.send }
                by: conn
                max: 1
                """,
                """
                {"t":0,"ev":"ws.send","gen":1,"conn":"a"}
                {"t":1,"ev":"ws.send","gen":1,"conn":"b"}
                {"t":2,"ev":"ws.send","gen":1,"conn":"a"}
                {"t":3,"ev":"ws.send","gen":1,"conn":"a"}
                {"t":4,"ev":"ws.send","gen":2,"conn":"a"}
                {"t":5,"ev":"ws.send","gen":1,"conn":"c"}
                """)
            #expect(v == CheckKindVerdict(.fail, [3, 4]))
        }

        @Test func minByReportsEachShortKeyAtTheTimelinesFirstEvent() throws {
            let result = judge(
                try loadRule(
                    """
                    id: t.two-sends
                    title: Two sends per connection
                    count: { ev: ws.send }
                    by: conn
                    min: 2
                    """),
                """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":1,"ev":"ws.send","gen":1,"conn":"a"}
                {"t":2,"ev":"ws.send","gen":1,"conn":"b"}
                {"t":3,"ev":"ws.send","gen":1,"conn":"a"}
                {"t":4,"ev":"ws.send","gen":1,"conn":"c"}
                """)
            #expect(CheckKindVerdict(result) == CheckKindVerdict(.fail, [1, 1]))
            #expect(
                result.violations.map(\.message) == [
                    #"Two sends per connection (1 matching event for "b", at least 2 required)"#,
                    #"Two sends per connection (1 matching event for "c", at least 2 required)"#
                ])
        }
    }
}

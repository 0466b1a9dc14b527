import Testing

@testable import ConnAudit
import ConnAuditTestSupport

extension CheckKindTests {
    @Suite struct Lets {
        /// With `or false` the equality cannot use the index, so R is first read inside the nested
        /// selector, whose candidate has its own `reason`: the let still reads the trigger's (the
        /// close's). The plain form goes through the equality index, which reads R from the
        /// outside.
        @Test(arguments: ["code == R or false", "code == R"])
        func aLetIsEvaluatedInTheTriggersContextEvenInsideANestedSelector(_ condition: String)
            throws
        {
            let v = try verdict(
                """
                id: t.reasoned
                title: A close's reason was reported as an error before
                let: { R: "reason" }
                every: { ev: ws.close }
                expect: "count({ev: ws.error, where: '\(condition)'}) > 0"
                """,
                """
                {"t":0,"ev":"ws.error","gen":1,"code":"timeout","reason":"other"}
                {"t":1,"ev":"ws.close","gen":1,"reason":"timeout"}
                {"t":2,"ev":"ws.error","gen":2,"code":"reset","reason":"reset"}
                {"t":3,"ev":"ws.close","gen":2,"reason":"user"}
                """)
            #expect(v == CheckKindVerdict(.fail, [4]))
        }

        @Test func anObligationKeepsTheLetValuesOfItsTrigger() throws {
            // N is the number of requests before the trigger: evaluated once, at the trigger, and
            // reused when later events are tested as answers.
            let body = """
                id: t.acked
                title: Each request is acknowledged by its ordinal
                let: { N: "count({ev: rpc.request})" }
                each: { ev: rpc.request }
                followed_by: { ev: rpc.ack, where: "n == N" }
                at_end: fail
                """
            #expect(
                try verdict(
                    body,
                    """
                    {"t":0,"ev":"rpc.request","gen":1}
                    {"t":1,"ev":"rpc.request","gen":1}
                    {"t":2,"ev":"rpc.ack","gen":1,"n":1}
                    {"t":3,"ev":"rpc.ack","gen":1,"n":0}
                    """) == CheckKindVerdict(.pass, []))
            #expect(
                try verdict(
                    body,
                    """
                    {"t":0,"ev":"rpc.request","gen":1}
                    {"t":1,"ev":"rpc.request","gen":1}
                    {"t":2,"ev":"rpc.ack","gen":1,"n":1}
                    {"t":3,"ev":"rpc.ack","gen":1,"n":2}
                    """) == CheckKindVerdict(.fail, [1]))
        }

        @Test func fileAndRuleLetsShareOneScopeAndTheRulesDefinitionWins() throws {
            // The file defines A and C; the rule defines B and redefines A. Lets are evaluated
            // lazily in one scope, so the rule's A (2) is the A every let reads, the file's C
            // included.
            let v = try verdict(
                """
                id: t.lets
                title: T
                let: { B: "A * 10", A: "2" }
                every: { ev: ws.ping }
                expect: "A == 2 and B == 20 and C == 4"
                """, #"{"t":0,"ev":"ws.ping","gen":1}"#, header: #"let: { A: "1", C: "A + 2" }"#)
            #expect(v == CheckKindVerdict(.pass, []))
        }

        @Test func aLetReferringToItselfIsUndecidedNotAHang() throws {
            let log = """
                {"t":0,"ev":"ws.ping","gen":1,"X":5}
                """
            // X reads X: undecided, whatever the event's own field X.
            #expect(
                try verdict(
                    """
                    id: t.self
                    title: T
                    let: { X: "X + 1" }
                    every: { ev: ws.ping }
                    expect: "X > 0"
                    """, log) == CheckKindVerdict(.fail, [1]))
            #expect(
                try verdict(
                    """
                    id: t.self
                    title: T
                    let: { X: "X + 1" }
                    every: { ev: ws.ping }
                    expect: "X > 0"
                    undecided: inconclusive
                    """, log) == CheckKindVerdict(.inconclusive, [], [1]))
            #expect(
                try verdict(
                    """
                    id: t.self
                    title: T
                    let: { X: "X + 1" }
                    every: { ev: ws.ping }
                    expect: "(X ?? 7) == 7"
                    """, log) == CheckKindVerdict(.pass, []))
        }

        @Test func mutuallyRecursiveLetsAreUndecided() throws {
            #expect(
                try verdict(
                    """
                    id: t.mutual
                    title: T
                    let: { A: "B + 1", B: "A + 1" }
                    every: { ev: ws.ping }
                    expect: "A == null"
                    undecided: inconclusive
                    """, #"{"t":0,"ev":"ws.ping","gen":1}"#)
                    == CheckKindVerdict(.inconclusive, [], [1]))
        }

        @Test func anUnusedLetIsNeverEvaluated() throws {
            #expect(
                try verdict(
                    """
                    id: t.lazy
                    title: T
                    let: { X: "X + 1", Y: "1" }
                    every: { ev: ws.ping }
                    expect: "Y == 1"
                    """, #"{"t":0,"ev":"ws.ping","gen":1}"#) == CheckKindVerdict(.pass, []))
        }
    }
}

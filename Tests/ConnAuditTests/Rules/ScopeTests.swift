import Testing

@testable import ConnAudit
import ConnAuditTestSupport

extension CheckKindTests {
    @Suite struct Scopes {
        private static let log = """
            {"t":0,"ev":"ws.close","gen":1}
            {"t":1,"ev":"path.close","gen":1}
            {"t":2,"ev":"ws.close","gen":2}
            {"t":3,"ev":"ws.close","gen":1}
            {"t":4,"ev":"ws.close"}
            {"t":5,"src":"b","ev":"ws.close","gen":1}
            """

        /// Generation timelines are keyed by (stream, gen) within a source; source timelines hold
        /// every event of one source; the corpus timeline every event the rule reacts to.
        @Test(arguments: [
            ("generation", [4]), ("source", [2, 3, 4, 5]), ("corpus", [2, 3, 4, 5, 6])
        ])
        func whatIsCountedTogether(_ scope: String, _ expected: [Int]) throws {
            let v = try verdict(
                """
                id: t.one-close
                title: One close
                for: \(scope)
                count: { ev: [ws.close, path.close] }
                max: 1
                """, Self.log)
            #expect(v == CheckKindVerdict(.fail, expected))
        }

        @Test func historyLooksOnlyAtTheRulesTimeline() throws {
            // first() of a generation rule sees its (stream, gen) only; of a source rule, the
            // source.
            let body = """
                every: { ev: ws.close }
                expect: "count({ev: [ws.close, path.close]}) == 0"
                """
            let log = """
                {"t":0,"ev":"path.close","gen":1}
                {"t":1,"ev":"ws.close","gen":1}
                {"t":2,"ev":"ws.close","gen":2}
                {"t":3,"src":"b","ev":"ws.close","gen":1}
                """
            #expect(
                try verdict("id: t.g\ntitle: T\nfor: generation\n" + body, log)
                    == CheckKindVerdict(.pass, []))
            #expect(
                try verdict("id: t.s\ntitle: T\nfor: source\n" + body, log)
                    == CheckKindVerdict(.fail, [2, 3]))
        }

        @Test func aResponseOfASourceRuleIsAnsweredAcrossGenerations() throws {
            let log = """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":1,"ev":"ws.pong","gen":2}
                """
            let body = """
                each: { ev: ws.ping }
                followed_by: { ev: ws.pong }
                at_end: fail
                """
            #expect(try verdict("id: t.g\ntitle: T\n" + body, log) == CheckKindVerdict(.fail, [1]))
            #expect(
                try verdict("id: t.s\ntitle: T\nfor: source\n" + body, log)
                    == CheckKindVerdict(.pass, []))
        }

        /// A reader finding on a line without a valid `t` has no `t`: it reads as null, not NaN.
        @Test func aFindingWithoutTReadsTAsNull() throws {
            let rule = try loadRule(
                """
                id: t.no-t
                title: a malformed line has no t
                for: corpus
                every: { ev: $malformed }
                expect: "t == null and type(t) == 'null'"
                """)
            let result = judge(
                rule, "{\"t\":0,\"ev\":\"x.a\"}\noops\n{\"t\":\"late\",\"ev\":\"x.b\"}\n")
            #expect(CheckKindVerdict(result) == CheckKindVerdict(.pass, []))
        }
    }
}

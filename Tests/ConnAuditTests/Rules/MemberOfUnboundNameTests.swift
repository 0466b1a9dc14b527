import Testing

@testable import ConnAudit

/// `x.f` reads a member of something the rule binds: a let, a capture or a named result. A name
/// nothing in the rule binds is a misspelt or missing capture, and a load error at the name
/// (inside a history call's selector, at the call); a key of an object field is read with
/// brackets.
@Suite struct MemberOfUnboundNameTests {
    @Test(
        "a member of a name nothing binds is an error at its place",
        arguments: [
            (
                """
                rules:
                  - id: ws.a
                    title: A
                    each: { ev: ws.ping, as: p }
                    followed_by: { ev: ws.pong, where: "gen == 1️⃣oo.gen" }
                    within_ms: 100
                """,
                "'oo' is not a capture, let or result of this rule (in oo.gen); a key of an object field is read as oo['gen']"
            ),
            (
                """
                rules:
                  - id: ws.a
                    title: A
                    every: { ev: ws.close, as: c }
                    expect: "1️⃣count({ev: ws.ping, where: 'gen == cc.gen'}) >= 0"
                """, "'cc' is not a capture, let or result of this rule (in cc.gen)"
            ),
            (
                """
                rules:
                  - id: ws.a
                    title: A
                    every: { ev: ws.close, as: c }
                    expect: "c.reason != null"
                    message: "closed after {1️⃣q.t}"
                """, "'q' is not a capture, let or result of this rule (in q.t)"
            ),
            (
                """
                rules:
                  - id: ws.a
                    title: A
                    let: { L: "1️⃣b.k" }
                    every: { ev: ws.close }
                    expect: "L == null"
                """, "'b' is not a capture, let or result of this rule (in b.k)"
            )
        ])
    func unboundMemberIsAnError(_ yaml: String, _ message: String) throws {
        let marked = MarkedRules(yaml)
        let errors = try #require(loadErrors([("rules/a.yaml", marked.text)]), "the file loaded")
        #expect(errors.count == 1, "\(errors)")
        expectDiagnostic(try #require(errors.first), at: marked, containing: message)
    }

    @Test("what the rule binds anywhere may be read as x.f")
    func boundNamesLoad() throws {
        let yaml = """
            let: { E: "first({ev: app.scene})" }
            rules:
              - id: ws.bound
                title: every kind of binding read with a member
                for: generation
                let: { L: "count({ev: ws.ping, where: 'gen == b.gen'})", P: "last({ev: ws.ping})" }
                forbid:
                  - { ev: ws.connect, where: "L >= 0 and P.t >= 0 and E.phase != 'x'" }
                  - { ev: ws.close, as: b }
                message: >-
                  {b.reason} {params.limit} {headers['host']}
                params: { limit: 3 }
              - id: ws.results
                title: results bound in an expression, read in another
                for: generation
                every: { ev: ws.close, as: c }
                expect: >-
                  last({ev: ws.ping, as: q}) != null and
                  count({ev: ws.pong, where: "first({ev: ws.ping, as: z}) != null and z.gen == gen"}) >= 0
                message: "{q.t} {z.gen} {c.reason}"
              - id: ws.other
                title: a capture of another term
                for: generation
                every: [{ ev: ws.open, as: o }, { ev: ws.close }]
                expect: "o == null or o.gen >= 0"
            """
        #expect(loadErrors([("rules/b.yaml", yaml)]) == nil)
    }
}

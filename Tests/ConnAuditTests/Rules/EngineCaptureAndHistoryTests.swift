import Testing

@testable import ConnAudit

extension EngineTests {
    @Test func capturesAreVisibleInTheWhereOfAHistoryFunction() throws {
        let r = try rule(
            """
            id: t.answered
            title: Each pong answers exactly one ping
            for: source
            every: { ev: ws.pong, as: p }
            expect: "count({ev: ws.ping, where: 'id == p.id'}) == 1"
            """)
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.ping","gen":1,"id":1}
            {"t":1,"ev":"ws.pong","gen":1,"id":1}
            {"t":2,"ev":"ws.pong","gen":1,"id":2}
            {"t":3,"ev":"ws.ping","gen":1,"id":3}
            {"t":4,"ev":"ws.ping","gen":1,"id":3}
            {"t":5,"ev":"ws.pong","gen":1,"id":3}
            """)
        #expect(lines(result.violations) == [3, 6])
    }

    @Test func countSinceASelector() throws {
        let r = try rule(
            """
            id: t.one-outstanding
            title: At most one ping without a pong
            every: { ev: ws.ping }
            expect: "count({ev: ws.ping}, since: {ev: ws.pong}) == 0"
            """)
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.ping","gen":1}
            {"t":1,"ev":"ws.pong","gen":1}
            {"t":2,"ev":"ws.ping","gen":1}
            {"t":3,"ev":"ws.ping","gen":1}
            {"t":4,"ev":"ws.pong","gen":1}
            {"t":5,"ev":"ws.ping","gen":1}
            {"t":6,"ev":"ws.ping","gen":1}
            """)
        #expect(lines(result.violations) == [4, 7])
    }

    @Test func countSinceACapture() throws {
        // A ping is answered when a pong follows it: `since: q` looks only after the captured ping.
        let r = try rule(
            """
            id: t.answered-before-close
            title: Every ping is answered before the close
            every: { ev: ws.close }
            expect: "count({ev: ws.ping, as: q, where: 'count({ev: ws.pong}, since: q) == 0'}) == 0"
            """)
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.connect","gen":1}
            {"t":1,"ev":"ws.ping","gen":1}
            {"t":2,"ev":"ws.pong","gen":1}
            {"t":3,"ev":"ws.ping","gen":1}
            {"t":4,"ev":"ws.close","gen":1,"reason":"pong_timeout"}
            {"t":5,"ev":"ws.connect","gen":2}
            {"t":6,"ev":"ws.ping","gen":2}
            {"t":7,"ev":"ws.pong","gen":2}
            {"t":8,"ev":"ws.close","gen":2,"reason":"user"}
            """)
        #expect(lines(result.violations) == [5])
    }

    @Test func indexedLookupKeyedByAStaticLet() throws {
        // `gen == S.gen` is answered from an equality index: `gen` is the candidate's side and
        // `S.gen` (a let over a running aggregate) the outer side, whatever S was when the index
        // was built. The second check must find the gen 2 item.
        let r = try rule(
            """
            id: t.item-of-latest-start
            title: An item of the latest start exists
            for: source
            let: { S: "last({ev: a.start})" }
            every: { ev: a.check }
            expect: "count({ev: a.item, where: 'gen == S.gen and ok == true'}) == 1"
            """)
        let result = run(
            r,
            """
            {"t":0,"ev":"a.start","gen":1}
            {"t":1,"ev":"a.item","gen":1,"ok":true}
            {"t":2,"ev":"a.check","gen":1}
            {"t":3,"ev":"a.start","gen":2}
            {"t":4,"ev":"a.item","gen":2,"ok":true}
            {"t":5,"ev":"a.check","gen":1}
            {"t":6,"ev":"a.start","gen":3}
            {"t":7,"ev":"a.check","gen":3}
            """)
        #expect(lines(result.violations) == [8])
    }
}

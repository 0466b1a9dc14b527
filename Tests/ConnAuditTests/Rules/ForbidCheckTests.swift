import Testing

@testable import ConnAudit
import ConnAuditTestSupport

extension CheckKindTests {
    @Suite struct Forbid {
        @Test func twoStepsWithACaptureAndWhere() throws {
            let result = judge(
                try loadRule(
                    """
                    id: t.ping-flood
                    title: No two pings within 100 ms
                    forbid:
                      - { ev: ws.ping, as: p }
                      - { ev: ws.ping, where: "t < p.t + 100" }
                    message: "ping {t - p.t} ms after the one at line {p.$line}"
                    """),
                """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":50,"ev":"ws.ping","gen":1}
                {"t":300,"ev":"ws.ping","gen":1}
                {"t":350,"ev":"ws.ping","gen":1}
                {"t":360,"ev":"ws.ping","gen":1}
                """)
            // Line 5 completes two matches (p = line 3 and p = line 4): one violation for its
            // anchor.
            #expect(CheckKindVerdict(result) == CheckKindVerdict(.fail, [2, 4, 5]))
            #expect(result.violations.first?.message == "ping 50 ms after the one at line 1")
        }

        @Test func threeStepsWithCaptures() throws {
            let v = try verdict(
                """
                id: t.double-pong
                title: A ping is answered once
                forbid:
                  - { ev: ws.ping, as: p }
                  - { ev: ws.pong, as: q, where: "id == p.id" }
                  - { ev: ws.pong, where: "id == q.id" }
                """,
                """
                {"t":0,"ev":"ws.ping","gen":1,"id":1}
                {"t":1,"ev":"ws.pong","gen":1,"id":1}
                {"t":2,"ev":"ws.ping","gen":1,"id":2}
                {"t":3,"ev":"ws.pong","gen":1,"id":2}
                {"t":4,"ev":"ws.pong","gen":1,"id":1}
                {"t":5,"ev":"ws.pong","gen":1,"id":3}
                {"t":6,"ev":"ws.pong","gen":1,"id":1}
                """)
            #expect(v == CheckKindVerdict(.fail, [5, 7]))
        }

        /// A step's `without` restricts only the gap before that step; a rule-level `without` the
        /// whole span from the first step to the last.
        @Test(arguments: [
            ("step", "start reset mid end", CheckKindVerdict(.pass, [])),
            ("step", "start mid reset end", CheckKindVerdict(.fail, [4])),
            ("step", "reset start mid end", CheckKindVerdict(.fail, [4])),
            ("step", "start mid end reset", CheckKindVerdict(.fail, [3])),
            ("rule", "start reset mid end", CheckKindVerdict(.pass, [])),
            ("rule", "start mid reset end", CheckKindVerdict(.pass, [])),
            ("rule", "reset start mid end", CheckKindVerdict(.fail, [4])),
            ("rule", "start mid end reset", CheckKindVerdict(.fail, [3])),
            // a second start after the reset begins a new match
            ("rule", "start reset start mid end", CheckKindVerdict(.fail, [5]))
        ])
        func withoutPlacement(_ placement: String, _ order: String, _ expected: CheckKindVerdict)
            throws
        {
            let steps =
                placement == "step"
                ? "forbid:\n  - { ev: a.start }\n  - { ev: a.mid, without: { ev: a.reset } }\n  - { ev: a.end }"
                : "forbid:\n  - { ev: a.start }\n  - { ev: a.mid }\n  - { ev: a.end }\nwithout: { ev: a.reset }"
            let log = order.split(separator: " ").enumerated().map { i, name in
                #"{"t":\#(i),"ev":"a.\#(name)","gen":1}"#
            }.joined(separator: "\n")
            let v = try verdict("id: t.seq\ntitle: No start, mid, end\n" + steps, log)
            #expect(v == expected)
        }

        @Test func withoutSeesTheCaptures() throws {
            let v = try verdict(
                """
                id: t.reopen
                title: No send on a connection after its close, unless reopened
                forbid:
                  - { ev: ws.close, as: c }
                  - { ev: ws.send, where: "conn == c.conn" }
                without: { ev: ws.open, where: "conn == c.conn" }
                """,
                """
                {"t":0,"ev":"ws.close","gen":1,"conn":"a"}
                {"t":1,"ev":"ws.close","gen":1,"conn":"b"}
                {"t":2,"ev":"ws.open","gen":1,"conn":"a"}
                {"t":3,"ev":"ws.send","gen":1,"conn":"a"}
                {"t":4,"ev":"ws.send","gen":1,"conn":"b"}
                """)
            #expect(v == CheckKindVerdict(.fail, [5]))
        }

        /// `report_at` points the violation at an earlier step's event, once per anchor.
        @Test(
            arguments: [
                (nil, CheckKindVerdict(.fail, [2, 3, 5])), ("c", CheckKindVerdict(.fail, [1, 4]))
            ] as [(String?, CheckKindVerdict)])
        func reportAt(_ reportAt: String?, _ expected: CheckKindVerdict) throws {
            let result = judge(
                try loadRule(
                    """
                    id: t.send-after-close
                    title: No send after a close
                    forbid:
                      - { ev: ws.close, as: c }
                      - { ev: ws.send }
                    """ + (reportAt.map { "\nreport_at: \($0)" } ?? "")),
                """
                {"t":0,"ev":"ws.close","gen":1}
                {"t":1,"ev":"ws.send","gen":1}
                {"t":2,"ev":"ws.send","gen":1}
                {"t":3,"ev":"ws.close","gen":2}
                {"t":4,"ev":"ws.send","gen":2}
                """)
            #expect(CheckKindVerdict(result) == expected)
            if reportAt != nil {
                #expect(result.violations.map(\.t) == [0, 3])
                #expect(result.violations.map(\.gen) == [1, 2])
            }
        }

        /// `report_gen` gives a violation a capture's `gen` instead of its anchor's (none when the
        /// captured event has none); matches that differ in that capture are obligations of their
        /// own.
        @Test(arguments: [(nil, [7, 7]), ("s", [2, nil]), ("x", [7, 7])] as [(String?, [UInt64?])])
        func reportGen(_ reportGen: String?, _ gens: [UInt64?]) throws {
            let result = judge(
                try loadRule(
                    """
                    id: t.scene-stops
                    title: A scene change stops what was started
                    for: source
                    each:
                      - { ev: x.start, as: s }
                      - { ev: app.scene, as: x }
                    followed_by: { ev: x.stop, where: "gen == s.gen" }
                    within_ms: 100
                    """ + (reportGen.map { "\nreport_gen: \($0)" } ?? "")),
                """
                {"t":0,"ev":"x.start","gen":1}
                {"t":1,"ev":"x.start","gen":2}
                {"t":2,"ev":"x.start"}
                {"t":5,"ev":"app.scene","phase":"background","gen":7}
                {"t":50,"ev":"x.stop","gen":1}
                {"t":1000,"ev":"app.tick"}
                """)
            #expect(result.violations.map(\.gen) == gens)
            #expect(result.violations.compactMap(\.line) == [4, 4])
        }

        /// default-pack.md: one violation per live generation at the `app.scene` — each about its
        /// generation, and so carrying its gen (the `app.scene` has none).
        @Test func aSceneViolationCarriesItsLiveGeneration() throws {
            let rule = try #require(
                RuleLoader.builtin().rules.first { $0.id == "app.inactive-releases" })
            let result = judge(
                rule,
                """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":10,"ev":"ws.connect","gen":2}
                {"t":500,"ev":"app.scene","phase":"background"}
                {"t":3000,"ev":"app.scene","phase":"active"}
                """)
            #expect(result.violations.compactMap(\.line) == [3, 3])
            #expect(result.violations.map(\.gen) == [1, 2])
        }

        @Test func messageHolesOfAViolationReportedAtAnEarlierStep() throws {
            let result = judge(
                try loadRule(
                    """
                    id: t.send-after-close
                    title: No send after a close
                    forbid:
                      - { ev: ws.close, as: c }
                      - { ev: ws.send }
                    report_at: c
                    message: "{ev} at t={t}, closed at t={c.t}"
                    """),
                """
                {"t":0,"ev":"ws.close","gen":1}
                {"t":5,"ev":"ws.send","gen":1}
                """)
            #expect(result.violations.compactMap(\.line) == [1])
            #expect(result.violations.map(\.message) == ["ws.close at t=0, closed at t=0"])

        }

        @Test func aSequenceNeedsItsStepsInOrder() throws {
            let v = try verdict(
                """
                id: t.order
                title: No b after a
                forbid: [{ ev: x.a }, { ev: x.b }]
                """,
                """
                {"t":0,"ev":"x.b","gen":1}
                {"t":1,"ev":"x.a","gen":1}
                {"t":2,"ev":"x.c","gen":1}
                {"t":3,"ev":"x.a","gen":2}
                """)
            #expect(v == CheckKindVerdict(.pass, []))
        }

        /// The corpus timeline numbers its events, so two captures of one step are two `$seq`s: a
        /// sequence keeps both and matches with the second.
        @Test(arguments: ["corpus", "source"])
        func corpusSequencesTellCapturesApart(_ scope: String) throws {
            let rule = try loadRule(
                """
                id: t.pair
                title: a then b with the same n
                for: \(scope)
                forbid:
                  - { ev: x.a, as: p }
                  - { ev: x.b, where: "n == p.n" }
                message: "{$seq}"
                """)
            let log = """
                {"t":0,"ev":"x.a","n":1}
                {"t":1,"ev":"x.a","n":2}
                {"t":2,"ev":"x.b","n":2}

                """
            let result = judge(rule, log)
            #expect(CheckKindVerdict(result) == CheckKindVerdict(.fail, [3]))
            #expect(result.violations.map(\.message) == ["3"])
        }
    }
}

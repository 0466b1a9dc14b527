import Testing

@testable import ConnAudit
import ConnAuditTestSupport

extension CheckKindTests {
    @Suite struct Response {
        private static let pingAnswered = """
            id: t.answered
            title: Every ping is answered
            each: { ev: ws.ping, as: p }
            followed_by: { ev: [ws.pong, ws.close] }
            within_ms: 100
            """

        private static let pongWithin50 = """
            id: t.fast
            title: Pong within 50 ms
            each: { ev: ws.ping }
            followed_by: { ev: ws.pong }
            within_ms: 50
            """

        @Test func satisfiedWhenEveryTriggerIsAnsweredInTime() throws {
            let v = try verdict(
                Self.pingAnswered,
                """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":10,"ev":"ws.ping","gen":1}
                {"t":20,"ev":"ws.pong","gen":1}
                {"t":200,"ev":"ws.ping","gen":1}
                {"t":300,"ev":"ws.close","gen":1,"reason":"user"}
                """)
            #expect(v == CheckKindVerdict(.pass, []))
        }

        @Test func violatedAtTheTriggersLine() throws {
            let result = judge(
                try loadRule(Self.pingAnswered),
                """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":10,"ev":"ws.ping","gen":1}
                {"t":20,"ev":"ws.pong","gen":1}
                {"t":100,"ev":"ws.ping","gen":1}
                {"t":250,"ev":"ws.message","gen":1}
                {"t":260,"ev":"ws.pong","gen":1}
                """)
            #expect(CheckKindVerdict(result) == CheckKindVerdict(.fail, [4]))
            #expect(result.violations.first?.t == 100)
            #expect(
                result.violations.first?.message == "Every ping is answered (no answer by t=200)")
        }

        /// One event settles some open obligations and passes others' deadlines: each is decided
        /// once, in the order the triggers came, and the ones still open stay open.
        @Test func oneEventDecidesSeveralObligationsInOrder() throws {
            let rule = try loadRule(
                """
                id: t.correlated
                title: Every request gets its own response
                for: source
                each: { ev: req, as: r }
                followed_by: { ev: resp, where: "id == r.id" }
                within_ms: 100
                """)
            let result = judge(
                rule,
                """
                {"t":0,"ev":"req","id":1}
                {"t":10,"ev":"req","id":2}
                {"t":20,"ev":"req","id":3}
                {"t":150,"ev":"req","id":4}
                {"t":150,"ev":"req","id":5}
                {"t":160,"ev":"resp","id":5}
                {"t":170,"ev":"resp","id":4}
                {"t":400,"ev":"tick"}
                """)
            // Requests 1-3 pass their deadlines at the first event after t=120; 4 and 5 are
            // answered.
            #expect(CheckKindVerdict(result) == CheckKindVerdict(.fail, [1, 2, 3]))
            let late = judge(
                rule,
                """
                {"t":0,"ev":"req","id":1}
                {"t":10,"ev":"req","id":2}
                {"t":20,"ev":"req","id":3}
                {"t":30,"ev":"resp","id":2}
                {"t":40,"ev":"resp","id":9}
                {"t":50,"ev":"resp","id":3}
                {"t":90,"ev":"resp","id":1}
                {"t":300,"ev":"tick"}
                """)
            #expect(CheckKindVerdict(late) == CheckKindVerdict(.pass, []))
            let mixed = judge(
                rule,
                """
                {"t":0,"ev":"req","id":1}
                {"t":50,"ev":"req","id":2}
                {"t":60,"ev":"req","id":3}
                {"t":105,"ev":"resp","id":2}
                {"t":120,"ev":"resp","id":1}
                {"t":300,"ev":"tick"}
                """)
            // At t=105 request 1 is past its deadline (t=100) and 2 is answered; 3 stays open until
            // its deadline passes.
            #expect(CheckKindVerdict(mixed) == CheckKindVerdict(.fail, [1, 3]))
        }

        /// `within_ms` is inclusive: an answer exactly at trigger.t + within is in time, 1 ms later
        /// is not.
        @Test(arguments: [
            (150, CheckKindVerdict(.pass, [])), (151, CheckKindVerdict(.fail, [2])),
            (149, CheckKindVerdict(.pass, []))
        ])
        func withinIsInclusive(_ answerT: Int, _ expected: CheckKindVerdict) throws {
            let v = try verdict(
                Self.pongWithin50,
                """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":100,"ev":"ws.ping","gen":1}
                {"t":\(answerT),"ev":"ws.pong","gen":1}
                """)
            #expect(v == expected)
        }

        /// rules.md "The clock": a generation's deadline is decided by any event of its source —
        /// another generation's, another stream's, one without `gen` — but not by another source's
        /// events.
        @Test(arguments: [
            // another generation of the same stream: its own ping is left open at the end
            (#"{"t":151,"ev":"ws.ping","gen":2}"#, CheckKindVerdict(.fail, [2], [3])),
            (#"{"t":151,"ev":"ws.message","gen":2}"#, CheckKindVerdict(.fail, [2])),
            // another stream with the same gen number: another timeline
            (#"{"t":151,"ev":"path.update","gen":1}"#, CheckKindVerdict(.fail, [2])),
            // an event without gen (it reaches no generation timeline)
            (#"{"t":151,"ev":"app.scene","phase":"active"}"#, CheckKindVerdict(.fail, [2])),
            // exactly at the deadline, and the log ends there: the deadline was reached
            (#"{"t":150,"ev":"app.scene","phase":"active"}"#, CheckKindVerdict(.fail, [2])),
            // before the deadline: the log ends before it, undecided
            (
                #"{"t":149,"ev":"app.scene","phase":"active"}"#,
                CheckKindVerdict(.inconclusive, [], [2])
            ),
            // another source: its clock is its own
            (
                #"{"t":151,"src":"other","ev":"app.scene","phase":"active"}"#,
                CheckKindVerdict(.inconclusive, [], [2])
            )
        ])
        func theDeadlineIsDecidedByAnyEventOfTheSource(
            _ decider: String, _ expected: CheckKindVerdict
        ) throws {
            let v = try verdict(
                Self.pongWithin50,
                """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":100,"ev":"ws.ping","gen":1}
                \(decider)
                """)
            #expect(v == expected)
        }

        @Test func anEventOfAnotherGenerationDecidesBeforeTheLateAnswerArrives() throws {
            // The gen-2 event at t=151 decides gen 1's deadline: the late pong after it changes
            // nothing.
            let result = judge(
                try loadRule(Self.pongWithin50),
                """
                {"t":100,"ev":"ws.ping","gen":1}
                {"t":151,"ev":"ws.connect","gen":2}
                {"t":152,"ev":"ws.pong","gen":1}
                """)
            #expect(CheckKindVerdict(result) == CheckKindVerdict(.fail, [1]))
            #expect(result.violations.count == 1)
            #expect(result.violations.first?.gen == 1)
        }

        @Test func aLogEndingBeforeTheDeadlineIsInconclusive() throws {
            let result = judge(
                try loadRule(Self.pongWithin50),
                """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":100,"ev":"ws.ping","gen":1}
                {"t":120,"ev":"ws.message","gen":1}
                """)
            #expect(result.status == .inconclusive)
            #expect(result.violations.isEmpty)
            #expect(result.inconclusive.compactMap(\.line) == [2])
            #expect(
                result.inconclusive.first?.message
                    == "Pong within 50 ms (the log ends before t=150 without an answer)")
        }

        @Test func aLogWhoseLastEventIsExactlyAtTheDeadlineIsAViolation() throws {
            let v = try verdict(
                """
                id: t.fast
                title: Pong within 50 ms
                each: { ev: ws.ping }
                followed_by: { ev: ws.pong }
                within_ms: 50
                at_end: pass
                """,
                """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":100,"ev":"ws.ping","gen":1}
                {"t":150,"ev":"ws.message","gen":1}
                """)
            // at_end does not apply: the deadline was reached, the obligation is decided.
            #expect(v == CheckKindVerdict(.fail, [2]))
        }

        /// `at_end:` decides an obligation without a deadline still open at the end.
        @Test(
            arguments: [
                (nil, CheckKindVerdict(.inconclusive, [], [3])),
                ("inconclusive", CheckKindVerdict(.inconclusive, [], [3])),
                ("fail", CheckKindVerdict(.fail, [3])),
                ("pass", CheckKindVerdict(.pass, []))
            ] as [(String?, CheckKindVerdict)])
        func atEnd(_ atEnd: String?, _ expected: CheckKindVerdict) throws {
            let v = try verdict(
                """
                id: t.answered
                title: Every ping is answered
                each: { ev: ws.ping }
                followed_by: { ev: ws.pong }
                """ + (atEnd.map { "\nat_end: \($0)" } ?? ""),
                """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":1,"ev":"ws.pong","gen":1}
                {"t":2,"ev":"ws.ping","gen":1}
                {"t":9000,"ev":"ws.message","gen":1}
                """)
            #expect(v == expected)
        }

        @Test func atEndFailSaysWhy() throws {
            let result = judge(
                try loadRule(
                    """
                    id: t.answered
                    title: Every ping is answered
                    each: { ev: ws.ping }
                    followed_by: { ev: ws.pong }
                    at_end: fail
                    """), #"{"t":0,"ev":"ws.ping","gen":1}"#)
            #expect(
                result.violations.map(\.message) == [
                    "Every ping is answered (the log ends without an answer)"
                ])
        }

        /// `unless` releases the obligation, but only before the deadline.
        @Test(arguments: [
            (50, CheckKindVerdict(.pass, [])),
            (100, CheckKindVerdict(.pass, [])),
            (101, CheckKindVerdict(.fail, [1]))
        ])
        func unlessReleasesBeforeTheDeadline(_ closedT: Int, _ expected: CheckKindVerdict) throws {
            let v = try verdict(
                """
                id: t.answered
                title: Every ping is answered
                each: { ev: ws.ping }
                followed_by: { ev: ws.pong }
                within_ms: 100
                unless: { ev: ws.closed }
                """,
                """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":\(closedT),"ev":"ws.closed","gen":1}
                """)
            #expect(v == expected)
        }

        @Test func anEventNeverAnswersItsOwnTrigger() throws {
            // Trigger and answer selectors both match every ws.ping.
            let rule = """
                id: t.next-ping
                title: Every ping is followed by another
                each: { ev: ws.ping }
                followed_by: { ev: ws.ping }
                at_end: fail
                """
            #expect(
                try verdict(rule, #"{"t":0,"ev":"ws.ping","gen":1}"#)
                    == CheckKindVerdict(.fail, [1]))
            #expect(
                try verdict(
                    rule,
                    """
                    {"t":0,"ev":"ws.ping","gen":1}
                    {"t":1,"ev":"ws.ping","gen":1}
                    {"t":2,"ev":"ws.ping","gen":1}
                    """) == CheckKindVerdict(.fail, [3]))
        }

        @Test func triggerCapturesAreVisibleInFollowedByAndUnless() throws {
            let v = try verdict(
                """
                id: t.matched
                title: Every request gets its own response
                each: { ev: rpc.request, as: q }
                followed_by: { ev: rpc.response, where: "id == q.id" }
                unless: { ev: rpc.cancel, where: "id == q.id" }
                at_end: fail
                """,
                """
                {"t":0,"ev":"rpc.request","gen":1,"id":1}
                {"t":1,"ev":"rpc.request","gen":1,"id":2}
                {"t":2,"ev":"rpc.response","gen":1,"id":2}
                {"t":3,"ev":"rpc.cancel","gen":1,"id":1}
                {"t":4,"ev":"rpc.request","gen":1,"id":3}
                {"t":5,"ev":"rpc.response","gen":1,"id":4}
                {"t":6,"ev":"rpc.cancel","gen":1,"id":4}
                """)
            #expect(v == CheckKindVerdict(.fail, [5]))
        }

        /// `within_ms` is an expression over the trigger: a let (from the generation's connect) and
        /// params.
        @Test func withinAsAnExpressionOfALetAndParams() throws {
            let v = try verdict(
                """
                id: t.deadline
                title: Pong before the deadline
                params: { slack: 5, default_ms: 100 }
                let: { T: "first({ev: ws.connect}).timeout_ms ?? params.default_ms" }
                each: { ev: ws.ping }
                followed_by: { ev: ws.pong }
                within_ms: "T + params.slack"
                """,
                """
                {"t":0,"ev":"ws.connect","gen":1,"timeout_ms":50}
                {"t":100,"ev":"ws.ping","gen":1}
                {"t":155,"ev":"ws.pong","gen":1}
                {"t":1000,"ev":"ws.connect","gen":2}
                {"t":1000,"ev":"ws.ping","gen":2}
                {"t":1105,"ev":"ws.pong","gen":2}
                {"t":2000,"ev":"ws.connect","gen":3}
                {"t":2000,"ev":"ws.ping","gen":3}
                {"t":2106,"ev":"ws.pong","gen":3}
                {"t":3000,"ev":"ws.connect","gen":4,"timeout_ms":50}
                {"t":3000,"ev":"ws.ping","gen":4}
                {"t":3056,"ev":"ws.pong","gen":4}
                """)
            // gen 1: 50 + 5, pong at +55 is in time; gen 2: 100 + 5 at +105 in time; gen 3: +106
            // late; gen 4: 50 + 5, +56 late.
            #expect(v == CheckKindVerdict(.fail, [8, 11]))
        }

        @Test func anUndecidedWithinIsInconclusive() throws {
            let result = judge(
                try loadRule(
                    """
                    id: t.deadline
                    title: Pong before the deadline
                    each: { ev: ws.ping }
                    followed_by: { ev: ws.pong }
                    within_ms: "first({ev: ws.connect}).timeout_ms"
                    """),
                """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":1,"ev":"ws.pong","gen":1}
                """)
            #expect(CheckKindVerdict(result) == CheckKindVerdict(.inconclusive, [], [1]))
            #expect(result.inconclusive.first?.message.contains("within_ms is undecided") == true)
        }

        private static let startStepDone = """
            {"t":0,"ev":"job.start","gen":1,"id":1}
            {"t":1,"ev":"job.start","gen":1,"id":2}
            {"t":2,"ev":"job.step","gen":1}
            """

        /// A sequence trigger makes one obligation per match of the whole sequence: two starts
        /// before one step are two matches, both anchored at the step (the last step) without
        /// `report_at`.
        @Test(
            arguments: [
                (nil, "", CheckKindVerdict(.fail, [3, 3])),
                (nil, #"{"t":3,"ev":"job.done","gen":1,"id":1}"#, CheckKindVerdict(.fail, [3])),
                (nil, #"{"t":3,"ev":"job.done","gen":1,"id":2}"#, CheckKindVerdict(.fail, [3])),
                ("s", "", CheckKindVerdict(.fail, [1, 2])),
                ("s", #"{"t":3,"ev":"job.done","gen":1,"id":1}"#, CheckKindVerdict(.fail, [2])),
                ("s", #"{"t":3,"ev":"job.done","gen":1,"id":2}"#, CheckKindVerdict(.fail, [1]))
            ] as [(String?, String, CheckKindVerdict)])
        func sequenceTriggersMakeOneObligationPerMatch(
            _ reportAt: String?, _ extra: String, _ expected: CheckKindVerdict
        ) throws {
            let v = try verdict(
                """
                id: t.jobs
                title: Every started job that stepped is done
                each:
                  - { ev: job.start, as: s }
                  - { ev: job.step }
                followed_by: { ev: job.done, where: "id == s.id" }
                at_end: fail
                """ + (reportAt.map { "\nreport_at: \($0)" } ?? ""),
                Self.startStepDone + (extra.isEmpty ? "" : "\n" + extra))
            #expect(v == expected)
        }

        /// With `report_at`, the anchor is one event however many matches share it: one obligation.
        @Test(
            arguments: [(nil, CheckKindVerdict(.fail, [2, 3])), ("s", CheckKindVerdict(.fail, [1]))]
                as [(String?, CheckKindVerdict)])
        func reportAtMakesOneObligationPerAnchor(_ reportAt: String?, _ expected: CheckKindVerdict)
            throws
        {
            let result = judge(
                try loadRule(
                    """
                    id: t.jobs
                    title: Every started job that stepped is done
                    each:
                      - { ev: job.start, as: s }
                      - { ev: job.step }
                    followed_by: { ev: job.done }
                    at_end: fail
                    """ + (reportAt.map { "\nreport_at: \($0)" } ?? "")),
                """
                {"t":0,"ev":"job.start","gen":1,"id":1}
                {"t":1,"ev":"job.step","gen":1}
                {"t":2,"ev":"job.step","gen":1}
                """)
            #expect(CheckKindVerdict(result) == expected)
        }

        /// docs/rules.md: message holes "are evaluated at the event the violation points at". A
        /// deadline violation is found later than its trigger: a let keeps the trigger's value.
        @Test func messageHolesOfALateViolationThroughALet() throws {
            let result = judge(
                try loadRule(
                    """
                    id: t.msg
                    title: T
                    let: { N: "count({ev: ws.ping})" }
                    each: { ev: ws.ping }
                    followed_by: { ev: ws.pong }
                    within_ms: 10
                    message: "ping after {N} earlier pings, t={t}"
                    """),
                """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":1,"ev":"ws.ping","gen":1}
                {"t":2,"ev":"ws.ping","gen":1}
                {"t":100,"ev":"ws.message","gen":1}
                """)
            #expect(
                result.violations.map(\.message) == [
                    "ping after 0 earlier pings, t=0", "ping after 1 earlier pings, t=1",
                    "ping after 2 earlier pings, t=2"
                ])
        }

        @Test func messageHolesOfALateViolationWithAHistoryCall() throws {
            let result = judge(
                try loadRule(
                    """
                    id: t.msg
                    title: T
                    each: { ev: ws.ping }
                    followed_by: { ev: ws.pong }
                    within_ms: 10
                    message: "ping after {count({ev: ws.ping})} earlier pings, t={t}"
                    """),
                """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":1,"ev":"ws.ping","gen":1}
                {"t":2,"ev":"ws.ping","gen":1}
                {"t":100,"ev":"ws.message","gen":1}
                """)
            #expect(result.violations.compactMap(\.line) == [1, 2, 3])
            #expect(
                result.violations.map(\.message) == [
                    "ping after 0 earlier pings, t=0", "ping after 1 earlier pings, t=1",
                    "ping after 2 earlier pings, t=2"
                ])

        }

        @Test func lateAnswersOfSeveralObligationsAreEachAViolation() throws {
            let v = try verdict(
                """
                id: t.fast
                title: Pong within 10 ms
                each: { ev: ws.ping }
                followed_by: { ev: ws.pong }
                within_ms: 10
                """,
                """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":5,"ev":"ws.ping","gen":1}
                {"t":14,"ev":"ws.ping","gen":1}
                {"t":15,"ev":"ws.pong","gen":1}
                """)
            // Ping 1 is late at t=15; pings 2 (deadline 15, inclusive) and 3 are answered.
            #expect(v == CheckKindVerdict(.fail, [1]))
        }

        /// A negative `within_ms` (from `--param` or the log) would put the deadline before the
        /// trigger; the trigger is left undecided, as with an undecided one.
        @Test func aNegativeDeadlineIsInconclusive() throws {
            let rule = try loadRule(
                """
                id: t.answered
                title: each ping is answered
                for: source
                params: { ms: 100 }
                each: { ev: ws.ping, as: p }
                followed_by: { ev: ws.pong }
                within_ms: "p.timeout ?? params.ms"
                """)
            let log = """
                {"t":0,"ev":"ws.ping","gen":1,"timeout":-5}
                {"t":50,"ev":"ws.pong","gen":1}
                {"t":100,"ev":"ws.ping","gen":1}
                {"t":150,"ev":"ws.pong","gen":1}

                """
            let result = judge(rule, log)
            #expect(CheckKindVerdict(result) == CheckKindVerdict(.inconclusive, [], [1]))
            #expect(
                result.inconclusive.first?.message.contains("within_ms is negative (-5)") == true)
        }
    }
}

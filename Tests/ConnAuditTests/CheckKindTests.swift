import Testing

@testable import ConnAudit
import ConnAuditTestSupport

// Tests of the rule engine, one check kind at a time (each/followed_by, each/preceded_by,
// each/never_after, forbid, never with scopes, count, classify), the scopes, history semantics,
// lets, and equivalences that guard the engine's optimisations (static history calls answered
// from running aggregates, correlated ones from lists, the equality-join index).
//
// Every test writes a small rule in YAML, runs it over an in-memory log through the Auditor and
// asserts the exact status, violation lines and inconclusive lines.

// MARK: - Helpers

extension CheckKindTests {
    /// Loads one rule written as a YAML list item without the `rules:` wrapper, unindented
    /// (`id: …\ntitle: …`). `header` is put above `rules:` (file-level params and lets).
    static func loadRule(_ body: String, header: String = "") throws -> Rule {
        try #require(try RuleRuns.rules([body], file: "rules/checks.yaml", header: header).first)
    }

    /// One rule over one log: its result.
    static func judge(_ rule: Rule, _ log: String) -> RuleResult {
        RuleRuns.audit([rule], files: [("a.jsonl", log)]).results[0]
    }

    static func verdict(_ body: String, _ log: String, header: String = "") throws -> CheckKindVerdict {
        CheckKindVerdict(judge(try loadRule(body, header: header), log))
    }

    /// Everything a finding says, for comparing two runs exactly.
    static func fingerprint(_ findings: [Finding]) -> [String] {
        findings.map { f in
            "\(f.file.map(String.init) ?? "-"):\(f.line.map(String.init) ?? "-") src=\(f.source?.description ?? "-") gen=\(f.gen.map(String.init) ?? "-") t=\(f.t.map { String($0) } ?? "-") \(f.message)"
        }
    }
}

/// What a rule said about a log, in a form that compares in one `#expect`.
struct CheckKindVerdict: Equatable, Sendable, CustomStringConvertible {
    var status: RuleStatus
    var violations: [Int]
    var inconclusive: [Int] = []

    init(_ status: RuleStatus, _ violations: [Int], _ inconclusive: [Int] = []) {
        self.status = status
        self.violations = violations
        self.inconclusive = inconclusive
    }

    init(_ r: RuleResult) {
        status = r.status
        violations = r.violations.compactMap(\.line)
        inconclusive = r.inconclusive.compactMap(\.line)
    }

    var description: String { "\(status.rawValue) violations \(violations) inconclusive \(inconclusive)" }
}

/// The check kinds of the rule language, each in its own suite below.
@Suite struct CheckKindTests {}

// MARK: - each / followed_by (response)

extension CheckKindTests {
    @Suite struct Response {
        private static let pingAnswered = """
            id: t.answered
            title: Every ping is answered
            each: { ev: ws.ping, as: p }
            followed_by: { ev: [ws.pong, ws.close] }
            within_ms: 100
            """

        @Test func satisfiedWhenEveryTriggerIsAnsweredInTime() throws {
            let v = try verdict(Self.pingAnswered, """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":10,"ev":"ws.ping","gen":1}
                {"t":20,"ev":"ws.pong","gen":1}
                {"t":200,"ev":"ws.ping","gen":1}
                {"t":300,"ev":"ws.close","gen":1,"reason":"user"}
                """)
            #expect(v == CheckKindVerdict(.pass, []))
        }

        @Test func violatedAtTheTriggersLine() throws {
            let result = judge(try loadRule(Self.pingAnswered), """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":10,"ev":"ws.ping","gen":1}
                {"t":20,"ev":"ws.pong","gen":1}
                {"t":100,"ev":"ws.ping","gen":1}
                {"t":250,"ev":"ws.message","gen":1}
                {"t":260,"ev":"ws.pong","gen":1}
                """)
            #expect(CheckKindVerdict(result) == CheckKindVerdict(.fail, [4]))
            #expect(result.violations.first?.t == 100)
            #expect(result.violations.first?.message == "Every ping is answered (no answer by t=200)")
        }

        /// One event settles some open obligations and passes others' deadlines: each is decided
        /// once, in the order the triggers came, and the ones still open stay open.
        @Test func oneEventDecidesSeveralObligationsInOrder() throws {
            let rule = try loadRule("""
                id: t.correlated
                title: Every request gets its own response
                for: source
                each: { ev: req, as: r }
                followed_by: { ev: resp, where: "id == r.id" }
                within_ms: 100
                """)
            let result = judge(rule, """
                {"t":0,"ev":"req","id":1}
                {"t":10,"ev":"req","id":2}
                {"t":20,"ev":"req","id":3}
                {"t":150,"ev":"req","id":4}
                {"t":150,"ev":"req","id":5}
                {"t":160,"ev":"resp","id":5}
                {"t":170,"ev":"resp","id":4}
                {"t":400,"ev":"tick"}
                """)
            // Requests 1-3 pass their deadlines at the first event after t=120; 4 and 5 are answered.
            #expect(CheckKindVerdict(result) == CheckKindVerdict(.fail, [1, 2, 3]))
            let late = judge(rule, """
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
            let mixed = judge(rule, """
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

        /// `within_ms` is inclusive: an answer exactly at trigger.t + within is in time, 1 ms later is not.
        @Test(arguments: [(150, CheckKindVerdict(.pass, [])), (151, CheckKindVerdict(.fail, [2])), (149, CheckKindVerdict(.pass, []))])
        func withinIsInclusive(_ answerT: Int, _ expected: CheckKindVerdict) throws {
            let v = try verdict("""
                id: t.fast
                title: Pong within 50 ms
                each: { ev: ws.ping }
                followed_by: { ev: ws.pong }
                within_ms: 50
                """, """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":100,"ev":"ws.ping","gen":1}
                {"t":\(answerT),"ev":"ws.pong","gen":1}
                """)
            #expect(v == expected)
        }

        /// rules.md "The clock": a generation's deadline is decided by any event of its source — another
        /// generation's, another stream's, one without `gen` — but not by another source's events.
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
            (#"{"t":149,"ev":"app.scene","phase":"active"}"#, CheckKindVerdict(.inconclusive, [], [2])),
            // another source: its clock is its own
            (#"{"t":151,"src":"other","ev":"app.scene","phase":"active"}"#, CheckKindVerdict(.inconclusive, [], [2])),
        ])
        func theDeadlineIsDecidedByAnyEventOfTheSource(_ decider: String, _ expected: CheckKindVerdict) throws {
            let v = try verdict("""
                id: t.fast
                title: Pong within 50 ms
                each: { ev: ws.ping }
                followed_by: { ev: ws.pong }
                within_ms: 50
                """, """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":100,"ev":"ws.ping","gen":1}
                \(decider)
                """)
            #expect(v == expected)
        }

        @Test func anEventOfAnotherGenerationDecidesBeforeTheLateAnswerArrives() throws {
            // The gen-2 event at t=151 decides gen 1's deadline: the late pong after it changes nothing.
            let result = judge(try loadRule("""
                id: t.fast
                title: Pong within 50 ms
                each: { ev: ws.ping }
                followed_by: { ev: ws.pong }
                within_ms: 50
                """), """
                {"t":100,"ev":"ws.ping","gen":1}
                {"t":151,"ev":"ws.connect","gen":2}
                {"t":152,"ev":"ws.pong","gen":1}
                """)
            #expect(CheckKindVerdict(result) == CheckKindVerdict(.fail, [1]))
            #expect(result.violations.count == 1)
            #expect(result.violations.first?.gen == 1)
        }

        @Test func aLogEndingBeforeTheDeadlineIsInconclusive() throws {
            let result = judge(try loadRule("""
                id: t.fast
                title: Pong within 50 ms
                each: { ev: ws.ping }
                followed_by: { ev: ws.pong }
                within_ms: 50
                """), """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":100,"ev":"ws.ping","gen":1}
                {"t":120,"ev":"ws.message","gen":1}
                """)
            #expect(result.status == .inconclusive)
            #expect(result.violations.isEmpty)
            #expect(result.inconclusive.compactMap(\.line) == [2])
            #expect(result.inconclusive.first?.message == "Pong within 50 ms (the log ends before t=150 without an answer)")
        }

        @Test func aLogWhoseLastEventIsExactlyAtTheDeadlineIsAViolation() throws {
            let v = try verdict("""
                id: t.fast
                title: Pong within 50 ms
                each: { ev: ws.ping }
                followed_by: { ev: ws.pong }
                within_ms: 50
                at_end: pass
                """, """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":100,"ev":"ws.ping","gen":1}
                {"t":150,"ev":"ws.message","gen":1}
                """)
            // at_end does not apply: the deadline was reached, the obligation is decided.
            #expect(v == CheckKindVerdict(.fail, [2]))
        }

        /// `at_end:` decides an obligation without a deadline still open at the end.
        @Test(arguments: [
            (nil, CheckKindVerdict(.inconclusive, [], [3])),
            ("inconclusive", CheckKindVerdict(.inconclusive, [], [3])),
            ("fail", CheckKindVerdict(.fail, [3])),
            ("pass", CheckKindVerdict(.pass, [])),
        ] as [(String?, CheckKindVerdict)])
        func atEnd(_ atEnd: String?, _ expected: CheckKindVerdict) throws {
            let v = try verdict("""
                id: t.answered
                title: Every ping is answered
                each: { ev: ws.ping }
                followed_by: { ev: ws.pong }
                """ + (atEnd.map { "\nat_end: \($0)" } ?? ""), """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":1,"ev":"ws.pong","gen":1}
                {"t":2,"ev":"ws.ping","gen":1}
                {"t":9000,"ev":"ws.message","gen":1}
                """)
            #expect(v == expected)
        }

        @Test func atEndFailSaysWhy() throws {
            let result = judge(try loadRule("""
                id: t.answered
                title: Every ping is answered
                each: { ev: ws.ping }
                followed_by: { ev: ws.pong }
                at_end: fail
                """), #"{"t":0,"ev":"ws.ping","gen":1}"#)
            #expect(result.violations.map(\.message) == ["Every ping is answered (the log ends without an answer)"])
        }

        /// `unless` releases the obligation, but only before the deadline.
        @Test(arguments: [
            (50, CheckKindVerdict(.pass, [])),
            (100, CheckKindVerdict(.pass, [])),
            (101, CheckKindVerdict(.fail, [1])),
        ])
        func unlessReleasesBeforeTheDeadline(_ closedT: Int, _ expected: CheckKindVerdict) throws {
            let v = try verdict("""
                id: t.answered
                title: Every ping is answered
                each: { ev: ws.ping }
                followed_by: { ev: ws.pong }
                within_ms: 100
                unless: { ev: ws.closed }
                """, """
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
            #expect(try verdict(rule, #"{"t":0,"ev":"ws.ping","gen":1}"#) == CheckKindVerdict(.fail, [1]))
            #expect(try verdict(rule, """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":1,"ev":"ws.ping","gen":1}
                {"t":2,"ev":"ws.ping","gen":1}
                """) == CheckKindVerdict(.fail, [3]))
        }

        @Test func triggerCapturesAreVisibleInFollowedByAndUnless() throws {
            let v = try verdict("""
                id: t.matched
                title: Every request gets its own response
                each: { ev: rpc.request, as: q }
                followed_by: { ev: rpc.response, where: "id == q.id" }
                unless: { ev: rpc.cancel, where: "id == q.id" }
                at_end: fail
                """, """
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

        /// `within_ms` is an expression over the trigger: a let (from the generation's connect) and params.
        @Test func withinAsAnExpressionOfALetAndParams() throws {
            let v = try verdict("""
                id: t.deadline
                title: Pong before the deadline
                params: { slack: 5, default_ms: 100 }
                let: { T: "first({ev: ws.connect}).timeout_ms ?? params.default_ms" }
                each: { ev: ws.ping }
                followed_by: { ev: ws.pong }
                within_ms: "T + params.slack"
                """, """
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
            // gen 1: 50 + 5, pong at +55 is in time; gen 2: 100 + 5 at +105 in time; gen 3: +106 late;
            // gen 4: 50 + 5, +56 late.
            #expect(v == CheckKindVerdict(.fail, [8, 11]))
        }

        @Test func anUndecidedWithinIsInconclusive() throws {
            let result = judge(try loadRule("""
                id: t.deadline
                title: Pong before the deadline
                each: { ev: ws.ping }
                followed_by: { ev: ws.pong }
                within_ms: "first({ev: ws.connect}).timeout_ms"
                """), """
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

        /// A sequence trigger makes one obligation per match of the whole sequence: two starts before
        /// one step are two matches, both anchored at the step (the last step) without `report_at`.
        @Test(arguments: [
            (nil, "", CheckKindVerdict(.fail, [3, 3])),
            (nil, #"{"t":3,"ev":"job.done","gen":1,"id":1}"#, CheckKindVerdict(.fail, [3])),
            (nil, #"{"t":3,"ev":"job.done","gen":1,"id":2}"#, CheckKindVerdict(.fail, [3])),
            ("s", "", CheckKindVerdict(.fail, [1, 2])),
            ("s", #"{"t":3,"ev":"job.done","gen":1,"id":1}"#, CheckKindVerdict(.fail, [2])),
            ("s", #"{"t":3,"ev":"job.done","gen":1,"id":2}"#, CheckKindVerdict(.fail, [1])),
        ] as [(String?, String, CheckKindVerdict)])
        func sequenceTriggersMakeOneObligationPerMatch(_ reportAt: String?, _ extra: String, _ expected: CheckKindVerdict) throws {
            let v = try verdict("""
                id: t.jobs
                title: Every started job that stepped is done
                each:
                  - { ev: job.start, as: s }
                  - { ev: job.step }
                followed_by: { ev: job.done, where: "id == s.id" }
                at_end: fail
                """ + (reportAt.map { "\nreport_at: \($0)" } ?? ""), Self.startStepDone + (extra.isEmpty ? "" : "\n" + extra))
            #expect(v == expected)
        }

        /// With `report_at`, the anchor is one event however many matches share it: one obligation.
        @Test(arguments: [(nil, CheckKindVerdict(.fail, [2, 3])), ("s", CheckKindVerdict(.fail, [1]))] as [(String?, CheckKindVerdict)])
        func reportAtMakesOneObligationPerAnchor(_ reportAt: String?, _ expected: CheckKindVerdict) throws {
            let result = judge(try loadRule("""
                id: t.jobs
                title: Every started job that stepped is done
                each:
                  - { ev: job.start, as: s }
                  - { ev: job.step }
                followed_by: { ev: job.done }
                at_end: fail
                """ + (reportAt.map { "\nreport_at: \($0)" } ?? "")), """
                {"t":0,"ev":"job.start","gen":1,"id":1}
                {"t":1,"ev":"job.step","gen":1}
                {"t":2,"ev":"job.step","gen":1}
                """)
            #expect(CheckKindVerdict(result) == expected)
        }

        /// docs/rules.md: message holes "are evaluated at the event the violation points at". A
        /// deadline violation is found later than its trigger: a let keeps the trigger's value.
        @Test func messageHolesOfALateViolationThroughALet() throws {
            let result = judge(try loadRule("""
                id: t.msg
                title: T
                let: { N: "count({ev: ws.ping})" }
                each: { ev: ws.ping }
                followed_by: { ev: ws.pong }
                within_ms: 10
                message: "ping after {N} earlier pings, t={t}"
                """), """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":1,"ev":"ws.ping","gen":1}
                {"t":2,"ev":"ws.ping","gen":1}
                {"t":100,"ev":"ws.message","gen":1}
                """)
            #expect(result.violations.map(\.message) == [
                "ping after 0 earlier pings, t=0", "ping after 1 earlier pings, t=1", "ping after 2 earlier pings, t=2",
            ])
        }

        @Test func messageHolesOfALateViolationWithAHistoryCall() throws {
            let result = judge(try loadRule("""
                id: t.msg
                title: T
                each: { ev: ws.ping }
                followed_by: { ev: ws.pong }
                within_ms: 10
                message: "ping after {count({ev: ws.ping})} earlier pings, t={t}"
                """), """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":1,"ev":"ws.ping","gen":1}
                {"t":2,"ev":"ws.ping","gen":1}
                {"t":100,"ev":"ws.message","gen":1}
                """)
            #expect(result.violations.compactMap(\.line) == [1, 2, 3])
            #expect(result.violations.map(\.message) == [
                "ping after 0 earlier pings, t=0", "ping after 1 earlier pings, t=1", "ping after 2 earlier pings, t=2",
            ])
            
        }

        @Test func lateAnswersOfSeveralObligationsAreEachAViolation() throws {
            let v = try verdict("""
                id: t.fast
                title: Pong within 10 ms
                each: { ev: ws.ping }
                followed_by: { ev: ws.pong }
                within_ms: 10
                """, """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":5,"ev":"ws.ping","gen":1}
                {"t":14,"ev":"ws.ping","gen":1}
                {"t":15,"ev":"ws.pong","gen":1}
                """)
            // Ping 1 is late at t=15; pings 2 (deadline 15, inclusive) and 3 are answered.
            #expect(v == CheckKindVerdict(.fail, [1]))
        }
    }
}

// MARK: - each / preceded_by (precedence)

extension CheckKindTests {
    @Suite struct Precedence {
        @Test func eachTriggerNeedsAnEarlierEnablingEvent() throws {
            let rule = """
                id: t.opened
                title: Sends come after an open
                each: { ev: ws.send }
                preceded_by: { ev: ws.open }
                """
            let v = try verdict(rule, """
                {"t":0,"ev":"ws.send","gen":1}
                {"t":1,"ev":"ws.open","gen":1}
                {"t":2,"ev":"ws.send","gen":1}
                {"t":3,"ev":"ws.send","gen":2}
                """)
            #expect(v == CheckKindVerdict(.fail, [1, 4]))
            
            // Without any enabling event, every trigger fails (this holds either way).
            #expect(try verdict(rule, """
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
            let v = try verdict(rule, """
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

// MARK: - each / never_after

extension CheckKindTests {
    @Suite struct NeverAfter {
        @Test func absenceAfterEachTriggerToTheEnd() throws {
            let v = try verdict("""
                id: t.no-send-after-close
                title: Nothing is sent after a close
                each: { ev: ws.close }
                never_after: { ev: ws.send }
                """, """
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
            let v = try verdict("""
                id: t.single-close
                title: No close after a close
                each: { ev: ws.close }
                never_after: { ev: ws.close }
                """, """
                {"t":0,"ev":"ws.close","gen":1}
                {"t":1,"ev":"ws.close","gen":1}
                {"t":2,"ev":"ws.close","gen":1}
                """)
            #expect(v == CheckKindVerdict(.fail, [2, 3]))
        }

        @Test func triggerCapturesAreVisibleInNeverAfter() throws {
            let v = try verdict("""
                id: t.no-send-after-close
                title: Nothing is sent on a closed connection
                each: { ev: ws.close, as: c }
                never_after: { ev: ws.send, where: "conn == c.conn" }
                """, """
                {"t":0,"ev":"ws.close","gen":1,"conn":"a"}
                {"t":1,"ev":"ws.send","gen":1,"conn":"b"}
                {"t":2,"ev":"ws.send","gen":1,"conn":"a"}
                {"t":3,"ev":"ws.close","gen":1,"conn":"b"}
                {"t":4,"ev":"ws.send","gen":1,"conn":"b"}
                """)
            #expect(v == CheckKindVerdict(.fail, [3, 5]))
        }
    }
}

// MARK: - forbid

extension CheckKindTests {
    @Suite struct Forbid {
        @Test func twoStepsWithACaptureAndWhere() throws {
            let result = judge(try loadRule("""
                id: t.ping-flood
                title: No two pings within 100 ms
                forbid:
                  - { ev: ws.ping, as: p }
                  - { ev: ws.ping, where: "t < p.t + 100" }
                message: "ping {t - p.t} ms after the one at line {p.$line}"
                """), """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":50,"ev":"ws.ping","gen":1}
                {"t":300,"ev":"ws.ping","gen":1}
                {"t":350,"ev":"ws.ping","gen":1}
                {"t":360,"ev":"ws.ping","gen":1}
                """)
            // Line 5 completes two matches (p = line 3 and p = line 4): one violation for its anchor.
            #expect(CheckKindVerdict(result) == CheckKindVerdict(.fail, [2, 4, 5]))
            #expect(result.violations.first?.message == "ping 50 ms after the one at line 1")
        }

        @Test func threeStepsWithCaptures() throws {
            let v = try verdict("""
                id: t.double-pong
                title: A ping is answered once
                forbid:
                  - { ev: ws.ping, as: p }
                  - { ev: ws.pong, as: q, where: "id == p.id" }
                  - { ev: ws.pong, where: "id == q.id" }
                """, """
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

        /// A step's `without` restricts only the gap before that step; a rule-level `without` the whole
        /// span from the first step to the last.
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
            ("rule", "start reset start mid end", CheckKindVerdict(.fail, [5])),
        ])
        func withoutPlacement(_ placement: String, _ order: String, _ expected: CheckKindVerdict) throws {
            let steps = placement == "step"
                ? "forbid:\n  - { ev: a.start }\n  - { ev: a.mid, without: { ev: a.reset } }\n  - { ev: a.end }"
                : "forbid:\n  - { ev: a.start }\n  - { ev: a.mid }\n  - { ev: a.end }\nwithout: { ev: a.reset }"
            let log = order.split(separator: " ").enumerated().map { i, name in
                #"{"t":\#(i),"ev":"a.\#(name)","gen":1}"#
            }.joined(separator: "\n")
            let v = try verdict("id: t.seq\ntitle: No start, mid, end\n" + steps, log)
            #expect(v == expected)
        }

        @Test func withoutSeesTheCaptures() throws {
            let v = try verdict("""
                id: t.reopen
                title: No send on a connection after its close, unless reopened
                forbid:
                  - { ev: ws.close, as: c }
                  - { ev: ws.send, where: "conn == c.conn" }
                without: { ev: ws.open, where: "conn == c.conn" }
                """, """
                {"t":0,"ev":"ws.close","gen":1,"conn":"a"}
                {"t":1,"ev":"ws.close","gen":1,"conn":"b"}
                {"t":2,"ev":"ws.open","gen":1,"conn":"a"}
                {"t":3,"ev":"ws.send","gen":1,"conn":"a"}
                {"t":4,"ev":"ws.send","gen":1,"conn":"b"}
                """)
            #expect(v == CheckKindVerdict(.fail, [5]))
        }

        /// `report_at` points the violation at an earlier step's event, once per anchor.
        @Test(arguments: [(nil, CheckKindVerdict(.fail, [2, 3, 5])), ("c", CheckKindVerdict(.fail, [1, 4]))] as [(String?, CheckKindVerdict)])
        func reportAt(_ reportAt: String?, _ expected: CheckKindVerdict) throws {
            let result = judge(try loadRule("""
                id: t.send-after-close
                title: No send after a close
                forbid:
                  - { ev: ws.close, as: c }
                  - { ev: ws.send }
                """ + (reportAt.map { "\nreport_at: \($0)" } ?? "")), """
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
        /// captured event has none); matches that differ in that capture are obligations of their own.
        @Test(arguments: [(nil, [7, 7]), ("s", [2, nil]), ("x", [7, 7])] as [(String?, [UInt64?])])
        func reportGen(_ reportGen: String?, _ gens: [UInt64?]) throws {
            let result = judge(try loadRule("""
                id: t.scene-stops
                title: A scene change stops what was started
                for: source
                each:
                  - { ev: x.start, as: s }
                  - { ev: app.scene, as: x }
                followed_by: { ev: x.stop, where: "gen == s.gen" }
                within_ms: 100
                """ + (reportGen.map { "\nreport_gen: \($0)" } ?? "")), """
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
            let rule = try #require(RuleLoader.builtin().rules.first { $0.id == "app.inactive-releases" })
            let result = judge(rule, """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":10,"ev":"ws.connect","gen":2}
                {"t":500,"ev":"app.scene","phase":"background"}
                {"t":3000,"ev":"app.scene","phase":"active"}
                """)
            #expect(result.violations.compactMap(\.line) == [3, 3])
            #expect(result.violations.map(\.gen) == [1, 2])
        }

        @Test func messageHolesOfAViolationReportedAtAnEarlierStep() throws {
            let result = judge(try loadRule("""
                id: t.send-after-close
                title: No send after a close
                forbid:
                  - { ev: ws.close, as: c }
                  - { ev: ws.send }
                report_at: c
                message: "{ev} at t={t}, closed at t={c.t}"
                """), """
                {"t":0,"ev":"ws.close","gen":1}
                {"t":5,"ev":"ws.send","gen":1}
                """)
            #expect(result.violations.compactMap(\.line) == [1])
            #expect(result.violations.map(\.message) == ["ws.close at t=0, closed at t=0"])
            
        }

        @Test func aSequenceNeedsItsStepsInOrder() throws {
            let v = try verdict("""
                id: t.order
                title: No b after a
                forbid: [{ ev: x.a }, { ev: x.b }]
                """, """
                {"t":0,"ev":"x.b","gen":1}
                {"t":1,"ev":"x.a","gen":1}
                {"t":2,"ev":"x.c","gen":1}
                {"t":3,"ev":"x.a","gen":2}
                """)
            #expect(v == CheckKindVerdict(.pass, []))
        }
    }
}

// MARK: - never with scopes

extension CheckKindTests {
    @Suite struct AbsenceScope {
        private static let log = """
            {"t":0,"ev":"ws.ping","gen":1}
            {"t":1,"ev":"ws.pause","gen":1}
            {"t":2,"ev":"ws.ping","gen":1}
            {"t":3,"ev":"ws.resume","gen":1}
            {"t":4,"ev":"ws.ping","gen":1}
            {"t":5,"ev":"ws.pause","gen":1}
            {"t":6,"ev":"ws.ping","gen":1}
            {"t":7,"ev":"ws.ping","gen":1}
            """

        @Test(arguments: [
            ("", [1, 3, 5, 7, 8]),
            ("after: { ev: ws.pause }", [3, 5, 7, 8]),
            ("before: { ev: ws.resume }", [1, 3]),
            ("after: { ev: ws.pause }\nbefore: { ev: ws.resume }", [3]),
            // "before R" with no R in the trace holds vacuously (Dwyer); findings wait for R
            ("before: { ev: ws.stop }", []),
            ("after: { ev: ws.resume }\nbefore: { ev: ws.pause }", [5]),
            // closed intervals only: the interval the log ends inside (from line 6) is not judged
            ("between: [{ ev: ws.pause }, { ev: ws.resume }]", [3]),
            // open: judged as events come, the last interval too
            ("after: { ev: ws.pause }\nuntil: { ev: ws.resume }", [3, 7, 8]),
        ])
        func scopes(_ scope: String, _ expected: [Int]) throws {
            let v = try verdict("""
                id: t.quiet
                title: No pings here
                never: { ev: ws.ping }
                """ + (scope.isEmpty ? "" : "\n" + scope), Self.log)
            #expect(v == CheckKindVerdict(expected.isEmpty ? .pass : .fail, expected))
        }

        @Test func betweenJudgesEveryClosedInterval() throws {
            let v = try verdict("""
                id: t.quiet
                title: No pings while paused
                never: { ev: ws.ping }
                between: [{ ev: ws.pause }, { ev: ws.resume }]
                """, """
                {"t":1,"ev":"ws.pause","gen":1}
                {"t":2,"ev":"ws.ping","gen":1}
                {"t":3,"ev":"ws.ping","gen":1}
                {"t":4,"ev":"ws.resume","gen":1}
                {"t":5,"ev":"ws.ping","gen":1}
                {"t":6,"ev":"ws.pause","gen":1}
                {"t":7,"ev":"ws.resume","gen":1}
                {"t":8,"ev":"ws.pause","gen":1}
                {"t":9,"ev":"ws.ping","gen":1}
                {"t":10,"ev":"ws.resume","gen":1}
                """)
            #expect(v == CheckKindVerdict(.fail, [2, 3, 9]))
        }

        @Test func untilIsJudgedImmediatelyWithoutWaitingForTheIntervalToClose() throws {
            // A never-closed interval: `until` reports, `between` does not.
            let log = """
                {"t":1,"ev":"ws.pause","gen":1}
                {"t":2,"ev":"ws.ping","gen":1}
                """
            #expect(try verdict("""
                id: t.quiet
                title: T
                never: { ev: ws.ping }
                after: { ev: ws.pause }
                until: { ev: ws.resume }
                """, log) == CheckKindVerdict(.fail, [2]))
            #expect(try verdict("""
                id: t.quiet
                title: T
                never: { ev: ws.ping }
                between: [{ ev: ws.pause }, { ev: ws.resume }]
                """, log) == CheckKindVerdict(.pass, []))
        }
    }
}

// MARK: - count

extension CheckKindTests {
    @Suite struct Counting {
        @Test func maxReportsEachExcessEventAtItsLine() throws {
            let v = try verdict("""
                id: t.two-closes
                title: At most two closes
                count: { ev: ws.close }
                max: 2
                """, """
                {"t":0,"ev":"ws.close","gen":1}
                {"t":1,"ev":"ws.close","gen":2}
                {"t":2,"ev":"ws.close","gen":1}
                {"t":3,"ev":"ws.close","gen":1}
                {"t":4,"ev":"ws.close","gen":1}
                """)
            #expect(v == CheckKindVerdict(.fail, [4, 5]))
        }

        @Test func minIsOneViolationAtTheTimelinesFirstEvent() throws {
            let result = judge(try loadRule("""
                id: t.pongs
                title: Two pongs per generation
                count: { ev: ws.pong }
                min: 2
                """), """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":1,"ev":"ws.pong","gen":1}
                {"t":2,"ev":"ws.pong","gen":1}
                {"t":3,"ev":"ws.connect","gen":2}
                {"t":4,"ev":"ws.pong","gen":2}
                {"t":5,"ev":"ws.message","gen":3}
                """)
            #expect(CheckKindVerdict(result) == CheckKindVerdict(.fail, [4, 6]))
            #expect(result.violations.map(\.gen) == [2, 3])
            #expect(result.violations.map(\.message) == [
                "Two pongs per generation (1 matching event, at least 2 required)",
                "Two pongs per generation (0 matching events, at least 2 required)",
            ])
        }

        @Test func byCountsPerKey() throws {
            let v = try verdict("""
                id: t.one-send
                title: One send per connection
                count: { ev: ws.send }
                by: conn
                max: 1
                """, """
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
            let result = judge(try loadRule("""
                id: t.two-sends
                title: Two sends per connection
                count: { ev: ws.send }
                by: conn
                min: 2
                """), """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":1,"ev":"ws.send","gen":1,"conn":"a"}
                {"t":2,"ev":"ws.send","gen":1,"conn":"b"}
                {"t":3,"ev":"ws.send","gen":1,"conn":"a"}
                {"t":4,"ev":"ws.send","gen":1,"conn":"c"}
                """)
            #expect(CheckKindVerdict(result) == CheckKindVerdict(.fail, [1, 1]))
            #expect(result.violations.map(\.message) == [
                #"Two sends per connection (1 matching event for "b", at least 2 required)"#,
                #"Two sends per connection (1 matching event for "c", at least 2 required)"#,
            ])
        }
    }
}

// MARK: - classify

extension CheckKindTests {
    @Suite struct Classify {
        private static func outcomesRule(min: Int = 2, appliesIf: String = "{ ev: ws.connect }") -> String {
            """
            id: t.outcomes
            title: Outcomes are covered
            for: corpus
            classify:
              per: generation
              stream: ws
              labels:
                normal: { has: { ev: ws.pong } }
                failed: { has: { ev: ws.connect_failed }, lacks: { ev: ws.open } }
                silent: { lacks: { ev: ws.message } }
            require: [normal, failed]
            min: \(min)
            applies_if: \(appliesIf)
            """
        }

        private static let log = """
            {"t":0,"ev":"ws.connect","gen":1}
            {"t":1,"ev":"ws.open","gen":1}
            {"t":2,"ev":"ws.pong","gen":1}
            {"t":3,"ev":"ws.connect","gen":2}
            {"t":4,"ev":"ws.connect_failed","gen":2}
            {"t":5,"ev":"ws.connect","gen":3}
            {"t":6,"ev":"ws.open","gen":3}
            {"t":7,"ev":"ws.message","gen":3}
            {"t":8,"ev":"ws.pong","gen":3}
            {"t":9,"ev":"ws.connect","gen":4}
            {"t":10,"ev":"ws.connect_failed","gen":4}
            {"t":11,"ev":"ws.open","gen":4}
            {"t":12,"ev":"path.pong","gen":5}
            {"t":13,"ev":"ws.pong"}
            """

        @Test func labelsAreCountedAndRequired() throws {
            let report = RuleRuns.audit([try loadRule(Self.outcomesRule())], files: [("a.jsonl", Self.log)])
            let result = report.results[0]
            // gen 1 normal + silent; gen 2 failed + silent; gen 3 normal; gen 4 (opened after
            // failing) silent only. path gen 5 and the gen-less pong are not ws generations.
            let labels = try #require(result.labels)
            #expect(labels.map(\.name) == ["normal", "failed", "silent"])
            #expect(labels.map(\.count) == [2, 1, 3])
            let outcomes = try #require(report.outcomes)
            #expect(outcomes.map(\.name) == ["normal", "failed", "silent"])
            #expect(outcomes.map(\.count) == [2, 1, 3])
            #expect(result.status == .fail)
            #expect(result.violations.count == 1)
            #expect(result.violations.first?.line == nil)
            #expect(result.violations.first?.message
                == "too few 'failed' outcomes: 1 ws generation labelled 'failed', at least 2 required (normal 2, failed 1, silent 3)")
        }

        @Test func minimumMet() throws {
            let result = judge(try loadRule(Self.outcomesRule(min: 1)), Self.log)
            #expect(CheckKindVerdict(result) == CheckKindVerdict(.pass, []))
            #expect(result.labels?.map(\.count) == [2, 1, 3])
        }

        @Test func appliesIfMatchingNothingIsNotApplicable() throws {
            let result = judge(try loadRule(Self.outcomesRule(appliesIf: "{ ev: ws.nothing }")), Self.log)
            #expect(result.status == .notApplicable)
            #expect(result.violations.isEmpty)
            #expect(result.inconclusive.isEmpty)
        }

        @Test func appliesIfMatchesAnyEventOfTheCorpus() throws {
            // applies_if matches an event of another stream, without gen, in another file.
            let report = RuleRuns.audit([try loadRule(Self.outcomesRule(appliesIf: "{ ev: app.start }"))], files: [
                ("a.jsonl", Self.log),
                ("b.jsonl", #"{"t":0,"ev":"app.start"}"#),
            ])
            #expect(report.results[0].status == .fail)
            #expect(report.results[0].violations.count == 1)
        }

        @Test func generationRulesOfTheClassifiedStreamStillRun() throws {
            let count = try loadRule("id: t.one-pong\ntitle: T\ncount: { ev: [ws.pong, path.pong] }\nmax: 0")
            let both = RuleRuns.audit([count, try loadRule(Self.outcomesRule())], files: [("a.jsonl", Self.log)])
            let alone = RuleRuns.audit([count], files: [("a.jsonl", Self.log)])
            #expect(CheckKindVerdict(both.results[0]) == CheckKindVerdict(.fail, [3, 9, 13]))
            #expect(CheckKindVerdict(alone.results[0]) == CheckKindVerdict(both.results[0]))
            #expect(both.results[1].labels?.map(\.count) == [2, 1, 3])
        }

        @Test func noOutcomesWithoutClassifyRules() throws {
            let report = RuleRuns.audit([try loadRule("id: t.x\ntitle: T\nnever: { ev: ws.nothing }")], files: [("a.jsonl", Self.log)])
            #expect(report.outcomes == nil)
            #expect(report.results[0].labels == nil)
        }

        @Test func generationsOfEverySourceAreLabelled() throws {
            let report = RuleRuns.audit([try loadRule(Self.outcomesRule(min: 3))], files: [
                ("a.jsonl", Self.log),
                ("b.jsonl", """
                    {"t":0,"src":"x","ev":"ws.connect","gen":1}
                    {"t":1,"src":"x","ev":"ws.connect_failed","gen":1}
                    {"t":0,"src":"y","ev":"ws.connect","gen":1}
                    {"t":1,"src":"y","ev":"ws.connect_failed","gen":1}
                    """),
            ])
            #expect(report.results[0].labels?.map(\.count) == [2, 3, 5])
            #expect(report.results[0].violations.map(\.message) == [
                "too few 'normal' outcomes: 2 ws generations labelled 'normal', at least 3 required (normal 2, failed 3, silent 5)",
            ])
        }
    }
}

// MARK: - Scopes

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

        /// Generation timelines are keyed by (stream, gen) within a source; source timelines hold every
        /// event of one source; the corpus timeline every event the rule reacts to.
        @Test(arguments: [("generation", [4]), ("source", [2, 3, 4, 5]), ("corpus", [2, 3, 4, 5, 6])])
        func whatIsCountedTogether(_ scope: String, _ expected: [Int]) throws {
            let v = try verdict("""
                id: t.one-close
                title: One close
                for: \(scope)
                count: { ev: [ws.close, path.close] }
                max: 1
                """, Self.log)
            #expect(v == CheckKindVerdict(.fail, expected))
        }

        @Test func historyLooksOnlyAtTheRulesTimeline() throws {
            // first() of a generation rule sees its (stream, gen) only; of a source rule, the source.
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
            #expect(try verdict("id: t.g\ntitle: T\nfor: generation\n" + body, log) == CheckKindVerdict(.pass, []))
            #expect(try verdict("id: t.s\ntitle: T\nfor: source\n" + body, log) == CheckKindVerdict(.fail, [2, 3]))
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
            #expect(try verdict("id: t.s\ntitle: T\nfor: source\n" + body, log) == CheckKindVerdict(.pass, []))
        }
    }
}

// MARK: - History semantics

extension CheckKindTests {
    @Suite struct HistorySemantics {
        @Test func historyLooksBackFromTheEventBeingProcessed() throws {
            // The current event is not part of its own history.
            let v = try verdict("""
                id: t.spaced
                title: Pings are spaced, at most three
                every: { ev: ws.ping }
                expect: "count({ev: ws.ping}) < 3 and (last({ev: ws.ping}) == null or t - last({ev: ws.ping}).t >= 10)"
                """, """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":10,"ev":"ws.ping","gen":1}
                {"t":15,"ev":"ws.ping","gen":1}
                {"t":30,"ev":"ws.ping","gen":1}
                """)
            #expect(v == CheckKindVerdict(.fail, [3, 4]))
        }

        @Test func firstAndLastAreTheOldestAndLatestMatch() throws {
            let v = try verdict("""
                id: t.first-last
                title: First and last
                every: { ev: ws.close }
                expect: "first({ev: ws.ping}).n == 1 and last({ev: ws.ping}).n == 3 and first({ev: ws.nothing}) == null"
                """, """
                {"t":0,"ev":"ws.ping","gen":1,"n":1}
                {"t":1,"ev":"ws.ping","gen":1,"n":2}
                {"t":2,"ev":"ws.ping","gen":1,"n":3}
                {"t":3,"ev":"ws.close","gen":1}
                """)
            #expect(v == CheckKindVerdict(.pass, []))
        }

        /// Inside a nested selector's `where`, a history call still looks back from the OUTER event
        /// being evaluated (the trigger, here the close), not from the nested candidate (the ping):
        /// both pings see the pong that came after them, because it came before the close.
        @Test(arguments: [
            "count({ev: ws.ping, where: \"count({ev: ws.pong}) >= 1\"}) == 2",
            // the same with the inner call correlated (answered from lists, not an aggregate)
            "count({ev: ws.ping, where: \"count({ev: ws.pong, where: 'c.t >= 0'}) >= 1\"}) == 2",
            "count({ev: ws.ping, where: \"last({ev: ws.pong}).t == 2\"}) == 2",
        ])
        func nestedHistoryIsRelativeToTheOuterEvent(_ expect: String) throws {
            let v = try verdict("""
                id: t.nested
                title: Nested history
                every: { ev: ws.close, as: c }
                expect: >
                  \(expect)
                """, """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":1,"ev":"ws.ping","gen":1}
                {"t":2,"ev":"ws.pong","gen":1}
                {"t":3,"ev":"ws.close","gen":1}
                """)
            #expect(v == CheckKindVerdict(.pass, []))
        }

        @Test func sinceASelector() throws {
            let v = try verdict("""
                id: t.pong-latency
                title: A pong within 100 ms of the first ping since the previous pong
                every: { ev: ws.pong }
                expect: "(t - first({ev: ws.ping}, since: {ev: ws.pong}).t <= 100) ?? true"
                """, """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":50,"ev":"ws.pong","gen":1}
                {"t":60,"ev":"ws.ping","gen":1}
                {"t":150,"ev":"ws.ping","gen":1}
                {"t":200,"ev":"ws.pong","gen":1}
                {"t":210,"ev":"ws.pong","gen":1}
                """)
            #expect(v == CheckKindVerdict(.fail, [5]))
        }

        @Test func sinceACapture() throws {
            // Every ping is answered before the close: a pong since the ping (captured as q).
            let v = try verdict("""
                id: t.answered
                title: Pings are answered before the close
                every: { ev: ws.close }
                expect: "count({ev: ws.ping, as: q, where: 'count({ev: ws.pong}, since: q) == 0'}) == 0"
                """, """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":1,"ev":"ws.pong","gen":1}
                {"t":2,"ev":"ws.close","gen":1}
                {"t":3,"ev":"ws.pong","gen":2}
                {"t":4,"ev":"ws.ping","gen":2}
                {"t":5,"ev":"ws.close","gen":2}
                """)
            #expect(v == CheckKindVerdict(.fail, [6]))
        }

        /// `$seq` orders events sharing a `t`: a pong at the ping's own `t` but after it answers it, one
        /// before it does not.
        private static let seqLog = """
            {"t":0,"ev":"ws.ping","gen":1}
            {"t":0,"ev":"ws.pong","gen":1}
            {"t":10,"ev":"ws.ping","gen":1}
            {"t":10,"ev":"ws.close","gen":1}
            {"t":20,"ev":"ws.pong","gen":2}
            {"t":20,"ev":"ws.ping","gen":2}
            {"t":30,"ev":"ws.close","gen":2}
            {"t":40,"ev":"ws.ping","gen":3}
            {"t":40,"ev":"ws.pong","gen":3}
            {"t":50,"ev":"ws.close","gen":3}
            """

        @Test func seqRestrictsToEventsAfterACapture() throws {
            // `c.t >= 0` reads the trigger's capture: the inner call is correlated.
            let v = try verdict("""
                id: t.answered
                title: Pings are answered before the close
                every: { ev: ws.close, as: c }
                expect: >
                  count({ev: ws.ping, as: q, where: "count({ev: ws.pong, where: '$seq > q.$seq and c.t >= 0'}) == 0"}) == 0
                """, Self.seqLog)
            #expect(v == CheckKindVerdict(.fail, [4, 7]))
        }

        @Test func seqRestrictionReadingOnlyAnEnclosingHistoryCapture() throws {
            // The same rule, with the inner selector reading only `q` (bound by the enclosing history
            // call's selector, not by a top-level selector).
            let v = try verdict("""
                id: t.answered
                title: Pings are answered before the close
                every: { ev: ws.close, as: c }
                expect: >
                  count({ev: ws.ping, as: q, where: "count({ev: ws.pong, where: '$seq > q.$seq'}) == 0"}) == 0
                """, Self.seqLog)
            #expect(v == CheckKindVerdict(.fail, [4, 7]))
            
        }

        @Test func seqReadsTheOrdinalInTheTimelinesSource() throws {
            let v = try verdict("""
                id: t.seq
                title: T
                every: { ev: ws.close, as: c }
                expect: "$seq == 3 and last({ev: ws.ping}).$seq == 2 and c.$line == 3"
                """, """
                {"t":0,"ev":"app.start"}
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":0,"ev":"ws.close","gen":1}
                """)
            #expect(v == CheckKindVerdict(.pass, []))
        }
    }
}

// MARK: - Lets

extension CheckKindTests {
    @Suite struct Lets {
        /// With `or false` the equality cannot use the index, so R is first read inside the nested
        /// selector, whose candidate has its own `reason`: the let still reads the trigger's (the
        /// close's). The plain form goes through the equality index, which reads R from the outside.
        @Test(arguments: ["code == R or false", "code == R"])
        func aLetIsEvaluatedInTheTriggersContextEvenInsideANestedSelector(_ condition: String) throws {
            let v = try verdict("""
                id: t.reasoned
                title: A close's reason was reported as an error before
                let: { R: "reason" }
                every: { ev: ws.close }
                expect: "count({ev: ws.error, where: '\(condition)'}) > 0"
                """, """
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
            #expect(try verdict(body, """
                {"t":0,"ev":"rpc.request","gen":1}
                {"t":1,"ev":"rpc.request","gen":1}
                {"t":2,"ev":"rpc.ack","gen":1,"n":1}
                {"t":3,"ev":"rpc.ack","gen":1,"n":0}
                """) == CheckKindVerdict(.pass, []))
            #expect(try verdict(body, """
                {"t":0,"ev":"rpc.request","gen":1}
                {"t":1,"ev":"rpc.request","gen":1}
                {"t":2,"ev":"rpc.ack","gen":1,"n":1}
                {"t":3,"ev":"rpc.ack","gen":1,"n":2}
                """) == CheckKindVerdict(.fail, [1]))
        }

        @Test func fileAndRuleLetsShareOneScopeAndTheRulesDefinitionWins() throws {
            // The file defines A and C; the rule defines B and redefines A. Lets are evaluated lazily
            // in one scope, so the rule's A (2) is the A every let reads, the file's C included.
            let v = try verdict("""
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
            #expect(try verdict("""
                id: t.self
                title: T
                let: { X: "X + 1" }
                every: { ev: ws.ping }
                expect: "X > 0"
                """, log) == CheckKindVerdict(.fail, [1]))
            #expect(try verdict("""
                id: t.self
                title: T
                let: { X: "X + 1" }
                every: { ev: ws.ping }
                expect: "X > 0"
                undecided: inconclusive
                """, log) == CheckKindVerdict(.inconclusive, [], [1]))
            #expect(try verdict("""
                id: t.self
                title: T
                let: { X: "X + 1" }
                every: { ev: ws.ping }
                expect: "(X ?? 7) == 7"
                """, log) == CheckKindVerdict(.pass, []))
        }

        @Test func mutuallyRecursiveLetsAreUndecided() throws {
            #expect(try verdict("""
                id: t.mutual
                title: T
                let: { A: "B + 1", B: "A + 1" }
                every: { ev: ws.ping }
                expect: "A == null"
                undecided: inconclusive
                """, #"{"t":0,"ev":"ws.ping","gen":1}"#) == CheckKindVerdict(.inconclusive, [], [1]))
        }

        @Test func anUnusedLetIsNeverEvaluated() throws {
            #expect(try verdict("""
                id: t.lazy
                title: T
                let: { X: "X + 1", Y: "1" }
                every: { ev: ws.ping }
                expect: "Y == 1"
                """, #"{"t":0,"ev":"ws.ping","gen":1}"#) == CheckKindVerdict(.pass, []))
        }
    }
}

// MARK: - Equivalences guarding the optimisations

/// The same rule written so that a history call is static (answered from a running aggregate)
/// and so that it is correlated (answered from history lists, or through the equality index),
/// must give identical results.
extension CheckKindTests {
    @Suite struct OptimisationEquivalence {
        /// ~500 ws events over several generations and two sources, with ties in `t`, events without
        /// `gen`, and connects that sometimes carry `timeout_ms`.
        static func wsLog(seed: UInt64, events: Int = 500) -> String {
            var rng = SplitMix64(state: seed)
            var t = 0
            var lines: [String] = []
            for _ in 0..<events {
                if !rng.chance(20) { t += rng.below(40) }
                let gen = 1 + rng.below(6)
                let src = rng.chance(80) ? "" : #""src":"b","#
                let roll = rng.below(100)
                let line: String
                switch roll {
                case 0..<10:
                    let timeout = rng.chance(50) ? #","timeout_ms":\#(10 + rng.below(60))"# : ""
                    line = #"{"t":\#(t),\#(src)"ev":"ws.connect","gen":\#(gen)\#(timeout)}"#
                case 10..<45: line = #"{"t":\#(t),\#(src)"ev":"ws.ping","gen":\#(gen),"id":\#(rng.below(5))}"#
                case 45..<80: line = #"{"t":\#(t),\#(src)"ev":"ws.pong","gen":\#(gen),"id":\#(rng.below(5))}"#
                case 80..<88: line = #"{"t":\#(t),\#(src)"ev":"ws.close","gen":\#(gen),"reason":"user"}"#
                case 88..<94: line = #"{"t":\#(t),\#(src)"ev":"app.tick"}"#
                default: line = #"{"t":\#(t),\#(src)"ev":"ws.ping"}"#
                }
                lines.append(line)
            }
            return lines.joined(separator: "\n")
        }

        /// ~500 SSE events (no gen), ids as strings or integers, sometimes missing.
        static func sseLog(seed: UInt64, events: Int = 500) -> String {
            var rng = SplitMix64(state: seed)
            var t = 0
            var lines: [String] = []
            for _ in 0..<events {
                if !rng.chance(25) { t += rng.below(30) }
                let src = rng.chance(70) ? "" : #""src":"s2","#
                let n = rng.below(12)
                let id: String
                switch rng.below(10) {
                case 0: id = ""
                case 1..<5: id = #","id":\#(n)"#
                default: id = #","id":"\#(n)""#
                }
                let line: String
                switch rng.below(100) {
                case 0..<40: line = #"{"t":\#(t),\#(src)"ev":"sse.event"\#(id)}"#
                case 40..<80: line = #"{"t":\#(t),\#(src)"ev":"sse.processed"\#(id),"ok":\#(rng.chance(80))}"#
                default: line = #"{"t":\#(t),\#(src)"ev":"sse.commit"\#(id)}"#
                }
                lines.append(line)
            }
            return lines.joined(separator: "\n")
        }

        /// (static variant, correlated variant): the rule bodies after `id`/`title`.
        static let wsPairs: [(String, String)] = [
            (
                "every: { ev: ws.pong, as: c }\nexpect: \"(t - first({ev: ws.ping}, since: {ev: ws.pong}).t < 50) ?? true\"",
                "every: { ev: ws.pong, as: c }\nexpect: \"(t - first({ev: ws.ping, where: 'c.t >= 0'}, since: {ev: ws.pong}).t < 50) ?? true\""
            ),
            (
                // a static selector with its own capture in its where
                "every: { ev: ws.pong, as: c }\nexpect: \"last({ev: ws.ping, as: z, where: 'z.id >= 2'}).id == id\"",
                "every: { ev: ws.pong, as: c }\nexpect: \"last({ev: ws.ping, as: z, where: 'z.id >= 2 and c.t >= 0'}).id == id\""
            ),
            (
                // a glob: the history keeps every event
                "every: { ev: ws.close, as: c }\nexpect: \"count({ev: 'ws.p*'}) < 25\"",
                "every: { ev: ws.close, as: c }\nexpect: \"count({ev: 'ws.p*', where: 'c.t >= 0'}) < 25\""
            ),
            (
                // nested: the inner call static (aggregate) or correlated; the outer one correlated in both
                "every: { ev: ws.close, as: c }\nexpect: >\n  count({ev: ws.ping, where: \"c.t - t < 300 and count({ev: ws.pong}) > 3\"}) < 2",
                "every: { ev: ws.close, as: c }\nexpect: >\n  count({ev: ws.ping, where: \"c.t - t < 300 and count({ev: ws.pong, where: 'c.t >= 0'}) > 3\"}) < 2"
            ),
            (
                "every: { ev: ws.pong, as: c }\nexpect: \"t - last({ev: ws.ping}).t <= 30\"",
                "every: { ev: ws.pong, as: c }\nexpect: \"t - last({ev: ws.ping, where: 'c.t >= 0'}).t <= 30\""
            ),
            (
                "every: { ev: ws.ping, as: c }\nexpect: \"t - first({ev: ws.connect}).t < 400\"",
                "every: { ev: ws.ping, as: c }\nexpect: \"t - first({ev: ws.connect, where: 'c.t >= 0'}).t < 400\""
            ),
            (
                "every: { ev: ws.ping, as: c }\nexpect: \"count({ev: ws.ping}, since: {ev: ws.pong}) < 2\"",
                "every: { ev: ws.ping, as: c }\nexpect: \"count({ev: ws.ping, where: 'c.t >= 0'}, since: {ev: ws.pong}) < 2\""
            ),
            (
                "every: { ev: ws.ping, as: c }\nexpect: \"count({ev: ws.ping}, since: {ev: ws.pong}) < 2\"",
                "every: { ev: ws.ping, as: c }\nexpect: \"count({ev: ws.ping}, since: {ev: ws.pong, where: 'c.t >= 0'}) < 2\""
            ),
            (
                "for: source\nevery: { ev: ws.pong, as: c }\nexpect: \"t - last({ev: ws.ping}).t <= 30\"",
                "for: source\nevery: { ev: ws.pong, as: c }\nexpect: \"t - last({ev: ws.ping, where: 'c.t >= 0'}).t <= 30\""
            ),
            (
                "each: { ev: ws.ping, as: c }\nfollowed_by: { ev: ws.pong }\nwithin_ms: \"last({ev: ws.connect}).timeout_ms ?? 40\"",
                "each: { ev: ws.ping, as: c }\nfollowed_by: { ev: ws.pong }\nwithin_ms: \"last({ev: ws.connect, where: 'c.t >= 0'}).timeout_ms ?? 40\""
            ),
            (
                "each: { ev: ws.ping, as: c }\nfollowed_by: { ev: ws.pong, where: \"count({ev: ws.ping}) - count({ev: ws.pong}) < 3\" }\nat_end: fail",
                "each: { ev: ws.ping, as: c }\nfollowed_by: { ev: ws.pong, where: \"count({ev: ws.ping, where: 'c.t >= 0'}) - count({ev: ws.pong, where: 'c.t >= 0'}) < 3\" }\nat_end: fail"
            ),
            (
                "forbid:\n  - { ev: ws.ping, as: c }\n  - { ev: ws.ping, where: \"count({ev: ws.pong}, since: {ev: ws.ping}) == 0 and t - c.t < 20\" }",
                "forbid:\n  - { ev: ws.ping, as: c }\n  - { ev: ws.ping, where: \"count({ev: ws.pong, where: 'c.t >= 0'}, since: {ev: ws.ping}) == 0 and t - c.t < 20\" }"
            ),
        ]

        /// (indexable variant, unindexable variant, the trigger's ev).
        static let ssePairs: [(String, String, String)] = [
            (
                "for: source\nevery: { ev: sse.commit, as: c }\nexpect: \"count({ev: sse.processed, where: 'text(id) == text(c.id)'}) >= 1\"",
                "for: source\nevery: { ev: sse.commit, as: c }\nexpect: \"count({ev: sse.processed, where: 'text(c.id) == text(id) or false'}) >= 1\"",
                "sse.commit"
            ),
            (
                "for: source\nevery: { ev: sse.processed, as: c }\nexpect: \"count({ev: sse.event, where: 'text(id) == text(c.id) and t >= c.t - 50'}, since: {ev: sse.commit}) == 1\"",
                "for: source\nevery: { ev: sse.processed, as: c }\nexpect: \"count({ev: sse.event, where: '(text(c.id) == text(id) or false) and t >= c.t - 50'}, since: {ev: sse.commit}) == 1\"",
                "sse.processed"
            ),
            (
                "for: source\nevery: { ev: sse.processed, as: c }\nexpect: \"(c.t - last({ev: sse.event, where: 'text(id) == text(c.id)'}).t < 100) ?? false\"",
                "for: source\nevery: { ev: sse.processed, as: c }\nexpect: \"(c.t - last({ev: sse.event, where: 'text(c.id) == text(id) or false'}).t < 100) ?? false\"",
                "sse.processed"
            ),
            (
                // the outer side read from a let
                "for: source\nlet: { K: \"text(id)\" }\nevery: { ev: sse.commit }\nexpect: \"count({ev: sse.processed, ok: true, where: 'text(id) == K'}) >= 1\"",
                "for: source\nlet: { K: \"text(id)\" }\nevery: { ev: sse.commit }\nexpect: \"count({ev: sse.processed, ok: true, where: 'K == text(id) or false'}) >= 1\"",
                "sse.commit"
            ),
            (
                // evaluated at later events (answers), with a $seq conjunct after the capture
                "for: source\neach: { ev: sse.event, as: e }\nfollowed_by: { ev: sse.processed, where: \"count({ev: sse.event, where: 'text(id) == text(e.id) and $seq > e.$seq'}) == 0\" }\nwithin_ms: 100",
                "for: source\neach: { ev: sse.event, as: e }\nfollowed_by: { ev: sse.processed, where: \"count({ev: sse.event, where: '(text(e.id) == text(id) or false) and $seq > e.$seq'}) == 0\" }\nwithin_ms: 100",
                "sse.event"
            ),
            (
                // two calls keying the same list by the same expression (one shared index), each
                // with its own other tests and outer side
                "for: source\nevery: { ev: sse.commit, as: c }\nexpect: \"count({ev: sse.processed, ok: true, where: 'text(id) == text(c.id)'}) >= 1 and count({ev: sse.processed, ok: false, where: 'text(id) == text(c.id)'}) == 0 and count({ev: sse.processed, where: 'text(id) == text(c.id + 0)'}) < 3\"",
                "for: source\nevery: { ev: sse.commit, as: c }\nexpect: \"count({ev: sse.processed, ok: true, where: 'text(id) == text(c.id) or false'}) >= 1 and count({ev: sse.processed, ok: false, where: 'text(id) == text(c.id) or false'}) == 0 and count({ev: sse.processed, where: 'text(id) == text(c.id + 0) or false'}) < 3\"",
                "sse.commit"
            ),
            (
                "for: source\neach: { ev: sse.event, as: e }\nfollowed_by: { ev: sse.processed, ok: true, where: \"text(id) == text(e.id) and count({ev: sse.commit, where: 'text(id) == text(e.id)'}) == 0\" }\nwithin_ms: 200",
                "for: source\neach: { ev: sse.event, as: e }\nfollowed_by: { ev: sse.processed, ok: true, where: \"text(id) == text(e.id) and count({ev: sse.commit, where: 'text(e.id) == text(id) or false'}) == 0\" }\nwithin_ms: 200",
                "sse.event"
            ),
        ]

        /// Loads both variants and checks that they really take the two paths.
        private func pair(_ a: String, _ b: String) throws -> (Rule, Rule) {
            let rules = try RuleRuns.rules(["id: t.a\ntitle: T\n" + a, "id: t.b\ntitle: T\n" + b], file: "rules/checks.yaml")
            return (rules[0], rules[1])
        }

        private func compare(_ a: Rule, _ b: Rule, _ log: String, jobs: Int = 1) -> (RuleResult, RuleResult) {
            // Each alone, and both in one run (sharing timelines and dispatch).
            let aloneA = RuleRuns.audit([a], files: [("r.jsonl", log)], jobs: jobs).results[0]
            let aloneB = RuleRuns.audit([b], files: [("r.jsonl", log)], jobs: jobs).results[0]
            let both = RuleRuns.audit([a, b], files: [("r.jsonl", log)], jobs: jobs).results
            #expect(fingerprint(aloneA.violations) == fingerprint(both[0].violations))
            #expect(fingerprint(aloneB.violations) == fingerprint(both[1].violations))
            return (aloneA, aloneB)
        }

        @Test(arguments: 0..<OptimisationEquivalence.wsPairs.count)
        func staticAndCorrelatedHistoryAgree(_ index: Int) throws {
            let (a, b) = try pair(Self.wsPairs[index].0, Self.wsPairs[index].1)
            // The first variant's calls are answered from aggregates, the second's (at least one) from lists.
            let staticCompiled = CompiledRule(rule: a, index: 0, overrides: [:])
            let correlatedCompiled = CompiledRule(rule: b, index: 0, overrides: [:])
            #expect(staticCompiled.staticCalls.count > correlatedCompiled.staticCalls.count)
            #expect(!correlatedCompiled.historyLists.isEmpty)

            var interesting = 0
            for seed: UInt64 in [1, 2, 3, 42, 2024] {
                let log = Self.wsLog(seed: seed)
                let (ra, rb) = compare(a, b, log)
                #expect(ra.status == rb.status, "seed \(seed)")
                #expect(fingerprint(ra.violations) == fingerprint(rb.violations), "seed \(seed)")
                #expect(fingerprint(ra.inconclusive) == fingerprint(rb.inconclusive), "seed \(seed)")
                if !ra.violations.isEmpty { interesting += 1 }
            }
            // The logs are not trivially passing (the comparison would prove nothing).
            #expect(interesting >= 3)
        }

        @Test(arguments: 0..<OptimisationEquivalence.ssePairs.count)
        func indexedAndUnindexedEqualityJoinsAgree(_ index: Int) throws {
            let (a, b) = try pair(Self.ssePairs[index].0, Self.ssePairs[index].1)
            let trigger = Self.ssePairs[index].2
            var interesting = 0
            var satisfied = 0
            for seed: UInt64 in [7, 8, 9, 99, 31337] {
                let log = Self.sseLog(seed: seed)
                let (ra, rb) = compare(a, b, log)
                #expect(ra.status == rb.status, "seed \(seed)")
                #expect(fingerprint(ra.violations) == fingerprint(rb.violations), "seed \(seed)")
                #expect(fingerprint(ra.inconclusive) == fingerprint(rb.inconclusive), "seed \(seed)")
                if !ra.violations.isEmpty { interesting += 1 }
                // Triggers that were satisfied: the rule does not fail everywhere either.
                let triggers = log.split(separator: "\n").filter { $0.contains("\"ev\":\"\(trigger)\"") }.count
                satisfied += triggers - ra.violations.count - ra.inconclusive.count
            }
            #expect(interesting >= 3)
            #expect(satisfied > 0)
        }

        @Test func theIndexedVariantIsIndexableAndTheOtherIsNot() throws {
            let (a, b) = try pair(Self.ssePairs[0].0, Self.ssePairs[0].1)
            func historySelector(_ r: Rule) throws -> Selector {
                guard case .every(_, .expression(let e), _) = r.check else {
                    Issue.record("not an every rule")
                    return Selector(terms: [])
                }
                var found: Selector?
                NameWalker.walk(e) { if case .history(let call) = $0, found == nil { found = call.selector } }
                return try #require(found)
            }
            #expect(KeyedIndex.split(try historySelector(a), outer: ["c"]) != nil)
            #expect(KeyedIndex.split(try historySelector(b), outer: ["c"]) == nil)
        }

        /// `==` compares an integer with a double as doubles: from 2^53 up, 2^53 + 1 equals 2^53.0
        /// and 2^63 - 1 equals 2^63.0. The index must find what the unindexed `where` finds.
        @Test func anIndexFindsLargeIntegersEqualToADoubleAsTheWhereDoes() throws {
            let (a, b) = try pair(
                "for: source\nevery: { ev: q, as: c }\nexpect: \"count({ev: k, where: 'id == c.id'}) == 0\"",
                "for: source\nevery: { ev: q, as: c }\nexpect: \"count({ev: k, where: 'c.id == id or false'}) == 0\"")
            #expect(KeyedIndex.normalized(.int(5)) == KeyedIndex.normalized(.double(5)))
            #expect(KeyedIndex.rounding(.int(9_007_199_254_740_993)) == .double(0x1p53))
            #expect(KeyedIndex.rounding(.int(Int64.max)) == .double(0x1p63))
            #expect(KeyedIndex.rounding(.bigInt("18446744073709551615")) == .double(0x1p64))
            #expect(KeyedIndex.rounding(.int(9_007_199_254_740_991)) == nil)
            let ids: [(String, String)] = [
                ("9007199254740993", "9007199254740992.0"), ("9223372036854775807", "9.223372036854775808e18"),
                ("9007199254740992.0", "9007199254740993"), ("18446744073709551615", "1.8446744073709552e19"),
                ("12", "12.0"), ("12", "13"), ("9007199254740993", "9007199254740995"),
            ]
            let log = ids.enumerated().map { n, pair in
                "{\"t\":\(2 * n),\"ev\":\"k\",\"id\":\(pair.0)}\n{\"t\":\(2 * n + 1),\"ev\":\"q\",\"id\":\(pair.1)}\n"
            }.joined()
            let (ra, rb) = compare(a, b, log)
            #expect(fingerprint(ra.violations) == fingerprint(rb.violations))
            // Each q but the last two has an equal k before it (as doubles): five violations.
            #expect(rb.violations.count == 5)
            #expect(ra.violations.count == 5)
        }

        /// Integers that round to one double keep buckets of their own: a `gen` from a nanosecond
        /// clock shares its double with hundreds of others (a review found 2,000 generations near
        /// 2^62 in one bucket: every lookup a scan, 0.9 s -> 10.7 s).
        @Test func integersThatRoundAlikeKeepBucketsOfTheirOwn() throws {
            let key = try ExpressionParser.parse("gen", compileSelector: FileLoader.compileSelector)
            let index = KeyedIndex(list: 0, key: key)
            let shared = EvalShared(environment: EvalEnvironment(params: [:], files: []), history: nil)
            let base: UInt64 = 1 << 62
            var events: [Event] = []
            for k in 0..<2_000 {
                let e = Event(t: Double(k), ev: "ws.close", gen: base + UInt64(k))
                e.seq = k
                events.append(e)
                index.add(e, shared: shared)
            }
            let big = Event(t: 2_000, ev: "ws.close", gen: UInt64.max)
            big.seq = 2_000
            index.add(big, shared: shared)
            #expect(index.candidates(for: .int(Int64(base) + 5)).map(\.seq) == [5])
            #expect(index.candidates(for: .bigInt("18446744073709551615")).map(\.seq) == [2_000])
            #expect(index.candidates(for: .int(Int64(base) - 1)).isEmpty)
            // A double key finds every integer `==` calls equal to it, in order.
            let rounded = index.candidates(for: .double(Double(base)))
            #expect(!rounded.isEmpty)
            #expect(rounded.allSatisfy { Value.integer($0.gen!).looselyEquals(.double(Double(base))) })
            #expect(rounded.count == events.count { Value.integer($0.gen!).looselyEquals(.double(Double(base))) })
            #expect(rounded.map(\.seq) == rounded.map(\.seq).sorted())
            #expect(index.candidates(for: .double(0x1p64)).map(\.seq) == [2_000])
        }

        @Test func onlyTheSameKeyExpressionSharesAnIndex() throws {
            func same(_ a: String, _ b: String) throws -> Bool {
                KeyedIndex.sameKey(try ExpressionParser.parse(a, compileSelector: FileLoader.compileSelector),
                                   try ExpressionParser.parse(b, compileSelector: FileLoader.compileSelector))
            }
            #expect(try same("text(id)", "text(id)"))
            #expect(try same("a.b + 1", "a.b + 1"))
            #expect(try !same("text(id)", "text(k)"))
            #expect(try !same("text(id)", "str(id)"))
            #expect(try !same("a.b + 1", "a.b + 1.0"))
            #expect(try !same("a.b + 1", "a.b - 1"))
            #expect(try !same("[id]", "[id]"))  // lists: not compared, so never shared
            // Literals the same bit for bit (a folded param can be -0.0, which `==` calls 0.0).
            #expect(!KeyedIndex.sameKey(.literal(.double(0.0)), .literal(.double(-0.0))))
            #expect(KeyedIndex.sameKey(.literal(.double(-0.0)), .literal(.double(-0.0))))
            #expect(!KeyedIndex.sameKey(.literal(.array([.double(0.0)])), .literal(.array([.double(-0.0)]))))
        }

        @Test(arguments: [1, 2])
        func equivalenceHoldsWithParallelJobsAndSourcesSpreadOverFiles(_ jobs: Int) throws {
            // Split one log over two files (alternate lines): sources are merged in pass 2.
            let (a, b) = try pair(Self.ssePairs[0].0, Self.ssePairs[0].1)
            let lines = Self.sseLog(seed: 5).split(separator: "\n")
            let even = lines.enumerated().filter { $0.offset % 2 == 0 }.map { String($0.element) }.joined(separator: "\n")
            let odd = lines.enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }.joined(separator: "\n")
            let files = [("x/1.jsonl", even), ("x/2.jsonl", odd)]
            let ra = RuleRuns.audit([a], files: files, jobs: jobs).results[0]
            let rb = RuleRuns.audit([b], files: files, jobs: jobs).results[0]
            #expect(!ra.violations.isEmpty)
            #expect(fingerprint(ra.violations) == fingerprint(rb.violations))
        }

        // The equality index against plain `==` (without text()): `==` treats null as a value and
        // compares numbers by value, which the index must honour too.

        private static let plainEquality = (
            "for: source\nevery: { ev: sse.commit, as: c }\nexpect: \"count({ev: sse.processed, where: 'id == c.id'}) == 1\"",
            "for: source\nevery: { ev: sse.commit, as: c }\nexpect: \"count({ev: sse.processed, where: 'c.id == id or false'}) == 1\""
        )

        @Test func plainEqualityOfIntegersAndStrings() throws {
            let (a, b) = try pair(Self.plainEquality.0, Self.plainEquality.1)
            let log = """
                {"t":0,"ev":"sse.processed","id":1}
                {"t":1,"ev":"sse.processed","id":"2"}
                {"t":2,"ev":"sse.commit","id":1}
                {"t":3,"ev":"sse.commit","id":"2"}
                {"t":4,"ev":"sse.commit","id":2}
                {"t":5,"ev":"sse.processed","id":1.0}
                {"t":6,"ev":"sse.commit","id":1}
                """
            // "2" is not 2; the second processed 1 (as 1.0) makes two for line 7.
            #expect(CheckKindVerdict(judge(b, log)) == CheckKindVerdict(.fail, [5, 7]))
            #expect(CheckKindVerdict(judge(a, log)) == CheckKindVerdict(.fail, [5, 7]))
        }

        @Test func plainEqualityOfMissingIds() throws {
            let (a, b) = try pair(Self.plainEquality.0, Self.plainEquality.1)
            let log = """
                {"t":0,"ev":"sse.processed"}
                {"t":1,"ev":"sse.commit"}
                """
            // null == null is true: the commit without id has exactly one processed without id.
            #expect(CheckKindVerdict(judge(b, log)) == CheckKindVerdict(.pass, []))
            #expect(CheckKindVerdict(judge(a, log)) == CheckKindVerdict(.pass, []))
            
        }

        @Test func plainEqualityOfAFractionalOuterValue() throws {
            let (a, b) = try pair(Self.plainEquality.0, Self.plainEquality.1)
            let log = """
                {"t":0,"ev":"sse.processed","id":1}
                {"t":1,"ev":"sse.commit","id":1.0}
                """
            // 1 == 1.0 is true.
            #expect(CheckKindVerdict(judge(b, log)) == CheckKindVerdict(.pass, []))
            #expect(CheckKindVerdict(judge(a, log)) == CheckKindVerdict(.pass, []))
            
        }

        @Test func aNestedCaptureIsNotStatic() throws {
            // Static vs correlated where the only outer name is a capture bound by an enclosing history
            // selector (`q`): both should be correlated.
            let rules = try RuleRuns.rules([
                """
                id: t.a
                title: Pings are answered before the close
                every: { ev: ws.close, as: c }
                expect: >
                  count({ev: ws.ping, as: q, where: "count({ev: ws.pong, where: 't > q.t'}) == 0"}) == 0
                """,
                """
                id: t.b
                title: Pings are answered before the close
                every: { ev: ws.close, as: c }
                expect: >
                  count({ev: ws.ping, as: q, where: "count({ev: ws.pong, where: 't > q.t and c.t >= 0'}) == 0"}) == 0
                """,
            ], file: "rules/checks.yaml")
            let log = """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":1,"ev":"ws.pong","gen":1}
                {"t":2,"ev":"ws.close","gen":1}
                {"t":3,"ev":"ws.pong","gen":2}
                {"t":4,"ev":"ws.ping","gen":2}
                {"t":5,"ev":"ws.close","gen":2}
                """
            #expect(CheckKindVerdict(judge(rules[1], log)) == CheckKindVerdict(.fail, [6]))
            #expect(CheckKindVerdict(judge(rules[0], log)) == CheckKindVerdict(.fail, [6]))
            
        }
    }
}

// MARK: - as: on a history result

extension CheckKindTests {
    /// rules.md: "`as:` may name any selected event (trigger, step, `first/last/next` result)".
    @Suite struct HistoryResultCaptures {
        static let rule = """
            id: t.prompt
            title: Each pong comes soon after the latest ping
            every: { ev: ws.pong }
            expect: "last({ev: ws.ping, as: q}) != null and t - q.t <= 50"
            message: "pong {t - q.t} ms after the ping at t={q.t}"
            """

        @Test func theNameReadsTheEventTheCallFound() throws {
            let on = try verdict(Self.rule, """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":30,"ev":"ws.pong","gen":1}
                """)
            #expect(on == CheckKindVerdict(.pass, []))
            let late = judge(try loadRule(Self.rule), """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":100,"ev":"ws.ping","gen":1}
                {"t":180,"ev":"ws.pong","gen":1}
                """)
            #expect(CheckKindVerdict(late) == CheckKindVerdict(.fail, [3]))
            #expect(late.violations.first?.message == "pong 80 ms after the ping at t=100")
        }

        @Test func noEventFoundIsNull() throws {
            // No ping before the pong: q is null, so the expectation is false (not undecided).
            let v = try verdict(Self.rule, """
                {"t":30,"ev":"ws.pong","gen":1}
                """)
            #expect(v == CheckKindVerdict(.fail, [1]))
        }

        @Test func aNestedSelectorSeesTheName() throws {
            // Nothing but the ping between the ping the call found and this close.
            let v = try verdict("""
                id: t.quiet
                title: No pong after the latest ping before the close
                every: { ev: ws.close }
                expect: "last({ev: ws.ping, as: p}) == null or count({ev: ws.pong, where: '$seq > p.$seq'}) == 0"
                """, """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":10,"ev":"ws.pong","gen":1}
                {"t":20,"ev":"ws.close","gen":1,"reason":"a"}
                {"t":30,"ev":"ws.ping","gen":2}
                {"t":40,"ev":"ws.close","gen":2,"reason":"a"}
                """)
            #expect(v == CheckKindVerdict(.fail, [3]))
        }
    }
}

// MARK: - next(SEL): look-ahead in an every expectation

extension CheckKindTests {
    /// rules.md: "`next(SEL).f` — the first matching event **after** the current one".
    @Suite struct LookAhead {
        static let answered = """
            id: t.answered
            title: Each ping is answered within 100 ms
            every: { ev: ws.ping }
            expect: "next({ev: ws.pong}) != null and next({ev: ws.pong}).t - t <= 100"
            message: "ping at t={t}: next pong at t={next({ev: ws.pong}).t ?? 'never'}"
            """

        @Test func theAnswerIsTheFirstMatchAfterTheTrigger() throws {
            let result = judge(try loadRule(Self.answered), """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":50,"ev":"ws.pong","gen":1}
                {"t":200,"ev":"ws.ping","gen":1}
                {"t":250,"ev":"ws.state","gen":1}
                {"t":400,"ev":"ws.pong","gen":1}
                {"t":500,"ev":"ws.ping","gen":1}
                """)
            // Line 3: its pong came 200 ms later; line 6: the log ends without one (next is null).
            #expect(CheckKindVerdict(result) == CheckKindVerdict(.fail, [3, 6]))
            #expect(result.violations.map(\.message) == ["ping at t=200: next pong at t=400", "ping at t=500: next pong at t=never"])
        }

        @Test func aMissingAnswerAtTheEndIsNullNotWaiting() throws {
            // Without the null test the arithmetic on null is undecided: the undecided policy decides.
            let v = try verdict("""
                id: t.answered
                title: Each ping is answered within 100 ms
                every: { ev: ws.ping }
                expect: "next({ev: ws.pong}).t - t <= 100"
                undecided: inconclusive
                """, """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":50,"ev":"ws.pong","gen":1}
                {"t":60,"ev":"ws.ping","gen":1}
                """)
            #expect(v == CheckKindVerdict(.inconclusive, [], [3]))
        }

        @Test func historyInALateJudgmentStillLooksBackFromTheTrigger() throws {
            // Judged when the pong arrives, count() must not see that pong (it came after the ping).
            let v = try verdict("""
                id: t.first
                title: The first ping is answered
                every: { ev: ws.ping }
                expect: "count({ev: ws.pong}) > 0 or next({ev: ws.pong}) != null"
                """, """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":50,"ev":"ws.pong","gen":1}
                {"t":60,"ev":"ws.ping","gen":1}
                """)
            #expect(v == CheckKindVerdict(.pass, []))
            let strict = try verdict("""
                id: t.first
                title: No pong before, and one after
                every: { ev: ws.ping }
                expect: "count({ev: ws.pong}) == 0 and next({ev: ws.pong}) != null"
                """, """
                {"t":0,"ev":"ws.ping","gen":1}
                {"t":50,"ev":"ws.pong","gen":1}
                {"t":60,"ev":"ws.ping","gen":1}
                {"t":70,"ev":"ws.pong","gen":1}
                """)
            // Line 1 passes (no pong before it, one after); line 3 has a pong before it.
            #expect(strict == CheckKindVerdict(.fail, [3]))
        }

        @Test func aWhereInTheLookAheadSeesTheTrigger() throws {
            let v = try verdict("""
                id: t.same
                title: The next close is of the same generation
                for: source
                every: { ev: ws.connect, as: c }
                expect: "next({ev: ws.close, where: 'gen == c.gen'}) != null"
                """, """
                {"t":0,"ev":"ws.connect","gen":1}
                {"t":10,"ev":"ws.close","gen":2,"reason":"x"}
                {"t":20,"ev":"ws.connect","gen":2}
                {"t":30,"ev":"ws.close","gen":1,"reason":"x"}
                """)
            // gen 1's close comes at line 4; gen 2's connect (line 3) has no close of gen 2 after it.
            #expect(v == CheckKindVerdict(.fail, [3]))
        }
    }
}

// MARK: - What only the message reads does not make matches different

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
            // followed_by reads x: each a is its own obligation (as app.inactive-releases' generations are).
            let v = try verdict("""
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

// MARK: - Look-ahead and history results: cases found in review

extension CheckKindTests.LookAhead {
    @Test func aLateJudgmentCutsSinceAtTheTrigger() throws {
        // The second ping is judged when the pong arrives, after the second scene: its since: must
        // still be the first scene (the latest before the ping), so one ping counts since it.
        let v = try CheckKindTests.verdict("""
            id: t.since
            title: Each ping is answered, and follows a scene
            for: source
            every: { ev: ws.ping }
            expect: "next({ev: ws.pong}) != null and count({ev: ws.ping}, since: {ev: app.scene}) >= 1"
            """, """
            {"t":0,"ev":"app.scene","phase":"active"}
            {"t":1,"ev":"ws.ping","gen":1}
            {"t":2,"ev":"ws.ping","gen":1}
            {"t":3,"ev":"app.scene","phase":"active"}
            {"t":4,"ev":"ws.pong","gen":1}
            """)
        // Line 2 has no ping before it since the scene: a violation; line 3 has one.
        #expect(v == CheckKindVerdict(.fail, [2]))
    }

    @Test func aMessageThatLooksAheadWaitsForItsAnswer() throws {
        let result = CheckKindTests.judge(try CheckKindTests.loadRule("""
            id: t.msg
            title: Every close has a reason
            for: source
            every: { ev: ws.close }
            expect: "reason != null"
            message: "no reason; the next connect came at t={next({ev: ws.connect}).t ?? 'never'}"
            """), """
            {"t":0,"ev":"ws.close","gen":1}
            {"t":5,"ev":"ws.connect","gen":2}
            {"t":9,"ev":"ws.close","gen":2}
            """)
        #expect(result.violations.map(\.message) == [
            "no reason; the next connect came at t=5", "no reason; the next connect came at t=never",
        ])
    }
}

extension CheckKindTests.HistoryResultCaptures {
    @Test func onlyTheTermThatMatchedBindsItsName() throws {
        // The last of pong/close is a pong: p is that pong, c is null (not the pong).
        let v = try CheckKindTests.verdict("""
            id: t.terms
            title: The last answer is a pong
            every: { ev: ws.ping }
            expect: "last([{ev: ws.pong, as: p}, {ev: ws.close, as: c}]) == null or (p != null and c == null)"
            """, """
            {"t":0,"ev":"ws.close","gen":1,"reason":"x"}
            {"t":1,"ev":"ws.pong","gen":1}
            {"t":2,"ev":"ws.ping","gen":1}
            {"t":3,"ev":"ws.close","gen":1,"reason":"x"}
            {"t":4,"ev":"ws.ping","gen":1}
            """)
        // Line 3: last is the pong (p set, c null) passes; line 5: last is a close (p null) fails.
        #expect(v == CheckKindVerdict(.fail, [5]))
    }
}

extension CheckKindTests.LookAhead {
    @Test func aTriggerJudgedLongAfterItCameShowsNoStrangersAsNeighbours() throws {
        let rule = try CheckKindTests.loadRule("""
            id: t.answered
            title: Each ping is answered
            every: { ev: ws.ping }
            expect: "next({ev: ws.pong}) != null"
            """)
        // More events after the ping than the source's ring keeps: the ping has left it.
        let states = (1...TimelineContext.ring + 4).map { #"{"t":\#($0),"ev":"ws.state","gen":1,"state":"s\#($0)"}"# }
        let log = ([#"{"t":0,"ev":"ws.ping","gen":1}"#] + states).joined(separator: "\n") + "\n"
        let result = CheckKindTests.judge(rule, log)
        #expect(CheckKindVerdict(result) == CheckKindVerdict(.fail, [1]))
        // Judged at the end of the timeline, ring + 4 events later: only the ping itself is shown.
        #expect(result.violations.first?.context.map(\.line) == [1])
    }
}

/// Events reach their generation's timeline by their stream (the part of `ev` before the first
/// dot), whether or not any rule names their `ev` (names no rule mentions have no id).
@Suite struct GenerationRoutingTests {
    @Test func eventsOfOneStreamAndGenShareATimelineWhateverTheirName() throws {
        let rule = try CheckKindTests.loadRule("""
            id: t.count
            title: at most two ws events per generation
            severity: error
            for: generation
            count: { ev: "ws.*" }
            max: 2
            """)
        let log = """
            {"t":1,"ev":"ws.ping","gen":1}
            {"t":2,"ev":"wsx.ping","gen":1}
            {"t":3,"ev":"ws.zz_named_by_no_rule","gen":1}
            {"t":4,"ev":"ws.ping","gen":2}
            {"t":5,"ev":"ws.ping","gen":1}
            {"t":6,"ev":"ws.zz_named_by_no_rule","gen":2}
            {"t":7,"ev":"wsx.ping","gen":1}

            """
        let report = RuleRuns.audit([rule], files: [("a.jsonl", log)])
        // ws gen 1 holds lines 1, 3 and 5 (the third is one too many); ws gen 2 lines 4 and 6;
        // wsx gen 1 lines 2 and 7 (not counted: the glob is ws.*).
        #expect(CheckKindVerdict(report.results[0]) == CheckKindVerdict(.fail, [5]))
        #expect(report.inputs.generations == 3)
    }

    /// connlog: the stream is the part of `ev` before the first dot — the first `.` byte, even
    /// when a combining mark after it makes one grapheme of the two; and whatever the line order.
    @Test(arguments: [false, true])
    func aDotFollowedByACombiningMarkStillEndsTheStream(reversed: Bool) throws {
        let rule = try CheckKindTests.loadRule("""
            id: t.one
            title: at most one of these per generation
            severity: error
            for: generation
            count: { ev: ["ws.ping", "ws.\\u0301ping"] }
            max: 1
            """)
        var lines = [#"{"t":1,"ev":"ws.ping","gen":1}"#, #"{"t":2,"ev":"ws.\u0301ping","gen":1}"#]
        if reversed { lines.reverse() }
        let report = RuleRuns.audit([rule], files: [("a.jsonl", lines.joined(separator: "\n") + "\n")])
        #expect(CheckKindVerdict(report.results[0]) == CheckKindVerdict(.fail, [2]))
        #expect(report.inputs.generations == 1)
        #expect(Event(t: 0, ev: "ws.\u{0301}ping").stream == "ws")
        #expect(Event(t: 0, ev: "\u{0600}.x").stream == "\u{0600}")
        #expect(Event(t: 0, ev: "nodot").stream == "nodot")
    }
}

// MARK: - From the audit of the rule language (sixth session)

@Suite struct LanguageAuditTests {
    /// The corpus timeline numbers its events: two captures of one step were one `$seq` (0), so
    /// a sequence kept only the first and missed the match of the second.
    @Test(arguments: ["corpus", "source"])
    func corpusSequencesTellCapturesApart(_ scope: String) throws {
        let rule = try CheckKindTests.loadRule("""
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
        let result = CheckKindTests.judge(rule, log)
        #expect(CheckKindVerdict(result) == CheckKindVerdict(.fail, [3]))
        #expect(result.violations.map(\.message) == ["3"])
    }

    @Test func corpusNeverAfterKeepsEveryArmedCapture() throws {
        let rule = try CheckKindTests.loadRule("""
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
        #expect(CheckKindVerdict(CheckKindTests.judge(rule, log)) == CheckKindVerdict(.fail, [3, 4]))
    }

    /// A reader finding on a line without a valid `t` has no `t`: it reads as null, not NaN.
    @Test func aFindingWithoutTReadsTAsNull() throws {
        let rule = try CheckKindTests.loadRule("""
            id: t.no-t
            title: a malformed line has no t
            for: corpus
            every: { ev: $malformed }
            expect: "t == null and type(t) == 'null'"
            """)
        let result = CheckKindTests.judge(rule, "{\"t\":0,\"ev\":\"x.a\"}\noops\n{\"t\":\"late\",\"ev\":\"x.b\"}\n")
        #expect(CheckKindVerdict(result) == CheckKindVerdict(.pass, []))
    }

    /// A negative `within_ms` (from `--param` or the log) would put the deadline before the
    /// trigger; the trigger is left undecided, as with an undecided one.
    @Test func aNegativeDeadlineIsInconclusive() throws {
        let rule = try CheckKindTests.loadRule("""
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
        let result = CheckKindTests.judge(rule, log)
        #expect(CheckKindVerdict(result) == CheckKindVerdict(.inconclusive, [], [1]))
        #expect(result.inconclusive.first?.message.contains("within_ms is negative (-5)") == true)
    }
}

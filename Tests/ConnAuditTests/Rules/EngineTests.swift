import Testing

@testable import ConnAudit

/// Rules run over small logs: what each check kind reports, in which scope, with which message
/// and context, in which order; params and fixtures. This file holds every, never and count; each
/// other behaviour has its own file, `Engine<Behaviour>Tests.swift`.
@Suite struct EngineTests {
    // MARK: every

    private static let closes = """
        {"t":0,"ev":"ws.connect","gen":1}
        {"t":5,"ev":"ws.close","gen":1,"reason":"user"}
        {"t":6,"ev":"ws.close","gen":1}
        {"t":7,"ev":"ws.close","gen":1,"reason":""}
        {"t":8,"ev":"ws.close","gen":1,"reason":null}
        """

    @Test func everyWithAnExpression() throws {
        let r = try rule(
            """
            id: t.reason
            title: Every close has a reason
            every: { ev: ws.close }
            expect: "reason != null and reason != ''"
            """)
        let result = run(r, Self.closes)
        #expect(result.status == .fail)
        #expect(lines(result.violations) == [3, 4, 5])
        #expect(result.violations.allSatisfy { $0.gen == 1 && $0.file == 0 })
        #expect(result.violations.map(\.t) == [6, 7, 8])
        #expect(result.violations.first?.message == "Every close has a reason")
        #expect(result.inconclusive.isEmpty)
    }

    @Test func everyWithASelector() throws {
        let r = try rule(
            """
            id: t.reason
            title: Every close has a known reason
            every: { ev: ws.close }
            expect: { reason: { in: [user, pong_timeout] } }
            """)
        #expect(lines(run(r, Self.closes).violations) == [3, 4, 5])
    }

    @Test func everyOnlyLooksAtMatchingEvents() throws {
        let r = try rule(
            """
            id: t.reason
            title: T
            every: { ev: ws.close, reason: { exists: true } }
            expect: "reason != ''"
            """)
        #expect(lines(run(r, Self.closes).violations) == [4])
    }

    /// `undecided:` decides what an expectation on missing data means.
    @Test(
        arguments: [
            (nil, [2, 3], [Int](), RuleStatus.fail),
            ("fail", [2, 3], [], .fail),
            ("pass", [2], [], .fail),
            ("inconclusive", [2], [3], .fail)
        ] as [(String?, [Int], [Int], RuleStatus)])
    func undecidedPolicy(
        _ policy: String?, _ violations: [Int], _ inconclusive: [Int], _ status: RuleStatus
    ) throws {
        let r = try rule(
            """
            id: t.fast
            title: Pongs are fast
            every: { ev: ws.pong }
            expect: "delay_ms < 100"
            """ + (policy.map { "\nundecided: \($0)" } ?? ""))
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.pong","gen":1,"delay_ms":50}
            {"t":1,"ev":"ws.pong","gen":1,"delay_ms":150}
            {"t":2,"ev":"ws.pong","gen":1}
            """)
        #expect(lines(result.violations) == violations)
        #expect(lines(result.inconclusive) == inconclusive)
        #expect(result.status == status)
    }

    @Test func onlyUndecidedCasesMakeARuleInconclusive() throws {
        let r = try rule(
            """
            id: t.fast
            title: Pongs are fast
            every: { ev: ws.pong }
            expect: "delay_ms < 100"
            undecided: inconclusive
            """)
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.pong","gen":1,"delay_ms":50}
            {"t":2,"ev":"ws.pong","gen":1}
            """)
        #expect(result.status == .inconclusive)
        #expect(result.violations.isEmpty)
        #expect(lines(result.inconclusive) == [2])
        #expect(result.inconclusive.first?.message == "Pongs are fast (undecided: data is missing)")
    }

    // MARK: never

    @Test func neverReportsEachMatchingEvent() throws {
        let r = try rule(
            """
            id: t.noping
            title: No pings
            never: { ev: ws.ping }
            """)
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.connect","gen":1}
            {"t":1,"ev":"ws.ping","gen":1}
            {"t":2,"ev":"ws.pong","gen":1}
            {"t":3,"ev":"ws.ping","gen":1}
            """)
        #expect(lines(result.violations) == [2, 4])
    }

    private static let pingsAroundOpenAndClose = """
        {"t":0,"ev":"ws.connect","gen":1}
        {"t":1,"ev":"ws.ping","gen":1}
        {"t":2,"ev":"ws.open","gen":1}
        {"t":3,"ev":"ws.ping","gen":1}
        {"t":4,"ev":"ws.close","gen":1,"reason":"user"}
        {"t":5,"ev":"ws.ping","gen":1}
        {"t":6,"ev":"ws.close","gen":1,"reason":"user"}
        {"t":7,"ev":"ws.ping","gen":1}
        """

    @Test(arguments: [
        ("after: { ev: ws.close }", [6, 8]),
        ("before: { ev: ws.open }", [2]),
        ("after: { ev: ws.open }\nbefore: { ev: ws.close }", [4]),
        ("after: { ev: ws.nothing }", []),
        // Dwyer's "before R": a trace in which R never comes is not judged.
        ("before: { ev: ws.nothing }", []),
        ("after: { ev: ws.open }\nbefore: { ev: ws.nothing }", [])
    ])
    func neverWithAfterAndBefore(_ scope: String, _ expected: [Int]) throws {
        let r = try rule(
            """
            id: t.noping
            title: No pings here
            never: { ev: ws.ping }
            """ + "\n" + scope)
        #expect(lines(run(r, Self.pingsAroundOpenAndClose).violations) == expected)
    }

    @Test func neverAfterRestartsInEachGeneration() throws {
        let r = try rule(
            """
            id: t.noping
            title: No ping after close
            never: { ev: ws.ping }
            after: { ev: ws.close }
            """)
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.close","gen":1,"reason":"user"}
            {"t":1,"ev":"ws.ping","gen":2}
            {"t":2,"ev":"ws.ping","gen":1}
            """)
        #expect(lines(result.violations) == [3])
        #expect(result.violations.first?.gen == 1)
    }

    // MARK: count

    @Test(arguments: [(0, [2, 3, 4]), (1, [3, 4]), (2, [4]), (3, [])])
    func countMaxReportsEachExcessEvent(_ max: Int, _ expected: [Int]) throws {
        let r = try rule(
            """
            id: t.single
            title: One close
            count: { ev: ws.close }
            max: \(max)
            """)
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.connect","gen":1}
            {"t":1,"ev":"ws.close","gen":1,"reason":"a"}
            {"t":2,"ev":"ws.close","gen":1,"reason":"b"}
            {"t":3,"ev":"ws.close","gen":1,"reason":"c"}
            """)
        #expect(lines(result.violations) == expected)
        #expect(result.status == (expected.isEmpty ? .pass : .fail))
    }

    @Test func countMinReportsATimelineWithTooFew() throws {
        let r = try rule(
            """
            id: t.pong
            title: Every generation has a pong
            count: { ev: ws.pong }
            min: 1
            """)
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.connect","gen":1}
            {"t":1,"ev":"ws.pong","gen":1}
            {"t":2,"ev":"ws.connect","gen":2}
            {"t":3,"ev":"ws.ping","gen":2}
            """)
        #expect(result.status == .fail)
        #expect(result.violations.count == 1)
        let v = try #require(result.violations.first)
        #expect(v.message.contains("0 matching events, at least 1 required"))
        #expect(v.gen == 2)
        #expect(v.line == 3)

    }

    @Test func countMinWithSomeMatches() throws {
        let r = try rule(
            """
            id: t.pongs
            title: Two pongs
            count: { ev: ws.pong }
            min: 2
            max: 3
            """)
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.connect","gen":1}
            {"t":1,"ev":"ws.pong","gen":1}
            {"t":2,"ev":"ws.connect","gen":2}
            {"t":3,"ev":"ws.pong","gen":2}
            {"t":4,"ev":"ws.pong","gen":2}
            """)
        #expect(result.violations.count == 1)
        #expect(result.violations.first?.gen == 1)
        #expect(
            result.violations.first?.message.contains("1 matching event, at least 2 required")
                == true)
    }
}

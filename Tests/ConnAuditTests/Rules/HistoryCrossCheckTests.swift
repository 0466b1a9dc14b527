import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// The built-in cross-check of history answers (``HistoryCrossCheck``): it is on in the test
/// suite, it compares the answers of every road a history call can take, and a wrong answer
/// stops the run with the rule and both answers.
@Suite struct HistoryCrossCheckTests {
    /// One rule per road: a running aggregate, a counted index, a hash index, a `$seq` bound, a
    /// `since` cut, a running maximum, and a plain list.
    static let roads: [String] = [
        "id: t.aggregate\ntitle: T\nfor: source\nevery: { ev: ws.pong }\nexpect: \"last({ev: ws.ping}) != null\"",
        "id: t.counted\ntitle: T\nfor: source\nevery: { ev: sse.commit, as: c }\nexpect: \"count({ev: sse.processed, ok: true, where: 'text(id) == text(c.id)'}) >= 0\"",
        "id: t.keyed\ntitle: T\nfor: source\nevery: { ev: ws.pong, as: p }\nexpect: \"first({ev: ws.ping, where: 'id == p.id'}) != null\"",
        "id: t.seq\ntitle: T\nfor: source\nevery: { ev: ws.pong, as: p }\nexpect: \"last({ev: ws.ping, as: q}) == null or count({ev: ws.pong, where: '$seq > q.$seq'}) >= 0\"",
        "id: t.since\ntitle: T\nfor: source\nevery: { ev: ws.ping }\nexpect: \"count({ev: ws.ping}, since: {ev: ws.open}) <= 100\"",
        "id: t.maxof\ntitle: T\nfor: source\nevery: { ev: ws.connect }\nexpect: \"(maxof({ev: ws.connect}, gen) ?? 0) <= gen\"",
        "id: t.list\ntitle: T\nfor: source\nevery: { ev: ws.pong, as: p }\nexpect: \"count({ev: ws.ping, where: 'id != p.id or t <= p.t'}) >= 0\""
    ]

    /// A runner of `body` given a small log of every kind of event the roads read: connects,
    /// opens, pings and their pongs (some missing, one id repeated), SSE events, processing
    /// and commits.
    static func runner(_ body: String) throws -> BasicRunner {
        let rule = try RuleRuns.rules([body], file: "rules/cross-check.yaml")[0]
        let runner = BasicRunner(
            CompiledRule(rule: rule, index: 0, overrides: [:]), files: ["c.jsonl"])
        let sink = FindingSink(files: ["c.jsonl"])
        let scope = ContextScope(context: TimelineContext(source: nil), stream: nil, gen: nil)
        var seq = 0
        func give(_ ev: String, gen: UInt64? = nil, _ fields: [Event.Field] = []) {
            let e = Event(
                t: Double(seq * 10), ev: ev, gen: gen, file: 0, line: seq + 1, fields: fields,
                evID: EvNames.id(ev))
            e.seq = seq
            seq += 1
            runner.observe(e, context: scope, sink: sink)
        }
        for gen in UInt64(1)...3 {
            give("ws.connect", gen: gen)
            give("ws.open", gen: gen)
            for i in 0..<6 {
                let id = Event.Field("id", .int(Int64(i % 4)))
                give("ws.ping", gen: gen, [id])
                if i != 2 { give("ws.pong", gen: gen, [id]) }
                give("sse.event", [Event.Field("id", .string("\(i)"))])
                give(
                    "sse.processed", [Event.Field("id", .string("\(i)")), .init("ok", .bool(true))])
                give("sse.commit", [Event.Field("id", .string("\(i % 3)"))])
            }
        }
        return runner
    }

    /// The first history call of an `every` rule's `expect:`.
    static func firstCall(of runner: BasicRunner) -> HistoryCall? {
        guard case .every(_, expect: .expression(let x), _) = runner.check else { return nil }
        var found: HistoryCall?
        NameWalker.walk(x) { sub in
            if found == nil, case .history(let call) = sub { found = call }
        }
        return found
    }

    @Test func theCheckIsOnInADebugBuildUnlessTheEnvironmentSaysOtherwise() {
        #expect(HistoryCrossCheck.enabled(environment: nil, debugBuild: true))
        #expect(!HistoryCrossCheck.enabled(environment: nil, debugBuild: false))
        #expect(HistoryCrossCheck.enabled(environment: "1", debugBuild: false))
        #expect(!HistoryCrossCheck.enabled(environment: "0", debugBuild: true))
        #expect(!HistoryCrossCheck.enabled(environment: "", debugBuild: true))
        // The suite runs a debug build: the check is on unless the environment turned it off.
        #expect(
            HistoryCrossCheck.enabled
                == (getenv("CONN_AUDIT_CROSS_CHECK").map { String(cString: $0) == "1" }
                    ?? HistoryCrossCheck.isDebugBuild))
    }

    @Test(.enabled(if: HistoryCrossCheck.enabled), arguments: roads)
    func everyRoadIsComparedWithTheScan(_ body: String) throws {
        let runner = try Self.runner(body)
        let check = try #require(runner.crossCheck)
        #expect(check.compared > 0, "\(runner.rule.id) compared no answer")
        #expect(!runner.stopped)
    }

    /// The roads are the ones their rules are named after, where the compiled rule says so.
    @Test func theRulesTakeTheirRoads() throws {
        let compiled = try Self.roads.map { body in
            CompiledRule(
                rule: try RuleRuns.rules([body], file: "rules/cross-check.yaml")[0], index: 0,
                overrides: [:])
        }
        #expect(!compiled[0].staticCalls.isEmpty, "t.aggregate")
        #expect(compiled[1].countedLists.contains(true), "t.counted")
        #expect(compiled[2].staticCalls.isEmpty && !compiled[2].historyLists.isEmpty, "t.keyed")
        #expect(!compiled[4].staticCalls.isEmpty, "t.since")
        #expect(!compiled[5].staticCalls.isEmpty, "t.maxof")
    }

    /// An answer that is not the scan's stops the run, naming the rule and both answers.
    @Test(.enabled(if: HistoryCrossCheck.enabled))
    func aWrongAnswerStopsTheRunWithTheRuleAndBothAnswers() async throws {
        let result = await #expect(
            processExitsWith: .failure, observing: [\.standardErrorContent]
        ) {
            let runner = try HistoryCrossCheckTests.runner(HistoryCrossCheckTests.roads[0])
            let check = runner.crossCheck!
            let call = try #require(HistoryCrossCheckTests.firstCall(of: runner))
            let last = check.events.last!
            // The latest ping is not the first event of the log.
            runner.crossCheck(call, .event(check.events[0]), runner.context(last), check)
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("history cross-check: rule t.aggregate, last(…)"), "\(stderr)")
        #expect(stderr.contains("the engine answered the event at line 1 (seq 0)"), "\(stderr)")
    }
}

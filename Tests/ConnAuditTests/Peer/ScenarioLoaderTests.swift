import ConnAudit
import ConnAuditTestSupport
import ConnPeer
import Foundation
import Testing

/// Scenario files read into per-connection plans; every mistake is reported at its place as
/// `file:line:column: error: ...`, never ignored.
@Suite("Scenario files")
struct ScenarioLoaderTests {
    static let example = """
        idle_timeout_ms: 5000
        websocket:
          - action: pong
            messages:
              - {after_ms: 100, text: "tick"}
              - {after_ms: 200, text: "a longer message", fragments: 3}
          - {action: pong, delay_ms: 1500}
          - action: silent
          - {action: close, code: 4000, reason: "maintenance"}
          - action: refuse
          - {action: drop, after_ms: 300}
        sse:
          - {events: 5, interval_ms: 10, retry_ms: 250}
          - {resume: redeliver, redeliver: 2}
          - {resume: reset, end: hold, retry_ms: null}
          - {action: drop, events: 1}

        """

    @Test func theExampleReadsIntoItsPlans() throws {
        let scenario = try ScenarioLoader.load(Self.example, path: "s.yaml")
        #expect(scenario.idleTimeoutMs == 5000)
        #expect(scenario.websocket.map(\.action) == [.pong, .pong, .silent, .close, .refuse, .drop])
        #expect(
            scenario.websocket[0].messages == [
                ScheduledMessage(afterMs: 100, text: "tick"),
                ScheduledMessage(afterMs: 200, text: "a longer message", fragments: 3)
            ])
        #expect(scenario.websocket[1].delayMs == 1500)
        #expect(
            scenario.websocket[3].closeCode == 4000
                && scenario.websocket[3].closeReason == "maintenance")
        #expect(scenario.websocket[5].afterMs == 300)
        #expect(scenario.sse[0] == SSEPlan(events: 5, intervalMs: 10, retryMs: 250))
        #expect(scenario.sse[1].resume == .redeliver && scenario.sse[1].redeliver == 2)
        #expect(
            scenario.sse[2].resume == .reset && scenario.sse[2].end == .hold
                && scenario.sse[2].retryMs == nil)
        #expect(scenario.sse[3].action == .drop)
    }

    /// docs/conn-peer.md's example is a scenario that reads, with every action in it.
    @Test func theDocumentedExampleReads() throws {
        let doc = try String(contentsOfFile: Repository.path("docs/conn-peer.md"), encoding: .utf8)
        let block = try #require(doc.components(separatedBy: "```yaml\n").dropFirst().first)
        let yaml = try #require(block.components(separatedBy: "```").first)
        let scenario = try ScenarioLoader.load(yaml, path: "docs/conn-peer.md")
        #expect(Set(scenario.websocket.map(\.action)) == Set(WebSocketPlan.Action.allCases))
        #expect(Set(scenario.sse.map(\.resume)) == Set(SSEPlan.Resume.allCases))
    }

    @Test func theNthConnectionGetsTheNthPlanCycling() throws {
        let scenario = try ScenarioLoader.load(Self.example, path: "s.yaml")
        #expect(
            (1...13).map { scenario.websocketPlan($0).action.rawValue } == [
                "pong", "pong", "silent", "close", "refuse", "drop",
                "pong", "pong", "silent", "close", "refuse", "drop", "pong"
            ])
        #expect(scenario.ssePlan(5) == scenario.ssePlan(1))
    }

    @Test func aScenarioWithOnlyOneListKeepsTheDefaultOther() throws {
        let scenario = try ScenarioLoader.load("websocket: [{action: silent}]\n", path: "s.yaml")
        #expect(scenario.websocket.map(\.action) == [.silent])
        #expect(scenario.sse == Scenario.defaultMix.sse)
    }

    @Test(arguments: [
        (SSEPlan.Resume.continue, 7, 8), (.redeliver, 7, 7), (.reset, 7, 1), (.redeliver, 0, 1)
    ])
    func resumeChoosesTheFirstID(resume: SSEPlan.Resume, last: Int, first: Int) {
        #expect(SSEPlan(resume: resume).firstID(after: last) == first)
    }

    @Test(arguments: [
        ("", "s.yaml:1:1: error: the scenario is empty"),
        ("- a\n", "s.yaml:1:1: error: the scenario must be a mapping, not a sequence"),
        (
            "idle_timeout_ms: 5\n",
            "s.yaml:1:1: error: the scenario needs a 'websocket' or an 'sse' list"
        ),
        ("websocket: []\n", "s.yaml:1:12: error: 'websocket' must have at least one entry"),
        (
            "websocket:\n  - actoin: pong\n",
            "s.yaml:2:5: error: unknown key 'actoin' in a websocket entry"
        ),
        (
            "websocket:\n  - {delay_ms: 5}\n",
            "s.yaml:2:5: error: a websocket entry needs an 'action'"
        ),
        (
            "websocket:\n  - action: ping\n",
            "s.yaml:2:13: error: 'action' must be one of: pong, silent"
        ),
        (
            "websocket:\n  - {action: pong, delay_ms: soon}\n",
            "s.yaml:2:30: error: 'delay_ms' must be a whole number"
        ),
        (
            "websocket:\n  - {action: pong, delay_ms: -1}\n",
            "s.yaml:2:30: error: 'delay_ms' must be between 0 and 600000"
        ),
        (
            "websocket:\n  - {action: silent, delay_ms: 5}\n",
            "s.yaml:2:22: error: 'delay_ms' does not apply to action 'silent'"
        ),
        (
            "websocket:\n  - {action: close, code: 1006}\n",
            "s.yaml:2:27: error: close code 1006 may not be sent"
        ),
        (
            "websocket:\n  - {action: pong, messages: [{after_ms: 1}]}\n",
            "s.yaml:2:31: error: a message needs a 'text'"
        ),
        (
            "sse:\n  - {redeliver: 2}\n",
            "s.yaml:2:17: error: 'redeliver' applies only with 'resume: redeliver'"
        ),
        (
            "sse:\n  - {end: later}\n",
            "s.yaml:2:11: error: 'end' must be one of: close, hold; not 'later'"
        ),
        (
            "sse:\n  - {action: refuse, events: 2}\n",
            "s.yaml:2:22: error: 'events' does not apply to action 'refuse'"
        ),
        (
            "sse:\n  - {action: refuse, interval_ms: 5}\n",
            "s.yaml:2:22: error: 'interval_ms' does not apply to action 'refuse'"
        ),
        (
            "sse:\n  - {action: refuse, resume: reset}\n",
            "s.yaml:2:22: error: 'resume' does not apply to action 'refuse'"
        ),
        (
            "sse:\n  - {retry_ms: 5, action: refuse}\n",
            "s.yaml:2:6: error: 'retry_ms' does not apply to action 'refuse'"
        ),
        (
            "sse:\n  - {action: drop, end: hold}\n",
            "s.yaml:2:20: error: 'end' does not apply to action 'drop'"
        ),
        (
            "sse: [{events: 1}]\n---\nsse: []\n",
            "s.yaml:3:1: error: a scenario is one YAML document"
        ),
        ("websocket: [{action: pong}\n", "s.yaml:2:1: error: did not find expected ',' or ']'")
    ])
    func aBadScenarioIsReportedAtItsPlace(text: String, start: String) {
        let error = scenarioError(text)
        #expect(error?.hasPrefix(start) == true, "\(error ?? "no error")")
    }
}

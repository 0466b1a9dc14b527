import Testing

@testable import ConnAudit
import ConnAuditTestSupport

// The seeds' own models (Tests/ConnAuditTests/Rules/SeedPorts/), ported to Swift and made to write
// connlog lines as they run, checked with the default rule pack end to end: the correct model's log
// passes, and each known bug's log is caught by the rule named for it.

// MARK: - Helpers

/// The default pack, as compiled into the binary.
private let defaultPack = RuleLoader.builtin()

/// Runs the default pack over one log served from memory, as `conn-audit` would over a file.
private func audit(_ log: ConnlogWriter) -> AuditReport {
    RuleRuns.audit(defaultPack, log.text, path: log.path)
}

extension AuditReport {
    fileprivate func seedResult(_ id: String) -> RuleResult? { results.first { $0.rule.id == id } }

    /// The ids of the rules that failed, in pack order.
    fileprivate var failingRules: [String] { results.filter { $0.status == .fail }.map(\.rule.id) }
}

extension RuleResult {
    /// `line: message` of every violation and inconclusive case, for failure messages.
    fileprivate var findings: String {
        (violations + inconclusive).map { "\($0.line.map(String.init) ?? "-"): \($0.message)" }
            .joined(separator: "\n")
    }
}

// MARK: - The correct models

/// The four seed ports, each driven through its seed's scenario.
enum SeedModel: String, CaseIterable, Sendable {
    case heartbeat, backoff, sseReader, pathHint

    func log() -> ConnlogWriter {
        switch self {
        case .heartbeat: return HeartbeatDriver.seedScenario()
        case .backoff: return ReconnectingClient.seedScenario()
        case .sseReader: return SSEReaderModel.seedScenario()
        case .pathHint: return PathHintDriver.seedScenario()
        }
    }

    /// The rule families the model exercises (the backoff client runs the heartbeat too).
    var families: [String] {
        switch self {
        case .heartbeat: return ["ws."]
        case .backoff: return ["reconnect.", "ws."]
        case .sseReader: return ["sse."]
        case .pathHint: return ["path."]
        }
    }
}

@Suite struct SeedPortTests {
    @Test(arguments: SeedModel.allCases)
    func correctModelPassesEveryRule(_ model: SeedModel) throws {
        let log = model.log()
        let report = audit(log)
        let family = report.results.filter { r in
            model.families.contains { r.rule.id.hasPrefix($0) }
        }
        #expect(!family.isEmpty)
        for r in family {
            let why =
                "\(r.rule.id) is \(r.status.rawValue) on the correct \(model) log:\n\(r.findings)"
            #expect(r.status == .pass, "\(why)")
        }
        #expect(report.seedResult("log.malformed")?.status == .pass)
        #expect(report.seedResult("log.time-monotonic")?.status == .pass)
        // The rest of the pack has nothing against it either; only the required outcomes may be not
        // applicable, in a log without ws.connect.
        for r in report.results where !family.contains(where: { $0.rule.id == r.rule.id }) {
            let allowed: [RuleStatus] =
                r.rule.id == "ws.required-outcomes" ? [.pass, .notApplicable] : [.pass]
            let why =
                "\(r.rule.id) is \(r.status.rawValue) on the correct \(model) log:\n\(r.findings)"
            #expect(allowed.contains(r.status), "\(why)")
        }
    }

    /// The heartbeat and the reconnecting client record all four outcomes, so the required-outcomes
    /// rule passes on their own logs, not vacuously.
    @Test(arguments: [SeedModel.heartbeat, .backoff])
    func correctModelRecordsTheFourOutcomes(_ model: SeedModel) throws {
        let result = try #require(audit(model.log()).seedResult("ws.required-outcomes"))
        #expect(result.status == .pass)
        let labels = try #require(result.labels)
        #expect(labels.map(\.name) == ["normal", "delayed", "immediate_close", "connect_failure"])
        #expect(labels.allSatisfy { $0.count >= 1 }, "\(labels)")
    }

    // MARK: The ports are faithful

    @Test func heartbeatPortKeepsTheSeedsPreconditions() {
        #expect(HeartbeatModel.seedPreconditionFailures().isEmpty)
    }

    /// The seed's own checks catch each heartbeat mutant too: the rules agree with the seed.
    @Test(arguments: HeartbeatModel.Mutant.allCases)
    func seedPreconditionsCatchHeartbeatMutant(_ mutant: HeartbeatModel.Mutant) {
        #expect(!HeartbeatModel.seedPreconditionFailures(mutant).isEmpty)
    }

    @Test func pathHintPortKeepsTheSeedsPreconditions() {
        #expect(PathHintModel.seedPreconditionFailures().isEmpty)
        #expect(!PathHintModel.seedPreconditionFailures(.staleUpdateApplied).isEmpty)
        #expect(!PathHintModel.seedPreconditionFailures(.startsAvailable).isEmpty)
    }

    /// The seed's two curl checks against `sse_fixture.py`, on the port of the fixture.
    @Test func sseFixturePortAnswersLikeTheSeeds() {
        let server = SSEFixtureServer(events: [(1, "queued"), (2, "building"), (3, "finished")])
        let first = server.respond(lastEventID: nil, .cutAfter(events: 1))
        #expect(first.lines == ["id: 1", "data: queued", ""])
        let second = server.respond(lastEventID: "1", .complete)
        #expect(second.lines == ["id: 2", "data: building", "", "id: 3", "data: finished", ""])
    }

    @Test func backoffDelaysStayInTheSeedsRange() {
        var policy = BackoffPolicy()
        for attempt in 1...10 {
            let base = min(100 << attempt, 10000)
            let delay = policy.backoff()
            #expect(policy.attempts == attempt)
            #expect(
                delay >= base / 2 && delay <= base,
                "attempt \(attempt): \(delay) outside [\(base / 2), \(base)]")
        }
        #expect(!policy.mayRetry)
    }

    // MARK: - The mutants

    @Test(arguments: SeedMutant.allCases)
    func mutantIsCaught(_ mutant: SeedMutant) throws {
        let log = mutant.log()
        let report = audit(log)
        for (id, lines) in mutant.caughtBy(log) {
            let result = try #require(report.seedResult(id))
            #expect(result.status == .fail, "\(id) missed \(mutant):\n\(log.text)")
            let expected = try lines.map {
                try #require($0, "\(mutant): the scenario did not write the line")
            }
            let found = result.violations.prefix(expected.count).map(\.line)
            #expect(found == expected, "\(id) on \(mutant):\n\(result.findings)")
        }
        // Everything that fires, named rules and side effects, as listed in `SeedMutant.firing`.
        #expect(report.failingRules == mutant.firing, "\(mutant)")
        #expect(report.seedResult("log.malformed")?.status == .pass)
        #expect(report.seedResult("log.time-monotonic")?.status == .pass)
    }
}

// MARK: - The mutant table

/// Every known bug of the four seeds, with the rule(s) that must catch it and where.
enum SeedMutant: String, CaseIterable, Sendable {
    case heartbeatNoGenerationCheck
    case heartbeatPongAtDeadlineAccepted
    case heartbeatPingWhileWaiting
    case backoffEleventhAttempt
    case backoffNoResetAfterHealthy
    case backoffReconnectOnTransientError
    case backoffJitterOutOfRange
    case backoffFixedTwoSeconds
    case sseCommitOnIdLine
    case sseSkipFailedEvent
    case sseProcessRedelivered
    case sseStaleCursor
    case sseReconnectAfterCancel
    case pathStaleUpdateApplied
    case pathRequestOverridesHint
    case pathBlocksWhileUnknown
    case pathBlocksUserRequest
    case pathStartsAvailable

    func log() -> ConnlogWriter {
        switch self {
        case .heartbeatNoGenerationCheck: return HeartbeatDriver.seedScenario(.noGenerationCheck)
        case .heartbeatPongAtDeadlineAccepted:
            return HeartbeatDriver.seedScenario(.pongAtDeadlineAccepted)
        case .heartbeatPingWhileWaiting: return HeartbeatDriver.seedScenario(.pingWhileWaiting)
        case .backoffEleventhAttempt: return ReconnectingClient.seedScenario(.eleventhAttempt)
        case .backoffNoResetAfterHealthy:
            return ReconnectingClient.seedScenario(.noResetAfterHealthy)
        case .backoffReconnectOnTransientError:
            return ReconnectingClient.seedScenario(.reconnectOnTransientError)
        case .backoffJitterOutOfRange: return ReconnectingClient.seedScenario(.jitterOutOfRange)
        case .backoffFixedTwoSeconds: return ReconnectingClient.seedScenario(.fixedTwoSeconds)
        case .sseCommitOnIdLine: return SSEReaderModel.seedScenario(.commitOnIdLine)
        case .sseSkipFailedEvent: return SSEReaderModel.seedScenario(.skipFailedEvent)
        case .sseProcessRedelivered: return SSEReaderModel.seedScenario(.processRedelivered)
        case .sseStaleCursor: return SSEReaderModel.seedScenario(.staleCursor)
        case .sseReconnectAfterCancel: return SSEReaderModel.seedScenario(.reconnectAfterCancel)
        case .pathStaleUpdateApplied: return PathHintDriver.seedScenario(.staleUpdateApplied)
        case .pathRequestOverridesHint: return PathHintDriver.seedScenario(.requestOverridesHint)
        case .pathBlocksWhileUnknown: return PathHintDriver.seedScenario(.blocksWhileUnknown)
        case .pathBlocksUserRequest: return PathHintDriver.seedScenario(.blocksUserRequest)
        case .pathStartsAvailable: return PathHintDriver.seedScenario(.startsAvailable)
        }
    }

    /// The rules named for the bug, each with the lines of its first violations (found in the log
    /// by what the scenario did, not by re-deriving the rule; nil: the scenario did not write it).
    func caughtBy(_ log: ConnlogWriter) -> [(rule: String, lines: [Int?])] {
        switch self {
        case .heartbeatNoGenerationCheck:
            // The stale ws.open of generation 1 at t=1200 shows "connected", and the replaced third
            // connection's late close callback shows "disconnected": the ws.state after each.
            return [
                (
                    "ws.stale-event-no-effect",
                    [
                        log.line(marked: "stale open").map { $0 + 1 },
                        log.line(marked: "stale close").map { $0 + 1 }
                    ]
                )
            ]
        case .heartbeatPongAtDeadlineAccepted:
            // The pong at exactly 1100 is taken as on time: the next tick (1200) pings again, and
            // the ping at 100 never gets its pong_timeout close.
            return [
                ("ws.late-pong-ignored", [log.line(marked: "tick 1200")]),
                ("ws.timeout-closes", [log.line(marked: "ping 100")])
            ]
        case .heartbeatPingWhileWaiting:
            return [("ws.single-outstanding-ping", [log.line(marked: "tick 1099")])]
        case .backoffEleventhAttempt:
            return [
                ("reconnect.attempt-limit", [log.firstLine("ws.reconnect") { $0["attempt"] == 11 }])
            ]
        case .backoffNoResetAfterHealthy:
            let firstPong = log.firstLine("ws.pong") ?? 0
            return [
                ("reconnect.resets-after-open", [log.firstLine("ws.reconnect", after: firstPong)])
            ]
        case .backoffReconnectOnTransientError:
            let transient =
                log.firstLine("ws.ping_error") { $0["error"] == "NSURLErrorDomain:-1001" } ?? 0
            return [
                ("reconnect.fatal-errors-only", [log.firstLine("ws.reconnect", after: transient)])
            ]
        case .backoffJitterOutOfRange, .backoffFixedTwoSeconds:
            return [("reconnect.backoff-range", [Self.firstDelayOutOfRange(log)])]
        case .sseCommitOnIdLine:
            return [("sse.commit-after-processing", [log.firstLine("sse.commit")])]
        case .sseSkipFailedEvent:
            return [("sse.no-lost-events", [log.firstLine("sse.event") { $0["id"] == "3" }])]
        case .sseProcessRedelivered:
            let processed = log.lines("sse.processed") { $0["id"] == "4" && $0["ok"] == true }
            return [("sse.at-most-once", [processed.dropFirst().first])]
        case .sseStaleCursor:
            return [("sse.resume-from-commit", [log.lines("sse.connect").dropFirst().first])]
        case .sseReconnectAfterCancel:
            let cancel = log.firstLine("sse.cancel") ?? 0
            return [("sse.cancel-stops-reconnect", [log.firstLine("sse.connect", after: cancel)])]
        case .pathStaleUpdateApplied:
            let secondStart = log.lines("path.start").dropFirst().first ?? 0
            return [
                (
                    "path.stale-update-ignored",
                    [log.firstLine("path.state", after: secondStart) { $0["gen"] == 1 }]
                )
            ]
        case .pathRequestOverridesHint:
            let failed = log.firstLine("http.request") { $0["ok"] == false } ?? 0
            return [
                ("path.request-does-not-override", [log.firstLine("path.state", after: failed)])
            ]
        case .pathBlocksWhileUnknown:
            return [("path.no-block-when-unknown", [log.firstLine("http.blocked")])]
        case .pathBlocksUserRequest:
            return [
                (
                    "path.no-block-when-unknown",
                    [log.firstLine("http.blocked") { $0["user"] == true }]
                )
            ]
        case .pathStartsAvailable:
            let start = log.firstLine("path.start") ?? 0
            return [("path.starts-unknown", [log.firstLine("path.state", after: start)])]
        }
    }

    /// Every rule that fails on the mutant's log, in pack order: the named rules and what else the
    /// bug sets off downstream.
    var firing: [String] {
        switch self {
        case .heartbeatNoGenerationCheck:
            // The stale open makes the model think generation 2 is open from t=1200: it pings at
            // 2100, takes generation 1's pong at 2150 as the answer and pings again at 3100 instead
            // of closing (single-outstanding-ping at 3100; timeout-closes for the ping at 2100).
            return ["ws.stale-event-no-effect", "ws.single-outstanding-ping", "ws.timeout-closes"]
        case .heartbeatPongAtDeadlineAccepted:
            return ["ws.late-pong-ignored", "ws.timeout-closes"]
        case .heartbeatPingWhileWaiting:
            // Only this: the pong at 1100 is on time for the extra ping at 1099 (connlog cannot say
            // which ping a pong answers), so ws.timeout-closes has nothing against that ping.
            return ["ws.single-outstanding-ping"]
        case .backoffEleventhAttempt:
            return ["reconnect.attempt-limit"]
        case .backoffNoResetAfterHealthy:
            return ["reconnect.resets-after-open"]
        case .backoffReconnectOnTransientError:
            // The connection that should have timed out is closed at the transient error instead,
            // so no generation is closed for pong_timeout: the `delayed` outcome goes missing.
            return ["ws.required-outcomes", "reconnect.fatal-errors-only"]
        case .backoffJitterOutOfRange, .backoffFixedTwoSeconds:
            return ["reconnect.backoff-range"]
        case .sseCommitOnIdLine:
            // Event 3, cut after its id line, is committed and never seen again: lost for real, but
            // no sse.event of it was logged, so sse.no-lost-events cannot see it; this rule does.
            return ["sse.commit-after-processing"]
        case .sseSkipFailedEvent:
            return ["sse.no-lost-events"]
        case .sseProcessRedelivered:
            return ["sse.at-most-once"]
        case .sseStaleCursor:
            // Every resume restarts from the beginning; the dedupe store keeps it at most once.
            return ["sse.resume-from-commit"]
        case .sseReconnectAfterCancel:
            return ["sse.cancel-stops-reconnect"]
        case .pathStaleUpdateApplied:
            // The stale state comes before the new monitor's first update: it is also a guess.
            return ["path.starts-unknown", "path.stale-update-ignored"]
        case .pathRequestOverridesHint:
            return ["path.request-does-not-override"]
        case .pathBlocksWhileUnknown, .pathBlocksUserRequest:
            return ["path.no-block-when-unknown"]
        case .pathStartsAvailable:
            return ["path.starts-unknown"]
        }
    }

    /// The first `ws.reconnect` whose delay is outside [base / 2, base], base = min(2^attempt ×
    /// 100, 10000).
    static func firstDelayOutOfRange(_ log: ConnlogWriter) -> Int? {
        log.firstLine("ws.reconnect") { r in
            guard let attempt = r["attempt"]?.intValue, let delay = r["delay_ms"]?.intValue else {
                return true
            }
            let base = min(100 << min(attempt, 20), 10000)
            return 2 * delay < base || delay > base
        }
    }
}

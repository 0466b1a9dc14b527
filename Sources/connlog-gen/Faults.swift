/// The faults the generator can inject, each the kind of bug a rule of the default pack exists to
/// catch, and each shaped so that it violates exactly the rules listed in `expectedRules`, once per
/// injection (the rest of the device's log stays healthy around it).
enum FaultKind: Int, CaseIterable {
    // Lines
    case malformedLine
    case secretInField
    case timeRegression
    // WebSocket connections
    case closeWithoutReason
    case doubleClose
    case generationNotIncreasing
    case staleStateAfterReplace
    case pingTooEarly
    case doublePing
    case latePongExtendsLife
    case timeoutCloseLate
    case prematureTimeout
    case connectWithoutClose
    case backgroundWithoutClose
    // Reconnecting
    case backoffOutOfRange
    case attemptOverLimit
    case attemptNotReset
    case transientErrorReconnect
    case reconnectWhileOpen
    // SSE
    case commitBeforeProcessing
    case resumeFromWrongId
    case processedTwice
    case lostEvent
    case connectAfterCancel
    // Path hint
    case stateBeforeFirstUpdate
    case staleUpdateApplied
    case stateMismatch
    case requestOverridesHint
    case blockedUserRequest

    /// The name used on the command line and in the manifest.
    var name: String {
        switch self {
        case .malformedLine: return "malformed_line"
        case .secretInField: return "secret_in_field"
        case .timeRegression: return "time_regression"
        case .closeWithoutReason: return "close_without_reason"
        case .doubleClose: return "double_close"
        case .generationNotIncreasing: return "generation_not_increasing"
        case .staleStateAfterReplace: return "stale_state_after_replace"
        case .pingTooEarly: return "ping_too_early"
        case .doublePing: return "double_ping"
        case .latePongExtendsLife: return "late_pong_extends_life"
        case .timeoutCloseLate: return "timeout_close_late"
        case .prematureTimeout: return "premature_timeout"
        case .connectWithoutClose: return "connect_without_close"
        case .backgroundWithoutClose: return "background_without_close"
        case .backoffOutOfRange: return "backoff_out_of_range"
        case .attemptOverLimit: return "attempt_over_limit"
        case .attemptNotReset: return "attempt_not_reset"
        case .transientErrorReconnect: return "transient_error_reconnect"
        case .reconnectWhileOpen: return "reconnect_while_open"
        case .commitBeforeProcessing: return "commit_before_processing"
        case .resumeFromWrongId: return "resume_from_wrong_id"
        case .processedTwice: return "processed_twice"
        case .lostEvent: return "lost_event"
        case .connectAfterCancel: return "connect_after_cancel"
        case .stateBeforeFirstUpdate: return "state_before_first_update"
        case .staleUpdateApplied: return "stale_update_applied"
        case .stateMismatch: return "state_mismatch"
        case .requestOverridesHint: return "request_overrides_hint"
        case .blockedUserRequest: return "blocked_user_request"
        }
    }

    /// The rules expected to report each injection, once each.
    var expectedRules: [String] {
        switch self {
        case .malformedLine: return ["log.malformed"]
        case .secretInField: return ["log.no-secrets"]
        case .timeRegression: return ["log.time-monotonic"]
        case .closeWithoutReason: return ["ws.close-has-reason"]
        case .doubleClose: return ["ws.single-close"]
        case .generationNotIncreasing: return ["ws.generation-increases"]
        case .staleStateAfterReplace: return ["ws.stale-event-no-effect"]
        case .pingTooEarly: return ["ws.ping-after-interval"]
        case .doublePing: return ["ws.single-outstanding-ping"]
        // The late pong is taken as proof of life: the next ping follows it, and the ping it
        // answered late never gets its pong_timeout close.
        case .latePongExtendsLife: return ["ws.late-pong-ignored", "ws.timeout-closes"]
        case .timeoutCloseLate: return ["ws.timeout-closes"]
        case .prematureTimeout: return ["ws.no-premature-timeout"]
        case .connectWithoutClose: return ["ws.single-live-connection"]
        case .backgroundWithoutClose: return ["app.inactive-releases"]
        case .backoffOutOfRange: return ["reconnect.backoff-range"]
        case .attemptOverLimit: return ["reconnect.attempt-limit"]
        case .attemptNotReset: return ["reconnect.resets-after-open"]
        case .transientErrorReconnect: return ["reconnect.fatal-errors-only"]
        case .reconnectWhileOpen: return ["reconnect.not-while-open"]
        case .commitBeforeProcessing: return ["sse.commit-after-processing"]
        case .resumeFromWrongId: return ["sse.resume-from-commit"]
        case .processedTwice: return ["sse.at-most-once"]
        case .lostEvent: return ["sse.no-lost-events"]
        case .connectAfterCancel: return ["sse.cancel-stops-reconnect"]
        case .stateBeforeFirstUpdate: return ["path.starts-unknown"]
        case .staleUpdateApplied: return ["path.stale-update-ignored"]
        case .stateMismatch: return ["path.state-matches-status"]
        case .requestOverridesHint: return ["path.request-does-not-override"]
        case .blockedUserRequest: return ["path.no-block-when-unknown"]
        }
    }

    /// What the injected fault looks like in the log, for the manifest and `--list-faults`.
    var summary: String {
        switch self {
        case .malformedLine:
            return
                "an http.request line written broken (cut off, t as a string, no ev, gen as a string)"
        case .secretInField:
            return
                "an http.request carrying an Authorization header, a token field or a JWT in a value"
        case .timeRegression: return "an http.request whose t is lower than the line before it"
        case .closeWithoutReason:
            return "a ws.close (user, replaced, inactive, background, error) without its reason"
        case .doubleClose: return "a user ws.close repeated for the same generation"
        case .generationNotIncreasing: return "a ws.connect with gen 0 after higher generations"
        case .staleStateAfterReplace:
            return "a replaced generation's late close callback sets ws.state disconnected"
        case .pingTooEarly: return "a ws.ping 1-30 ms before one interval has passed since the pong"
        case .doublePing: return "a second ws.ping while the first still waits for its pong"
        case .latePongExtendsLife:
            return "a pong at or after the deadline is taken as proof of life: no close, next ping"
        case .timeoutCloseLate:
            return "the pong_timeout close comes 1-300 ms after deadline + tick_slack_ms"
        case .prematureTimeout: return "a pong_timeout close right after an on-time pong"
        case .connectWithoutClose:
            return "a replacement ws.connect before the old generation's ws.close"
        case .backgroundWithoutClose:
            return "app.scene background while connected; the ws.close comes after release_ms"
        case .backoffOutOfRange: return "a ws.reconnect delay_ms outside [0.5 base, base]"
        case .attemptOverLimit: return "an eleventh ws.reconnect attempt instead of giving up"
        case .attemptNotReset:
            return "the first ws.reconnect after a healthy connection says attempt 2"
        case .transientErrorReconnect:
            return "a ws.reconnect after a transient ws.ping_error (NSURLErrorDomain:-1001 ...)"
        case .reconnectWhileOpen:
            return "a ws.reconnect scheduled before the failing generation's ws.close"
        case .commitBeforeProcessing:
            return "sse.commit right after sse.event, before sse.processed"
        case .resumeFromWrongId: return "sse.connect with the Last-Event-ID of an older commit"
        case .processedTwice: return "a redelivered SSE event processed again instead of skipped"
        case .lostEvent:
            return "an SSE event whose processing failed is passed over and a later one committed"
        case .connectAfterCancel: return "sse.connect after sse.cancel without sse.start"
        case .stateBeforeFirstUpdate:
            return "after path.start, the old hint repeated before the monitor's first update"
        case .staleUpdateApplied: return "a cancelled monitor's path.update changes the hint"
        case .stateMismatch: return "a path.state that disagrees with the path.update before it"
        case .requestOverridesHint:
            return "a failed http.request sets path.state unavailable with no path.update"
        case .blockedUserRequest: return "http.blocked for a request the user asked for"
        }
    }

    static func named(_ name: String) -> FaultKind? {
        allCases.first { $0.name == name }
    }
}

/// Decides where faults are injected and keeps the book of what was injected, for the manifest.
///
/// A fault is injected at an *opportunity*: a point in a device's simulation where that kind of bug
/// could happen (each ping, each reconnect, each SSE event, ...). Each opportunity is taken with
/// probability `rate`, drawn from the device's own fault generator, which is never consulted when
/// the rate is 0 (a healthy corpus does not depend on the fault machinery at all).
final class FaultBook {
    let rate: Double
    let enabled: [Bool]
    private(set) var counts: [Int]
    /// Up to `exampleLimit` places of each kind: (file index, line).
    private(set) var examples: [[(file: Int, line: Int)]]
    static let exampleLimit = 3

    init(rate: Double, kinds: Set<FaultKind>?) {
        self.rate = rate
        enabled = FaultKind.allCases.map { kinds?.contains($0) ?? true }
        counts = Array(repeating: 0, count: FaultKind.allCases.count)
        examples = Array(repeating: [], count: FaultKind.allCases.count)
    }

    var active: Bool { rate > 0 }

    /// Whether to inject `kind` at this opportunity.
    @inline(__always)
    func roll(_ kind: FaultKind, _ rng: inout Xoshiro256) -> Bool {
        rate > 0 && enabled[kind.rawValue] && rng.unit() < rate
    }

    /// Records one injection of `kind`, the line it is at (the first line that makes it a fault).
    func record(_ kind: FaultKind, file: Int, line: Int) {
        counts[kind.rawValue] += 1
        if examples[kind.rawValue].count < FaultBook.exampleLimit {
            examples[kind.rawValue].append((file, line))
        }
    }

    /// Adds another book's counts (books are kept per worker and merged in device order).
    func merge(_ other: FaultBook, fileOffset: Int = 0) {
        for i in counts.indices {
            counts[i] += other.counts[i]
            for e in other.examples[i] where examples[i].count < FaultBook.exampleLimit {
                examples[i].append((e.file + fileOffset, e.line))
            }
        }
    }
}

/// The seeds' bugs, planted on purpose: each must be caught by its rule of the default pack and
/// by no other.
public enum PlantedBug: String, CaseIterable, Sendable {
    /// A pong of an old generation extends the new connection's life (no generation check).
    case stalePong = "stale-pong"
    /// The client's own closes (the end of a session) carry no reason.
    case closeWithoutReason = "close-without-reason"
    /// One reconnect attempt past the limit.
    case attemptLimitOffByOne = "attempt-limit-off-by-one"
    /// The SSE cursor is committed when the event is parsed, before it is handled.
    case commitBeforeProcessing = "commit-before-processing"
    /// A ping whose write failed with a fatal error is sent again on the same connection,
    /// instead of the connection ending.
    case fatalPingRetried = "fatal-ping-retried"

    /// The rule of the default pack that catches it.
    public var rule: String {
        switch self {
        case .stalePong: return "ws.single-outstanding-ping"
        case .closeWithoutReason: return "ws.close-has-reason"
        case .attemptLimitOffByOne: return "reconnect.attempt-limit"
        case .commitBeforeProcessing: return "sse.commit-after-processing"
        case .fatalPingRetried: return "ws.single-outstanding-ping"
        }
    }
}

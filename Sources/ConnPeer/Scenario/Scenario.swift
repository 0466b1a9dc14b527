/// What the peer does on each connection: the n-th WebSocket connection follows the n-th
/// WebSocket plan, the n-th SSE connection the n-th SSE plan, each list cycling.
public struct Scenario: Sendable, Equatable {
    public var websocket: [WebSocketPlan]
    public var sse: [SSEPlan]
    /// A connection with nothing to read and nothing due for this long is closed.
    public var idleTimeoutMs: Int?

    public init(websocket: [WebSocketPlan], sse: [SSEPlan], idleTimeoutMs: Int? = nil) {
        self.websocket = websocket
        self.sse = sse
        self.idleTimeoutMs = idleTimeoutMs
    }

    /// The plan for the `n`-th (1-based) WebSocket connection.
    public func websocketPlan(_ n: Int) -> WebSocketPlan { websocket[(n - 1) % websocket.count] }

    /// The plan for the `n`-th (1-based) SSE connection.
    public func ssePlan(_ n: Int) -> SSEPlan { sse[(n - 1) % sse.count] }

    /// The mix served without a scenario file. A client that connects four times in a row sees
    /// the four outcomes a heartbeat client must handle: pongs at once, pongs 2 s late (past the
    /// default 1 s timeout), a close right after the handshake, a connection closed before it.
    /// SSE clients get three events (ids 1-3); reconnecting with the last id they saw, they get
    /// three more, the first of them that id again (`Last-Event-ID: 3` gets ids 3, 4 and 5).
    public static let defaultMix = Scenario(
        websocket: [
            WebSocketPlan(action: .pong),
            WebSocketPlan(action: .pong, delayMs: 2000),
            WebSocketPlan(
                action: .close, closeCode: CloseCode.goingAway, closeReason: "scenario close"),
            WebSocketPlan(action: .refuse)
        ],
        sse: [
            SSEPlan(events: 3),
            SSEPlan(events: 3, resume: .redeliver, redeliver: 1)
        ])
}

/// One WebSocket connection's script.
public struct WebSocketPlan: Sendable, Equatable {
    public enum Action: String, Sendable, CaseIterable {
        /// Answer every ping with a pong, after `delayMs`.
        case pong
        /// Never answer a ping.
        case silent
        /// Send a close frame with `closeCode` right after the handshake (after `afterMs`).
        case close
        /// Close the socket before the handshake: the client's connect fails.
        case refuse
        /// Cut the connection in the middle of a frame after `afterMs`; pings are answered until.
        case drop
    }

    public var action: Action
    public var delayMs: Int
    public var closeCode: UInt16
    public var closeReason: String
    public var afterMs: Int
    public var messages: [ScheduledMessage]
    /// How long the peer waits before it answers the client's close frame; pongs and messages
    /// that fall due meanwhile still go (RFC 6455 lets an endpoint send until its own close).
    public var closeDelayMs: Int
    /// How often the peer pings the client, from the handshake on (0: never). Until the
    /// client's close frame comes, each ping goes one interval after the last, whether or not
    /// its pong came: the client's answers are logged, not awaited.
    public var pingEveryMs: Int

    public init(
        action: Action, delayMs: Int = 0, closeCode: UInt16 = CloseCode.goingAway,
        closeReason: String = "", afterMs: Int = 0, messages: [ScheduledMessage] = [],
        closeDelayMs: Int = 0, pingEveryMs: Int = 0
    ) {
        self.action = action
        self.delayMs = delayMs
        self.closeCode = closeCode
        self.closeReason = closeReason
        self.afterMs = afterMs
        self.messages = messages
        self.closeDelayMs = closeDelayMs
        self.pingEveryMs = pingEveryMs
    }
}

/// An application message the peer sends at a time after the handshake.
public struct ScheduledMessage: Sendable, Equatable {
    public var afterMs: Int
    public var text: String
    /// Frames the message is cut into (1: a single frame; more: a first frame and continuations).
    public var fragments: Int

    public init(afterMs: Int, text: String, fragments: Int = 1) {
        self.afterMs = afterMs
        self.text = text
        self.fragments = fragments
    }
}

/// One SSE connection's script.
public struct SSEPlan: Sendable, Equatable {
    public enum Action: String, Sendable, CaseIterable {
        /// Send the events, then end as `end` says.
        case stream
        /// Close the socket before answering.
        case refuse
        /// Send the events, then the start of one more, and cut the connection.
        case drop
    }

    /// Which event comes first when the client sends `Last-Event-ID: N`.
    public enum Resume: String, Sendable, CaseIterable {
        /// Event N+1: nothing is sent twice.
        case `continue`
        /// Event N+1-redeliver: the last `redeliver` events the client saw come again.
        case redeliver
        /// Event 1: the server forgot its ids (a restart), whatever the client saw.
        case reset
    }

    public enum End: String, Sendable, CaseIterable {
        /// End the response after the last event.
        case close
        /// Keep the response open until the idle timeout or the peer's end.
        case hold
    }

    public var action: Action
    public var events: Int
    public var intervalMs: Int
    public var retryMs: Int?
    public var resume: Resume
    public var redeliver: Int
    public var end: End

    public init(
        action: Action = .stream, events: Int = 3, intervalMs: Int = 20, retryMs: Int? = 100,
        resume: Resume = .continue, redeliver: Int = 1, end: End = .close
    ) {
        self.action = action
        self.events = events
        self.intervalMs = intervalMs
        self.retryMs = retryMs
        self.resume = resume
        self.redeliver = redeliver
        self.end = end
    }

    /// The id of the first event to send to a client whose `Last-Event-ID` is `lastID`
    /// (0: none, or not a number).
    public func firstID(after lastID: Int) -> Int {
        switch resume {
        case .continue: return lastID + 1
        case .redeliver: return max(1, lastID + 1 - redeliver)
        case .reset: return 1
        }
    }
}

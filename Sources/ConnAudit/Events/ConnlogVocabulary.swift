/// The events connlog defines for its protocol streams (docs/connlog.md, "Event vocabulary"):
/// what a rule's `ev:` is checked against when the rules load.
///
/// A log may carry any other event, and a rule may name it. But an `ev:` in one of these streams
/// that connlog does not define, and that no other rule names, is most likely misspelt
/// (`ws.pnog`): a selector that can never match, whose rule then passes on every log.
enum ConnlogVocabulary {
    /// The streams whose events connlog defines.
    static let streams: Set<Substring> = ["ws", "sse", "path"]

    static let events: Set<String> = [
        "ws.connect", "ws.open", "ws.ping", "ws.pong", "ws.ping_error", "ws.message",
        "ws.recv_error", "ws.close", "ws.closed", "ws.connect_failed", "ws.state", "ws.reconnect",
        "sse.connect", "sse.event", "sse.processed", "sse.skipped", "sse.commit",
        "sse.disconnect", "sse.cancel", "sse.start",
        "path.start", "path.update", "path.cancel", "path.state"
    ]

    /// Whether `ev` is in a stream connlog defines but is not one of its events.
    static func isUnknownInKnownStream(_ ev: String) -> Bool {
        guard let dot = ev.firstIndex(of: "."), streams.contains(ev[..<dot]) else { return false }
        return !events.contains(ev)
    }
}

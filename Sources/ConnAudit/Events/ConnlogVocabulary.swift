/// The events connlog defines for its protocol streams (docs/connlog.md, "Event vocabulary"):
/// what a rule's `ev:` is checked against when the rules load.
///
/// A log may carry any other event, and a rule may name it. But an `ev:` in one of these streams
/// that connlog does not define, and that no other rule names, is most likely misspelt
/// (`ws.pnog`): a selector that can never match, whose rule then passes on every log.
enum ConnlogVocabulary {
    /// The streams whose events connlog defines.
    static let streams: Set<Substring> = ["ws", "sse", "path"]

    /// Each event connlog defines, with the fields it gives it (besides ``anyEventFields``).
    static let fields: [String: Set<String>] = [
        "ws.connect": ["interval_ms", "timeout_ms"], "ws.open": [], "ws.ping": [], "ws.pong": [],
        "ws.ping_error": [], "ws.message": [], "ws.recv_error": [], "ws.close": [],
        "ws.closed": ["code"], "ws.connect_failed": [], "ws.state": [],
        "ws.reconnect": ["attempt", "delay_ms"],
        "sse.connect": ["last_event_id"], "sse.event": ["id"], "sse.processed": ["id", "ok"],
        "sse.skipped": ["id"], "sse.commit": ["id"], "sse.disconnect": [], "sse.cancel": [],
        "sse.start": [],
        "path.start": [], "path.update": ["status", "expensive", "constrained"],
        "path.cancel": [], "path.state": ["expensive", "constrained"]
    ]

    /// What any event may carry: the fields every line has or may have with a fixed meaning,
    /// and the names every event answers (`$seq`, `$line`, `$file`).
    static let anyEventFields: Set<String> = [
        "t", "ev", "gen", "src", "session", "reason", "error", "state", "$seq", "$line", "$file"
    ]

    static func defines(_ ev: String) -> Bool { fields[ev] != nil }

    /// Whether `ev` is in a stream connlog defines but is not one of its events.
    static func isUnknownInKnownStream(_ ev: String) -> Bool {
        guard let dot = ev.firstIndex(of: "."), streams.contains(ev[..<dot]) else { return false }
        return !defines(ev)
    }
}

import ConnAudit

/// Reads a scenario file (YAML, through the project's libyaml loader) into a ``Scenario``.
///
/// Every problem is a ``Diagnostic`` at the node it concerns: an unknown key, a value of the
/// wrong kind, a number out of range, an empty list. Numbers are bounded so that no scenario can
/// make the peer wait for days or send without end.
public enum ScenarioLoader {
    /// The longest delay or offset a scenario may ask for, in ms (10 minutes).
    public static let maxMs = 600_000
    /// The most entries in a list (plans, messages), and the most SSE events of one connection.
    public static let maxEntries = 1_000
    public static let maxEvents = 100_000

    /// The scenario written in `text`; `path` names the file in diagnostics.
    public static func load(_ text: String, path: String) throws(Diagnostic) -> Scenario {
        let documents = try YamlLoader.load(text, path: path)
        let reader = Reader(path: path, text: text)
        guard let root = documents.first else {
            throw reader.error(
                "the scenario is empty: expected a mapping with 'websocket' or 'sse'",
                line: 1, column: 1)
        }
        if documents.count > 1 {
            throw reader.error("a scenario is one YAML document", at: documents[1])
        }
        return try reader.scenario(root)
    }
}

/// Walks the YAML tree, turning each node into a value or a positioned error.
private struct Reader {
    let path: String
    let text: String

    func error(_ message: String, line: Int, column: Int) -> Diagnostic {
        Diagnostic(.error, path: path, line: line, column: column, message: message, in: text)
    }

    func error(_ message: String, at node: YamlNode) -> Diagnostic {
        error(message, line: node.line, column: node.column)
    }

    // MARK: - Shapes

    /// The pairs of a mapping whose keys are all in `allowed`.
    func mapping(_ node: YamlNode, what: String, allowed: [String]) throws(Diagnostic) -> [String:
        YamlNode]
    {
        guard let pairs = node.mappingPairs else {
            throw error("\(what) must be a mapping, not a \(node.kindName)", at: node)
        }
        var out: [String: YamlNode] = [:]
        for pair in pairs {
            guard let key = pair.key.scalar, allowed.contains(key) else {
                let shown = pair.key.scalar.map { "'\($0)'" } ?? "a \(pair.key.kindName) key"
                throw error(
                    "unknown key \(shown) in \(what) (expected one of: "
                        + allowed.joined(separator: ", ") + ")", at: pair.key)
            }
            out[key] = pair.value
        }
        return out
    }

    func list(_ node: YamlNode, what: String) throws(Diagnostic) -> [YamlNode] {
        guard let items = node.sequenceItems else {
            throw error("\(what) must be a list, not a \(node.kindName)", at: node)
        }
        guard !items.isEmpty else { throw error("\(what) must have at least one entry", at: node) }
        guard items.count <= ScenarioLoader.maxEntries else {
            throw error("\(what) has more than \(ScenarioLoader.maxEntries) entries", at: node)
        }
        return items
    }

    func integer(_ node: YamlNode, key: String, in range: ClosedRange<Int>) throws(Diagnostic)
        -> Int
    {
        guard let text = node.scalar, node.scalarStyle == .plain, let value = Int(text) else {
            throw error("'\(key)' must be a whole number", at: node)
        }
        guard range.contains(value) else {
            throw error(
                "'\(key)' must be between \(range.lowerBound) and \(range.upperBound), not \(value)",
                at: node)
        }
        return value
    }

    func string(_ node: YamlNode, key: String) throws(Diagnostic) -> String {
        guard let text = node.scalar, !node.isNull else {
            throw error(
                "'\(key)' must be a string, not a \(node.isNull ? "null" : node.kindName)", at: node
            )
        }
        return text
    }

    func choice<T: RawRepresentable & CaseIterable>(
        _ node: YamlNode, key: String, as: T.Type
    ) throws(Diagnostic) -> T where T.RawValue == String {
        let text = try string(node, key: key)
        guard let value = T(rawValue: text) else {
            let names = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw error("'\(key)' must be one of: \(names); not '\(text)'", at: node)
        }
        return value
    }

    /// Throws at the first key of `node` that `owners` gives to actions other than `action`.
    /// Keys `owners` does not name apply to every action.
    func checkOwners<Action: RawRepresentable & Equatable>(
        _ node: YamlNode, _ owners: [String: [Action]], action: Action
    ) throws(Diagnostic) where Action.RawValue == String {
        for pair in node.mappingPairs ?? [] {
            guard let key = pair.key.scalar, let actions = owners[key] else { continue }
            guard actions.contains(action) else {
                throw error("'\(key)' does not apply to action '\(action.rawValue)'", at: pair.key)
            }
        }
    }

    // MARK: - The scenario

    func scenario(_ root: YamlNode) throws(Diagnostic) -> Scenario {
        let keys = try mapping(
            root, what: "the scenario", allowed: ["websocket", "sse", "idle_timeout_ms"])
        guard keys["websocket"] != nil || keys["sse"] != nil else {
            throw error("the scenario needs a 'websocket' or an 'sse' list", at: root)
        }
        var scenario = Scenario.defaultMix
        if let node = keys["websocket"] {
            var plans: [WebSocketPlan] = []
            for item in try list(node, what: "'websocket'") {
                plans.append(try websocketPlan(item))
            }
            scenario.websocket = plans
        }
        if let node = keys["sse"] {
            var plans: [SSEPlan] = []
            for item in try list(node, what: "'sse'") { plans.append(try ssePlan(item)) }
            scenario.sse = plans
        }
        if let node = keys["idle_timeout_ms"] {
            scenario.idleTimeoutMs = try integer(
                node, key: "idle_timeout_ms", in: 1...ScenarioLoader.maxMs)
        }
        return scenario
    }

    func websocketPlan(_ node: YamlNode) throws(Diagnostic) -> WebSocketPlan {
        let keys = try mapping(
            node, what: "a websocket entry",
            allowed: [
                "action", "delay_ms", "code", "reason", "after_ms", "messages", "close_delay_ms",
                "ping_every_ms"
            ])
        guard let actionNode = keys["action"] else {
            throw error("a websocket entry needs an 'action'", at: node)
        }
        var plan = WebSocketPlan(
            action: try choice(actionNode, key: "action", as: WebSocketPlan.Action.self))
        // Each option belongs to the actions it changes; elsewhere it would be silently ignored.
        let owners: [String: [WebSocketPlan.Action]] = [
            "delay_ms": [.pong, .drop], "code": [.close], "reason": [.close],
            "after_ms": [.close, .drop], "messages": [.pong, .silent, .drop],
            "close_delay_ms": [.pong, .silent, .drop], "ping_every_ms": [.pong, .silent, .drop]
        ]
        try checkOwners(node, owners, action: plan.action)
        if let v = keys["delay_ms"] {
            plan.delayMs = try integer(v, key: "delay_ms", in: 0...ScenarioLoader.maxMs)
        }
        if let v = keys["after_ms"] {
            plan.afterMs = try integer(v, key: "after_ms", in: 0...ScenarioLoader.maxMs)
        }
        if let v = keys["close_delay_ms"] {
            // At most 5 s, so a connection ends in bounded time. A client that waits less for
            // the answer (conn-soak waits 1 s) ends the connection first; the idle timeout does
            // not cut the wait short.
            plan.closeDelayMs = try integer(v, key: "close_delay_ms", in: 0...5_000)
        }
        if let v = keys["ping_every_ms"] {
            // At least 10 ms, so pings cannot flood a client.
            plan.pingEveryMs = try integer(v, key: "ping_every_ms", in: 10...60_000)
        }
        if let v = keys["code"] {
            let code = try integer(v, key: "code", in: 1000...4999)
            guard CloseCode.isValidOnWire(UInt16(code)) else {
                throw error(
                    "close code \(code) may not be sent (1005, 1006 and 1015 never are)", at: v)
            }
            plan.closeCode = UInt16(code)
        }
        if let v = keys["reason"] {
            plan.closeReason = try string(v, key: "reason")
            // A close frame's payload is at most 125 bytes: 2 for the code, 123 for the reason.
            guard plan.closeReason.utf8.count <= 123 else {
                throw error(
                    "'reason' is over 123 bytes (a close frame holds 125 with its code)", at: v)
            }
        }
        if let v = keys["messages"] {
            for item in try list(v, what: "'messages'") { plan.messages.append(try message(item)) }
        }
        return plan
    }

    func message(_ node: YamlNode) throws(Diagnostic) -> ScheduledMessage {
        let keys = try mapping(node, what: "a message", allowed: ["after_ms", "text", "fragments"])
        guard let textNode = keys["text"] else { throw error("a message needs a 'text'", at: node) }
        let text = try string(textNode, key: "text")
        guard text.utf8.count <= 65_536 else { throw error("'text' is over 64 KiB", at: textNode) }
        var message = ScheduledMessage(afterMs: 0, text: text)
        if let v = keys["after_ms"] {
            message.afterMs = try integer(v, key: "after_ms", in: 0...ScenarioLoader.maxMs)
        }
        if let v = keys["fragments"] {
            message.fragments = try integer(v, key: "fragments", in: 1...64)
        }
        return message
    }

    func ssePlan(_ node: YamlNode) throws(Diagnostic) -> SSEPlan {
        let keys = try mapping(
            node, what: "an sse entry",
            allowed: ["action", "events", "interval_ms", "retry_ms", "resume", "redeliver", "end"])
        var plan = SSEPlan()
        if let v = keys["action"] {
            plan.action = try choice(v, key: "action", as: SSEPlan.Action.self)
        }
        // As for websocket entries: an option where its action ignores it is an error, not a
        // silent no-op. A refused connection gets no response at all; a dropped one never ends.
        let owners: [String: [SSEPlan.Action]] = [
            "events": [.stream, .drop], "interval_ms": [.stream, .drop],
            "retry_ms": [.stream, .drop], "resume": [.stream, .drop],
            "redeliver": [.stream, .drop], "end": [.stream]
        ]
        try checkOwners(node, owners, action: plan.action)
        if let v = keys["events"] {
            plan.events = try integer(v, key: "events", in: 0...ScenarioLoader.maxEvents)
        }
        if let v = keys["interval_ms"] {
            plan.intervalMs = try integer(v, key: "interval_ms", in: 0...ScenarioLoader.maxMs)
        }
        if let v = keys["retry_ms"] {
            plan.retryMs =
                v.isNull ? nil : try integer(v, key: "retry_ms", in: 0...ScenarioLoader.maxMs)
        }
        if let v = keys["resume"] {
            plan.resume = try choice(v, key: "resume", as: SSEPlan.Resume.self)
        }
        if let v = keys["redeliver"] {
            guard plan.resume == .redeliver else {
                throw error("'redeliver' applies only with 'resume: redeliver'", at: v)
            }
            plan.redeliver = try integer(v, key: "redeliver", in: 1...ScenarioLoader.maxEvents)
        }
        if let v = keys["end"] { plan.end = try choice(v, key: "end", as: SSEPlan.End.self) }
        return plan
    }
}

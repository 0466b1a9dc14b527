import ConnAuditTestSupport
import ConnPeer
import Foundation
import Testing

/// conn-peer's SSE side: `text/event-stream` with `id:` and `retry:`, and a client that reconnects
/// with `Last-Event-ID` gets what the scenario scripts: the next events, a redelivery of the last
/// ones, ids reset to 1, or an event cut in half.
@Suite("conn-peer SSE resume")
struct PeerSSEResumeTests {
    static let scenario = """
        sse:
          - {events: 3, interval_ms: 0, retry_ms: 250}
          - {events: 3, interval_ms: 0, resume: redeliver, redeliver: 2}
          - {events: 2, interval_ms: 0, resume: reset}
          - {events: 2, interval_ms: 0}
          - {events: 1, interval_ms: 0, action: drop}

        """

    /// The stream's head and body for a GET with `lastEventID`.
    static func stream(port: UInt16, lastEventID: String?) throws -> (head: String, body: String) {
        let client = try RawClient(port: port)
        var lines = [
            "GET /events?token=t0ps3cret HTTP/1.1", "Host: 127.0.0.1", "Accept: text/event-stream"
        ]
        if let lastEventID { lines.append("Last-Event-ID: \(lastEventID)") }
        client.send(lines.joined(separator: "\r\n") + "\r\n\r\n")
        let text = client.readToEnd()
        guard let split = text.range(of: "\r\n\r\n") else { return (text, "") }
        return (String(text[..<split.upperBound]), String(text[split.upperBound...]))
    }

    /// The ids of the whole events (those ended by their blank line) in `body`.
    static func ids(_ body: String) -> [String] {
        body.components(separatedBy: "\n\n").dropLast().compactMap { block in
            block.split(separator: "\n").first { $0.hasPrefix("id: ") }.map {
                String($0.dropFirst(4))
            }
        }
    }

    @Test func reconnectingWithLastEventIDGetsTheScriptedEvents() throws {
        var peer = try PeerProcess(scenario: Self.scenario, ["--max-connections", "5"])
        defer { peer.remove() }

        let first = try Self.stream(port: peer.port, lastEventID: nil)
        #expect(first.head.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(first.head.contains("\r\nContent-Type: text/event-stream\r\n"))
        #expect(first.body.hasPrefix("retry: 250\n\nid: 1\ndata: event 1\n\n"))
        #expect(Self.ids(first.body) == ["1", "2", "3"])

        // Redelivery: the last two events the client saw come again before the new ones.
        #expect(
            Self.ids(try Self.stream(port: peer.port, lastEventID: "3").body) == ["2", "3", "4"])
        // Reset: ids start over, whatever the client saw.
        #expect(Self.ids(try Self.stream(port: peer.port, lastEventID: "4").body) == ["1", "2"])
        // Continue: the next events; an id that is not a number counts as none.
        #expect(Self.ids(try Self.stream(port: peer.port, lastEventID: "abc").body) == ["1", "2"])
        // Drop: one whole event, then the next cut short, then the end of the connection.
        let dropped = try Self.stream(port: peer.port, lastEventID: "9").body
        #expect(Self.ids(dropped) == ["10"])
        #expect(dropped.hasSuffix("id: 11\ndata: even"))

        let (status, log) = try peer.finish()
        #expect(status == 0)
        #expect(peerEvents(log).filter { $0.hasPrefix("peer.sse_event@") }.count == 11)
        #expect(!log.contains("t0ps3cret"), "a request's query stays out of the log")
    }
}

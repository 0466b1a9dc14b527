import ConnAuditTestSupport
import ConnPeer
import Foundation
import Testing

/// An independent client, Chromium's own WebSocket (Debian's headless `chromium`, which
/// script/test installs), against conn-peer: the handshake, messages both ways (one of them in
/// fragments), the keepalive of a browser (the peer pings, Chromium answers by itself; a page
/// cannot ping), and a clean close.
@Suite("Chromium's WebSocket against conn-peer")
struct ChromiumWebSocketClientTests {
    /// The WebSocket connection pings every 100 ms and sends two messages; SSE requests get a
    /// stream that stays open, which the page uses to hold its load (see ``page(port:)``).
    static let scenario = """
        websocket:
          - action: pong
            ping_every_ms: 100
            messages:
              - {after_ms: 100, text: "tick"}
              - {after_ms: 200, text: "a longer message", fragments: 3}
        sse:
          - {events: 0, end: hold}

        """

    /// A page whose script talks to conn-peer and writes what happened into `#outcome`.
    ///
    /// `--dump-dom` prints the DOM once the page has loaded. A frame on a stream that never ends
    /// keeps the load from ending; the script removes the frame when it has written the
    /// outcome, at the close or after 8 s, so the dump shows the outcome and comes in bounded
    /// time.
    static func page(port: UInt16) -> String {
        #"""
        <!doctype html>
        <html><body>
        <p id="outcome">pending</p>
        <iframe id="hold" src="http://127.0.0.1:\#(port)/hold"></iframe>
        <script>
        const steps = [];
        function finish(last) {
          steps.push(last);
          document.getElementById("outcome").textContent = steps.join("; ");
          const hold = document.getElementById("hold");
          if (hold) hold.remove();
        }
        const limit = setTimeout(() => finish("timed out"), 8000);
        const ws = new WebSocket("ws://127.0.0.1:\#(port)/");
        ws.onopen = () => { steps.push("open"); ws.send("hello"); };
        ws.onmessage = (event) => {
          steps.push("message " + event.data);
          // The keepalive runs 600 ms past the last message before the page closes.
          if (steps.length === 3) setTimeout(() => ws.close(1000, "done"), 600);
        };
        ws.onerror = () => steps.push("error");
        ws.onclose = (event) => {
          clearTimeout(limit);
          finish("closed " + event.code + (event.wasClean ? " clean" : ""));
        };
        </script>
        </body></html>
        """#
    }

    @Test func handshakeMessagesKeepaliveAndCloseHold() throws {
        var peer = try PeerProcess(scenario: Self.scenario)
        defer { peer.remove() }
        let page = peer.dir + "/page.html"
        try Self.page(port: peer.port).write(toFile: page, atomically: true, encoding: .utf8)
        let dom = try Chromium.run(["--dump-dom"], page: page, timeout: 60)
        #expect(
            dom.contains(
                "<p id=\"outcome\">open; message tick; message a longer message; closed 1000 clean"
                    + "</p>"), "\(dom)")

        // The peer's side: the connection that asked for a WebSocket, from its handshake to the
        // close frame Chromium sent (its log is flushed line by line; its end may lag a little).
        var lines: [[String: Any]] = []
        let clock = MonotonicClock()
        repeat {
            let log = (try? String(contentsOfFile: peer.logPath, encoding: .utf8)) ?? ""
            lines = log.split(separator: "\n").compactMap { try? jsonObject(String($0)) }
            if lines.contains(where: { $0["ev"] as? String == "peer.closed" }) { break }
            usleep(20_000)
        } while clock.elapsedMs() < 2_000
        let request = try #require(
            lines.first { $0["ev"] as? String == "peer.request" && $0["proto"] as? String == "ws" },
            "no WebSocket request in \(lines)")
        let gen = try #require(request["gen"] as? Int)
        let events = lines.filter { $0["gen"] as? Int == gen }
        let names = events.compactMap { $0["ev"] as? String }
        #expect(names.contains("peer.open"), "\(names)")
        let message = events.first { $0["ev"] as? String == "peer.message" }
        #expect(message?["kind"] as? String == "text" && message?["bytes"] as? Int == 5)
        #expect(names.filter { $0 == "peer.send" }.count == 2, "\(names)")
        // 600 ms and more of pings every 100 ms, each answered by Chromium itself.
        #expect(names.filter { $0 == "peer.ping_sent" }.count >= 5, "\(names)")
        #expect(names.filter { $0 == "peer.pong_received" }.count >= 5, "\(names)")
        let closed = events.first { $0["ev"] as? String == "peer.closed" }
        #expect(closed?["code"] as? Int == 1000, "\(names)")
        #expect(!names.contains("peer.protocol_error"), "\(names)")
    }
}

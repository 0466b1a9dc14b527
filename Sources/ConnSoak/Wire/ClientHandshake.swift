import ConnPeer

/// The client side of the WebSocket opening handshake (RFC 6455 section 4.1).
enum ClientHandshake {
    /// The request for `key` (16 bytes in base64).
    static func request(address: PeerAddress, path: String, key: String) -> [UInt8] {
        Array(
            ("GET \(path) HTTP/1.1\r\nHost: \(address)\r\nUpgrade: websocket\r\n"
                + "Connection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\n"
                + "Sec-WebSocket-Version: 13\r\n\r\n").utf8)
    }

    /// Why the response head does not accept the upgrade; nil when it does: status 101,
    /// `Upgrade: websocket`, `Connection: Upgrade` and the accept key of `key`.
    static func problem(head: [UInt8], key: String) -> String? {
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: true)[...]
        guard let status = lines.popFirst() else { return "an empty response" }
        let parts = status.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0] == "HTTP/1.1", parts[1] == "101" else {
            return "status is not 101"
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { return "a header line without ':'" }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingSpaces
            headers[name] = headers[name].map { $0 + "," + value } ?? value
        }
        func tokens(_ name: String) -> [String] {
            (headers[name] ?? "").split(separator: ",").map { $0.trimmingSpaces.lowercased() }
        }
        guard tokens("upgrade").contains("websocket") else { return "no 'Upgrade: websocket'" }
        guard tokens("connection").contains("upgrade") else { return "no 'Connection: Upgrade'" }
        guard headers["sec-websocket-accept"] == WebSocketHandshake.acceptKey(for: key) else {
            return "Sec-WebSocket-Accept does not match the key"
        }
        return nil
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(
            drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

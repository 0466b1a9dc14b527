/// The server side of the WebSocket opening handshake (RFC 6455 section 4.2).
public enum WebSocketHandshake {
    /// The GUID RFC 6455 appends to the client's key before hashing.
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// `Sec-WebSocket-Accept` for the client's `Sec-WebSocket-Key`: base64(SHA-1(key + GUID)).
    public static func acceptKey(for key: String) -> String {
        Base64.encode(SHA1.digest(Array((key + guid).utf8)))
    }

    /// True when the request asks for a WebSocket upgrade at all (`Upgrade: websocket`).
    public static func isUpgrade(_ request: HTTPRequest) -> Bool {
        request.tokens("upgrade").contains("websocket")
    }

    /// The client's key when the request is a valid opening handshake.
    ///
    /// - Throws: ``HandshakeError`` naming the first requirement the request misses.
    public static func validate(_ request: HTTPRequest) throws(HandshakeError) -> String {
        guard request.method == "GET" else { throw .invalid("the method is not GET") }
        guard request.version == "HTTP/1.1" else { throw .invalid("the version is not HTTP/1.1") }
        guard isUpgrade(request) else { throw .invalid("no 'Upgrade: websocket'") }
        guard request.tokens("connection").contains("upgrade") else {
            throw .invalid("no 'Connection: Upgrade'")
        }
        guard let version = request.header("sec-websocket-version") else {
            throw .invalid("no Sec-WebSocket-Version")
        }
        guard version == "13" else { throw .unsupportedVersion }
        guard let key = request.header("sec-websocket-key"), Base64.decode(key)?.count == 16 else {
            throw .invalid("Sec-WebSocket-Key is not 16 bytes in base64")
        }
        return key
    }

    /// The `101 Switching Protocols` answer for `key`.
    public static func response(key: String) -> [UInt8] {
        Array(
            ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: \(acceptKey(for: key))\r\n\r\n").utf8)
    }

    /// A short plain-text HTTP error answer, after which the peer closes the connection.
    public static func errorResponse(
        status: String, message: String, headers: [String] = []
    ) -> [UInt8] {
        let body = message + "\n"
        let extra = headers.map { $0 + "\r\n" }.joined()
        return Array(
            ("HTTP/1.1 \(status)\r\nContent-Type: text/plain; charset=utf-8\r\n" + extra
                + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body).utf8)
    }

    /// The answer to a request that is not a valid opening handshake: 400 Bad Request, or 426
    /// Upgrade Required with the version the peer speaks when only the version differs (RFC 6455
    /// section 4.2.2).
    public static func errorResponse(for error: HandshakeError) -> [UInt8] {
        switch error {
        case .invalid(let why):
            return errorResponse(status: "400 Bad Request", message: why)
        case .unsupportedVersion:
            return errorResponse(
                status: "426 Upgrade Required", message: error.description,
                headers: ["Sec-WebSocket-Version: 13"])
        }
    }
}

/// Why an upgrade request is not a valid opening handshake.
public enum HandshakeError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalid(String)
    /// `Sec-WebSocket-Version` is not 13, the one version the peer speaks.
    case unsupportedVersion

    public var description: String {
        switch self {
        case .invalid(let why): return why
        case .unsupportedVersion: return "Sec-WebSocket-Version is not 13"
        }
    }
}

import ConnPeer
import Testing

/// An upgrade request is answered only when it meets RFC 6455 section 4.2.1; every other one is
/// refused with the requirement it misses.
@Suite("WebSocket handshake requests")
struct HandshakeRequestTests {
    static let valid = [
        "GET /chat?token=abc HTTP/1.1", "Host: 127.0.0.1", "Upgrade: WebSocket",
        "Connection: keep-alive, Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version: 13"
    ]

    static func request(_ lines: [String]) throws -> HTTPRequest {
        try HTTPRequest.parse(Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8))
    }

    @Test func aValidRequestGetsTheAcceptKey() throws {
        let request = try Self.request(Self.valid)
        #expect(request.path == "/chat")
        #expect(try WebSocketHandshake.validate(request) == "dGhlIHNhbXBsZSBub25jZQ==")
        let response = String(
            decoding: WebSocketHandshake.response(key: "dGhlIHNhbXBsZSBub25jZQ=="), as: UTF8.self)
        #expect(response.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
        #expect(response.contains("\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"))
        #expect(response.hasSuffix("\r\n\r\n"))
    }

    @Test(arguments: [
        ("GET /chat?token=abc HTTP/1.1", "POST / HTTP/1.1", "the method is not GET"),
        ("GET /chat?token=abc HTTP/1.1", "GET / HTTP/1.0", "the version is not HTTP/1.1"),
        ("Connection: keep-alive, Upgrade", "Connection: keep-alive", "no 'Connection: Upgrade'"),
        ("Sec-WebSocket-Version: 13", "X-Version: 13", "no Sec-WebSocket-Version"),
        (
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Key: c2hvcnQ=",
            "Sec-WebSocket-Key is not 16 bytes in base64"
        )
    ])
    func aRequestMissingARequirementIsRefused(line: String, replacement: String, why: String) throws
    {
        let lines = Self.valid.map { $0 == line ? replacement : $0 }
        #expect(throws: HandshakeError.invalid(why)) {
            try WebSocketHandshake.validate(try Self.request(lines))
        }
    }

    /// RFC 6455 section 4.2.2: another version is answered 426 with the version the server
    /// speaks, so that the client can retry with it.
    @Test(arguments: ["Sec-WebSocket-Version: 8", "Sec-WebSocket-Version: 14"])
    func anotherVersionGets426WithVersion13(replacement: String) throws {
        let lines = Self.valid.map { $0 == "Sec-WebSocket-Version: 13" ? replacement : $0 }
        #expect(throws: HandshakeError.unsupportedVersion) {
            try WebSocketHandshake.validate(try Self.request(lines))
        }
        let answer = String(
            decoding: WebSocketHandshake.errorResponse(for: .unsupportedVersion), as: UTF8.self)
        #expect(answer.hasPrefix("HTTP/1.1 426 Upgrade Required\r\n"))
        #expect(answer.contains("\r\nSec-WebSocket-Version: 13\r\n"))
        let bad = String(
            decoding: WebSocketHandshake.errorResponse(for: .invalid("x")), as: UTF8.self)
        #expect(bad.hasPrefix("HTTP/1.1 400 Bad Request\r\n") && !bad.contains("Sec-WebSocket"))
    }

    @Test func theHeadEndsAtItsBlankLine() {
        #expect(HTTPRequest.endOfHead(in: Array("GET / HTTP/1.1\r\nA: b\r\n".utf8)) == nil)
        let bytes = Array("GET / HTTP/1.1\r\nA: b\r\n\r\nrest".utf8)
        #expect(HTTPRequest.endOfHead(in: bytes) == bytes.count - 4)
    }

    @Test(arguments: [
        "GET /\r\n\r\n", "GET / HTTP/1.1\r\nno colon\r\n\r\n",
        "GET / HTTP/1.1\r\nBad Name: x\r\n\r\n"
    ])
    func aMalformedHeadIsAnError(head: String) {
        #expect(throws: HTTPRequestError.self) { try HTTPRequest.parse(Array(head.utf8)) }
    }
}

/// The head of an HTTP/1.1 request: the request line and the header fields.
///
/// Only what the peer needs to route a connection: a WebSocket upgrade or an SSE stream. Header
/// names compare case-insensitively; a repeated field keeps every value, in order.
public struct HTTPRequest: Sendable, Equatable {
    public var method: String
    public var target: String
    public var version: String
    /// Header fields with lowercased names, in the order they came.
    public var headers: [(name: String, value: String)]

    /// The most bytes a request head may take; a longer one is refused.
    public static let maxHeadBytes = 16 * 1024

    public static func == (a: HTTPRequest, b: HTTPRequest) -> Bool {
        a.method == b.method && a.target == b.target && a.version == b.version
            && a.headers.elementsEqual(b.headers) { $0.name == $1.name && $0.value == $1.value }
    }

    /// The first value of the field `name` (any case), trimmed; nil when absent.
    public func header(_ name: String) -> String? {
        let key = name.lowercased()
        return headers.first { $0.name == key }?.value
    }

    /// The comma-separated tokens of every `name` field, lowercased (`Connection: keep-alive,
    /// Upgrade` gives `keep-alive` and `upgrade`).
    public func tokens(_ name: String) -> [String] {
        let key = name.lowercased()
        return headers.filter { $0.name == key }.flatMap {
            $0.value.split(separator: ",").map { $0.trimmingSpaces.lowercased() }
        }
    }

    /// The path of the target without its query: a query may carry a token, and is never logged.
    public var path: String {
        String(target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0])
    }

    /// Where the head ends in `bytes`: the index just past its blank line, or nil when it has not
    /// all come yet.
    public static func endOfHead(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 3..<bytes.count
        where bytes[i] == 0x0A && bytes[i - 1] == 0x0D && bytes[i - 2] == 0x0A
            && bytes[i - 3] == 0x0D
        {
            return i + 1
        }
        return nil
    }

    /// Parses a whole head (up to and including its blank line).
    ///
    /// - Throws: ``HTTPRequestError`` when the request line or a field is not well formed.
    public static func parse(_ head: [UInt8]) throws(HTTPRequestError) -> HTTPRequest {
        guard let text = String(validating: head, as: UTF8.self) else {
            throw .malformed("the request head is not UTF-8")
        }
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        while lines.last == "" { lines.removeLast() }
        guard let requestLine = lines.first else { throw .malformed("empty request") }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty,
            parts[2].hasPrefix("HTTP/")
        else {
            throw .malformed("bad request line")
        }
        var headers: [(String, String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw .malformed("bad header field")
            }
            let name = line[..<colon]
            guard !name.contains(" "), !name.contains("\t") else {
                throw .malformed("bad header field name")
            }
            let value = line[line.index(after: colon)...].trimmingSpaces
            headers.append((name.lowercased(), value))
        }
        return HTTPRequest(
            method: String(parts[0]), target: String(parts[1]), version: String(parts[2]),
            headers: headers)
    }
}

/// A request head the peer cannot read.
public enum HTTPRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    case malformed(String)

    public var description: String {
        switch self {
        case .malformed(let why): return why
        }
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return String(s)
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A value of one connlog field the peer writes.
public enum LogValue: Sendable {
    case int(Int)
    case string(String)
    case bool(Bool)
}

/// The peer's own side of each connection, as connlog (JSON Lines): `src` is `conn-peer`, the
/// session is one run, `t` is milliseconds since the start, `gen` is the connection's number.
///
/// Events are in the `peer` stream, so the client rules of the default pack never mistake them for
/// a client's. Lines are written whole under a lock, and `t` is read under it, so `t` never goes
/// back in the file. Message bodies, request queries and headers are never written: they may
/// carry secrets.
public final class PeerLog: @unchecked Sendable {
    private let lock = NSLock()
    private let file: UnsafeMutablePointer<FILE>?
    private let clock: MonotonicClock
    private let session: String

    /// Writes to `path` (truncated first), or nowhere when `path` is nil.
    ///
    /// - Throws: ``PeerError/cannotOpen(path:reason:)`` when the file cannot be created.
    public init(path: String?, clock: MonotonicClock) throws(PeerError) {
        self.clock = clock
        session = "run-\(getpid())"
        guard let path else {
            file = nil
            return
        }
        guard let f = fopen(path, "w") else {
            throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        file = f
    }

    deinit { if let file { fclose(file) } }

    /// Appends one event line and flushes it, so a killed peer still leaves whole lines.
    public func write(
        _ ev: String, gen: Int? = nil, _ fields: KeyValuePairs<String, LogValue> = [:]
    ) {
        guard let file else { return }
        lock.lock()
        defer { lock.unlock() }
        var line =
            "{\"t\":\(clock.elapsedMs()),\"src\":\"conn-peer\",\"session\":\"\(session)\",\"ev\":"
        line += Self.quoted(ev)
        if let gen { line += ",\"gen\":\(gen)" }
        for (key, value) in fields {
            line += "," + Self.quoted(key) + ":"
            switch value {
            case .int(let n): line += String(n)
            case .bool(let b): line += b ? "true" : "false"
            case .string(let s): line += Self.quoted(s)
            }
        }
        line += "}\n"
        fputs(line, file)
        fflush(file)
    }

    /// `s` as a JSON string: quotes, backslashes, control characters and the line and paragraph
    /// separators escaped.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u.value {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0..<0x20, 0x7F, 0x2028, 0x2029:
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }
}

/// What stops the peer from starting.
public enum PeerError: Error, Sendable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    case cannotListen(address: String, reason: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            return "cannot write \(path): \(reason.lowercased())"
        case .cannotListen(let address, let reason):
            return "cannot listen on \(address): \(reason.lowercased())"
        }
    }
}

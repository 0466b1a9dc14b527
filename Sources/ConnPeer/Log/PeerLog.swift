import ConnAudit
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A value of one connlog field the peer writes.
public enum LogValue: Sendable {
    case int(Int)
    case string(String)
    case bool(Bool)

    /// The value as JSON (a string quoted and escaped as reports escape it).
    public var json: String {
        switch self {
        case .int(let n): return String(n)
        case .bool(let b): return b ? "true" : "false"
        case .string(let s): return Value.jsonString(s)
        }
    }
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
        line += Value.jsonString(ev)
        if let gen { line += ",\"gen\":\(gen)" }
        for (key, value) in fields { line += "," + Value.jsonString(key) + ":" + value.json }
        line += "}\n"
        fputs(line, file)
        fflush(file)
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

import ConnPeer
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One client's side of a soak, as connlog (JSON Lines): `src` names the client, the session is
/// the run, `t` is the time the client's model saw (milliseconds of its own monotonic clock).
///
/// The caller passes `t`, so a line shows exactly the time the heartbeat decided on. Only
/// generations, event names, times, codes and reasons are written: never a message body.
final class SoakLog {
    private let file: UnsafeMutablePointer<FILE>
    private let prefix: String

    /// Writes to `path` (truncated first).
    init(path: String, src: String, session: String) throws(SoakError) {
        guard let f = fopen(path, "w") else {
            throw .cannotWrite(path: path, reason: String(cString: strerror(errno)))
        }
        file = f
        prefix = ",\"src\":\(Self.quoted(src)),\"session\":\(Self.quoted(session)),\"ev\":"
    }

    deinit { fclose(file) }

    /// Appends one event line and flushes it, so a killed run still leaves whole lines.
    func write(
        t: Int, _ ev: String, gen: Int? = nil, _ fields: KeyValuePairs<String, LogValue> = [:]
    ) {
        var line = "{\"t\":\(t)" + prefix + Self.quoted(ev)
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

    /// `s` as a JSON string.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u.value {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0..<0x20, 0x7F, 0x2028, 0x2029:
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }
}

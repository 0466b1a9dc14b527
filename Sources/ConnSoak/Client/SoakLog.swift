import ConnAudit
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
        prefix =
            ",\"src\":\(Value.jsonString(src)),\"session\":\(Value.jsonString(session)),\"ev\":"
    }

    deinit { fclose(file) }

    /// Appends one event line and flushes it, so a killed run still leaves whole lines.
    func write(
        t: Int, _ ev: String, gen: Int? = nil, _ fields: KeyValuePairs<String, LogValue> = [:]
    ) {
        var line = "{\"t\":\(t)" + prefix + Value.jsonString(ev)
        if let gen { line += ",\"gen\":\(gen)" }
        for (key, value) in fields { line += "," + Value.jsonString(key) + ":" + value.json }
        line += "}\n"
        fputs(line, file)
        fflush(file)
    }
}

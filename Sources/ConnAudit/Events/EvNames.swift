import Synchronization

/// Event names as small integers, so the engine compares `ev` without hashing strings.
///
/// Every name a loaded selector mentions gets an id when the rule is compiled; the reader looks
/// each event's `ev` up once (``snapshot()``). An `ev` no rule names gets -1: only selectors
/// without a fixed name list (globs, no `ev` test) can match it, and they read the string.
public enum EvNames {
    private static let table = Mutex<[String: Int32]>([:])

    /// The id of `name`, assigning the next one if it is new.
    public static func id(_ name: String) -> Int32 {
        table.withLock { t in
            if let id = t[name] { return id }
            let id = Int32(t.count)
            t[name] = id
            return id
        }
    }

    /// The names known now; readers take one at start and look names up without a lock.
    public static func snapshot() -> [String: Int32] { table.withLock { $0 } }

    /// How many ids have been handed out (ids are 0..<count).
    public static var count: Int { table.withLock { $0.count } }
}

import Synchronization

/// Names as small integers, handed out once per process: the engine compares ids, not strings.
///
/// Ids are assigned when rules are compiled (every name they mention); readers take a
/// ``snapshot()`` and look names up without a lock. The table only grows with the rules loaded.
public final class NameRegistry: Sendable {
    private let table = Mutex<[String: Int32]>([:])

    public init() {}

    /// The id of `name`, assigning the next one if it is new.
    public func id(_ name: String) -> Int32 {
        table.withLock { t in
            if let id = t[name] { return id }
            let id = Int32(t.count)
            t[name] = id
            return id
        }
    }

    /// The names known now.
    public func snapshot() -> [String: Int32] { table.withLock { $0 } }

    /// How many ids have been handed out (ids are 0..<count).
    public var count: Int { table.withLock { $0.count } }
}

/// Event names as ids, so the engine compares `ev` without hashing strings.
///
/// Every name a loaded selector mentions gets an id when the rule is compiled; the reader looks
/// each event's `ev` up once. An `ev` no rule names gets -1: only selectors without a fixed name
/// list (globs, no `ev` test) can match it, and they read the string.
public enum EvNames {
    static let registry = NameRegistry()

    /// The id of `name`, assigning the next one if it is new.
    public static func id(_ name: String) -> Int32 { registry.id(name) }

    /// The names known now; readers take one at start and look names up without a lock.
    public static func snapshot() -> [String: Int32] { registry.snapshot() }

    /// How many ids have been handed out (ids are 0..<count).
    public static var count: Int { registry.count }
}

/// Top-level field names as ids, so reading a field compares integers, not strings.
///
/// A rule's field reads (`reason`, a selector's `state:` test) get an id when the rule is
/// compiled, and the reader tags each field it decodes for the rules with the same id. A field
/// without an id (-1: made elsewhere, or a name no rule reads) is found by its name.
public enum FieldNames {
    static let registry = NameRegistry()

    /// Names the event answers itself (``Event/value(of:)``), with the codes their reads use
    /// instead of an id: below -1, so they never meet a field's id (-1 is "by name").
    static let builtIn: [String: Int32] = [
        "t": t, "ev": ev, "gen": gen, "$line": line, "$seq": seq, "$file": file
    ]
    public static let t: Int32 = -2, ev: Int32 = -3, gen: Int32 = -4, line: Int32 = -5,
        seq: Int32 = -6, file: Int32 = -7

    /// The id a read of field `name` uses: a code below -1 for the built-in names.
    public static func id(_ name: String) -> Int32 { builtIn[name] ?? registry.id(name) }
}

/// The layouts of rules' let tables (their let names, in order) as ids: a name resolved against
/// one layout when its rule was compiled is valid in any table of that layout (see ``LetSlot``).
enum LetLayouts {
    static let registry = NameRegistry()

    /// The id of the names joined by NUL, the key written name by name: the generic
    /// `joined(separator:)` looks up its element type's witnesses at each call, many times the
    /// cost of the key itself.
    static func id(_ names: [String]) -> Int32 {
        var key = ""
        for (i, name) in names.enumerated() {
            if i > 0 { key.append("\u{0}") }
            key.append(name)
        }
        return registry.id(key)
    }
}

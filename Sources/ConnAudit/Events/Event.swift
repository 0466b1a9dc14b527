#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Who wrote a line: connlog's `(src, session)`.
///
/// A line without `src` (or with `src: null`) belongs to its file: the file is the source.
public struct SourceKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The `src` text (a non-string `src` is keyed by its JSON text), or the file path.
    public var src: String
    /// True when the line had no `src` and the file stands for the source.
    public var srcIsFile: Bool
    /// The `session` text, if any.
    public var session: String?
    /// True when `src` / `session` were not JSON strings (keyed by their JSON text).
    public var srcIsJSON = false
    public var sessionIsJSON = false

    public init(src: String, srcIsFile: Bool = false, session: String? = nil) {
        self.src = src
        self.srcIsFile = srcIsFile
        self.session = session
    }

    public var description: String {
        let name = srcIsFile ? "file:" + src : src
        if let session { return name + " session " + session }
        return name
    }

    // Texts compare by their bytes: Swift's `==` on String is canonical equivalence, which would
    // make "café" (é) and "café" (e + U+0301) — two devices, or two files — one source.

    public static func == (a: SourceKey, b: SourceKey) -> Bool {
        a.srcIsFile == b.srcIsFile && a.srcIsJSON == b.srcIsJSON
            && a.sessionIsJSON == b.sessionIsJSON
            && a.src.hasSameBytes(as: b.src) && sameBytes(a.session, b.session)
    }

    public func hash(into hasher: inout Hasher) {
        // Byte-equal texts are canonically equal, so String's hash agrees with `==` above.
        hasher.combine(src)
        hasher.combine(srcIsFile)
        hasher.combine(session)
    }

    public static func < (a: SourceKey, b: SourceKey) -> Bool {
        if !a.src.hasSameBytes(as: b.src) { return bytesPrecede(a.src, b.src) }
        if a.srcIsFile != b.srcIsFile { return !a.srcIsFile }
        if a.srcIsJSON != b.srcIsJSON { return !a.srcIsJSON }
        if !sameBytes(a.session, b.session) {
            return bytesPrecede(a.session ?? "", b.session ?? "")
        }
        return !a.sessionIsJSON && b.sessionIsJSON
    }

    @inline(__always) static func sameBytes(_ x: String?, _ y: String?) -> Bool {
        guard let x, let y else { return x == nil && y == nil }
        return x.hasSameBytes(as: y)
    }

    static func bytesPrecede(_ x: String, _ y: String) -> Bool {
        x.utf8.lexicographicallyPrecedes(y.utf8)
    }
}

extension String {
    /// Whether two texts hold the same bytes (not merely canonically equivalent ones, as `==` has
    /// it).
    @inline(__always) func hasSameBytes(as other: String) -> Bool {
        // The same two words: the same small text held inline, or the same storage (the reader
        // hands out one interned string per `src`, `session` and `ev` text). Different words
        // may still hold the same bytes, which the comparisons below find. (A String is two
        // words on the 64-bit targets conn-audit builds for; anywhere else the check is skipped.)
        if String.isTwoWords, words == other.words { return true }
        // String's == first: it answers most pairs at once (the same storage, or different ASCII),
        // and bytes are compared only for texts it calls equal.
        guard self == other else { return false }
        let n = utf8.count
        guard n == other.utf8.count else { return false }
        let same = utf8.withContiguousStorageIfAvailable { a in
            other.utf8.withContiguousStorageIfAvailable { b in
                n == 0 || memcmp(a.baseAddress!, b.baseAddress!, n) == 0
            }
        }
        return (same ?? nil) ?? utf8.elementsEqual(other.utf8)
    }
}

/// One connlog event, or one fact the reader found (a pseudo-event whose `ev` starts with `$`).
///
/// Holds only what rules can read: `t`, `ev`, `gen`, where it came from, and the top-level fields
/// the loaded rules name. Values of fields flagged by `log.no-secrets` are never kept.
///
/// A reference: one event sits in many places at once (history lists of several rules, running
/// aggregates, captures, the context ring), and each holds a pointer, not a copy. An event is
/// filled in by its reader and given its ``seq`` by the one evaluator of its source before anything
/// else reads it; after that it does not change while anything but the reader holds it. The
/// reader fills an event again for a later line (``refill(t:swappingEv:gen:file:line:evID:)``)
/// only once its own reference is the only one left (``EventRing``).
public final class Event: @unchecked Sendable {
    public private(set) var t: Double
    public private(set) var ev: String
    /// `ev` as an ``EvNames`` id (-1: a name no loaded rule mentions).
    public private(set) var evID: Int32
    /// `gen` when the line had a valid one (a JSON integer from 0 to 2^64 − 1).
    public private(set) var gen: UInt64?
    /// Index of the file in the run's file list.
    public private(set) var file: Int32
    /// 1-based physical line in the (decompressed) file.
    public private(set) var line: Int
    /// Ordinal in its source timeline (`$seq`); assigned when the source is evaluated.
    public var seq: Int = 0
    /// Top-level fields other than `t`, `ev` and `gen`, in line order (the last duplicate wins on
    /// lookup).
    public private(set) var fields: [Field]
    /// Top-level keys whose value must never be shown (flagged by the secret scan).
    public var redactedKeys: [String] { redacted ?? [] }
    /// Whether ``redactedKeys`` has any, asked without making the list.
    var hasRedactedKeys: Bool { !(redacted?.isEmpty ?? true) }
    /// ``redactedKeys``, nil when there are none (most events): then making and freeing an
    /// event counts no reference for them.
    private var redacted: [String]?
    /// Whether this is a reader finding (`$malformed`, `$secret`, `$time_regression`), not a
    /// logged event. A logged line whose `ev` starts with `$` is a logged event: it cannot pass
    /// for one of the reader's findings.
    public private(set) var isPseudo: Bool
    /// The names of the reader's findings.
    static let readerFindings: Set<String> = ["$malformed", "$secret", "$time_regression"]

    public struct Field: Sendable {
        public var key: String
        public var value: Value
        /// `key` as a ``FieldNames`` id, when whoever made the field knew it (the reader does for
        /// the fields rules read); -1: found by its name only.
        public var id: Int32
        public init(_ key: String, _ value: Value, id: Int32 = -1) {
            self.key = key
            self.value = value
            self.id = id
        }
    }

    public convenience init(
        t: Double, ev: String, gen: UInt64? = nil, file: Int32 = 0, line: Int = 0,
        fields: [Field] = [], redactedKeys: [String] = [], evID: Int32? = nil, pseudo: Bool? = nil
    ) {
        self.init(
            t: t, ev: ev, gen: gen, file: file, line: line, fields: fields,
            redacted: redactedKeys.isEmpty ? nil : redactedKeys, evID: evID, pseudo: pseudo)
    }

    /// - Parameter redacted: ``redactedKeys``, nil for none: a caller that checks for an empty
    ///   list itself hands over no reference to count then.
    init(
        t: Double, ev: String, gen: UInt64?, file: Int32, line: Int, fields: [Field],
        redacted: [String]?, evID: Int32?, pseudo: Bool?
    ) {
        self.t = t
        self.ev = ev
        let dollar = Self.startsWithDollar(ev)
        isPseudo = pseudo ?? dollar
        // A logged event named like a reader finding never takes that finding's id (a log cannot
        // forge `$time_regression`); other `$` names are ordinary names.
        if !isPseudo, dollar, Self.readerFindings.contains(ev) {
            self.evID = -1
        } else {
            self.evID = evID ?? EvNames.snapshot()[ev] ?? -1
        }
        self.gen = gen
        self.file = file
        self.line = line
        self.fields = fields
        self.redacted = redacted
    }

    /// Fills the event with a logged line, as the initializer with `pseudo: false` makes it,
    /// with no ``seq`` yet, but for its fields and redacted keys (``refill(fields:redacted:)``,
    /// needed only when the line or the event's earlier one has some: ``holdsFields``). `evID`
    /// is the id the line's `ev` takes: -1 for the name of one of the reader's findings
    /// (``readerFindings``), whatever its id. For the reader's ``EventRing`` only, on an event
    /// whose one reference is the ring's: nothing else can read it any more.
    ///
    /// The name is swapped in, not copied: `ev` is left holding the event's earlier name, so
    /// no reference is counted for either (the caller's next line overwrites it).
    @inline(__always) func refill(
        t: Double, swappingEv ev: inout String, gen: UInt64?, file: Int32, line: Int, evID: Int32
    ) {
        self.t = t
        self.evID = evID
        swap(&self.ev, &ev)
        isPseudo = false
        self.gen = gen
        self.file = file
        self.line = line
        seq = 0
    }

    /// ``refill(t:swappingEv:gen:file:line:evID:)`` with a name of the caller's own.
    @inline(__always) func refill(
        t: Double, ev: consuming String, gen: UInt64?, file: Int32, line: Int, evID: Int32
    ) {
        var ev = ev
        refill(t: t, swappingEv: &ev, gen: gen, file: file, line: line, evID: evID)
    }

    /// Whether the event holds fields or redacted keys (most lines have neither: an event
    /// filled again for such a line after such a line keeps its empty ones, and nothing is
    /// stored or released).
    @inline(__always) var holdsFields: Bool { !fields.isEmpty || redacted != nil }

    /// Sets the fields and redacted keys of an event being filled again
    /// (``refill(t:swappingEv:gen:file:line:evID:)``), and hands back its earlier fields: the
    /// reader decodes a later line's fields into that array's room (``ParsedLine/recycle(_:)``).
    @inline(__always) func refill(
        fields: consuming [Field], redacted: consuming [String]?
    ) -> [Field] {
        var fields = fields
        swap(&self.fields, &fields)
        self.redacted = redacted
        return fields
    }

    /// Whether `ev` starts with `$`: read from the string's own bytes when it holds them (every
    /// name the reader makes), without the generic view's iterator.
    @inline(__always) static func startsWithDollar(_ ev: String) -> Bool {
        ev.utf8.withContiguousStorageIfAvailable { $0.first == UInt8(ascii: "$") }
            ?? (ev.utf8.first == UInt8(ascii: "$"))
    }

    /// A separate event with the same contents and no ``seq`` yet (for a second timeline, which
    /// numbers its events itself). Reads nothing an evaluator may be writing.
    public func copy() -> Event {
        Event(
            t: t, ev: ev, gen: gen, file: file, line: line, fields: fields, redacted: redacted,
            evID: evID, pseudo: isPseudo)
    }

    /// The stream: the part of `ev` before its first `.` byte (a dot followed by a combining mark
    /// is still that dot, whatever grapheme it forms).
    public var stream: Substring {
        guard let dot = ev.utf8.firstIndex(of: UInt8(ascii: ".")) else { return ev[...] }
        return Substring(ev.utf8[..<dot])
    }

    /// A field as rules read it: `t`, `ev`, `gen` and any top-level field; nil when absent.
    public func value(of key: String) -> Value? {
        switch key {
        case "t": return tValue
        case "ev": return .string(ev)
        case "gen": return gen.map(Value.integer)
        case "$line": return .int(Int64(line))
        case "$seq": return .int(Int64(seq))
        default:
            for field in fields.reversed() where field.key == key { return field.value }
            return nil
        }
    }

    /// ``value(of:)`` for a name whose ``FieldNames`` id is `id` (-1: by name): a field tagged
    /// with an id is matched by it, one without by its name; the last duplicate wins.
    @inline(__always) public func value(of key: String, id: Int32) -> Value? {
        guard id >= 0 else { return id < -1 ? builtIn(id) ?? value(of: key) : value(of: key) }
        return fields.withUnsafeBufferPointer { fields in
            var i = fields.count
            while i > 0 {
                i -= 1
                if fields[i].id == id || (fields[i].id < 0 && fields[i].key == key) {
                    return fields[i].value
                }
            }
            return nil
        }
    }

    /// A built-in name's value by its ``FieldNames`` code (nil: not one of those codes; `$file`
    /// is the run's, not the event's).
    @inline(__always) func builtIn(_ code: Int32) -> Value?? {
        switch code {
        case FieldNames.t: return .some(tValue)
        case FieldNames.ev: return .some(.string(ev))
        case FieldNames.gen: return .some(gen.map(Value.integer))
        case FieldNames.line: return .some(.int(Int64(line)))
        case FieldNames.seq: return .some(.int(Int64(seq)))
        default: return nil
        }
    }

    /// `t` as rules read it: a whole number as an integer; absent (null) for a reader finding on
    /// a line without a valid `t` (its `t` is NaN inside).
    @inline(__always) var tValue: Value? {
        if t.isNaN { return nil }
        return t == t.rounded() && abs(t) < 9e15 ? .int(Int64(t)) : .double(t)
    }

    /// Whether `key`'s value was flagged: a search of ``redactedKeys`` (to ask about every field
    /// of an event, make a `KeyLookup` of them once).
    public func isRedacted(_ key: String) -> Bool { redactedKeys.contains(key) }
}

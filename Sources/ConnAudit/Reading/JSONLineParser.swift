#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a line could not be read as JSON.
struct JSONSyntaxError: Error {
    /// What broke: a fixed text of the parser's (``JSONLineParser/reasonText(_:)`` compares them by
    /// their bytes).
    var reason: String
    var offset: Int
    var kind: Kind = .json

    /// How the reason is told: most are "not valid JSON: …"; bytes that are not UTF-8, and text
    /// after a whole JSON value, say so themselves.
    enum Kind { case json, utf8, textAfter }

    static func notUTF8(at offset: Int) -> JSONSyntaxError {
        JSONSyntaxError(reason: "not valid UTF-8", offset: offset, kind: .utf8)
    }

    static func textAfterValue(at offset: Int) -> JSONSyntaxError {
        JSONSyntaxError(reason: "text after the JSON value", offset: offset, kind: .textAfter)
    }
}

/// What the parser made of one non-blank line.
struct ParsedLine {
    /// The line was a JSON object (even if not a valid connlog event): its secret findings count.
    var isObject = false
    /// Key paths (`headers.Authorization`, `items[0]`, `["a.token"]`) whose values leak a secret,
    /// as ``LongLineSecretScanner/renderedPath(_:)`` prints them, each key path once.
    var secretPaths: [String] = []
    /// Top-level keys that hold a flagged value (never to be shown).
    var redactedKeys: [String] = []
    /// For decoded fields flagged only for the tokens their strings hold (no secret key name in
    /// them): the field as the event keeps it, its value replaced by a hash of its text
    /// (`[redacted 1a2b3c4d]`), so two different tokens stay different to the rules.
    var redactedValues: [Event.Field] = []
    /// `src`/`session` with a secret key name, or a key holding a token, inside: never shown by a
    /// hash of their value (``FileReader/redactedInside(_:)`` keeps their other parts instead).
    var unhashableKeys: [String] = []
    /// Nil when the line is a valid connlog event; else a short reason.
    var malformedReason: String?
    var t: Double = 0
    /// `t` when it was a JSON integer (of at most 64 bits), exactly; -1 otherwise. A double holds
    /// integers exactly only below 2^53.
    var tExact: Int64 = -1
    var ev: String = ""
    /// `ev` as an ``EvNames`` id when the parser found it in its table (nil: look the name up).
    var evID: Int32?
    var gen: UInt64?
    /// `src` and `session` as read, when ``sourceTexts`` does not stand for them.
    var src: Value?
    var session: Value?
    /// `src` and `session` as numbers of the parser's ``JSONLineParser/sourceTexts`` (-1:
    /// absent), set by the fast path when both are strings the table keeps; nil otherwise, and
    /// then ``src`` and ``session`` hold them.
    var sourceTexts: (src: Int32, session: Int32)?
    var fields: [Event.Field] = []
}

/// A strict JSON parser for one connlog line, working on the line's bytes.
///
/// It validates the whole line (RFC 8259, UTF-8), scans every key and string for secrets, and
/// decodes only the top-level fields the loaded rules read, plus `t`, `ev`, `gen`, `src`,
/// `session`. Nesting is bounded by ``maxDepth`` so a hostile line cannot exhaust the stack.
struct JSONLineParser {
    static let maxDepth = 512

    /// Top-level keys to decode into ``Event/fields`` (as UTF-8 bytes); nil: decode every key.
    let wanted: [[UInt8]]?
    /// The same keys as strings, made once (a wanted key's name is not decoded per line), and
    /// as ``FieldNames`` ids, which tag the fields decoded (rules read them by id).
    let wantedNames: [String]
    let wantedIDs: [Int32]
    /// ``wanted`` by their bytes, each tagged with its index there (the fast path's lookup).
    let wantedTable: ByteStringTable
    let srcID: Int32, sessionID: Int32
    /// `ev` names met so far, with their ``EvNames`` ids (the tag), and `src` / `session` texts:
    /// a repeated one is found by its bytes, not decoded again. Only texts that hold no token
    /// are kept, so a text found here needs no secret scan.
    var evTable = ByteStringTable(capacity: 256)
    var sourceTable = ByteStringTable(capacity: 1024)
    /// The `src` and `session` texts of ``sourceTable``, by the number each is tagged with there:
    /// a plain line hands its source on as two such numbers (``ParsedLine/sourceTexts``).
    private(set) var sourceTexts: [String] = []
    /// The last short `src` and `session` texts met, by their first sixteen bytes, with their
    /// numbers in ``sourceTexts`` (the fast path's).
    var lastSource: (w0: UInt64, w1: UInt64, length: Int, id: Int32)?
    var lastSession: (w0: UInt64, w1: UInt64, length: Int, id: Int32)?
    /// The names the loaded rules mention (a snapshot of ``EvNames``).
    let evIDs: [String: Int32]
    /// Whether rules read `src` / `session` as fields too (they always make the source key).
    let keepsSrc: Bool
    let keepsSession: Bool
    /// The key names `log.no-secrets` flags, lower case (the long-line scanner packs the same
    /// list).
    static let secretKeyNames: [[UInt8]] = [
        "token", "access_token", "refresh_token", "authorization", "password", "secret", "cookie",
        "body", "payload"
    ].map { Array($0.utf8) }

    /// The last reason ``reasonText(_:)`` made, and the error it was made for.
    private var lastReason: (reason: String, offset: Int, kind: JSONSyntaxError.Kind, text: String)?

    // Reused per line so the parser allocates nothing for lines without findings.
    private var path: [PathComponent] = []
    /// The top-level key whose value is being read (kept apart from ``path``, which then holds the
    /// components below it: most values are not nested).
    private var topKey: PathComponent?
    private var scratch: [UInt8] = []
    private var keyBytes: [UInt8] = []
    /// The line's secret key paths so far, by a 128-bit digest of their keys and indexes (not of
    /// their rendering), for one finding per key path (emptied per line when used). A digest, not
    /// the path: a line of 85,000 findings 500 arrays deep would keep 500 steps for each. A path
    /// keeps at most ``LongLineSecretScanner/maxPathKeyBytes`` bytes of its outer keys, and its
    /// last key as much again of its own, so the key a finding is about is always named and a line
    /// of 90,000 findings under one 50 KB key does not keep a copy of the key for each.
    private var seenSecretPaths: Set<PathDigest> = []
    /// The path step of each long key of the line a finding was under, by where the key starts
    /// and whether it was the path's last key (emptied per line when used): a key's step is made
    /// once, not once per finding below it.
    private var longKeyParts: [Int: LongLineSecretScanner.Part] = [:]

    /// Two FNV-1a 64 hashes with different offset bases over a path's steps.
    struct PathDigest: Hashable {
        var a: UInt64 = 0xCBF2_9CE4_8422_2325
        var b: UInt64 = 0x6C62_272E_07BB_0142

        mutating func add(_ byte: UInt8) {
            a = (a ^ UInt64(byte)) &* 0x100_0000_01B3
            b = (b ^ UInt64(byte)) &* 0x100_0000_01B3
            b = b &+ (b >> 29)
        }

        mutating func add(_ n: UInt64) {
            for k in 0..<8 { add(UInt8(truncatingIfNeeded: n >> UInt64(8 * k))) }
        }

        mutating func add(_ part: LongLineSecretScanner.Part) {
            switch part {
            case .key(let bytes): addKey(bytes[...])
            case .index(let n): addIndex(n)
            case .cutKey(let kept, let length, let hash, let tokenHash):
                addCutKey(kept: kept[...], length: length, hash: hash, tokenHash: tokenHash)
            }
        }

        // The steps one by one, from bytes where they lie (the long-line scanner's levels).
        mutating func addKey(_ bytes: ArraySlice<UInt8>) {
            add(1 as UInt8)
            add(UInt64(bytes.count))
            for x in bytes { add(x) }
        }

        mutating func addIndex(_ n: Int) {
            add(2 as UInt8)
            add(UInt64(bitPattern: Int64(n)))
        }

        mutating func addCutKey(
            kept: ArraySlice<UInt8>, length: Int, hash: UInt64, tokenHash: UInt32?
        ) {
            add(3 as UInt8)
            add(UInt64(length))
            add(hash)
            add(UInt64(tokenHash ?? 0))
            for x in kept { add(x) }
        }
    }
    /// The line's redacted top-level keys as a set, made once they are many (nil: search
    /// ``ParsedLine/redactedKeys``); emptied per line when used.
    private var redactedKeySet: Set<String>?
    /// Set while a top-level value is parsed when a key inside it has a secret name.
    private var secretKeyInside = false
    /// Set while a top-level entry is parsed when its key, or a key inside its value, holds a
    /// token: the brief flags values, but a key is printed too (in a field's name, a finding's
    /// path, a timeline), so such a key is never shown and the entry's value is not kept.
    private var topKeyHoldsToken = false
    private var keyTokenInside = false

    private enum PathComponent {
        /// A key's raw bytes in the line (still escaped when `escaped`): decoded only for a
        /// finding.
        case key(start: Int, end: Int, escaped: Bool)
        case index(Int)
    }

    /// The line being parsed (valid only during ``parse(_:)``), for decoding path keys.
    private var lineBase: UnsafePointer<UInt8>?

    /// - Parameter wantedFields: the top-level fields rules read; nil decodes all of them.
    init(wantedFields: Set<String>?, evIDs: [String: Int32] = [:]) {
        let names = wantedFields.map { $0.sorted() }
        wanted = names.map { $0.map { Array($0.utf8) } }
        var table = ByteStringTable(
            capacity: max(16, names?.count ?? 0), maxLength: names?.map(\.utf8.count).max() ?? 0)
        for (i, name) in (names ?? []).enumerated() {
            Array(name.utf8).withUnsafeBufferPointer { table.add($0, string: name, tag: Int32(i)) }
        }
        wantedTable = table
        wantedNames = names ?? []
        // Only the rules' own field names get ids (decoding every key gives none: found by name).
        wantedIDs = wantedNames.map { FieldNames.id($0) }
        srcID = wantedFields == nil ? -1 : FieldNames.id("src")
        sessionID = wantedFields == nil ? -1 : FieldNames.id("session")
        self.evIDs = evIDs
        keepsSrc = wantedFields?.contains("src") ?? true
        keepsSession = wantedFields?.contains("session") ?? true
        path.reserveCapacity(16)
        scratch.reserveCapacity(256)
    }

    // MARK: - Entry

    mutating func parse(_ line: UnsafeBufferPointer<UInt8>) -> ParsedLine {
        var out = ParsedLine()
        parse(line, into: &out)
        return out
    }

    /// Parses `line` into `out`, which is reset first (the reader keeps one, so a line's result is
    /// not copied out of the parser).
    mutating func parse(_ line: UnsafeBufferPointer<UInt8>, into out: inout ParsedLine) {
        if parsePlain(line, into: &out) { return }
        parseGeneral(line, into: &out)
    }

    /// ``parse(_:into:)`` without the fast path: every line, plain or not, read by the general
    /// parser (tests compare the two).
    mutating func parseGeneral(_ line: UnsafeBufferPointer<UInt8>, into out: inout ParsedLine) {
        out = ParsedLine()
        if !seenSecretPaths.isEmpty {
            // Emptied in place, a set grown by a line of many findings made every later line with a
            // secret clear all of its buckets: such a set is let go instead.
            if seenSecretPaths.capacity > 64 {
                seenSecretPaths = []
            } else {
                seenSecretPaths.removeAll(keepingCapacity: true)
            }
        }
        if redactedKeySet != nil { redactedKeySet = nil }
        if !longKeyParts.isEmpty { longKeyParts = [:] }
        path.truncate(to: 0)
        topKey = nil
        lineBase = line.baseAddress!
        defer { lineBase = nil }
        var c = Cursor(base: line.baseAddress!, count: line.count)
        do throws(JSONSyntaxError) {
            c.skipWhitespace()
            guard c.i < c.count else { throw JSONSyntaxError(reason: "empty", offset: c.i) }
            guard c.peek == UInt8(ascii: "{") else {
                // A BOM here is not the file's first bytes (the line reader skips those): connlog
                // allows none elsewhere, and "unexpected character" would not say what it is.
                if c.i + 2 < c.count, c.peek == 0xEF, c.base[c.i + 1] == 0xBB,
                    c.base[c.i + 2] == 0xBF
                {
                    throw JSONSyntaxError(reason: Self.misplacedBOM, offset: c.i)
                }
                // Validate anyway so the reason says whether it is JSON at all.
                _ = try parseValue(&c, depth: 0, decode: false, flagged: false, out: &out)
                c.skipWhitespace()
                if c.i < c.count { throw .textAfterValue(at: c.i) }
                out.malformedReason = "not a JSON object"
                return
            }
            try parseTopObject(&c, out: &out)
            c.skipWhitespace()
            if c.i < c.count {
                // The object itself parsed: its secrets count, though the line is malformed.
                out.malformedReason = reasonText(
                    Self.firstInvalidUTF8(line).map { .notUTF8(at: $0) }
                        ?? JSONSyntaxError(
                            reason: "text after the JSON object", offset: c.i, kind: .textAfter))
                out.isObject = true
                return
            }
        } catch {
            var error = error
            // Whatever broke the JSON, a line that is not UTF-8 says so first.
            if error.kind != .utf8, let bad = Self.firstInvalidUTF8(line) {
                error = .notUTF8(at: bad)
            }
            out.isObject = false
            out.secretPaths = []
            out.redactedKeys = []
            out.redactedValues = []
            out.unhashableKeys = []
            out.malformedReason = reasonText(error)
            return
        }
        out.isObject = true
        return
    }

    /// Why a line that starts with a byte-order mark (after any white space) is malformed, unless
    /// it is the start of the file.
    static let misplacedBOM = "a byte-order mark (U+FEFF), allowed only at the start of a file"

    /// The reason a line that is not JSON is reported with. Lines that are not a log at all break
    /// alike (a text log: every line at its first byte), so the last text made is kept and given
    /// again — one string for them all, not one interpolated per line (and the corpus timeline's
    /// runs and the rule's messages then see the same string, which they answer at once).
    private mutating func reasonText(_ error: JSONSyntaxError) -> String {
        if let last = lastReason, last.offset == error.offset, last.kind == error.kind,
            last.reason.hasSameBytes(as: error.reason)
        {
            return last.text
        }
        let text =
            error.kind == .json
            ? "not valid JSON: \(error.reason) (byte \(error.offset + 1))"
            : "\(error.reason) (byte \(error.offset + 1))"
        lastReason = (error.reason, error.offset, error.kind, text)
        return text
    }

    /// Offset of the first byte that is not part of valid UTF-8, if any (used on the error path
    /// only).
    static func firstInvalidUTF8(_ line: UnsafeBufferPointer<UInt8>) -> Int? {
        let c = Cursor(base: line.baseAddress!, count: line.count)
        var i = 0
        while i < line.count {
            if line[i] < 0x80 { i += 1; continue }
            let n = c.utf8SequenceLength(at: i)
            if n == 0 { return i }
            i += n
        }
        return nil
    }

    // MARK: - Top level: the connlog fields

    private mutating func parseTopObject(_ c: inout Cursor, out: inout ParsedLine)
        throws(JSONSyntaxError)
    {
        c.i += 1  // {
        var tValue: Value?
        var evValue: Value?
        var genValue: Value?
        var sawT = false, sawEv = false, sawGen = false
        var fields: [Event.Field] = []
        c.skipWhitespace()
        if c.i < c.count, c.peek == UInt8(ascii: "}") {
            c.i += 1
        } else {
            while true {
                c.skipWhitespace()
                guard c.i < c.count, c.peek == UInt8(ascii: "\"") else {
                    throw JSONSyntaxError(reason: "expected a key", offset: c.i)
                }
                let (component, keyFlagged, kind, keyString, keyID) = try parseTopKey(&c)
                c.skipWhitespace()
                guard c.i < c.count, c.peek == UInt8(ascii: ":") else {
                    throw JSONSyntaxError(reason: "expected ':'", offset: c.i)
                }
                c.i += 1
                c.skipWhitespace()
                topKey = component
                let findingsBefore = out.secretPaths.count
                secretKeyInside = false
                keyTokenInside = false
                if keyFlagged { recordSecret(&out) }
                let decoded: Value?
                // The last `ev` wins: an earlier one's id does not outlive it.
                if kind == .ev { out.evID = nil }
                if kind == .ev || kind == .src || kind == .session, c.i < c.count,
                    c.peek == UInt8(ascii: "\"")
                {
                    decoded = try parseTableString(
                        &c, ev: kind == .ev, flagged: keyFlagged, out: &out)
                } else {
                    decoded = try parseValue(
                        &c, depth: 1, decode: kind != .skip, flagged: keyFlagged, out: &out)
                }
                topKey = nil
                // A key holding a token (or one inside the value) hides the whole entry.
                let hidden = topKeyHoldsToken || keyTokenInside
                if hidden || out.secretPaths.count > findingsBefore {
                    let name =
                        topKeyHoldsToken
                        ? "[redacted]" : kind == .field ? keyString : topKeyName(component)
                    addRedactedKey(name, &out)
                    // Tokens (bearer, JWT) are long random text: a hash of the value tells
                    // different ones apart without showing them. A value under a secret key name
                    // may be a weak password, which a hash would help guess: no hash for those.
                    if kind == .field, !keyFlagged, !secretKeyInside, !hidden, let decoded {
                        out.redactedValues.append(
                            Event.Field(
                                keyString, .string(FileReader.redactedName(decoded)), id: keyID))
                    }
                    // `src`/`session` stay apart by a hash of their value — not when a secret key
                    // name (or a token key) inside it may hold a weak password.
                    if kind == .src || kind == .session, keyFlagged || secretKeyInside || hidden {
                        out.unhashableKeys.append(kind == .src ? "src" : "session")
                    }
                }
                switch kind {
                case .t: tValue = decoded; sawT = true
                case .ev: evValue = decoded; sawEv = true
                case .gen: genValue = decoded; sawGen = true
                case .src:
                    out.src = decoded
                    if keepsSrc, let decoded {
                        fields.append(Event.Field("src", decoded, id: srcID))
                    }
                case .session:
                    out.session = decoded
                    if keepsSession, let decoded {
                        fields.append(Event.Field("session", decoded, id: sessionID))
                    }
                case .field:
                    if !hidden, let decoded {
                        fields.append(Event.Field(keyString, decoded, id: keyID))
                    }
                case .skip: break
                }
                c.skipWhitespace()
                guard c.i < c.count else {
                    throw JSONSyntaxError(reason: "unexpected end of line", offset: c.i)
                }
                let b = c.peek
                c.i += 1
                if b == UInt8(ascii: ",") { continue }
                if b == UInt8(ascii: "}") { break }
                throw JSONSyntaxError(reason: "expected ',' or '}'", offset: c.i - 1)
            }
        }
        // Redacted values are never kept, so nothing downstream can print them.
        if !out.redactedKeys.isEmpty { removeRedacted(from: &fields, &out) }
        out.fields = fields
        out.malformedReason = Self.connlogProblem(
            t: sawT ? tValue : nil, ev: sawEv ? evValue : nil, gen: sawGen ? genValue : nil,
            sawGen: sawGen,
            out: &out)
    }

    /// Adds `name` to the line's redacted keys unless it is there: the list is searched while it
    /// is short, and looked up through ``redactedKeySet``, made from it, once it is longer than
    /// ``KeyLookup/searchLimit`` (a search of the list before each key costs the square of a
    /// line's flagged keys). Out of line: lines without secrets never come here.
    @inline(never)
    private mutating func addRedactedKey(_ name: String, _ out: inout ParsedLine) {
        if redactedKeySet == nil {
            if out.redactedKeys.contains(name) { return }
            out.redactedKeys.append(name)
            if out.redactedKeys.count > KeyLookup.searchLimit {
                redactedKeySet = Set(out.redactedKeys)
            }
        } else if redactedKeySet!.insert(name).inserted {
            out.redactedKeys.append(name)
        }
    }

    /// Drops the redacted keys' fields, and the hashed values of keys given more than once on the
    /// line (among the hashed values or the fields kept, by String's `==`): a key given twice —
    /// which value "wins" is not something a hash should speak for. With more than
    /// ``KeyLookup/searchLimit`` hashed values they are counted in a table, and the fields looked
    /// up in ``redactedKeySet`` (a count over, or a search in, a list of them all costs the
    /// square).
    @inline(never)
    private func removeRedacted(from fields: inout [Event.Field], _ out: inout ParsedLine) {
        let hashed = out.redactedValues
        if hashed.count <= KeyLookup.searchLimit {
            out.redactedValues = hashed.filter { v in
                fields.count { $0.key == v.key } == 1 && hashed.count { $0.key == v.key } == 1
            }
        } else {
            var counts: [String: (hashed: Int, fields: Int)] = [:]
            counts.reserveCapacity(hashed.count)
            for v in hashed { counts[v.key, default: (0, 0)].hashed += 1 }
            for f in fields where counts[f.key] != nil { counts[f.key]!.fields += 1 }
            out.redactedValues = hashed.filter { v in
                counts[v.key].map { $0.hashed == 1 && $0.fields == 1 } ?? false
            }
        }
        if let set = redactedKeySet {
            fields.removeAll { set.contains($0.key) }
        } else {
            fields.removeAll { out.redactedKeys.contains($0.key) }
        }
    }

    /// Checks the fields every connlog line must have; fills t/ev/gen on success.
    static func connlogProblem(
        t: Value?, ev: Value?, gen: Value?, sawGen: Bool, out: inout ParsedLine
    ) -> String? {
        guard let t else { return "missing \"t\"" }
        switch t {
        case .int(let i):
            if i < 0 { return "\"t\" is negative" }
            out.t = Double(i)
            out.tExact = i
        case .double(let d):
            if !d.isFinite { return "\"t\" is not a finite number" }
            if d < 0 { return "\"t\" is negative" }
            out.t = d
            out.tExact = -1
        case .bigInt(let digits):
            if digits.hasPrefix("-") { return "\"t\" is negative" }
            out.t = t.number ?? .infinity
            out.tExact = -1
            if !out.t.isFinite { return "\"t\" is not a finite number" }
        default:
            return "\"t\" is not a number (\(t.typeName))"
        }
        guard let ev else { return "missing \"ev\"" }
        guard case .string(let name) = ev else { return "\"ev\" is not a string (\(ev.typeName))" }
        if name.isEmpty { return "\"ev\" is empty" }
        out.ev = name
        if sawGen {
            switch gen {
            case .int(let g) where g >= 0: out.gen = UInt64(g)
            case .int: return "\"gen\" is negative"
            case .bigInt(let digits)?:
                // Past Int64: 2^63 to 2^64 − 1 is a generation too (a UInt64 a client drew or
                // hashed).
                if digits.hasPrefix("-") { return "\"gen\" is negative" }
                guard let g = UInt64(digits) else {
                    return "\"gen\" is too large (at most 18446744073709551615)"
                }
                out.gen = g
            case .some(let other):
                return "\"gen\" is not a non-negative integer (\(other.typeName))"
            case .none: return "\"gen\" is not a non-negative integer"
            }
        }
        return nil
    }

    private enum TopKind { case t, ev, gen, src, session, field, skip }

    /// Which connlog field `key` is; for a wanted field also its index in ``wanted`` (-1 when
    /// every key is decoded).
    private static func topKind(_ key: UnsafeBufferPointer<UInt8>, _ wanted: [[UInt8]]?) -> (
        TopKind, Int
    ) {
        switch key.count {
        case 1 where key[0] == UInt8(ascii: "t"): return (.t, -1)
        case 2 where key[0] == UInt8(ascii: "e") && key[1] == UInt8(ascii: "v"): return (.ev, -1)
        // Compared byte by byte: a static table of the names costs a lazy-initialisation check per
        // key.
        case 3
        where key[0] == UInt8(ascii: "g") && key[1] == UInt8(ascii: "e")
            && key[2] == UInt8(ascii: "n"):
            return (.gen, -1)
        case 3
        where key[0] == UInt8(ascii: "s") && key[1] == UInt8(ascii: "r")
            && key[2] == UInt8(ascii: "c"):
            return (.src, -1)
        case 7 where memcmp(key.baseAddress!, "session", 7) == 0: return (.session, -1)
        default: break
        }
        guard let wanted else { return (.field, -1) }
        for i in wanted.indices where wanted[i].count == key.count && same(key, wanted[i]) {
            return (.field, i)
        }
        return (.skip, -1)
    }

    @inline(__always) private static func same(_ a: UnsafeBufferPointer<UInt8>, _ b: [UInt8])
        -> Bool
    {
        guard a.count == b.count else { return false }
        return b.withUnsafeBufferPointer { b in memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
        }
    }

    /// A top-level key, classified where it lies in the line (an escaped key is decoded first):
    /// whether its name flags a secret, which connlog field it is, and its text when rules read it.
    @inline(__always)
    private mutating func parseTopKey(_ c: inout Cursor) throws(JSONSyntaxError) -> (
        PathComponent, Bool, TopKind, String, Int32
    ) {
        let (start, end, escaped) = try c.scanString()
        let component = PathComponent.key(start: start, end: end, escaped: escaped)
        if !escaped {
            let key = UnsafeBufferPointer(start: c.base + start, count: end - start)
            let (kind, w) = Self.topKind(key, wanted)
            // A key a rule names (or t, ev, gen, src, session) is known text, not a token.
            topKeyHoldsToken =
                w < 0 && kind != .t && kind != .ev && kind != .gen && Self.keyHoldsToken(key)
            return (
                component, Self.isSecretKey(key), kind, Self.keyName(kind, w, key, wantedNames),
                w >= 0 ? wantedIDs[w] : -1
            )
        }
        keyBytes.removeAll(keepingCapacity: true)
        try Cursor.unescape(c.base, start, end, into: &keyBytes)
        let (wanted, wantedNames, wantedIDs) = (wanted, wantedNames, wantedIDs)
        topKeyHoldsToken = keyBytes.withUnsafeBufferPointer { Self.keyHoldsToken($0) }
        let (flagged, kind, name, id) = keyBytes.withUnsafeBufferPointer {
            let (kind, w) = Self.topKind($0, wanted)
            return (
                Self.isSecretKey($0), kind, Self.keyName(kind, w, $0, wantedNames),
                w >= 0 ? wantedIDs[w] : -1
            )
        }
        return (component, flagged, kind, name, id)
    }

    /// A field's key as the event keeps it: a wanted key's name made once, else decoded.
    @inline(__always) private static func keyName(
        _ kind: TopKind, _ wantedIndex: Int, _ key: UnsafeBufferPointer<UInt8>,
        _ wantedNames: [String]
    ) -> String {
        guard kind == .field else { return "" }
        return wantedIndex >= 0 ? wantedNames[wantedIndex] : String(decoding: key, as: UTF8.self)
    }

    private func topKeyName(_ component: PathComponent) -> String {
        guard case .key(let start, let end, let escaped) = component else { return "" }
        return keyText(start, end, escaped)
    }

    /// A key of the line being parsed, decoded (only for findings: the hot path compares bytes).
    private func keyText(_ start: Int, _ end: Int, _ escaped: Bool) -> String {
        String(decoding: decodedKey(start, end, escaped), as: UTF8.self)
    }

    private func decodedKey(_ start: Int, _ end: Int, _ escaped: Bool) -> [UInt8] {
        var bytes = Array(UnsafeBufferPointer(start: lineBase! + start, count: end - start))
        if escaped {
            bytes.removeAll()
            try? Cursor.unescape(lineBase!, start, end, into: &bytes)
        }
        return bytes
    }

    // MARK: - Secrets

    /// Lengths of the secret key names (bit n set: a name of n bytes): 4, 5, 6, 7, 8, 12, 13,
    /// written out so that no lazy initialisation is checked per key (a test compares it with the
    /// names).
    static let secretLengths: UInt64 =
        1 << 4 | 1 << 5 | 1 << 6 | 1 << 7 | 1 << 8 | 1 << 12 | 1 << 13

    /// Per length below 16: the first letters (bit `letter - 'a'`) of the secret names that long.
    private static let secretStarts: [UInt32] = {
        var starts = [UInt32](repeating: 0, count: 16)
        for s in secretKeyNames where s.count < 16 { starts[s.count] |= 1 << UInt32(s[0] - 0x61) }
        return starts
    }()

    /// ``isSecretKey(_:)`` and ``containsToken(_:)`` for decoded text (redacting a decoded value).
    static func isSecretKeyName(_ s: String) -> Bool {
        Array(s.utf8).withUnsafeBufferPointer { isSecretKey($0) }
    }
    static func holdsToken(_ s: String) -> Bool {
        Array(s.utf8).withUnsafeBufferPointer { containsToken($0) }
    }

    static func isSecretKey(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
        // Most keys have a length no secret name has, or another first letter.
        guard key.count < 64, secretLengths & (1 << UInt64(key.count)) != 0 else { return false }
        if key.count < 16 {
            let first = lower(key[0]) &- 0x61
            guard first < 26, secretStarts[key.count] & (1 << UInt32(first)) != 0 else {
                return false
            }
        }
        candidates: for s in secretKeyNames where s.count == key.count {
            for j in 0..<s.count {
                var b = key[j]
                if b >= 65 && b <= 90 { b += 32 }
                if b != s[j] { continue candidates }
            }
            return true
        }
        return false
    }

    private mutating func recordSecret(_ out: inout ParsedLine) {
        let components = topKey.map { [$0] + path } ?? path
        let lastKey = components.lastIndex {
            if case .key = $0 { return true } else { return false }
        }
        var parts: [LongLineSecretScanner.Part] = []
        parts.reserveCapacity(components.count)
        var kept = 0
        for (i, component) in components.enumerated() {
            switch component {
            case .key(let start, let end, let escaped):
                // Outer keys share the path's bound; the last key, which the finding is about,
                // has one of its own. A key of more raw bytes than its bound leaves (escapes
                // decode shorter, never longer) is made into its step once per line.
                let last = i == lastKey
                var budget = last ? 0 : kept
                if end - start > LongLineSecretScanner.maxPathKeyBytes - budget {
                    let slot = last ? ~start : start
                    let made: LongLineSecretScanner.Part
                    if let known = longKeyParts[slot] {
                        made = known
                    } else {
                        made = LongLineSecretScanner.part(
                            forKey: decodedKey(start, end, escaped), keeping: &budget)
                        longKeyParts[slot] = made
                    }
                    parts.append(made)
                    if !last { kept = made.keeping(after: kept) }
                } else {
                    let key = decodedKey(start, end, escaped)
                    if !last { kept += key.count }
                    parts.append(.key(key))
                }
            case .index(let n): parts.append(.index(n))
            }
        }
        // One finding per key path — its keys, not its rendering — even when a key is repeated.
        // (A set beside the list: a linear search takes seconds on a line of 60,000 flagged keys.)
        var digest = PathDigest()
        for part in parts { digest.add(part) }
        if seenSecretPaths.insert(digest).inserted {
            out.secretPaths.append(LongLineSecretScanner.renderedPath(parts))
        }
    }

    /// A whole key of a secret's key path as reports print it (docs/default-rules.md,
    /// `log.no-secrets`), after the steps in `text`: keys are joined by `.`
    /// (`headers.Authorization`); a key that is not only ASCII letters, digits, `_` and `-` (a dot,
    /// a bracket, a space, a quote, anything beyond ASCII, or empty) is a JSON string in brackets
    /// (`["a.token"]`, `a["x y"]`), so two key paths never read alike; a key holding a token (never
    /// shown) is `[redacted 1a2b3c4d]`, a hash of its text, so two such keys stay apart too.
    /// ``LongLineSecretScanner/renderedPath(_:)`` renders a whole path (indexes, cut keys).
    static func appendRenderedKey(_ bytes: [UInt8], to text: inout String) {
        if !bytes.isEmpty && bytes.allSatisfy(isPlainKeyByte) {
            // Plain keys hold no token: a bearer token needs white space, a JWT dots.
            if !text.isEmpty { text += "." }
            text += String(decoding: bytes, as: UTF8.self)
        } else {
            let key = String(decoding: bytes, as: UTF8.self)
            text +=
                bytes.withUnsafeBufferPointer { containsToken($0) }
                ? FileReader.redactedName(.string(key)) : "[" + Value.jsonString(key) + "]"
        }
    }

    @inline(__always) private static func isPlainKeyByte(_ b: UInt8) -> Bool {
        isAlnum(b) || b == 0x5F || b == 0x2D
    }

    /// ``containsToken(_:)`` for a key, with a quick look first: most keys are short, and a token
    /// needs white space (bearer; Unicode's is not ASCII) or a `J` (JWT).
    @inline(__always) static func keyHoldsToken(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
        guard key.count >= 10 else { return false }
        var maybe = false
        for b in key where b == 0x4A || b <= 0x20 || b >= 0x80 { maybe = true; break }
        return maybe && containsToken(key)
    }

    /// True when the bytes hold a bearer token or a JWT (default-pack.md, `log.no-secrets`).
    static func containsToken(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        firstToken(s, from: 0) != nil
    }

    /// Where each bearer token and JWT in the bytes lies, in order (text that is not a log line,
    /// redacted with the reader's own detection: ``SecretRedaction``): a bearer token from its
    /// word to the end of its run, a JWT from `eyJ` to the end of its signature.
    static func tokenRanges(_ s: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var from = 0
        while let (start, matchEnd) = firstToken(s, from: from) {
            var end = matchEnd
            // The pattern ends a JWT at the dot after its payload: its signature follows.
            if s[start] == 0x65 { while end < s.count, isB64URL(s[end]) { end += 1 } }
            out.append(start..<end)
            from = end
        }
        return out
    }

    /// The first bearer token or JWT that starts at or after `from`: where its `bearer` or `eyJ`
    /// is, and where the pattern's match ends (a bearer token's run; a JWT's second dot, included).
    @inline(__always)
    private static func firstToken(_ s: UnsafeBufferPointer<UInt8>, from: Int) -> (
        start: Int, end: Int
    )? {
        let n = s.count
        if n - from < 10 { return nil }
        var i = from
        // A failed JWT look-ahead from `eyJ` at i read the base64url run to its end: every `eyJ`
        // inside that run ends its first part at the same place and fails the same way, so it is
        // not read again (`eyJ` repeated without a dot would otherwise cost the square of the
        // length).
        var jwtFailsBefore = 0
        while i < n {
            let b = s[i]
            if (b == 0x62 || b == 0x42) && i + 6 < n {  // b / B
                if lower(s[i + 1]) == 0x65 && lower(s[i + 2]) == 0x61 && lower(s[i + 3]) == 0x72
                    && lower(s[i + 4]) == 0x65 && lower(s[i + 5]) == 0x72
                {
                    var j = i + 6
                    var spaces = 0
                    while j < n {
                        let width = spaceWidth(s, j, n)
                        if width == 0 { break }
                        j += width
                        spaces += 1
                    }
                    if spaces > 0 {
                        var run = 0
                        while j < n, isTokenChar(s[j]) { j += 1; run += 1 }
                        if run >= 8 { return (i, j) }
                    }
                }
                // eyJ
            } else if b == 0x65 && i >= jwtFailsBefore && i + 2 < n && s[i + 1] == 0x79
                && s[i + 2] == 0x4A
            {
                let (found, firstPartEnd, matchEnd) = jwtAt(s, i)
                if found { return (i, matchEnd) }
                jwtFailsBefore = firstPartEnd
            }
            i += 1
        }
        return nil
    }

    /// Whether a JWT starts at `start` (where `eyJ` is), where its first part's run ends, and
    /// where the match ends (after the second dot).
    private static func jwtAt(_ s: UnsafeBufferPointer<UInt8>, _ start: Int) -> (Bool, Int, Int) {
        // eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.
        var j = start + 3
        var run = 0
        while j < s.count, isB64URL(s[j]) { j += 1; run += 1 }
        let firstPartEnd = j
        guard run > 0, j < s.count, s[j] == 0x2E else { return (false, firstPartEnd, j) }
        j += 1
        guard j + 2 < s.count, s[j] == 0x65, s[j + 1] == 0x79, s[j + 2] == 0x4A else {
            return (false, firstPartEnd, j)
        }
        j += 3
        run = 0
        while j < s.count, isB64URL(s[j]) { j += 1; run += 1 }
        return (run > 0 && j < s.count && s[j] == 0x2E, firstPartEnd, j + 1)
    }

    @inline(__always) private static func lower(_ b: UInt8) -> UInt8 {
        b >= 65 && b <= 90 ? b + 32 : b
    }
    @inline(__always) private static func isSpace(_ b: UInt8) -> Bool {
        b == 0x20 || (b >= 0x09 && b <= 0x0D)
    }

    /// The bytes of the white space character at `j` (0: none): ASCII white space, and Unicode's
    /// (what `\s` matches in Unicode regex engines) — U+0085, U+00A0, U+1680, U+2000–U+200A,
    /// U+2028, U+2029, U+202F, U+205F, U+3000 — so `Bearer` + a no-break space is a token too.
    @inline(__always) static func spaceWidth(_ s: UnsafeBufferPointer<UInt8>, _ j: Int, _ n: Int)
        -> Int
    {
        let b = s[j]
        if b < 0x80 { return isSpace(b) ? 1 : 0 }
        if b == 0xC2, j + 1 < n { return s[j + 1] == 0x85 || s[j + 1] == 0xA0 ? 2 : 0 }
        guard j + 2 < n else { return 0 }
        let b1 = s[j + 1], b2 = s[j + 2]
        switch b {
        case 0xE1: return b1 == 0x9A && b2 == 0x80 ? 3 : 0  // U+1680
        case 0xE2:
            if b1 == 0x80 {
                return (b2 >= 0x80 && b2 <= 0x8A) || b2 == 0xA8 || b2 == 0xA9 || b2 == 0xAF ? 3 : 0
            }
            return b1 == 0x81 && b2 == 0x9F ? 3 : 0  // U+205F
        case 0xE3: return b1 == 0x80 && b2 == 0x80 ? 3 : 0  // U+3000
        default: return 0
        }
    }
    @inline(__always) private static func isAlnum(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
    }
    /// A byte of a bearer token after its white space (`A-Za-z0-9._~+/=-`).
    @inline(__always) static func isTokenChar(_ b: UInt8) -> Bool {
        isAlnum(b) || b == 0x2E || b == 0x5F || b == 0x7E || b == 0x2B || b == 0x2F || b == 0x3D
            || b == 0x2D
    }
    /// A byte of a JWT part (base64url: `A-Za-z0-9_-`).
    @inline(__always) static func isB64URL(_ b: UInt8) -> Bool {
        isAlnum(b) || b == 0x5F || b == 0x2D
    }

    // MARK: - Values

    /// Parses any JSON value; returns it decoded when `decode`, else nil (validated only).
    fileprivate mutating func parseValue(
        _ c: inout Cursor, depth: Int, decode: Bool, flagged: Bool, out: inout ParsedLine
    ) throws(JSONSyntaxError) -> Value? {
        guard c.i < c.count else {
            throw JSONSyntaxError(reason: "unexpected end of line", offset: c.i)
        }
        switch c.peek {
        case UInt8(ascii: "\""):
            return try parseStringValue(&c, decode: decode, flagged: flagged, out: &out)
        case UInt8(ascii: "{"):
            guard depth < Self.maxDepth else {
                throw JSONSyntaxError(reason: "nested deeper than \(Self.maxDepth)", offset: c.i)
            }
            return try parseObject(
                &c, depth: depth + 1, decode: decode, flagged: flagged, out: &out)
        case UInt8(ascii: "["):
            guard depth < Self.maxDepth else {
                throw JSONSyntaxError(reason: "nested deeper than \(Self.maxDepth)", offset: c.i)
            }
            return try parseArray(&c, depth: depth + 1, decode: decode, flagged: flagged, out: &out)
        case UInt8(ascii: "t"):
            try c.expectLiteral("true")
            return decode ? .bool(true) : nil
        case UInt8(ascii: "f"):
            try c.expectLiteral("false")
            return decode ? .bool(false) : nil
        case UInt8(ascii: "n"):
            try c.expectLiteral("null")
            return decode ? .null : nil
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try Self.parseNumber(&c, decode: decode)
        default:
            if c.peek >= 0x80, !c.validUTF8Sequence(at: c.i) {
                throw .notUTF8(at: c.i)
            }
            throw JSONSyntaxError(reason: "unexpected character", offset: c.i)
        }
    }

    private mutating func parseObject(
        _ c: inout Cursor, depth: Int, decode: Bool, flagged: Bool, out: inout ParsedLine
    ) throws(JSONSyntaxError) -> Value? {
        c.i += 1
        var entries: [Value.ObjectEntry] = []
        c.skipWhitespace()
        if c.i < c.count, c.peek == UInt8(ascii: "}") {
            c.i += 1
            return decode ? .object([]) : nil
        }
        while true {
            c.skipWhitespace()
            guard c.i < c.count, c.peek == UInt8(ascii: "\"") else {
                throw JSONSyntaxError(reason: "expected a key", offset: c.i)
            }
            let component = try parseKey(&c)
            c.skipWhitespace()
            guard c.i < c.count, c.peek == UInt8(ascii: ":") else {
                throw JSONSyntaxError(reason: "expected ':'", offset: c.i)
            }
            c.i += 1
            c.skipWhitespace()
            let keyFlagged = keyBytes.withUnsafeBufferPointer { Self.isSecretKey($0) }
            if keyBytes.withUnsafeBufferPointer({ Self.keyHoldsToken($0) }) {
                keyTokenInside = true
            }
            let keyString = decode ? String(decoding: keyBytes, as: UTF8.self) : ""
            path.append(component)
            if keyFlagged {
                recordSecret(&out)
                secretKeyInside = true
            }
            let v = try parseValue(
                &c, depth: depth, decode: decode, flagged: flagged || keyFlagged, out: &out)
            path.removeLast()
            if decode, let v { entries.append(.init(keyString, v)) }
            c.skipWhitespace()
            guard c.i < c.count else {
                throw JSONSyntaxError(reason: "unexpected end of line", offset: c.i)
            }
            let b = c.peek
            c.i += 1
            if b == UInt8(ascii: ",") { continue }
            if b == UInt8(ascii: "}") { break }
            throw JSONSyntaxError(reason: "expected ',' or '}'", offset: c.i - 1)
        }
        return decode ? .object(entries) : nil
    }

    private mutating func parseArray(
        _ c: inout Cursor, depth: Int, decode: Bool, flagged: Bool, out: inout ParsedLine
    ) throws(JSONSyntaxError) -> Value? {
        c.i += 1
        var items: [Value] = []
        c.skipWhitespace()
        if c.i < c.count, c.peek == UInt8(ascii: "]") {
            c.i += 1
            return decode ? .array([]) : nil
        }
        var index = 0
        while true {
            c.skipWhitespace()
            path.append(.index(index))
            let v = try parseValue(&c, depth: depth, decode: decode, flagged: flagged, out: &out)
            path.removeLast()
            if decode, let v { items.append(v) }
            index += 1
            c.skipWhitespace()
            guard c.i < c.count else {
                throw JSONSyntaxError(reason: "unexpected end of line", offset: c.i)
            }
            let b = c.peek
            c.i += 1
            if b == UInt8(ascii: ",") { continue }
            if b == UInt8(ascii: "]") { break }
            throw JSONSyntaxError(reason: "expected ',' or ']'", offset: c.i - 1)
        }
        return decode ? .array(items) : nil
    }

    /// A key: its raw range in the line, and its decoded bytes in ``keyBytes``.
    private mutating func parseKey(_ c: inout Cursor) throws(JSONSyntaxError) -> PathComponent {
        let (start, end, escaped) = try c.scanString()
        keyBytes.removeAll(keepingCapacity: true)
        if escaped {
            try Cursor.unescape(c.base, start, end, into: &keyBytes)
        } else {
            keyBytes.append(
                contentsOf: UnsafeBufferPointer(start: c.base + start, count: end - start))
        }
        return .key(start: start, end: end, escaped: escaped)
    }

    private mutating func parseStringValue(
        _ c: inout Cursor, decode: Bool, flagged: Bool, out: inout ParsedLine
    ) throws(JSONSyntaxError) -> Value? {
        let (start, end, escaped) = try c.scanString()
        if !escaped {
            let bytes = UnsafeBufferPointer(start: c.base + start, count: end - start)
            if !flagged, Self.containsToken(bytes) { recordSecret(&out) }
            return decode ? .string(String(decoding: bytes, as: UTF8.self)) : nil
        }
        scratch.removeAll(keepingCapacity: true)
        try Cursor.unescape(c.base, start, end, into: &scratch)
        let leaks = scratch.withUnsafeBufferPointer { Self.containsToken($0) }
        if !flagged, leaks { recordSecret(&out) }
        return decode ? .string(String(decoding: scratch, as: UTF8.self)) : nil
    }

    /// A top-level `ev`, `src` or `session` string, read through its table: a text met before is
    /// neither decoded nor scanned for tokens again. Sets ``ParsedLine/evID`` for an `ev` found
    /// or added; an escaped text takes the ordinary path.
    private mutating func parseTableString(
        _ c: inout Cursor, ev: Bool, flagged: Bool, out: inout ParsedLine
    ) throws(JSONSyntaxError) -> Value? {
        let before = c.i
        let (start, end, escaped) = try c.scanString()
        if escaped {
            c.i = before
            return try parseStringValue(&c, decode: true, flagged: flagged, out: &out)
        }
        let bytes = UnsafeBufferPointer(start: c.base + start, count: end - start)
        if let hit = ev ? evTable.lookup(bytes) : sourceTable.lookup(bytes) {
            if ev { out.evID = hit.tag }
            return .string(hit.string)
        }
        let text = String(decoding: bytes, as: UTF8.self)
        if Self.containsToken(bytes) {
            if !flagged { recordSecret(&out) }
            return .string(text)
        }
        if ev {
            let id = evIDs[text] ?? -1
            out.evID = id
            evTable.add(bytes, string: text, tag: id)
        } else {
            _ = addSourceText(bytes, text)
        }
        return .string(text)
    }

    /// A line's `src` and `session` as values, whether it handed them on as texts' numbers
    /// (``ParsedLine/sourceTexts``) or as values.
    func sourceValues(of line: ParsedLine) -> (src: Value?, session: Value?) {
        guard let texts = line.sourceTexts else { return (line.src, line.session) }
        return (
            texts.src >= 0 ? .string(sourceTexts[Int(texts.src)]) : nil,
            texts.session >= 0 ? .string(sourceTexts[Int(texts.session)]) : nil
        )
    }

    /// Keeps a `src` or `session` text (free of tokens) in ``sourceTable`` and ``sourceTexts``;
    /// its number there, or nil when the table keeps no more or the text is too long for it.
    mutating func addSourceText(_ bytes: UnsafeBufferPointer<UInt8>, _ text: String) -> Int32? {
        guard bytes.count <= sourceTable.maxLength, sourceTable.count < sourceTable.capacity else {
            return nil
        }
        let id = Int32(sourceTexts.count)
        sourceTable.add(bytes, string: text, tag: id)
        sourceTexts.append(text)
        return id
    }

    /// 10^0 … 10^15, each exact in a double.
    private static let powersOfTen: [Double] = (0...15).map { k in
        (0..<k).reduce(1.0) { acc, _ in acc * 10 }
    }

    static func parseNumber(_ c: inout Cursor, decode: Bool) throws(JSONSyntaxError) -> Value? {
        let start = c.i
        var isInteger = true
        let negative = c.peek == UInt8(ascii: "-")
        if negative { c.i += 1 }
        guard c.i < c.count else { throw JSONSyntaxError(reason: "bad number", offset: start) }
        // The integer part is read and accumulated in one pass (most numbers are small integers).
        var value: Int64 = 0
        var overflow = false
        if c.peek == UInt8(ascii: "0") {
            c.i += 1
        } else if c.peek >= UInt8(ascii: "1") && c.peek <= UInt8(ascii: "9") {
            while c.i < c.count {
                let digit = c.peek &- 0x30
                guard digit <= 9 else { break }
                if !overflow {
                    let (m, o1) = value.multipliedReportingOverflow(by: 10)
                    let (a, o2) =
                        negative
                        ? m.subtractingReportingOverflow(Int64(digit))
                        : m.addingReportingOverflow(Int64(digit))
                    if o1 || o2 { overflow = true } else { value = a }
                }
                c.i += 1
            }
        } else {
            throw JSONSyntaxError(reason: "bad number", offset: start)
        }
        var fractionDigits = 0
        if c.i < c.count, c.peek == UInt8(ascii: ".") {
            isInteger = false
            c.i += 1
            let digits = c.i
            while c.i < c.count, c.peek >= 0x30, c.peek <= 0x39 { c.i += 1 }
            if c.i == digits { throw JSONSyntaxError(reason: "bad number", offset: start) }
            fractionDigits = c.i - digits
        }
        var hasExponent = false
        if c.i < c.count, c.peek == UInt8(ascii: "e") || c.peek == UInt8(ascii: "E") {
            isInteger = false
            hasExponent = true
            c.i += 1
            if c.i < c.count, c.peek == UInt8(ascii: "+") || c.peek == UInt8(ascii: "-") {
                c.i += 1
            }
            let digits = c.i
            while c.i < c.count, c.peek >= 0x30, c.peek <= 0x39 { c.i += 1 }
            if c.i == digits { throw JSONSyntaxError(reason: "bad number", offset: start) }
        }
        guard decode else { return nil }
        let len = c.i - start
        // Exact 64-bit integers; on overflow the number is kept as a double.
        if isInteger, !overflow { return .int(value) }
        // A JSON integer beyond 64 bits keeps its digits: it compares as its decimal text.
        if isInteger {
            return .bigInt(
                String(
                    decoding: UnsafeBufferPointer(start: c.base + start, count: len), as: UTF8.self)
            )
        }
        // A decimal of at most 15 digits without an exponent: its digits as an integer are exact
        // in a double, and so is the power of ten, so one division rounds correctly (as strtod).
        let digitCount = len - (negative ? 1 : 0) - (fractionDigits > 0 ? 1 : 0)
        if !hasExponent, fractionDigits > 0, digitCount <= 15 {
            var mantissa: UInt64 = 0
            for k in start..<c.i
            where c.base[k] != UInt8(ascii: "-") && c.base[k] != UInt8(ascii: ".") {
                mantissa = mantissa * 10 + UInt64(c.base[k] &- 0x30)
            }
            let d = Double(mantissa) / Self.powersOfTen[fractionDigits]
            return .double(negative ? -d : d)
        }
        // Long integers and other decimals: strtod on a NUL-terminated copy.
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: len + 1) { copy in
            for k in 0..<len { copy[k] = CChar(bitPattern: c.base[start + k]) }
            copy[len] = 0
            return .double(strtod(copy.baseAddress!, nil))
        }
    }
}

// MARK: - Cursor

/// Position in a line's bytes.
struct Cursor {
    let base: UnsafePointer<UInt8>
    let count: Int
    var i = 0

    @inline(__always) var peek: UInt8 { base[i] }

    @inline(__always) mutating func skipWhitespace() {
        while i < count {
            let b = base[i]
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { i += 1 } else { return }
        }
    }

    mutating func expectLiteral(_ word: StaticString) throws(JSONSyntaxError) {
        let n = word.utf8CodeUnitCount
        guard i + n <= count else {
            throw JSONSyntaxError(reason: "unexpected end of line", offset: i)
        }
        let w = word.utf8Start
        for k in 0..<n where base[i + k] != w[k] {
            throw JSONSyntaxError(reason: "unexpected character", offset: i + k)
        }
        i += n
    }

    /// Scans a string starting at the opening quote; returns the content range and whether it has
    /// escapes.
    mutating func scanString() throws(JSONSyntaxError) -> (Int, Int, Bool) {
        i += 1
        let start = i
        var escaped = false
        while i < count {
            // Eight bytes at a time: jump to the first quote, backslash, control or non-ASCII byte.
            if i + 8 <= count {
                let mask = Cursor.specialBytes(
                    UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)))
                if mask == 0 {
                    i += 8
                    continue
                }
                i += mask.trailingZeroBitCount >> 3
            }
            let b = base[i]
            if b == 0x22 { let end = i; i += 1; return (start, end, escaped) }
            if b == 0x5C {
                escaped = true
                guard i + 1 < count else { break }
                let e = base[i + 1]
                switch e {
                case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74: i += 2
                case 0x75:
                    guard i + 5 < count else {
                        throw JSONSyntaxError(reason: "bad \\u escape", offset: i)
                    }
                    for k in 2...5 where Cursor.hexValue(base[i + k]) == nil {
                        throw JSONSyntaxError(reason: "bad \\u escape", offset: i)
                    }
                    i += 6
                default: throw JSONSyntaxError(reason: "bad escape", offset: i)
                }
            } else if b < 0x20 {
                throw JSONSyntaxError(reason: "control character in string", offset: i)
            } else if b >= 0x80 {
                let n = utf8SequenceLength(at: i)
                guard n > 0 else { throw .notUTF8(at: i) }
                i += n
            } else {
                i += 1
            }
        }
        throw JSONSyntaxError(reason: "unterminated string", offset: start - 1)
    }

    /// For eight bytes read little-endian: nonzero when one of them is `"`, `\\`, a control byte
    /// (< 0x20) or not ASCII (>= 0x80), and then the lowest set bit lies in the first such byte.
    /// (The classic "has a zero byte" / "has a byte below n" word tricks: a false mark can only
    /// sit above a true one, where a borrow spread from it.)
    @inline(__always) static func specialBytes(_ w: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quote = w ^ (ones &* 0x22)
        let backslash = w ^ (ones &* 0x5C)
        let zeroQuote = (quote &- ones) & ~quote
        let zeroBackslash = (backslash &- ones) & ~backslash
        let control = w &- (ones &* 0x20)
        return (zeroQuote | zeroBackslash | control | w) & (ones &* 0x80)
    }

    func validUTF8Sequence(at p: Int) -> Bool { utf8SequenceLength(at: p) > 0 }

    /// Length of the valid UTF-8 sequence starting at `p` (a byte >= 0x80), or 0 if invalid.
    func utf8SequenceLength(at p: Int) -> Int {
        let b0 = base[p]
        @inline(__always) func cont(_ k: Int) -> UInt8? {
            guard p + k < count else { return nil }
            let b = base[p + k]
            return b & 0xC0 == 0x80 ? b : nil
        }
        switch b0 {
        case 0xC2...0xDF:
            return cont(1) != nil ? 2 : 0
        case 0xE0...0xEF:
            guard let b1 = cont(1), cont(2) != nil else { return 0 }
            if b0 == 0xE0 && b1 < 0xA0 { return 0 }  // overlong
            if b0 == 0xED && b1 >= 0xA0 { return 0 }  // surrogate
            return 3
        case 0xF0...0xF4:
            guard let b1 = cont(1), cont(2) != nil, cont(3) != nil else { return 0 }
            if b0 == 0xF0 && b1 < 0x90 { return 0 }
            if b0 == 0xF4 && b1 >= 0x90 { return 0 }
            return 4
        default:
            return 0
        }
    }

    static func hexValue(_ b: UInt8) -> UInt32? {
        switch b {
        case 0x30...0x39: return UInt32(b - 0x30)
        case 0x41...0x46: return UInt32(b - 0x41 + 10)
        case 0x61...0x66: return UInt32(b - 0x61 + 10)
        default: return nil
        }
    }

    /// Decodes the escapes of an already-validated string body into UTF-8 bytes.
    /// A lone surrogate escape becomes U+FFFD.
    static func unescape(
        _ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int, into out: inout [UInt8]
    ) throws(JSONSyntaxError) {
        var i = start
        func hex4(_ p: Int) -> UInt32 {
            (hexValue(base[p])! << 12) | (hexValue(base[p + 1])! << 8)
                | (hexValue(base[p + 2])! << 4)
                | hexValue(base[p + 3])!
        }
        while i < end {
            let b = base[i]
            guard b == 0x5C else { out.append(b); i += 1; continue }
            let e = base[i + 1]
            switch e {
            case 0x62: out.append(0x08); i += 2
            case 0x66: out.append(0x0C); i += 2
            case 0x6E: out.append(0x0A); i += 2
            case 0x72: out.append(0x0D); i += 2
            case 0x74: out.append(0x09); i += 2
            case 0x75:
                var scalar = hex4(i + 2)
                i += 6
                if scalar >= 0xD800 && scalar < 0xDC00, i + 5 < end, base[i] == 0x5C,
                    base[i + 1] == 0x75
                {
                    let low = hex4(i + 2)
                    if low >= 0xDC00 && low < 0xE000 {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                    }
                }
                let u = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                out.append(contentsOf: UTF8.encode(u)!)
            default: out.append(e); i += 2
            }
        }
    }
}

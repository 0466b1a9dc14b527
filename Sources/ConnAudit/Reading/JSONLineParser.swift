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
    /// Set when the general parser filled the line: the lists and reason above may then hold
    /// something, which a plain line read into it next must clear
    /// (``JSONLineParser/parsePlain(_:into:)`` sets none of them).
    var filledByGeneralParser = false
    var t: Double = 0
    /// `t` when it was a JSON integer (of at most 64 bits), exactly; -1 otherwise. A double holds
    /// integers exactly only below 2^53.
    var tExact: Int64 = -1
    /// Set by every parse. The reader swaps it into the line's event, leaving the event's
    /// earlier name here until the next parse (``Event/refill(t:swappingEv:gen:file:line:evID:)``).
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

    /// ``fields``, moved out for the line's event (left empty): the event holds the only
    /// reference, with no count taken for a copy kept here.
    @inline(__always) mutating func takeFields() -> [Event.Field] {
        guard !fields.isEmpty else { return [] }
        var taken: [Event.Field] = []
        swap(&taken, &fields)
        return taken
    }

    /// Keeps `spare`, the earlier fields of an event filled again, emptied, as the room the next
    /// line's fields are decoded into, when ``fields`` has none: a line with fields then
    /// allocates no array for them, nor grows one field at a time. The event gave its array
    /// up, so emptying it frees nothing anyone reads; were the array held elsewhere too, emptying
    /// it would copy it first, as any change of a shared array does.
    @inline(__always) mutating func recycle(_ spare: consuming [Event.Field]) {
        guard fields.capacity == 0, spare.capacity > 0 else { return }
        var spare = spare
        spare.truncate(to: 0)
        fields = spare
    }
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
    /// `ev` names met so far, each tagged with its number in ``evNames``, and `src` / `session`
    /// texts: a repeated one is found by its bytes, not decoded again. Only texts that hold no
    /// token are kept, so a text found here needs no secret scan.
    var evTable = ByteStringTable(capacity: 256)
    /// The names of ``evTable`` by their numbers, and their ``EvNames`` ids: the fast path
    /// remembers a name by its number, and copies the text out once per line, into the line.
    var evNames: [String] = []
    var evNameIDs: [Int32] = []
    var sourceTable = ByteStringTable(capacity: 1024)
    /// The `src` and `session` texts of ``sourceTable``, by the number each is tagged with there:
    /// a plain line hands its source on as two such numbers (``ParsedLine/sourceTexts``).
    var sourceTexts: [String] = []
    /// The last short `src` and `session` texts met, by their first sixteen bytes, with their
    /// numbers in ``sourceTexts`` (the fast path's).
    var lastSource: (w0: UInt64, w1: UInt64, length: Int, id: Int32)?
    var lastSession: (w0: UInt64, w1: UInt64, length: Int, id: Int32)?
    /// Short `ev` names and keys the fast path met, by their words: one met again is known
    /// without hashing it through ``evTable`` or classifying it again (a name with its number in
    /// ``evNames`` and its id there in ``evNameIDs``, which never change).
    var evMemo = ShortTextMemo<(name: Int32, id: Int32)>()
    var keyMemo = ShortTextMemo<(PlainKind, Int32)>()
    /// The fast path's `src` and `session` texts that ``sourceTexts`` does not keep (it is full,
    /// or they are too long): read only for the line that set them, so a plain line moves no
    /// optional text.
    var plainTexts: (src: String?, session: String?) = (nil, nil)
    /// The fast path's `ev` text when ``evNames`` keeps no more: read only for the line that set
    /// it (its `ev` number is then -1).
    var plainEvText = ""
    /// The bytes of the `src` and `session` pairs after plain lines' leading `t`, met again on a
    /// later line in one comparison (the fast path's, when rules read neither as a field).
    var sourceSpans = SourceSpans()
    /// The names the loaded rules mention (a snapshot of ``EvNames``).
    let evIDs: [String: Int32]
    /// Whether rules read `src` / `session` as fields too (they always make the source key).
    let keepsSrc: Bool
    let keepsSession: Bool
    /// Whether the fast path keeps ``sourceSpans``: only when rules read neither `src` nor
    /// `session` as a field (a span sets their numbers, not fields). Stored: every line asks.
    let tracksSourceSpan: Bool
    /// Whether the fast path makes short plain texts from their words
    /// (``ShortASCIIText/isAvailable``, asked once here rather than per value).
    let shortTextsByWords = ShortASCIIText.isAvailable
    /// The key names `log.no-secrets` flags, lower case (the long-line scanner packs the same
    /// list).
    static let secretKeyNames: [[UInt8]] = [
        "token", "access_token", "refresh_token", "authorization", "password", "secret", "cookie",
        "body", "payload"
    ].map { Array($0.utf8) }

    /// The last reason ``reasonText(_:)`` made, and the error it was made for.
    var lastReason: (reason: String, offset: Int, kind: JSONSyntaxError.Kind, text: String)?

    // Reused per line so the parser allocates nothing for lines without findings.
    var path: [PathComponent] = []
    /// The top-level key whose value is being read (kept apart from ``path``, which then holds the
    /// components below it: most values are not nested).
    var topKey: PathComponent?
    var scratch: [UInt8] = []
    var keyBytes: [UInt8] = []
    /// The line's secret key paths so far, by a 128-bit digest of their keys and indexes (not of
    /// their rendering), for one finding per key path (emptied per line when used). A digest, not
    /// the path: a line of 85,000 findings 500 arrays deep would keep 500 steps for each. A path
    /// keeps at most ``LongLineSecretScanner/maxPathKeyBytes`` bytes of its outer keys, and its
    /// last key as much again of its own, so the key a finding is about is always named and a line
    /// of 90,000 findings under one 50 KB key does not keep a copy of the key for each.
    var seenSecretPaths: Set<PathDigest> = []
    /// The path step of each long key of the line a finding was under, by where the key starts
    /// and whether it was the path's last key (emptied per line when used): a key's step is made
    /// once, not once per finding below it.
    var longKeyParts: [Int: LongLineSecretScanner.Part] = [:]

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
    var redactedKeySet: Set<String>?
    /// Set while a top-level value is parsed when a key inside it has a secret name.
    var secretKeyInside = false
    /// Set while a top-level entry is parsed when its key, or a key inside its value, holds a
    /// token: the brief flags values, but a key is printed too (in a field's name, a finding's
    /// path, a timeline), so such a key is never shown and the entry's value is not kept.
    var topKeyHoldsToken = false
    var keyTokenInside = false

    enum PathComponent {
        /// A key's raw bytes in the line (still escaped when `escaped`): decoded only for a
        /// finding.
        case key(start: Int, end: Int, escaped: Bool)
        case index(Int)
    }

    /// The line being parsed (valid only during ``parse(_:)``), for decoding path keys.
    var lineBase: UnsafePointer<UInt8>?

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
        tracksSourceSpan = !keepsSrc && !keepsSession
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
        switch readSpanned(line, into: &out) {
        case .read: return
        case .started(let start):
            if !out.fields.isEmpty { out.fields = [] }
            if start.slot >= 0 {
                if readPairsAfterSpan(line, into: &out, from: start) { return }
                if !out.fields.isEmpty { out.fields = [] }
            }
            if parsePlain(line, into: &out, from: start) { return }
        case .notStarted: if parsePlain(line, into: &out) { return }
        case .general: break
        }
        parseGeneral(line, into: &out)
    }

    /// ``parse(_:into:)`` without the fast path: every line, plain or not, read by the general
    /// parser (tests compare the two).
    mutating func parseGeneral(_ line: UnsafeBufferPointer<UInt8>, into out: inout ParsedLine) {
        out = ParsedLine()
        out.filledByGeneralParser = true
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
    mutating func reasonText(_ error: JSONSyntaxError) -> String {
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
}

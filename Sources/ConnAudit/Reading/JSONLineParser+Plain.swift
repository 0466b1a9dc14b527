#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The reader's fast path: a line that is a flat JSON object of plain keys and plain values.
///
/// Most log lines are `{"t":…,"src":"…","ev":"…",…}`: ASCII keys without escapes, each value a
/// string without escapes, a number, `true`, `false` or `null`. Such a line is read here in one
/// pass, with no key path kept and no value decoded that no rule reads. Anything else — a nested
/// value, an escape, a byte beyond ASCII, a secret key name, a token, a syntax error — sends the
/// whole line to the general parser, which then decides everything about it. So this path only
/// ever answers lines on which the general parser would give the same answer, and holds no
/// finding, reason or redaction logic of its own.
extension JSONLineParser {
    /// Reads `line` into `out` when it is a plain line (see above) and returns true; returns
    /// false, having changed nothing the general parser relies on, for any other line.
    mutating func parsePlain(_ line: UnsafeBufferPointer<UInt8>, into out: inout ParsedLine) -> Bool
    {
        guard let base = line.baseAddress else { return false }
        var c = Cursor(base: base, count: line.count)
        c.skipWhitespace()
        guard c.i < c.count, c.peek == UInt8(ascii: "{") else { return false }
        c.i += 1
        // Only a valid event is answered here: `t` a non-negative number, `ev` a non-empty
        // string, `gen` a non-negative 64-bit integer, `src` and `session` strings. Any other
        // line (its reason, its `$malformed`) is the general parser's.
        var t = -1.0, tExact: Int64 = -1
        var ev: String?, evID: Int32?
        var gen: UInt64?
        // `src` and `session` by their numbers in ``sourceTexts`` (-1: absent; -2: a text the
        // table does not keep, then in `srcText` / `sessionText`).
        var src: Int32 = -1, session: Int32 = -1
        var srcText: String?, sessionText: String?
        var fields: [Event.Field] = []
        c.skipWhitespace()
        guard c.i < c.count, c.peek == UInt8(ascii: "\"") else { return false }
        while true {
            // The key: plain ASCII, no secret name, no token.
            guard let (ks, ke) = Self.plainString(&c) else { return false }
            let key = UnsafeBufferPointer(start: base + ks, count: ke - ks)
            let kind: PlainKind
            var wantedIndex: Int32 = -1
            // connlog's own keys by their bytes as one word.
            let word = key.count <= 7 ? Self.shortKeyWord(key, lineEnd: base + c.count) : 0
            switch word {
            case Self.tWord where key.count == 1: kind = .t
            case Self.evWord where key.count == 2: kind = .ev
            case Self.genWord where key.count == 3: kind = .gen
            case Self.srcWord where key.count == 3: kind = .src
            case Self.sessionWord where key.count == 7: kind = .session
            default:
                if Self.isSecretKey(key) { return false }
                if wanted == nil {
                    kind = .field
                } else if let w = wantedTable.tag(of: key) {
                    kind = .field
                    wantedIndex = w
                } else {
                    kind = .skip
                }
                // A key no rule names may hold a token (rules' own names are known text).
                if wantedIndex < 0, Self.keyHoldsToken(key) { return false }
            }
            c.skipWhitespace()
            guard c.i < c.count, c.peek == UInt8(ascii: ":") else { return false }
            c.i += 1
            c.skipWhitespace()
            guard c.i < c.count else { return false }
            let first = c.peek
            switch kind {
            case .t:
                if let i = Self.plainInteger(&c) {
                    t = Double(i)
                    tExact = i
                    break
                }
                guard first == UInt8(ascii: "-") || (first >= 0x30 && first <= 0x39),
                    case let number? = try? parseNumber(&c, decode: true)
                else { return false }
                switch number {
                case .int(let i) where i >= 0: t = Double(i); tExact = i
                case .double(let d) where d.isFinite && d >= 0: t = d; tExact = -1
                default: return false
                }
            case .gen:
                if let g = Self.plainInteger(&c) {
                    gen = UInt64(g)
                    break
                }
                guard first >= 0x30 && first <= 0x39,
                    case .int(let g)? = try? parseNumber(&c, decode: true)
                else {
                    return false
                }
                gen = UInt64(g)
            case .ev:
                guard first == UInt8(ascii: "\""), let (vs, ve) = Self.plainString(&c),
                    let (found, id) = evText(UnsafeBufferPointer(start: base + vs, count: ve - vs))
                else { return false }
                ev = found
                evID = id
            case .src, .session:
                let isSession = kind == .session
                guard first == UInt8(ascii: "\""), let (vs, ve) = Self.plainString(&c),
                    let found = sourceText(
                        UnsafeBufferPointer(start: base + vs, count: ve - vs), session: isSession)
                else { return false }
                // -2: a text the table does not keep, held as itself.
                var id: Int32 = -2
                var new: String?
                switch found {
                case .kept(let n): id = n
                case .new(let t): new = t
                }
                if isSession {
                    (session, sessionText) = (id, new)
                } else {
                    (src, srcText) = (id, new)
                }
                if isSession ? keepsSession : keepsSrc {
                    let text = new ?? sourceTexts[Int(id)]
                    fields.append(
                        isSession
                            ? Event.Field("session", .string(text), id: sessionID)
                            : Event.Field("src", .string(text), id: srcID))
                }
            case .field, .skip:
                let decode = kind == .field
                let value: Value?
                switch first {
                case UInt8(ascii: "\""):
                    guard let (vs, ve) = Self.plainString(&c) else { return false }
                    let bytes = UnsafeBufferPointer(start: base + vs, count: ve - vs)
                    if Self.mayHoldToken(bytes), Self.containsToken(bytes) { return false }
                    value = decode ? .string(String(decoding: bytes, as: UTF8.self)) : nil
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    if let i = Self.plainInteger(&c) {
                        value = .int(i)
                        break
                    }
                    do throws(JSONSyntaxError) {
                        value = try parseNumber(&c, decode: decode)
                    } catch {
                        return false
                    }
                case UInt8(ascii: "t"):
                    guard (try? c.expectLiteral("true")) != nil else { return false }
                    value = .bool(true)
                case UInt8(ascii: "f"):
                    guard (try? c.expectLiteral("false")) != nil else { return false }
                    value = .bool(false)
                case UInt8(ascii: "n"):
                    guard (try? c.expectLiteral("null")) != nil else { return false }
                    value = .null
                default:
                    return false
                }
                if decode, let value {
                    let name =
                        wantedIndex >= 0
                        ? wantedNames[Int(wantedIndex)] : String(decoding: key, as: UTF8.self)
                    fields.append(
                        Event.Field(
                            name, value, id: wantedIndex >= 0 ? wantedIDs[Int(wantedIndex)] : -1))
                }
            }
            c.skipWhitespace()
            guard c.i < c.count else { return false }
            let b = c.peek
            c.i += 1
            if b == UInt8(ascii: "}") { break }
            guard b == UInt8(ascii: ","), c.i < c.count else { return false }
            c.skipWhitespace()
            guard c.i < c.count, c.peek == UInt8(ascii: "\"") else { return false }
        }
        c.skipWhitespace()
        guard c.i == c.count, t >= 0, let ev, !ev.isEmpty else { return false }
        // A valid plain event: what the general parser would make of it, without its bookkeeping.
        out.isObject = true
        if !out.secretPaths.isEmpty { out.secretPaths = [] }
        if !out.redactedKeys.isEmpty { out.redactedKeys = [] }
        if !out.redactedValues.isEmpty { out.redactedValues = [] }
        if !out.unhashableKeys.isEmpty { out.unhashableKeys = [] }
        out.malformedReason = nil
        out.t = t
        out.tExact = tExact
        out.ev = ev
        out.evID = evID
        out.gen = gen
        if src != -2 && session != -2 {
            out.sourceTexts = (src, session)
            out.src = nil
            out.session = nil
        } else {
            out.sourceTexts = nil
            out.src = src >= 0 ? .string(sourceTexts[Int(src)]) : srcText.map(Value.string)
            out.session =
                session >= 0 ? .string(sourceTexts[Int(session)]) : sessionText.map(Value.string)
        }
        out.fields = fields
        return true
    }

    /// An `ev` name through ``evTable``: one met before is neither decoded nor scanned again, a
    /// new one is kept unless it holds a token (then nil: the general parser records it); with
    /// its ``EvNames`` id.
    @inline(__always)
    private mutating func evText(_ bytes: UnsafeBufferPointer<UInt8>) -> (String, Int32)? {
        if let hit = evTable.lookup(bytes) { return (hit.string, hit.tag) }
        if Self.mayHoldToken(bytes), Self.containsToken(bytes) { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        let id = evIDs[text] ?? -1
        evTable.add(bytes, string: text, tag: id)
        return (text, id)
    }

    /// A `src` or `session` text: kept in ``sourceTexts`` (by its number), or new text when the
    /// table keeps no more; nil when it holds a token (the general parser records it). The same
    /// text as the previous line's is found by its first sixteen bytes alone.
    private enum SourceText {
        case kept(Int32)
        case new(String)
    }

    @inline(__always)
    private mutating func sourceText(_ bytes: UnsafeBufferPointer<UInt8>, session: Bool)
        -> SourceText?
    {
        if let memo = session ? lastSession : lastSource, memo.length == bytes.count,
            bytes.count <= 16
        {
            let (w0, w1) = ByteStringTable.words(bytes)
            if w0 == memo.w0, w1 == memo.w1 { return .kept(memo.id) }
        }
        if let id = sourceTable.tag(of: bytes) {
            remember(bytes, id, session: session)
            return .kept(id)
        }
        if Self.mayHoldToken(bytes), Self.containsToken(bytes) { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let id = addSourceText(bytes, text) else { return .new(text) }
        remember(bytes, id, session: session)
        return .kept(id)
    }

    /// Keeps a short `src` or `session` text's number as the one the next line's `src` or
    /// `session` is compared with first: a source's lines usually come together.
    @inline(__always)
    private mutating func remember(_ bytes: UnsafeBufferPointer<UInt8>, _ id: Int32, session: Bool)
    {
        guard bytes.count <= 16 else { return }
        let (w0, w1) = ByteStringTable.words(bytes)
        if session {
            lastSession = (w0, w1, bytes.count, id)
        } else {
            lastSource = (w0, w1, bytes.count, id)
        }
    }

    /// A JSON integer of at most 18 digits without sign, fraction or exponent at the cursor,
    /// which is then past it; nil (the cursor where it was) for any other text, which
    /// ``parseNumber(_:decode:)`` reads.
    @inline(__always)
    static func plainInteger(_ c: inout Cursor) -> Int64? {
        var i = c.i
        guard i < c.count else { return nil }
        let first = c.base[i] &- 0x30
        guard first <= 9 else { return nil }
        var value = Int64(first)
        i += 1
        if first != 0 {
            while i < c.count, i - c.i < 18 {
                let d = c.base[i] &- 0x30
                guard d <= 9 else { break }
                value = value &* 10 &+ Int64(d)
                i += 1
            }
        }
        if i < c.count {
            let b = c.base[i]
            if b &- 0x30 <= 9 || b == UInt8(ascii: ".") || b == UInt8(ascii: "e")
                || b == UInt8(ascii: "E")
            {
                return nil
            }
        }
        c.i = i
        return value
    }

    private enum PlainKind { case t, ev, gen, src, session, field, skip }

    /// A key of at most seven bytes as a little-endian word of its bytes (zero above them): one
    /// load when eight bytes from its start lie in the line, else byte by byte.
    @inline(__always)
    static func shortKeyWord(_ key: UnsafeBufferPointer<UInt8>, lineEnd: UnsafePointer<UInt8>)
        -> UInt64
    {
        let p = key.baseAddress!
        if p + 8 <= lineEnd {
            let w = UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
            return w & ((1 << UInt64(8 * key.count)) &- 1)
        }
        var w: UInt64 = 0
        for k in 0..<key.count { w |= UInt64(p[k]) << UInt64(8 * k) }
        return w
    }

    /// `t`, `ev`, `gen`, `src` and `session` as little-endian words of their bytes.
    private static let tWord: UInt64 = 0x74
    private static let evWord: UInt64 = 0x76_65
    private static let genWord: UInt64 = 0x6E_65_67
    private static let srcWord: UInt64 = 0x63_72_73
    private static let sessionWord: UInt64 = 0x6E_6F_69_73_73_65_73

    /// The body of the string whose opening quote is at the cursor, when it holds only ASCII
    /// without escapes or control bytes; the cursor is then past its closing quote. Nil (the
    /// cursor anywhere) for any other string.
    @inline(__always)
    static func plainString(_ c: inout Cursor) -> (Int, Int)? {
        c.i += 1
        let start = c.i
        while c.i + 8 <= c.count {
            let mask = Cursor.specialBytes(
                UInt64(littleEndian: UnsafeRawPointer(c.base + c.i).loadUnaligned(as: UInt64.self)))
            if mask == 0 {
                c.i += 8
                continue
            }
            c.i += mask.trailingZeroBitCount >> 3
            guard c.peek == UInt8(ascii: "\"") else { return nil }
            c.i += 1
            return (start, c.i - 1)
        }
        while c.i < c.count {
            let b = c.peek
            if b == UInt8(ascii: "\"") {
                c.i += 1
                return (start, c.i - 1)
            }
            if b == UInt8(ascii: "\\") || b < 0x20 || b >= 0x80 { return nil }
            c.i += 1
        }
        return nil
    }

    /// Whether plain ASCII text may hold a bearer token or a JWT (``containsToken(_:)``): one
    /// needs ten bytes and either white space (after `bearer`; in plain text only a space) or the
    /// `J` of `eyJ`. Eight bytes at a time.
    @inline(__always)
    static func mayHoldToken(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        guard s.count >= 10, let p = s.baseAddress else { return false }
        let ones: UInt64 = 0x0101_0101_0101_0101
        var i = 0
        var seen: UInt64 = 0
        while i + 8 <= s.count {
            let w = UInt64(littleEndian: UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self))
            let space = w ^ (ones &* 0x20), j = w ^ (ones &* 0x4A)
            seen |= ((space &- ones) & ~space) | ((j &- ones) & ~j)
            i += 8
        }
        if seen & (ones &* 0x80) != 0 { return true }
        while i < s.count {
            if p[i] == 0x20 || p[i] == 0x4A { return true }
            i += 1
        }
        return false
    }
}

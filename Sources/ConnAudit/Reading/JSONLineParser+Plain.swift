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
    ///
    /// One pass, left to right, over the line's bytes with a plain index: strings are scanned
    /// eight bytes at a time, and connlog's own keys are matched with their closing quote and
    /// colon as one word. Nothing is decoded that no rule reads.
    @inline(__always)
    mutating func parsePlain(_ line: UnsafeBufferPointer<UInt8>, into out: inout ParsedLine) -> Bool
    {
        if !out.fields.isEmpty { out.fields = [] }
        return parsePlain(line, into: &out, from: PlainStart(t: -1, at: 0, slot: -1))
    }

    /// ``parsePlain(_:into:)`` from where ``readSpanned(_:into:)`` left the line: after its `t`,
    /// at the quote that opens the next key (``PlainStart/at`` 0: from the line's start). The
    /// caller empties `out`'s fields first (inlined there, where the array's count is read
    /// without a call).
    mutating func parsePlain(
        _ line: UnsafeBufferPointer<UInt8>, into out: inout ParsedLine, from start: PlainStart
    ) -> Bool {
        guard let p = line.baseAddress else { return false }
        let n = line.count
        var i = 0
        // Only a valid event is answered here: `t` a non-negative number, `ev` a non-empty
        // string, `gen` a non-negative 64-bit integer, `src` and `session` strings. Any other
        // line (its reason, its `$malformed`) is the general parser's.
        var t = -1.0, tExact: Int64 = -1
        // `ev` by its number in ``evNames`` (-1: absent, or in ``plainEvText`` when the table is
        // full).
        var evName: Int32 = -1, evID: Int32?
        // Whether `ev` is absent or empty (the general parser's to give its reason for).
        var evEmpty = true
        var gen: UInt64?
        // `src` and `session` by their numbers in ``sourceTexts`` (-1: absent; -2: a text the
        // table does not keep, then in ``plainTexts``).
        var src: Int32 = -1, session: Int32 = -1
        // Decoded fields go straight into the line, emptied by the caller (a plain line that is
        // given up is read again by the general parser, which starts from an empty line).
        // This line's span for ``sourceSpans``: where it starts, where its last pair's next key
        // opens, and what it sets.
        var span = SpanState.first
        var spanFrom = 0, spanTo = -1
        var spanKept = PlainSpan()
        if start.at > 0 {
            // `{"t":N,` read: the kept span there taken whole, else followed from there.
            (t, tExact, i) = (Double(start.t), start.t, start.at)
            span = .closed
            if start.slot < 0 {
                span = .open
                spanFrom = i
            } else {
                let kept = sourceSpans[start.slot]
                (src, session) = (kept.src, kept.session)
                if kept.ev >= 0 { (evName, evID, evEmpty) = (kept.ev, kept.evID, kept.evEmpty) }
                if kept.gen >= 0 { gen = UInt64(kept.gen) }
                i &+= kept.length &- 1
            }
        } else {
            if i < n, p[i] <= 0x20 { i = Self.skipSpace(p, i, n) }
            guard i < n, p[i] == UInt8(ascii: "{") else { return false }
            i += 1
            if i < n, p[i] <= 0x20 { i = Self.skipSpace(p, i, n) }
            guard i < n, p[i] == UInt8(ascii: "\"") else { return false }
        }
        pairs: while true {
            // At a key's opening quote.
            var kind = PlainKind.skip
            var wantedIndex: Int32 = -1
            var key = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
            if let (known, length) = Self.connlogKey(p, at: i + 1, count: n) {
                // The key, its closing quote and the colon, matched at once.
                kind = known
                i += 1 + length
            } else {
                // Any other key: plain ASCII, no secret name, no token. A short key met before
                // is known by its words (what it is depends on its bytes alone).
                guard let close = Self.plainStringEnd(p, from: i + 1, count: n) else {
                    return false
                }
                let length = close - i - 1
                key = UnsafeBufferPointer(start: p + i + 1, count: length)
                if length <= 16 {
                    let (w0, w1) = Self.shortWords(p, i + 1, length, n)
                    if let (k, w) = keyMemo.find(w0, w1, length) {
                        (kind, wantedIndex) = (k, w)
                    } else {
                        guard let (k, w) = classifyKey(key, lineEnd: p + n) else { return false }
                        (kind, wantedIndex) = (k, w)
                        keyMemo.keep(w0, w1, length, (k, w))
                    }
                } else {
                    guard let (k, w) = classifyKey(key, lineEnd: p + n) else { return false }
                    (kind, wantedIndex) = (k, w)
                }
                i = close + 1
                if i < n, p[i] <= 0x20 { i = Self.skipSpace(p, i, n) }
                guard i < n, p[i] == UInt8(ascii: ":") else { return false }
                i += 1
            }
            if i < n, p[i] <= 0x20 { i = Self.skipSpace(p, i, n) }
            guard i < n else { return false }
            let first = p[i]
            switch kind {
            case .t:
                if let v = Self.plainInteger(p, &i, n) {
                    t = Double(v)
                    tExact = v
                    break
                }
                guard first == UInt8(ascii: "-") || (first >= 0x30 && first <= 0x39),
                    case let number? = try? parseNumber(p, &i, n, decode: true)
                else { return false }
                switch number {
                case .int(let v) where v >= 0: t = Double(v); tExact = v
                case .double(let d) where d.isFinite && d >= 0: t = d; tExact = -1
                default: return false
                }
            case .gen:
                if let g = Self.plainInteger(p, &i, n) {
                    gen = UInt64(g)
                    break
                }
                guard first >= 0x30 && first <= 0x39,
                    case .int(let g)? = try? parseNumber(p, &i, n, decode: true)
                else {
                    return false
                }
                gen = UInt64(g)
            case .ev:
                guard first == UInt8(ascii: "\""),
                    let close = Self.plainStringEnd(p, from: i + 1, count: n)
                else { return false }
                let length = close - i - 1
                // Plain text has no escapes: the name is empty when its bytes are.
                evEmpty = length == 0
                if length <= 16 {
                    // A short name met before: by its words, without hashing it, with its
                    // number and id.
                    let (w0, w1) = Self.shortWords(p, i + 1, length, n)
                    if let (number, id) = evMemo.find(w0, w1, length) {
                        (evName, evID) = (number, id)
                    } else {
                        guard
                            let found = evNameOrText(
                                UnsafeBufferPointer(start: p + i + 1, count: length))
                        else { return false }
                        (evName, evID) = found
                        if evName >= 0 { evMemo.keep(w0, w1, length, (evName, found.id)) }
                    }
                } else {
                    guard
                        let found = evNameOrText(
                            UnsafeBufferPointer(start: p + i + 1, count: length))
                    else { return false }
                    (evName, evID) = found
                }
                i = close + 1
            case .src, .session:
                let isSession = kind == .session
                guard first == UInt8(ascii: "\""),
                    let close = Self.plainStringEnd(p, from: i + 1, count: n)
                else { return false }
                let length = close - i - 1
                // -2: a text the table does not keep, held as itself (the text is read only
                // for -2, so a kept one leaves it as it was: no optional text moved per line).
                var id: Int32 = -2
                // The previous line's text, by its words (a source's lines usually come
                // together); else through the table.
                if length <= 16, let memo = isSession ? lastSession : lastSource,
                    memo.length == length,
                    case let (w0, w1) = Self.shortWords(p, i + 1, length, n),
                    w0 == memo.w0, w1 == memo.w1
                {
                    id = memo.id
                } else {
                    guard
                        let found = sourceText(
                            UnsafeBufferPointer(start: p + i + 1, count: length),
                            session: isSession)
                    else { return false }
                    switch found {
                    case .kept(let k): id = k
                    case .new(let text):
                        if isSession { plainTexts.session = text } else { plainTexts.src = text }
                    }
                }
                i = close + 1
                if isSession { session = id } else { src = id }
                if isSession ? keepsSession : keepsSrc {
                    let text =
                        id >= 0
                        ? sourceTexts[Int(id)]
                        : (isSession ? plainTexts.session! : plainTexts.src!)
                    out.fields.append(
                        isSession
                            ? Event.Field("session", .string(text), id: sessionID)
                            : Event.Field("src", .string(text), id: srcID))
                }
            case .skip:
                // A value no rule reads: stepped over, a string checked for tokens as a decoded
                // one is, and no value made.
                guard Self.stepOverPlainValue(p, &i, n, first) else { return false }
            case .field:
                guard let value = parsePlainValue(p, &i, n, first) else { return false }
                out.fields.append(plainField(wantedIndex, key, value))
            }
            if i < n, p[i] <= 0x20 { i = Self.skipSpace(p, i, n) }
            guard i < n else { return false }
            let b = p[i]
            i += 1
            // Whether the pair just read may be part of a span: what it sets is fixed by its bytes.
            let spannable =
                kind == .src
                ? src >= 0
                : kind == .session ? session >= 0 : kind == .ev ? evName >= 0 : kind == .gen
            if b == UInt8(ascii: "}") {
                // A span whose pairs run to the line's last byte takes its `}` too: a later line
                // with these bytes to its end is then read whole.
                if span == .open, i == n, spannable, i &- 1 &- spanFrom < SourceSpans.capacity {
                    spanTo = i &- 1
                    spanKept = PlainSpan(
                        src: src, session: session, ev: evName, evID: evID ?? -1,
                        evEmpty: evEmpty, gen: gen.map { Int64($0) } ?? -1, closes: true)
                }
                break
            }
            guard b == UInt8(ascii: ","), i < n else { return false }
            if p[i] <= 0x20 { i = Self.skipSpace(p, i, n) }
            guard i < n, p[i] == UInt8(ascii: "\"") else { return false }
            // At the next key's quote: the span after a leading `t`, taken whole when it is one
            // met before, else followed while its pairs are `src`, `session` and `ev` texts kept
            // and `gen`s.
            if span != .closed {
                if span == .first {
                    span = .closed
                    if kind == .t, tracksSourceSpan, i &+ SourceSpans.lookahead <= n {
                        // A span that ends the line stands only for a line's whole rest.
                        let slot = sourceSpans.match(SourceSpans.slot(p, i), p, i, n)
                        if slot >= 0, case let kept = sourceSpans[slot],
                            !kept.closes || i &+ kept.length == n
                        {
                            (src, session) = (kept.src, kept.session)
                            if kept.ev >= 0 {
                                (evName, evID, evEmpty) = (kept.ev, kept.evID, kept.evEmpty)
                            }
                            if kept.gen >= 0 { gen = UInt64(kept.gen) }
                            if kept.closes {
                                i = n
                                break pairs
                            }
                            i &+= kept.length &- 1
                        } else {
                            span = .open
                            spanFrom = i
                        }
                    }
                } else if i &- spanFrom < SourceSpans.capacity, spannable {
                    // The longest run of such pairs that fits.
                    spanTo = i
                    spanKept = PlainSpan(
                        src: src, session: session, ev: evName, evID: evID ?? -1,
                        evEmpty: evEmpty, gen: gen.map { Int64($0) } ?? -1)
                } else {
                    span = .closed
                }
            }
        }
        if i < n { i = Self.skipSpace(p, i, n) }
        guard i == n, t >= 0, !evEmpty else { return false }
        if spanTo >= 0, spanTo &- spanFrom < SourceSpans.capacity {
            sourceSpans.keep(
                SourceSpans.slot(p, spanFrom), p + spanFrom, count: spanTo &- spanFrom &+ 1,
                span: spanKept)
        }
        // A valid plain event: what the general parser would make of it, without its bookkeeping.
        out.setPlain(t: t, tExact: tExact, evID: evID, gen: gen)
        // The name goes straight from the table into the line: one copy counted.
        if evName >= 0 { setEv(evName, of: &out) } else { out.ev = plainEvText }
        if src != -2 && session != -2 {
            out.setSources(src, session)
        } else {
            // -2: the line's own text, in ``plainTexts`` (which an earlier line may have set too).
            func value(_ number: Int32, _ own: String?) -> Value? {
                number >= 0
                    ? .string(sourceTexts[Int(number)]) : number == -2 ? own.map(Value.string) : nil
            }
            out.setSources(value(src, plainTexts.src), value(session, plainTexts.session))
        }
        return true
    }

    /// Where a line is in its span for ``sourceSpans``: at its first pair, within the span's
    /// pairs, or past them.
    enum SpanState { case first, open, closed }

    /// What a key other than connlog's own written `"key":` is to the fast path: a field to
    /// decode (with its index among the wanted names), one to skip, or (nil) a key the general
    /// parser must read (a secret name, a token).
    ///
    /// Mutating only so that it takes the parser by reference: a non-mutating call from
    /// ``parsePlain(_:into:)`` hands it a copy of the whole parser (400 bytes) per key.
    @inline(__always)
    private mutating func classifyKey(
        _ key: UnsafeBufferPointer<UInt8>, lineEnd: UnsafePointer<UInt8>
    )
        -> (PlainKind, Int32)?
    {
        // connlog's own keys written otherwise (white space before the colon).
        let word = key.count <= 7 ? Self.shortKeyWord(key, lineEnd: lineEnd) : 0
        switch word {
        case Self.tWord where key.count == 1: return (.t, -1)
        case Self.evWord where key.count == 2: return (.ev, -1)
        case Self.genWord where key.count == 3: return (.gen, -1)
        case Self.srcWord where key.count == 3: return (.src, -1)
        case Self.sessionWord where key.count == 7: return (.session, -1)
        default: break
        }
        if Self.isSecretKey(key) { return nil }
        // A plain key holds no control byte and nothing beyond ASCII: a token in it needs a space
        // or a `J` (``mayHoldToken(_:)``, eight bytes at a time).
        if wanted == nil {
            return Self.mayHoldToken(key) && Self.containsToken(key) ? nil : (.field, -1)
        }
        if let w = wantedTable.tag(of: key) { return (.field, w) }
        // A key no rule names may hold a token (rules' own names are known text).
        return Self.mayHoldToken(key) && Self.containsToken(key) ? nil : (.skip, -1)
    }

    /// connlog's own keys with their closing quote and colon (`t":`, `ev":`, `gen":`, `src":`,
    /// `session":`) at `at`, just past the opening quote: the key and how many bytes they take.
    @inline(__always)
    static func connlogKey(_ p: UnsafePointer<UInt8>, at: Int, count n: Int) -> (PlainKind, Int)? {
        guard at + 8 <= n else { return nil }
        let w = UInt64(littleEndian: UnsafeRawPointer(p + at).loadUnaligned(as: UInt64.self))
        if w & 0xFF_FFFF == tColon { return (.t, 3) }
        if w & 0xFFFF_FFFF == evColon { return (.ev, 4) }
        let five = w & 0xFF_FFFF_FFFF
        if five == srcColon { return (.src, 5) }
        if five == genColon { return (.gen, 5) }
        if w == sessionQuote, at + 8 < n, p[at + 8] == UInt8(ascii: ":") { return (.session, 9) }
        return nil
    }

    /// ``connlogKey(_:at:count:)`` for a key within eight bytes of the end of a line of at least
    /// eight: the line's last eight bytes, shifted down to `at` (zeros past the line's end, which
    /// no key's bytes match). `session":` takes nine bytes, so it is never one of these.
    @inline(__always)
    static func connlogKeyNearEnd(_ p: UnsafePointer<UInt8>, at: Int, count n: Int)
        -> (PlainKind, Int)?
    {
        guard n >= 8, at < n, at &+ 8 > n else { return nil }
        let w =
            UInt64(littleEndian: UnsafeRawPointer(p + (n &- 8)).loadUnaligned(as: UInt64.self))
            &>> UInt64(8 &* (at &+ 8 &- n))
        if w & 0xFF_FFFF == tColon { return (.t, 3) }
        if w & 0xFFFF_FFFF == evColon { return (.ev, 4) }
        let five = w & 0xFF_FFFF_FFFF
        if five == srcColon { return (.src, 5) }
        if five == genColon { return (.gen, 5) }
        return nil
    }

    /// `t":`, `ev":`, `src":`, `gen":` and `session"` as little-endian words of their bytes.
    private static let tColon: UInt64 = 0x3A_22_74
    private static let evColon: UInt64 = 0x3A_22_76_65
    private static let srcColon: UInt64 = 0x3A_22_63_72_73
    private static let genColon: UInt64 = 0x3A_22_6E_65_67
    private static let sessionQuote: UInt64 = 0x22_6E_6F_69_73_73_65_73

    /// Steps `i` past the number there that is not a plain integer; false when it is no JSON
    /// number (out of line: plain integers are the common case).
    @inline(never)
    static func skipNumber(_ p: UnsafePointer<UInt8>, _ i: inout Int, _ n: Int) -> Bool {
        var c = Cursor(base: p, count: n)
        c.i = i
        do throws(JSONSyntaxError) {
            _ = try parseNumber(&c, decode: false)
        } catch {
            return false
        }
        i = c.i
        return true
    }

    /// The index past JSON white space from `i` (at most `n`).
    @inline(__always)
    static func skipSpace(_ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int) -> Int {
        var i = i
        while i < n {
            let b = p[i]
            guard b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D else { break }
            i += 1
        }
        return i
    }

    /// Whether the four bytes at `i` are those of `bytes` (a little-endian word); `i` is then
    /// past them.
    @inline(__always)
    static func literal(_ p: UnsafePointer<UInt8>, _ i: inout Int, _ n: Int, _ bytes: UInt32)
        -> Bool
    {
        guard i + 4 <= n,
            UInt32(littleEndian: UnsafeRawPointer(p + i).loadUnaligned(as: UInt32.self)) == bytes
        else { return false }
        i += 4
        return true
    }

    /// ``parseNumber(_:decode:)`` at index `i` of the line, which is then past the number.
    @inline(__always)
    func parseNumber(_ p: UnsafePointer<UInt8>, _ i: inout Int, _ n: Int, decode: Bool)
        throws(JSONSyntaxError) -> Value?
    {
        var c = Cursor(base: p, count: n)
        c.i = i
        let value = try Self.parseNumber(&c, decode: decode)
        i = c.i
        return value
    }

    /// An `ev` name through ``evTable``: one met before is neither decoded nor scanned again, a
    /// new one is kept unless it holds a token (then nil: the general parser records it). With
    /// its number in ``evNames`` (-1 when the table keeps no more: its text is then in
    /// ``plainEvText``) and its ``EvNames`` id.
    @inline(__always)
    private mutating func evNameOrText(_ bytes: UnsafeBufferPointer<UInt8>)
        -> (name: Int32, id: Int32)?
    {
        if let number = evTable.tag(of: bytes) {
            return (number, evNameIDs[Int(number)])
        }
        if Self.mayHoldToken(bytes), Self.containsToken(bytes) { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        let id = loggedEvID(text)
        if let number = keepEvName(bytes, text, id: id) { return (number, id) }
        plainEvText = text
        return (-1, id)
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
}

extension ParsedLine {
    /// Sets a plain line's event (``JSONLineParser/parsePlain(_:into:)``) but for its `ev` and
    /// source: no finding, no reason.
    ///
    /// The finding lists and reason are cleared only when the general parser filled the line
    /// (``filledByGeneralParser``): the fast path sets none of them, so after a plain line they
    /// are empty still. The decoded fields are in ``fields`` already.
    @inline(__always)
    mutating func setPlain(t: Double, tExact: Int64, evID: Int32?, gen: UInt64?) {
        isObject = true
        if filledByGeneralParser { clearFindings() }
        self.t = t
        self.tExact = tExact
        self.evID = evID
        self.gen = gen
    }

    /// Empties what only the general parser sets. Apart from the parser's loop, which is too
    /// large for the compiler to inline the arrays' small accessors into.
    @inline(never)
    mutating func clearFindings() {
        if !secretPaths.isEmpty { secretPaths = [] }
        if !redactedKeys.isEmpty { redactedKeys = [] }
        if !redactedValues.isEmpty { redactedValues = [] }
        if !unhashableKeys.isEmpty { unhashableKeys = [] }
        if malformedReason != nil { malformedReason = nil }
        filledByGeneralParser = false
    }

    /// A plain line's `src` and `session` as numbers of the parser's
    /// ``JSONLineParser/sourceTexts`` (-1: absent).
    @inline(__always)
    mutating func setSources(_ src: Int32, _ session: Int32) {
        sourceTexts = (src, session)
        if case .some = self.src { self.src = nil }
        if case .some = self.session { self.session = nil }
    }

    /// A plain line's `src` and `session` as values (one of them is a text the parser's table
    /// does not keep).
    mutating func setSources(_ src: Value?, _ session: Value?) {
        sourceTexts = nil
        self.src = src
        self.session = session
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension JSONLineParser {
    mutating func parseTopObject(_ c: inout Cursor, out: inout ParsedLine)
        throws(JSONSyntaxError)
    {
        var tValue: Value?
        var evValue: Value?
        var genValue: Value?
        var sawT = false, sawEv = false, sawGen = false
        var fields: [Event.Field] = []
        if !c.opensEmpty(closing: UInt8(ascii: "}")) {
            while true {
                try c.startOfKey()
                let (component, keyFlagged, kind, keyString, keyID) = try parseTopKey(&c)
                try c.pastColon()
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
                if try c.endOfMember(closing: UInt8(ascii: "}")) { break }
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
    mutating func addRedactedKey(_ name: String, _ out: inout ParsedLine) {
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
    func removeRedacted(from fields: inout [Event.Field], _ out: inout ParsedLine) {
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

    enum TopKind { case t, ev, gen, src, session, field, skip }

    /// Which connlog field `key` is; for a wanted field also its index in ``wanted`` (-1 when
    /// every key is decoded).
    static func topKind(_ key: UnsafeBufferPointer<UInt8>, _ wanted: [[UInt8]]?) -> (
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
    mutating func parseTopKey(_ c: inout Cursor) throws(JSONSyntaxError) -> (
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

    func topKeyName(_ component: PathComponent) -> String {
        guard case .key(let start, let end, let escaped) = component else { return "" }
        return keyText(start, end, escaped)
    }

    /// A key of the line being parsed, decoded (only for findings: the hot path compares bytes).
    func keyText(_ start: Int, _ end: Int, _ escaped: Bool) -> String {
        String(decoding: decodedKey(start, end, escaped), as: UTF8.self)
    }

    func decodedKey(_ start: Int, _ end: Int, _ escaped: Bool) -> [UInt8] {
        var bytes = Array(UnsafeBufferPointer(start: lineBase! + start, count: end - start))
        if escaped {
            bytes.removeAll()
            try? Cursor.unescape(lineBase!, start, end, into: &bytes)
        }
        return bytes
    }
}

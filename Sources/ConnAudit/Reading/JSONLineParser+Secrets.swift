#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension JSONLineParser {
    /// Lengths of the secret key names (bit n set: a name of n bytes): 4, 5, 6, 7, 8, 12, 13,
    /// written out so that no lazy initialisation is checked per key (a test compares it with the
    /// names).
    static let secretLengths: UInt64 =
        1 << 4 | 1 << 5 | 1 << 6 | 1 << 7 | 1 << 8 | 1 << 12 | 1 << 13

    /// Per length below 16: the first letters (bit `letter - 'a'`) of the secret names that long.
    static let secretStarts: [UInt32] = {
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

    mutating func recordSecret(_ out: inout ParsedLine) {
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
    static func firstToken(_ s: UnsafeBufferPointer<UInt8>, from: Int) -> (
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
    static func jwtAt(_ s: UnsafeBufferPointer<UInt8>, _ start: Int) -> (Bool, Int, Int) {
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
}

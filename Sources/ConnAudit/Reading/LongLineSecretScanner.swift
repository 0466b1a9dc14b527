/// Finds what `log.no-secrets` flags on a line too long to hold (over 1 MiB), from its bytes fed
/// in chunks as ``LineReader`` skips them, in a state of fixed size.
///
/// It reports what ``JSONLineParser`` reports for the same bytes (``ParsedLine/secretPaths``):
/// the line is judged only when it starts with one JSON object that parses whole (valid UTF-8
/// inside it, nested at most ``JSONLineParser/maxDepth`` deep; what follows the object does not
/// matter); keys with a secret name count, and string values holding a bearer token or a JWT
/// unless under such a key, each key path once, in line order, rendered alike. Keys and strings
/// are judged as decoded, escapes and all, and a token split over the chunks is found as any other.
///
/// Two bounds a line of any length needs, past which it reports less than the parser would:
/// a path keeps at most ``maxPathKeyBytes`` bytes of its keys (a key cut there reads as a JSON
/// string of what was kept followed by `…`, `["abc"…]`, or, when the whole key holds a token, as
/// the hash of the whole key's text, `[redacted 1a2b3c4d]`), and a line reports at most
/// ``maxFindings`` key paths, the first ones.
struct LongLineSecretScanner {
    /// The bytes of keys (decoded) a path keeps, over all its levels.
    static let maxPathKeyBytes = 1024
    /// The key paths one line reports at most.
    static let maxFindings = 10_000

    /// One step of a secret's key path, as findings are told apart (here and in
    /// ``JSONLineParser``): a key as its decoded bytes (so `"p\u0061ss"` and `"pass"` are one key),
    /// an array index, or a key longer than the path could keep.
    enum Part: Hashable {
        case key([UInt8])
        case index(Int)
        /// The bytes kept, and the whole key's length, FNV-1a 64 hash, and, when it holds a
        /// token, the FNV-1a hash of its text as ``FileReader/redactedName(_:)`` makes it.
        case cutKey(kept: [UInt8], length: Int, hash: UInt64, tokenHash: UInt32?)

        /// The key bytes a path keeps once it holds this step, after `kept` of outer keys.
        func keeping(after kept: Int) -> Int {
            switch self {
            case .key(let bytes): return kept + bytes.count
            case .index: return kept
            case .cutKey: return LongLineSecretScanner.maxPathKeyBytes
            }
        }
    }

    private enum Mode {
        case start, keyOrClose, key, colon, valueOrClose, value, afterValue, string, escape, unicode, number,
            literal, done, failed
    }

    /// An open object or array.
    private struct Level {
        var isArray: Bool
        /// Under a key with a secret name: tokens in its strings are no findings of their own.
        var flagged: Bool
        var index = 0
        /// The current key (objects): its kept bytes in ``keyBytes``, and what was learnt of it whole.
        var keyStart: Int
        var keyEnd: Int
        var keyLength = 0
        var keyFlagged = false
        var keyHoldsToken = false
        var keyHash: UInt64 = 0
        var keyTokenHash: UInt32 = 0
    }

    private var mode = Mode.start
    private var levels: [Level] = []
    /// The kept bytes of the current keys of all levels, one after another.
    private var keyBytes: [UInt8] = []
    private var findings: [String] = []
    /// The line's key paths so far, by digest (as the parser keeps them): a path is made only
    /// the first time it is found, not for each repeat.
    private var seen: Set<JSONLineParser.PathDigest> = []

    // The string being read.
    private var inKey = false
    /// A value whose tokens count: its decoded bytes go through ``matcher``.
    private var scanning = false
    private var matcher = TokenMatcher()
    private var utf8Need = 0
    private var utf8Low: UInt8 = 0x80
    private var utf8High: UInt8 = 0xBF
    private var hexCount = 0
    private var hexValue: UInt32 = 0
    /// A `\u` escape of a high surrogate, waiting for the low one (0: none).
    private var pendingHigh: UInt32 = 0

    // The key being read.
    private var keyLength = 0
    /// Its first 16 bytes, lower-cased (ASCII), little-endian: to compare with the secret names.
    private var nameLow: UInt64 = 0
    private var nameHigh: UInt64 = 0
    private var keyHash: UInt64 = 0
    private var keyCut = false
    private var keyHasher = RenderedKeyHasher()

    // A number or literal being read.
    private var numberState: UInt8 = 0
    private var literalRest: UInt32 = 0
    private var literalLeft = 0

    init() {
        levels.reserveCapacity(JSONLineParser.maxDepth)
        keyBytes.reserveCapacity(Self.maxPathKeyBytes)
    }

    /// Starts a new line.
    mutating func reset() {
        mode = .start
        levels.removeAll(keepingCapacity: true)
        keyBytes.removeAll(keepingCapacity: true)
        findings = []
        if !seen.isEmpty { seen = [] }
        pendingHigh = 0
        utf8Need = 0
    }

    /// The line's key paths as ``renderedPath(_:)`` prints them; none when the
    /// line is not a JSON object that parses whole.
    mutating func finish() -> [String] {
        let result = mode == .done ? findings : []
        findings = []
        return result
    }

    /// Reads the next bytes of the line.
    mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) {
        var i = 0
        let n = bytes.count
        while i < n {
            if mode == .string, utf8Need == 0, pendingHigh == 0 {
                // The bulk of a long line: printable ASCII inside a string.
                if !inKey && !scanning {
                    while i < n {
                        let b = bytes[i]
                        if b == 0x22 || b == 0x5C || b < 0x20 || b >= 0x80 { break }
                        i += 1
                    }
                } else if !inKey {
                    while i < n {
                        let b = bytes[i]
                        if b == 0x22 || b == 0x5C || b < 0x20 || b >= 0x80 { break }
                        if matcher.add(b) {
                            recordSecret()
                            scanning = false
                            i += 1
                            break
                        }
                        i += 1
                    }
                } else {
                    // A key: its plain ASCII bytes without the dispatch of `step`.
                    while i < n {
                        let b = bytes[i]
                        if b == 0x22 || b == 0x5C || b < 0x20 || b >= 0x80 { break }
                        keyByte(b)
                        i += 1
                    }
                }
                if i == n { return }
            } else if mode == .done || mode == .failed {
                return
            }
            step(bytes[i])
            i += 1
        }
    }

    // MARK: - Structure

    private mutating func step(_ b: UInt8) {
        switch mode {
        case .string: stringByte(b)
        case .escape: escapeByte(b)
        case .unicode: unicodeByte(b)
        case .value, .valueOrClose: valueStart(b)
        case .afterValue: afterValue(b)
        case .keyOrClose, .key: keyStart(b)
        case .colon:
            if Self.isSpace(b) { return }
            guard b == UInt8(ascii: ":") else { return fail() }
            mode = .value
            if levels[levels.count - 1].keyFlagged { recordSecret() }
        case .number: numberByte(b)
        case .literal:
            guard b == UInt8(truncatingIfNeeded: literalRest) else { return fail() }
            literalRest >>= 8
            literalLeft -= 1
            if literalLeft == 0 { mode = .afterValue }
        case .start:
            if Self.isSpace(b) { return }
            guard b == UInt8(ascii: "{") else { return fail() }
            levels.append(Level(isArray: false, flagged: false, keyStart: 0, keyEnd: 0))
            mode = .keyOrClose
        case .done, .failed: break
        }
    }

    private mutating func fail() { mode = .failed }

    @inline(__always) private static func isSpace(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D
    }

    /// Whether a value in the innermost container is under a key with a secret name.
    private var valueFlagged: Bool {
        let top = levels[levels.count - 1]
        return top.flagged || (!top.isArray && top.keyFlagged)
    }

    private mutating func keyStart(_ b: UInt8) {
        if Self.isSpace(b) { return }
        if b == UInt8(ascii: "}"), mode == .keyOrClose { return close() }
        guard b == UInt8(ascii: "\"") else { return fail() }
        keyBytes.removeSubrange(levels[levels.count - 1].keyStart...)
        inKey = true
        matcher = TokenMatcher()
        keyLength = 0
        nameLow = 0
        nameHigh = 0
        keyHash = 0xCBF2_9CE4_8422_2325
        keyCut = false
        mode = .string
    }

    private mutating func valueStart(_ b: UInt8) {
        switch b {
        case 0x20, 0x09, 0x0A, 0x0D: return
        case UInt8(ascii: "\""):
            inKey = false
            scanning = !valueFlagged
            matcher = TokenMatcher()
            mode = .string
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard levels.count < JSONLineParser.maxDepth else { return fail() }
            let end = keyBytes.count
            levels.append(Level(isArray: b == UInt8(ascii: "["), flagged: valueFlagged, keyStart: end, keyEnd: end))
            mode = b == UInt8(ascii: "[") ? .valueOrClose : .keyOrClose
        case UInt8(ascii: "]") where mode == .valueOrClose:
            close()
        case UInt8(ascii: "t"): literal("rue")
        case UInt8(ascii: "f"): literal("alse")
        case UInt8(ascii: "n"): literal("ull")
        case UInt8(ascii: "-"): numberState = 1; mode = .number
        case UInt8(ascii: "0"): numberState = 2; mode = .number
        case UInt8(ascii: "1")...UInt8(ascii: "9"): numberState = 3; mode = .number
        default: fail()
        }
    }

    private mutating func literal(_ rest: StaticString) {
        literalRest = 0
        literalLeft = rest.utf8CodeUnitCount
        for k in 0..<literalLeft { literalRest |= UInt32(rest.utf8Start[k]) << UInt32(8 * k) }
        mode = .literal
    }

    private mutating func afterValue(_ b: UInt8) {
        if Self.isSpace(b) { return }
        let top = levels.count - 1
        if levels[top].isArray {
            if b == UInt8(ascii: ",") {
                levels[top].index += 1
                mode = .value
            } else if b == UInt8(ascii: "]") {
                close()
            } else {
                fail()
            }
        } else if b == UInt8(ascii: ",") {
            mode = .key
        } else if b == UInt8(ascii: "}") {
            close()
        } else {
            fail()
        }
    }

    private mutating func close() {
        // Its keys leave the path.
        keyBytes.removeSubrange(levels.removeLast().keyStart...)
        mode = levels.isEmpty ? .done : .afterValue
    }

    /// Numbers as RFC 8259 writes them: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    /// States: 1 after `-`, 2 after a leading `0`, 3 in the integer, 4 after `.`, 5 in the
    /// fraction, 6 after `e`, 7 after its sign, 8 in the exponent.
    private mutating func numberByte(_ b: UInt8) {
        let digit = b >= 0x30 && b <= 0x39
        let exponent = b == UInt8(ascii: "e") || b == UInt8(ascii: "E")
        switch numberState {
        case 1:
            if b == 0x30 { numberState = 2 } else if digit { numberState = 3 } else { fail() }
            return
        case 2, 3, 5:
            if digit, numberState != 2 { return }
            if b == UInt8(ascii: "."), numberState != 5 { numberState = 4; return }
            if exponent { numberState = 6; return }
        case 4:
            if digit { numberState = 5 } else { fail() }
            return
        case 6:
            if b == UInt8(ascii: "+") || b == UInt8(ascii: "-") { numberState = 7 } else if digit { numberState = 8 } else { fail() }
            return
        case 7:
            if digit { numberState = 8 } else { fail() }
            return
        default:
            if digit { return }
        }
        // The number ended before `b`.
        mode = .afterValue
        afterValue(b)
    }

    // MARK: - Strings

    private mutating func stringByte(_ b: UInt8) {
        if utf8Need > 0 {
            guard b >= utf8Low && b <= utf8High else { return fail() }
            utf8Need -= 1
            utf8Low = 0x80
            utf8High = 0xBF
            return decoded(b)
        }
        if b == 0x5C {
            mode = .escape
            return
        }
        if pendingHigh != 0 { flushHigh() }
        if b == 0x22 { return endString() }
        if b < 0x20 { return fail() }
        if b >= 0x80 {
            switch b {
            case 0xC2...0xDF: utf8Need = 1
            case 0xE0: utf8Need = 2; utf8Low = 0xA0
            case 0xE1...0xEC, 0xEE, 0xEF: utf8Need = 2
            case 0xED: utf8Need = 2; utf8High = 0x9F
            case 0xF0: utf8Need = 3; utf8Low = 0x90
            case 0xF1...0xF3: utf8Need = 3
            case 0xF4: utf8Need = 3; utf8High = 0x8F
            default: return fail()
            }
        }
        decoded(b)
    }

    private mutating func escapeByte(_ b: UInt8) {
        let byte: UInt8
        switch b {
        case UInt8(ascii: "u"):
            hexCount = 0
            hexValue = 0
            mode = .unicode
            return
        case 0x22, 0x5C, 0x2F: byte = b
        case UInt8(ascii: "b"): byte = 0x08
        case UInt8(ascii: "f"): byte = 0x0C
        case UInt8(ascii: "n"): byte = 0x0A
        case UInt8(ascii: "r"): byte = 0x0D
        case UInt8(ascii: "t"): byte = 0x09
        default: return fail()
        }
        if pendingHigh != 0 { flushHigh() }
        mode = .string
        decoded(byte)
    }

    /// A `\u` escape's hex digits; a surrogate pair is one character, a lone surrogate U+FFFD
    /// (as ``Cursor/unescape(_:_:_:into:)``).
    private mutating func unicodeByte(_ b: UInt8) {
        guard let h = Cursor.hexValue(b) else { return fail() }
        hexValue = hexValue << 4 | h
        hexCount += 1
        guard hexCount == 4 else { return }
        mode = .string
        let v = hexValue
        if pendingHigh != 0 {
            if v >= 0xDC00 && v < 0xE000 {
                let high = pendingHigh
                pendingHigh = 0
                return emit(0x10000 + ((high - 0xD800) << 10) + (v - 0xDC00))
            }
            flushHigh()
        }
        if v >= 0xD800 && v < 0xDC00 {
            pendingHigh = v
            return
        }
        emit(v)
    }

    /// A high surrogate not followed by a low one: U+FFFD.
    private mutating func flushHigh() {
        pendingHigh = 0
        emit(0xFFFD)
    }

    private mutating func emit(_ v: UInt32) {
        let scalar = Unicode.Scalar(v) ?? "\u{FFFD}"
        for b in UTF8.encode(scalar)! where mode != .failed { decoded(b) }
    }

    /// One byte of the string's decoded text.
    @inline(__always) private mutating func decoded(_ b: UInt8) {
        if inKey {
            keyByte(b)
        } else if scanning, matcher.add(b) {
            recordSecret()
            scanning = false
        }
    }

    private mutating func endString() {
        guard inKey else {
            mode = .afterValue
            return
        }
        let top = levels.count - 1
        levels[top].keyEnd = keyBytes.count
        levels[top].keyLength = keyLength
        levels[top].keyFlagged = Self.isSecretName(length: keyLength, nameLow, nameHigh)
        levels[top].keyHoldsToken = matcher.found
        levels[top].keyHash = keyHash
        levels[top].keyTokenHash = keyCut ? keyHasher.finish() : 0
        mode = .colon
    }

    // MARK: - Keys

    private mutating func keyByte(_ b: UInt8) {
        if keyLength < 16 {
            let lowered = UInt64(b >= 65 && b <= 90 ? b + 32 : b)
            if keyLength < 8 { nameLow |= lowered << UInt64(8 * keyLength) } else { nameHigh |= lowered << UInt64(8 * (keyLength - 8)) }
        }
        keyLength += 1
        keyHash = (keyHash ^ UInt64(b)) &* 0x100_0000_01B3
        if !keyCut {
            if keyBytes.count < Self.maxPathKeyBytes {
                keyBytes.append(b)
            } else {
                // The path is full: from here the key's text is hashed as it goes.
                keyCut = true
                keyHasher = RenderedKeyHasher()
                for k in keyBytes[levels[levels.count - 1].keyStart...] { keyHasher.add(k) }
                keyHasher.add(b)
            }
        } else {
            keyHasher.add(b)
        }
        if !matcher.found { _ = matcher.add(b) }
    }

    /// The parser's secret key names (``JSONLineParser/secretKeyNames``, at most 16 bytes each),
    /// packed as ``nameLow`` and ``nameHigh`` pack a key.
    private static let secretNames: [(length: Int, low: UInt64, high: UInt64)] = JSONLineParser.secretKeyNames.map { name in
        precondition(name.count <= 16, "a secret key name the scanner cannot pack")
        var low: UInt64 = 0, high: UInt64 = 0
        for (k, b) in name.enumerated() {
            if k < 8 { low |= UInt64(b) << UInt64(8 * k) } else { high |= UInt64(b) << UInt64(8 * (k - 8)) }
        }
        return (name.count, low, high)
    }
    /// A bit per length of a secret name: most keys have none of them.
    private static let secretLengths: UInt64 = secretNames.reduce(0) { $0 | (1 << UInt64($1.length)) }

    private static func isSecretName(length: Int, _ low: UInt64, _ high: UInt64) -> Bool {
        guard length < 64, (1 << UInt64(length)) & secretLengths != 0 else { return false }
        return secretNames.contains { $0.length == length && $0.low == low && $0.high == high }
    }

    // MARK: - Findings

    private mutating func recordSecret() {
        guard findings.count < Self.maxFindings else { return }
        var digest = JSONLineParser.PathDigest()
        for level in levels {
            if level.isArray {
                digest.addIndex(level.index)
            } else if level.keyLength > level.keyEnd - level.keyStart {
                digest.addCutKey(kept: keyBytes[level.keyStart..<level.keyEnd], length: level.keyLength, hash: level.keyHash,
                                 tokenHash: level.keyHoldsToken ? level.keyTokenHash : nil)
            } else {
                digest.addKey(keyBytes[level.keyStart..<level.keyEnd])
            }
        }
        guard seen.insert(digest).inserted else { return }
        var parts: [Part] = []
        parts.reserveCapacity(levels.count)
        for level in levels {
            if level.isArray {
                parts.append(.index(level.index))
            } else if level.keyLength > level.keyEnd - level.keyStart {
                parts.append(.cutKey(kept: Array(keyBytes[level.keyStart..<level.keyEnd]), length: level.keyLength,
                                     hash: level.keyHash, tokenHash: level.keyHoldsToken ? level.keyTokenHash : nil))
            } else {
                parts.append(.key(Array(keyBytes[level.keyStart..<level.keyEnd])))
            }
        }
        findings.append(Self.renderedPath(parts))
    }

    /// The step of a whole decoded `key` in a path whose outer keys kept `kept` bytes: the key
    /// itself when it fits in what is left of ``maxPathKeyBytes``, else cut there (`kept` is then
    /// the whole budget) — what ``recordSecret()`` makes of the same key read in chunks.
    static func part(forKey key: [UInt8], keeping kept: inout Int) -> Part {
        let room = maxPathKeyBytes - kept
        guard key.count > room else {
            kept += key.count
            return .key(key)
        }
        kept = maxPathKeyBytes
        let hash = Fingerprint.fnv1a64(bytes: key)
        var tokenHash: UInt32?
        if key.withUnsafeBufferPointer({ JSONLineParser.containsToken($0) }) {
            var hasher = RenderedKeyHasher()
            for b in key { hasher.add(b) }
            tokenHash = hasher.finish()
        }
        return .cutKey(kept: Array(key[..<room]), length: key.count, hash: hash, tokenHash: tokenHash)
    }

    /// A secret's key path as reports print it: keys as ``JSONLineParser/appendRenderedKey(_:to:)``
    /// writes them, indexes as `[N]` (`list[0].token`), a cut key as a JSON string of the bytes kept
    /// (whole characters) and `…`, or by the hash of its whole text when it holds a token.
    static func renderedPath(_ parts: [Part]) -> String {
        var text = ""
        for part in parts {
            switch part {
            case .key(let bytes): JSONLineParser.appendRenderedKey(bytes, to: &text)
            case .index(let n): text += "[\(n)]"
            case .cutKey(_, _, _, let tokenHash?): text += FileReader.redactedName(hash: tokenHash)
            case .cutKey(let kept, _, _, nil):
                text += "[" + Value.jsonString(String(decoding: wholeCharacters(kept), as: UTF8.self)) + "…]"
            }
        }
        return text
    }

    /// `bytes` (valid UTF-8 cut anywhere) without a character cut at its end.
    private static func wholeCharacters(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        var end = bytes.count
        var back = 0
        while end - back > 0, back < 4 {
            let b = bytes[end - back - 1]
            back += 1
            if b & 0xC0 == 0x80 { continue }  // a continuation byte
            let width = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2
            if width > back { end -= back }
            break
        }
        return bytes[..<end]
    }
}

// MARK: - Tokens

/// Finds a bearer token or a JWT (``JSONLineParser/containsToken(_:)``) in text fed a byte at a
/// time: `bearer` in any case, white space (ASCII or Unicode), 8 token characters; `eyJ`, a
/// base64url run, `.eyJ`, a run, `.`.
struct TokenMatcher {
    private(set) var found = false
    /// Bytes of `bearer` matched so far.
    private var bearer = 0
    /// 0: no bearer token under way; 1: `bearer` just read; 2: in white space after it; 3: in a
    /// white space character beyond ASCII (``spaceLead``, ``spaceSeen`` bytes of it read).
    private var space = 0
    private var spaceLead: UInt8 = 0
    private var spaceSecond: UInt8 = 0
    private var spaceSeen = 0
    /// Token characters after the white space (0: none under way).
    private var run = 0
    /// Bytes of `eyJ` matched so far, for a JWT that starts here.
    private var jwtStart = 0
    /// 0: no JWT under way; 1: `eyJ` read; 2: in its first part; 3: after its dot (``jwtDot``
    /// bytes of `eyJ` read); 4: `.eyJ` read; 5: in its second part.
    private var jwt = 0
    private var jwtDot = 0

    /// `bearer` and `eyJ`, a byte each from the lowest (literals: no lazy global on the byte loop).
    private static let bearerBytes: UInt64 = 0x7265_7261_6562
    private static let eyJBytes: UInt32 = 0x4A_7965

    @inline(__always) private static func eyJ(_ k: Int) -> UInt8 { UInt8(truncatingIfNeeded: eyJBytes >> UInt32(8 * k)) }

    /// Reads one byte; true once a token has been read.
    @inline(__always) mutating func add(_ b: UInt8) -> Bool {
        // Nothing under way, and the byte starts nothing: the common case.
        if bearer == 0 && space == 0 && run == 0 && jwtStart == 0 && jwt == 0 && b != 0x62 && b != 0x42 && b != 0x65 {
            return false
        }
        return addSlow(b)
    }

    private mutating func addSlow(_ b: UInt8) -> Bool {
        // Bearer: the run of token characters, then the white space before it, then the word.
        if run > 0 {
            if JSONLineParser.isTokenChar(b) {
                run += 1
                if run == 8 { found = true; return true }
            } else {
                run = 0
            }
        }
        switch space {
        case 1, 2:
            if b == 0x20 || (b >= 0x09 && b <= 0x0D) {
                space = 2
            } else if b == 0xC2 || b == 0xE1 || b == 0xE2 || b == 0xE3 {
                spaceLead = b
                spaceSeen = 1
                space = 3
            } else {
                if space == 2, JSONLineParser.isTokenChar(b) { run = 1 }
                space = 0
            }
        case 3:
            space = unicodeSpace(b)
        default: break
        }
        let lower = b >= 65 && b <= 90 ? b + 32 : b
        if lower == UInt8(truncatingIfNeeded: Self.bearerBytes >> UInt64(8 * bearer)) {
            bearer += 1
            if bearer == 6 {
                bearer = 0
                space = 1
            }
        } else {
            bearer = lower == 0x62 ? 1 : 0
        }
        // JWT.
        switch jwt {
        case 1, 2:
            if JSONLineParser.isB64URL(b) { jwt = 2 } else if b == 0x2E && jwt == 2 { jwt = 3; jwtDot = 0 } else { jwt = 0 }
        case 3:
            if b == Self.eyJ(jwtDot) {
                jwtDot += 1
                if jwtDot == 3 { jwt = 4 }
            } else {
                jwt = 0
            }
        case 4, 5:
            if JSONLineParser.isB64URL(b) {
                jwt = 5
            } else if b == 0x2E && jwt == 5 {
                found = true
                return true
            } else {
                jwt = 0
            }
        default: break
        }
        if b == Self.eyJ(jwtStart) {
            jwtStart += 1
            if jwtStart == 3 {
                jwtStart = 0
                // A JWT under way already covers one starting inside it.
                if jwt == 0 { jwt = 1 }
            }
        } else {
            jwtStart = b == 0x65 ? 1 : 0
        }
        return false
    }

    /// The next byte of a white space character beyond ASCII (``JSONLineParser/spaceWidth(_:_:_:)``):
    /// the state that follows.
    private mutating func unicodeSpace(_ b: UInt8) -> Int {
        spaceSeen += 1
        switch (spaceLead, spaceSeen) {
        case (0xC2, 2): return b == 0x85 || b == 0xA0 ? 2 : 0
        case (0xE1, 2): return b == 0x9A ? 3 : 0
        case (0xE1, 3): return b == 0x80 ? 2 : 0
        case (0xE2, 2):
            spaceSecond = b
            return b == 0x80 || b == 0x81 ? 3 : 0
        case (0xE2, 3):
            if spaceSecond == 0x80 { return (b >= 0x80 && b <= 0x8A) || b == 0xA8 || b == 0xA9 || b == 0xAF ? 2 : 0 }
            return b == 0x9F ? 2 : 0
        case (0xE3, 2): return b == 0x80 ? 3 : 0
        case (0xE3, 3): return b == 0x80 ? 2 : 0
        default: return 0
        }
    }

}

// MARK: - Key hashes

/// FNV-1a over a key's text as ``Value/jsonString(_:)`` writes it, fed the key's bytes (valid
/// UTF-8) one at a time: the hash ``FileReader/redactedName(_:)`` gives the key, without the key.
struct RenderedKeyHasher {
    private var hash: UInt32 = 2_166_136_261
    /// A character beyond ASCII under way: its bytes so far, and how many it has.
    private var pending: [UInt8] = []
    private var width = 0

    init() { mix(0x22) }

    private mutating func mix(_ b: UInt8) { hash = (hash ^ UInt32(b)) &* 16_777_619 }
    private static func hexDigit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x57 + nibble }
    private mutating func mix(_ s: StaticString) {
        for k in 0..<s.utf8CodeUnitCount { mix(s.utf8Start[k]) }
    }

    mutating func add(_ b: UInt8) {
        if width > 0 {
            pending.append(b)
            guard pending.count == width else { return }
            // U+2028 and U+2029 are escaped; any other character is written as it is.
            if pending == [0xE2, 0x80, 0xA8] {
                mix("\\u2028")
            } else if pending == [0xE2, 0x80, 0xA9] {
                mix("\\u2029")
            } else {
                for p in pending { mix(p) }
            }
            pending.removeAll(keepingCapacity: true)
            width = 0
            return
        }
        switch b {
        case 0x22: mix("\\\"")
        case 0x5C: mix("\\\\")
        case 0x0A: mix("\\n")
        case 0x0D: mix("\\r")
        case 0x09: mix("\\t")
        case 0..<0x20, 0x7F:
            mix("\\u00")
            // Lower-case hex digits, as `Value.jsonString` writes them.
            mix(Self.hexDigit(b >> 4))
            mix(Self.hexDigit(b & 0xF))
        case 0x80...:
            width = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2
            pending = [b]
        default: mix(b)
        }
    }

    /// The hash, the closing quote included.
    mutating func finish() -> UInt32 {
        mix(0x22)
        return hash
    }
}

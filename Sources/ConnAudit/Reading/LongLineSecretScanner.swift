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
        case start, keyOrClose, key, colon, valueOrClose, value, afterValue, string, escape,
            unicode, number,
            literal, done, failed
    }

    /// An open object or array.
    private struct Level {
        var isArray: Bool
        /// Under a key with a secret name: tokens in its strings are no findings of their own.
        var flagged: Bool
        var index = 0
        /// The current key (objects): its kept bytes in ``keyBytes``, and what was learnt of it
        /// whole.
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
            levels.append(
                Level(
                    isArray: b == UInt8(ascii: "["), flagged: valueFlagged, keyStart: end,
                    keyEnd: end))
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
            if b == UInt8(ascii: "+") || b == UInt8(ascii: "-") {
                numberState = 7
            } else if digit {
                numberState = 8
            } else {
                fail()
            }
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
            if keyLength < 8 {
                nameLow |= lowered << UInt64(8 * keyLength)
            } else {
                nameHigh |= lowered << UInt64(8 * (keyLength - 8))
            }
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
    private static let secretNames: [(length: Int, low: UInt64, high: UInt64)] = JSONLineParser
        .secretKeyNames.map { name in
            precondition(name.count <= 16, "a secret key name the scanner cannot pack")
            var low: UInt64 = 0, high: UInt64 = 0
            for (k, b) in name.enumerated() {
                if k < 8 {
                    low |= UInt64(b) << UInt64(8 * k)
                } else {
                    high |= UInt64(b) << UInt64(8 * (k - 8))
                }
            }
            return (name.count, low, high)
        }
    /// A bit per length of a secret name: most keys have none of them.
    private static let secretLengths: UInt64 = secretNames.reduce(0) {
        $0 | (1 << UInt64($1.length))
    }

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
                digest.addCutKey(
                    kept: keyBytes[level.keyStart..<level.keyEnd], length: level.keyLength,
                    hash: level.keyHash,
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
                parts.append(
                    .cutKey(
                        kept: Array(keyBytes[level.keyStart..<level.keyEnd]),
                        length: level.keyLength,
                        hash: level.keyHash,
                        tokenHash: level.keyHoldsToken ? level.keyTokenHash : nil))
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
        let hash = FNV1a.hash64(bytes: key)
        var tokenHash: UInt32?
        if key.withUnsafeBufferPointer({ JSONLineParser.containsToken($0) }) {
            var hasher = RenderedKeyHasher()
            for b in key { hasher.add(b) }
            tokenHash = hasher.finish()
        }
        return .cutKey(
            kept: Array(key[..<room]), length: key.count, hash: hash, tokenHash: tokenHash)
    }

    /// A secret's key path as reports print it: keys as ``JSONLineParser/appendRenderedKey(_:to:)``
    /// writes them, indexes as `[N]` (`list[0].token`), a cut key as a JSON string of the bytes
    /// kept (whole characters) and `…`, or by the hash of its whole text when it holds a token.
    static func renderedPath(_ parts: [Part]) -> String {
        var text = ""
        for part in parts {
            switch part {
            case .key(let bytes): JSONLineParser.appendRenderedKey(bytes, to: &text)
            case .index(let n): text += "[\(n)]"
            case .cutKey(_, _, _, let tokenHash?): text += FileReader.redactedName(hash: tokenHash)
            case .cutKey(let kept, _, _, nil):
                text +=
                    "[" + Value.jsonString(String(decoding: wholeCharacters(kept), as: UTF8.self))
                    + "…]"
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

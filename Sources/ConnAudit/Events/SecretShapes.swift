/// What every output hides of a log's text: the one detector behind context lines, message holes,
/// timelines, source names and quoted rules text.
///
/// It is wider than `log.no-secrets`, whose key names and token patterns default-pack.md fixes
/// (the reader flags those, and rules never see such a value). Showing is not judging: a value
/// that only this detector finds is still read by rules as it was logged, and is hidden wherever
/// it is printed. It covers what secret scanners look for in logs (gitleaks' default rules):
/// - key names: a secret word in any spelling (`access_token`, `accessToken`, `X-Api-Key`,
///   `Set-Cookie`, `client_secret`, `passwd`), exact or as the name's end (`sessionToken`);
/// - the value after such a name in text: `token=…` in a query, `Authorization: …` in a header
///   line, `"password":"…"` in JSON text;
/// - credentials after an HTTP auth scheme (`Basic …`, `Bearer …`, `Bearer%20…`, `Digest …`);
/// - a URL's password (`https://user:…@host`);
/// - JWTs, private key blocks, and the token shapes of common services (AWS, GitHub, GitLab,
///   Slack, Stripe, Google, SendGrid, npm, PyPI, OpenAI and Anthropic, Hugging Face, Shopify,
///   DigitalOcean).
///
/// Everything `log.no-secrets` flags, this finds too (a test compares them).
enum SecretShapes {
    /// What stands for a hidden value or part of a text.
    static let marker = "[redacted]"

    // MARK: - Key names

    /// Secret words a key may be, once lower-cased with `_`, `-`, `.` and spaces taken out.
    private static let exactKeys: [[UInt8]] = [
        "token", "accesstoken", "refreshtoken", "idtoken", "authtoken", "sessiontoken", "csrftoken",
        "xsrftoken", "apitoken", "bearertoken", "oauthtoken", "authorization", "proxyauthorization",
        "auth", "xauth", "password", "passwd", "passphrase", "secret", "clientsecret", "apisecret",
        "secretkey", "privatekey", "apikey", "xapikey", "accesskey", "secretaccesskey",
        "accountkey",
        "cookie", "cookies", "setcookie", "credential", "credentials", "body", "payload",
        "signature", "sig", "sharedaccesssignature"
    ].map { Array($0.utf8) }

    /// Secret words a key may end with (`sessionToken`, `x-auth-token`, `aws_secret_access_key`).
    private static let keySuffixes: [[UInt8]] = [
        "token", "secret", "password", "passwd", "passphrase", "apikey", "authorization", "cookie",
        "credentials", "privatekey", "secretkey", "accesskey"
    ].map { Array($0.utf8) }

    /// Keys whose value in text runs to the line's end (a header's value holds spaces and `;`).
    private static let headerKeys: [[UInt8]] = [
        "authorization", "proxyauthorization", "cookie", "setcookie"
    ].map { Array($0.utf8) }

    /// The last byte of every secret word: most keys end otherwise and are answered at once.
    private static let lastBytes: UInt32 = (exactKeys + keySuffixes).reduce(0) {
        $0 | 1 << UInt32($1.last! - 0x61)
    }

    /// Whether a key names a secret: the value under it is hidden wherever it is shown.
    static func isSecretKey(_ key: String) -> Bool {
        var key = key
        return key.withUTF8 { isSecretKey($0[...]) }
    }

    static func isSecretKey(_ key: ArraySlice<UInt8>) -> Bool {
        key.withUnsafeBufferPointer { isSecretKey($0[...]) }
    }

    static func isSecretKey(_ key: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        normalized(key) { isSecretWord($0) } ?? false
    }

    private static func isSecretWord(_ word: UnsafeBufferPointer<UInt8>) -> Bool {
        let last = word[word.count - 1] &- 0x61
        guard last < 26, lastBytes & (1 << UInt32(last)) != 0 else { return false }
        for k in exactKeys where k.count == word.count && k.elementsEqual(word) { return true }
        for suffix in keySuffixes
        where word.count >= suffix.count && word.suffix(suffix.count).elementsEqual(suffix) {
            return true
        }
        return false
    }

    private static func isHeaderWord(_ word: UnsafeBufferPointer<UInt8>) -> Bool {
        headerKeys.contains { $0.count == word.count && $0.elementsEqual(word) }
    }

    /// `body` of the key lower-cased without `_`, `-`, `.` and spaces (in a buffer on the stack);
    /// nil when the key holds any other byte that is not an ASCII letter or digit, is empty so,
    /// or is too long to be a name.
    private static func normalized<R>(
        _ key: Slice<UnsafeBufferPointer<UInt8>>, _ body: (UnsafeBufferPointer<UInt8>) -> R
    ) -> R? {
        guard !key.isEmpty, key.count <= 64 else { return nil }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer -> R? in
            var count = 0
            for b in key {
                if b >= 0x41 && b <= 0x5A {
                    buffer[count] = b + 32
                } else if (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) {
                    buffer[count] = b
                } else if b == 0x5F || b == 0x2D || b == 0x2E || b == 0x20 {
                    continue
                } else {
                    return nil
                }
                count += 1
            }
            return count == 0 ? nil : body(UnsafeBufferPointer(rebasing: buffer[..<count]))
        }
    }

    // MARK: - Text

    /// `text` with each secret in it replaced by ``marker``; the same string when it holds none.
    static func text(_ text: String) -> String {
        var text = text
        return text.withUTF8 { bytes in
            let found = ranges(bytes)
            guard !found.isEmpty else { return nil }
            return replaced(bytes, found)
        } ?? text
    }

    /// Whether `text` holds a secret.
    static func holdsSecret(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { !ranges($0).isEmpty }
    }

    /// The bytes with each range replaced by ``marker`` (ranges start and end at character
    /// boundaries: after or at an ASCII byte, or at the text's end, so the cuts keep UTF-8 whole).
    static func replaced(_ bytes: UnsafeBufferPointer<UInt8>, _ found: [Range<Int>]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var at = 0
        for r in found {
            out.append(contentsOf: bytes[at..<r.lowerBound])
            out.append(contentsOf: marker.utf8)
            at = r.upperBound
        }
        out.append(contentsOf: bytes[at...])
        return String(decoding: out, as: UTF8.self)
    }

    /// Where the secrets of a text lie, in order, overlapping ones joined.
    ///
    /// Every shape is looked for at every place it may start, also inside what another shape
    /// hid (`token=x/Basic` hides `x/Basic`; the credentials after `Basic ` are hidden by the
    /// scheme). A shape is not looked for again inside its own last match: a match that starts
    /// there ends where that one does (each runs to the end of the same run of bytes), so that
    /// text is read once per shape — but for an auth scheme's name that ends the last one's
    /// credentials, which is tried.
    ///
    /// - Complexity: linear in the text's length.
    static func ranges(_ s: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        var found: [Range<Int>] = []
        let n = s.count
        // Per shape, the end of its last match; for a JWT also of its last failed look-ahead
        // (every `eyJ` inside that run fails alike).
        var jwtUntil = 0, keyUntil = 0, bearerUntil = 0, schemeUntil = 0, prefixUntil = 0
        var headerUntil = 0, urlUntil = 0, blockUntil = 0
        func add(_ r: Range<Int>, _ until: inout Int) {
            found.append(r)
            until = r.upperBound
        }
        for i in 0..<n {
            let b = s[i]
            // `bearer` and `eyJ` may start anywhere, as log.no-secrets has them.
            if b == 0x65, i >= jwtUntil, let end = jwt(s, i, failsBefore: &jwtUntil) {
                add(i..<end, &jwtUntil)
            }
            // A scheme's name can end its last match's credentials (`Bearer abcdefgh.Bearer xyz…`):
            // its own credentials then come after them.
            if (b | 0x20) == 0x62, i >= bearerUntil || i == bearerUntil - 6,
                let end = authScheme(s, i, wordEnd: i)
            {
                add(i..<end, &bearerUntil)
            }
            if b == 0x2D, i >= blockUntil, let end = privateKeyBlock(s, i) {
                add(i..<end, &blockUntil)
            }
            if b == 0x3A, i >= urlUntil, let r = urlPassword(s, i) { add(r, &urlUntil) }
            guard isWordByte(b), i == 0 || !isWordByte(s[i - 1]) else { continue }
            if i >= prefixUntil, let end = prefixedToken(s, i) { add(i..<end, &prefixUntil) }
            let wordEnd = i + run(s, i, isWordByte)
            if i >= schemeUntil || wordEnd == schemeUntil,
                let end = authScheme(s, i, wordEnd: wordEnd)
            {
                add(i..<end, &schemeUntil)
            }
            if i >= keyUntil || i >= headerUntil,
                let (value, header) = keyValue(s, key: i..<wordEnd, headersOnly: i < keyUntil)
            {
                add(value, &keyUntil)
                if header { headerUntil = value.upperBound }
            }
        }
        return joined(found)
    }

    private static func joined(_ ranges: [Range<Int>]) -> [Range<Int>] {
        guard ranges.count > 1 else { return ranges }
        var out: [Range<Int>] = []
        for r in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = out.last, r.lowerBound <= last.upperBound {
                out[out.count - 1] = last.lowerBound..<max(last.upperBound, r.upperBound)
            } else {
                out.append(r)
            }
        }
        return out
    }

    // MARK: - Shapes

    /// `eyJ…` `.` `…` (`.` `…`): a JWT (or JWE) from its header to the end of its last part.
    /// log.no-secrets' pattern (`eyJ…\.eyJ…\.`) is one of these.
    private static func jwt(_ s: UnsafeBufferPointer<UInt8>, _ start: Int, failsBefore: inout Int)
        -> Int?
    {
        let n = s.count
        guard start + 2 < n, s[start + 1] == 0x79, s[start + 2] == 0x4A else { return nil }
        var j = start + 3
        let first = run(s, j, isB64URL)
        j += first
        failsBefore = j
        guard first > 0, j < n, s[j] == 0x2E else { return nil }
        let second = run(s, j + 1, isB64URL)
        guard second >= 4 else { return nil }
        j += 1 + second
        // The signature (and a JWE's further parts).
        while j < n, s[j] == 0x2E {
            let more = run(s, j + 1, isB64URL)
            j += 1 + more
        }
        return j
    }

    /// `-----BEGIN … PRIVATE KEY-----` to its `-----END …-----`, or to the text's end.
    private static func privateKeyBlock(_ s: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
        guard matches(s, start, "-----BEGIN ", caseless: false) else { return nil }
        let n = s.count
        var j = start + 11
        let headerEnd = min(n, j + 48)
        var isPrivate = false
        while j < headerEnd, s[j] != 0x2D || !matches(s, j, "-----", caseless: false) {
            if matches(s, j, "PRIVATE KEY", caseless: false) { isPrivate = true }
            j += 1
        }
        guard isPrivate else { return nil }
        j += 5
        while j < n {
            if s[j] == 0x2D, matches(s, j, "-----END ", caseless: false) {
                j += 9
                while j < n, s[j] != 0x2D { j += 1 }
                return j + run(s, j) { $0 == 0x2D }
            }
            j += 1
        }
        return n
    }

    /// `scheme://user:password@`: the password, when `colon` is the one between them.
    private static func urlPassword(_ s: UnsafeBufferPointer<UInt8>, _ colon: Int) -> Range<Int>? {
        // The colon after the user: the text before it back to `//` is a user name.
        let n = s.count
        var k = colon
        while k > 0, isUserInfoByte(s[k - 1]), s[k - 1] != 0x3A { k -= 1 }
        guard k >= 3, s[k - 1] == 0x2F, s[k - 2] == 0x2F, s[k - 3] == 0x3A else { return nil }
        var j = colon + 1
        while j < n, isUserInfoByte(s[j]) { j += 1 }
        guard j < n, s[j] == 0x40, j > colon + 1 else { return nil }
        return (colon + 1)..<j
    }

    @inline(__always) private static func isUserInfoByte(_ b: UInt8) -> Bool {
        b > 0x20 && b < 0x7F && b != 0x2F && b != 0x40 && b != 0x3F && b != 0x23 && b != 0x22
            && b != 0x27
            && b != 0x3C && b != 0x3E && b != 0x5C
    }

    private struct Prefix {
        var text: [UInt8]
        var body: (UInt8) -> Bool
        var min: Int
        var max = Int.max
        /// Whether the part after the prefix must hold a digit (`sk-` also starts words).
        var needsDigit = false
    }

    /// Token shapes known by their prefix, with the bytes and length of what follows it.
    private static let prefixes: [Prefix] = [
        ("AKIA", isUpperAlnum, 16, 16), ("ASIA", isUpperAlnum, 16, 16),
        ("ABIA", isUpperAlnum, 16, 16),
        ("ACCA", isUpperAlnum, 16, 16),
        ("ghp_", isAlnum, 30, .max), ("gho_", isAlnum, 30, .max), ("ghu_", isAlnum, 30, .max),
        ("ghs_", isAlnum, 30, .max), ("ghr_", isAlnum, 30, .max),
        ("github_pat_", isWordByte, 22, .max),
        ("glpat-", isB64URL, 20, .max),
        ("xoxb-", isWordByte, 10, .max), ("xoxp-", isWordByte, 10, .max),
        ("xoxa-", isWordByte, 10, .max),
        ("xoxr-", isWordByte, 10, .max), ("xoxs-", isWordByte, 10, .max),
        ("xoxe-", isWordByte, 10, .max),
        ("sk_live_", isAlnum, 10, .max), ("sk_test_", isAlnum, 10, .max),
        ("rk_live_", isAlnum, 10, .max),
        ("rk_test_", isAlnum, 10, .max),
        ("AIza", isB64URL, 30, .max), ("ya29.", isB64URL, 20, .max), ("SG.", isSendGrid, 60, .max),
        ("npm_", isAlnum, 30, .max), ("pypi-", isB64URL, 50, .max), ("sk-", isB64URL, 20, .max),
        ("hf_", isAlnum, 30, .max),
        ("shpat_", isHex, 32, 32), ("shpca_", isHex, 32, 32), ("shppa_", isHex, 32, 32),
        ("shpss_", isHex, 32, 32),
        ("dop_v1_", isHex, 64, 64), ("doo_v1_", isHex, 64, 64), ("dor_v1_", isHex, 64, 64),
        ("hooks.slack.com/services/", isSlackPath, 20, .max)
    ].map {
        Prefix(text: Array($0.0.utf8), body: $0.1, min: $0.2, max: $0.3, needsDigit: $0.0 == "sk-")
    }

    /// Prefixes by first byte, so most words are looked at once.
    private static let prefixesByFirst: [[Int]] = {
        var table = [[Int]](repeating: [], count: 256)
        for (k, p) in prefixes.enumerated() { table[Int(p.text[0])].append(k) }
        return table
    }()

    /// The end of a known token shape that starts at `start`.
    private static func prefixedToken(_ s: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
        for k in prefixesByFirst[Int(s[start])] {
            let p = prefixes[k]
            guard matches(s, start, p.text) else { continue }
            let from = start + p.text.count
            let length = run(s, from, p.body)
            guard length >= p.min, length <= p.max else { continue }
            if p.needsDigit,
                !s[from..<(from + length)].contains(where: { $0 >= 0x30 && $0 <= 0x39 })
            {
                continue
            }
            return from + length
        }
        return nil
    }

    /// After an HTTP auth scheme's name (the word at `start`): a separator (white space, `%20`,
    /// `+`) and the credentials — to the line's end for `Digest`, else a run of token bytes (8 or
    /// more for `Bearer`, as log.no-secrets has it; 6 for the others). Where the credentials end.
    /// `bearer` is looked for anywhere (log.no-secrets has no word boundary); the others are the
    /// word `start..<wordEnd`.
    private static func authScheme(_ s: UnsafeBufferPointer<UInt8>, _ start: Int, wordEnd: Int)
        -> Int?
    {
        let n = s.count
        var schemeEnd: Int
        var minimum = 6
        var toLineEnd = false
        if matches(s, start, "bearer", caseless: true) {
            schemeEnd = start + 6
            minimum = 8
        } else {
            let word = wordEnd - start
            guard word >= 4, word <= 16 else { return nil }
            if word == 5, matches(s, start, "basic", caseless: true) {
                schemeEnd = wordEnd
            } else if word == 4, matches(s, start, "ntlm", caseless: true) {
                schemeEnd = wordEnd
            } else if word == 9, matches(s, start, "negotiate", caseless: true) {
                schemeEnd = wordEnd
            } else if word == 6, matches(s, start, "digest", caseless: true) {
                schemeEnd = wordEnd; toLineEnd = true
            } else if word == 16, matches(s, start, "aws4-hmac-sha256", caseless: true) {
                schemeEnd = wordEnd; toLineEnd = true
            } else {
                return nil
            }
        }
        // White space first, as log.no-secrets reads it (`+` may then start the credentials);
        // else `+` and `%20` too, as a URL or a form encodes the space.
        var j = schemeEnd
        while j < n, case let width = spaceWidth(s, j), width > 0 { j += width }
        if j > schemeEnd, !toLineEnd, run(s, j, isCredentialByte) >= minimum {
            return j + run(s, j, isCredentialByte)
        }
        j = schemeEnd
        while j < n {
            let width = spaceWidth(s, j)
            if width > 0 { j += width; continue }
            if s[j] == 0x2B { j += 1; continue }
            if s[j] == 0x25, j + 2 < n, s[j + 1] == 0x32, s[j + 2] == 0x30 { j += 3; continue }
            break
        }
        guard j > schemeEnd, j < n else { return nil }
        if toLineEnd {
            let end = lineEnd(s, j)
            return end > j ? end : nil
        }
        let length = run(s, j, isCredentialByte)
        return length >= minimum ? j + length : nil
    }

    /// After a secret key name (`key`; with `headersOnly`, a header's name only): a closing quote,
    /// `=` or `:` (or, after a quoted name, the `,` of a pair), an opening quote, and the value,
    /// which is hidden — to its closing quote; unquoted, to the line's end after a header's name,
    /// else to the next delimiter (white space, `&`, `,`, `;`, a quote or bracket).
    private static func keyValue(
        _ s: UnsafeBufferPointer<UInt8>, key: Range<Int>, headersOnly: Bool
    ) -> (value: Range<Int>, header: Bool)? {
        guard let (secret, header) = normalized(s[key], { (isSecretWord($0), isHeaderWord($0)) }),
            secret
        else { return nil }
        guard header || !headersOnly else { return nil }
        let n = s.count
        var j = key.upperBound
        // A closing quote of a quoted key, escaped or not: `"token":`, `\"token\":`, `'token':`.
        if j < n, s[j] == 0x5C { j += 1 }
        var quoted = false
        if j < n, s[j] == 0x22 || s[j] == 0x27 { j += 1; quoted = true }
        while j < n, s[j] == 0x20 || s[j] == 0x09 { j += 1 }
        // A quoted name may also be the first of a pair in JSON text: `["Cookie","a=1"]`.
        guard j < n, s[j] == 0x3D || s[j] == 0x3A || (quoted && s[j] == 0x2C) else { return nil }
        let pair = s[j] == 0x2C
        j += 1
        // `key==x` and `a::b` are not assignments.
        guard j >= n || (s[j] != 0x3D && s[j] != 0x3A) else { return nil }
        while j < n, s[j] == 0x20 || s[j] == 0x09 { j += 1 }
        guard j < n else { return nil }
        var escapedQuote = false
        if s[j] == 0x5C, j + 1 < n, s[j + 1] == 0x22 { escapedQuote = true; j += 1 }
        guard !pair || s[j] == 0x22 || escapedQuote else { return nil }
        if s[j] == 0x22 || s[j] == 0x27 {
            let quote = s[j]
            let from = j + 1
            var k = from
            while k < n {
                if escapedQuote {
                    if s[k] == 0x5C, k + 1 < n, s[k + 1] == quote { break }
                } else if s[k] == quote {
                    break
                } else if s[k] == 0x5C {
                    k += 1
                }
                k += 1
            }
            k = min(k, n)
            return k > from ? (from..<k, header) : nil
        }
        let end = header ? lineEnd(s, j) : delimited(s, j)
        guard end > j else { return nil }
        // Already hidden (`token=[redacted]`): nothing more to hide.
        if matches(s, j, marker) { return nil }
        return (j..<end, header)
    }

    private static func delimited(_ s: UnsafeBufferPointer<UInt8>, _ from: Int) -> Int {
        var j = from
        while j < s.count {
            switch s[j] {
            case 0x00...0x20, 0x22, 0x26, 0x27, 0x2C, 0x3B, 0x3C, 0x3E, 0x29, 0x5D, 0x7D, 0x7C,
                0x5C:
                return j
            default: j += 1
            }
        }
        return j
    }

    /// The end of the line `from` is in (a header's value may hold quotes: `Digest realm="…"`).
    private static func lineEnd(_ s: UnsafeBufferPointer<UInt8>, _ from: Int) -> Int {
        var j = from
        while j < s.count, s[j] != 0x0A, s[j] != 0x0D { j += 1 }
        return j
    }

    // MARK: - Bytes

    @inline(__always) private static func run(
        _ s: UnsafeBufferPointer<UInt8>, _ from: Int, _ body: (UInt8) -> Bool
    ) -> Int {
        var j = from
        while j < s.count, body(s[j]) { j += 1 }
        return j - from
    }

    private static func matches(_ s: UnsafeBufferPointer<UInt8>, _ at: Int, _ text: [UInt8]) -> Bool
    {
        guard at + text.count <= s.count else { return false }
        for k in text.indices where s[at + k] != text[k] { return false }
        return true
    }

    private static func matches(
        _ s: UnsafeBufferPointer<UInt8>, _ at: Int, _ text: StaticString, caseless: Bool
    ) -> Bool {
        let count = text.utf8CodeUnitCount
        guard at + count <= s.count else { return false }
        let p = text.utf8Start
        for k in 0..<count {
            let b = s[at + k]
            if caseless ? (b | 0x20) != p[k] : b != p[k] { return false }
        }
        return true
    }

    private static func matches(_ s: UnsafeBufferPointer<UInt8>, _ at: Int, _ text: String) -> Bool
    {
        matches(s, at, Array(text.utf8))
    }

    @inline(__always) static func isAlnum(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
    }
    @inline(__always) private static func isUpperAlnum(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A)
    }
    @inline(__always) private static func isHex(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x66) || (b >= 0x41 && b <= 0x46)
    }
    @inline(__always) private static func isWordByte(_ b: UInt8) -> Bool {
        isAlnum(b) || b == 0x5F || b == 0x2D
    }
    @inline(__always) private static func isB64URL(_ b: UInt8) -> Bool {
        isAlnum(b) || b == 0x5F || b == 0x2D
    }
    @inline(__always) private static func isSendGrid(_ b: UInt8) -> Bool {
        isB64URL(b) || b == 0x2E
    }
    @inline(__always) private static func isSlackPath(_ b: UInt8) -> Bool {
        isAlnum(b) || b == 0x2F || b == 0x5F
    }
    /// log.no-secrets' token bytes (`A-Za-z0-9._~+/=-`), and `%` for URL-encoded ones.
    @inline(__always) private static func isCredentialByte(_ b: UInt8) -> Bool {
        isAlnum(b) || b == 0x2E || b == 0x5F || b == 0x7E || b == 0x2B || b == 0x2F || b == 0x3D
            || b == 0x2D || b == 0x25
    }

    /// The bytes of the white space character at `j` (0: none), ASCII and Unicode's, as
    /// log.no-secrets reads the space after `bearer`.
    @inline(__always) private static func spaceWidth(_ s: UnsafeBufferPointer<UInt8>, _ j: Int)
        -> Int
    {
        let b = s[j]
        if b < 0x80 { return b == 0x20 || (b >= 0x09 && b <= 0x0D) ? 1 : 0 }
        let n = s.count
        if b == 0xC2, j + 1 < n { return s[j + 1] == 0x85 || s[j + 1] == 0xA0 ? 2 : 0 }
        guard j + 2 < n else { return 0 }
        let b1 = s[j + 1], b2 = s[j + 2]
        switch b {
        case 0xE1: return b1 == 0x9A && b2 == 0x80 ? 3 : 0
        case 0xE2:
            if b1 == 0x80 {
                return (b2 >= 0x80 && b2 <= 0x8A) || b2 == 0xA8 || b2 == 0xA9 || b2 == 0xAF ? 3 : 0
            }
            return b1 == 0x81 && b2 == 0x9F ? 3 : 0
        case 0xE3: return b1 == 0x80 && b2 == 0x80 ? 3 : 0
        default: return 0
        }
    }
}

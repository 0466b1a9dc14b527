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

    @inline(__always) private static func eyJ(_ k: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: eyJBytes >> UInt32(8 * k))
    }

    /// Reads one byte; true once a token has been read.
    @inline(__always) mutating func add(_ b: UInt8) -> Bool {
        // Nothing under way, and the byte starts nothing: the common case.
        if bearer == 0 && space == 0 && run == 0 && jwtStart == 0 && jwt == 0 && b != 0x62
            && b != 0x42 && b != 0x65
        {
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
            if JSONLineParser.isB64URL(b) {
                jwt = 2
            } else if b == 0x2E && jwt == 2 {
                jwt = 3; jwtDot = 0
            } else {
                jwt = 0
            }
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

    /// The next byte of a white space character beyond ASCII
    /// (``JSONLineParser/spaceWidth(_:_:_:)``): the state that follows.
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
            if spaceSecond == 0x80 {
                return (b >= 0x80 && b <= 0x8A) || b == 0xA8 || b == 0xA9 || b == 0xAF ? 2 : 0
            }
            return b == 0x9F ? 2 : 0
        case (0xE3, 2): return b == 0x80 ? 3 : 0
        case (0xE3, 3): return b == 0x80 ? 2 : 0
        default: return 0
        }
    }

}

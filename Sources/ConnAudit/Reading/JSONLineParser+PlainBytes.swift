/// The fast path's byte-level reads (``JSONLineParser/parsePlain(_:into:)``): integers, short
/// keys and names as words, a plain string's end, the token pre-check. Each reads the line's
/// bytes a word at a time where it can, and never past the line's end.
extension JSONLineParser {
    /// A JSON integer of at most 18 digits without sign, fraction or exponent at index `i`, which
    /// is then past it; nil (`i` unchanged) for any other text, which
    /// ``parseNumber(_:decode:)`` reads.
    ///
    /// Its first eight bytes are read as one word: which are digits, and their value, with a few
    /// word operations; further digits byte by byte.
    @inline(__always)
    static func plainInteger(_ p: UnsafePointer<UInt8>, _ i: inout Int, _ n: Int) -> Int64? {
        guard i &+ 8 <= n else { return plainIntegerNearEnd(p, &i, n) }
        let (x, marks) = digitWord(p, i)
        let k = marks.trailingZeroBitCount >> 3
        // No digit, or a leading zero followed by a digit: not a plain integer.
        guard k > 0, x & 0xFF != 0 || k == 1 else { return nil }
        // The k digits moved to the word's top, zeros (leading zeros) below them.
        var value = Int64(eightDigits(x << UInt64(64 &- 8 &* k)))
        var j = i &+ k
        if k == 8 { moreDigits(p, &j, &value, upTo: min(n, i &+ 18)) }
        guard endsPlainInteger(p, j, n) else { return nil }
        i = j
        return value
    }

    /// The eight bytes at `i`, digits turned into 0…9, and a mark (the high bit) on each byte that
    /// is not a digit. A carry out of `+ 0x76` reaches only bytes after a marked one, so the
    /// lowest mark is exact.
    @inline(__always)
    static func digitWord(_ p: UnsafePointer<UInt8>, _ i: Int) -> (digits: UInt64, marks: UInt64) {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let x =
            UInt64(littleEndian: UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self))
            ^ (ones &* 0x30)
        return (x, ((x &+ (ones &* 0x76)) | x) & (ones &* 0x80))
    }

    /// The value of eight decimal digits, one a byte (0…9), the first in the lowest byte: pairs,
    /// then fours, then all eight combined with one multiplication each.
    @inline(__always)
    static func eightDigits(_ x: UInt64) -> UInt64 {
        var v = ((x & 0x0F0F_0F0F_0F0F_0F0F) &* 2561) >> 8
        v = ((v & 0x00FF_00FF_00FF_00FF) &* 6_553_601) >> 16
        return ((v & 0x0000_FFFF_0000_FFFF) &* 42_949_672_960_001) >> 32
    }

    /// Adds the digits from `j` on, byte by byte, to `value`, up to `limit`: a plain integer has
    /// at most 18 digits, so it never overflows.
    @inline(__always)
    static func moreDigits(
        _ p: UnsafePointer<UInt8>, _ j: inout Int, _ value: inout Int64, upTo limit: Int
    ) {
        while j < limit {
            let d = p[j] &- 0x30
            guard d <= 9 else { break }
            value = value &* 10 &+ Int64(d)
            j &+= 1
        }
    }

    /// Whether the byte at `j` (or the line's end) ends a plain integer: a 19th digit, a fraction
    /// or an exponent leave the number to ``parseNumber(_:decode:)``.
    @inline(__always)
    static func endsPlainInteger(_ p: UnsafePointer<UInt8>, _ j: Int, _ n: Int) -> Bool {
        guard j < n else { return true }
        let b = p[j]
        return
            !(b &- 0x30 <= 9 || b == UInt8(ascii: ".") || b == UInt8(ascii: "e")
            || b == UInt8(ascii: "E"))
    }

    /// ``plainInteger(_:_:_:)`` within eight bytes of the line's end, byte by byte.
    @inline(never)
    static func plainIntegerNearEnd(_ p: UnsafePointer<UInt8>, _ i: inout Int, _ n: Int)
        -> Int64?
    {
        var j = i
        guard j < n else { return nil }
        let first = p[j] &- 0x30
        guard first <= 9 else { return nil }
        var value = Int64(first)
        j &+= 1
        if first != 0 { moreDigits(p, &j, &value, upTo: min(n, i &+ 18)) }
        guard endsPlainInteger(p, j, n) else { return nil }
        i = j
        return value
    }

    enum PlainKind { case t, ev, gen, src, session, field, skip }

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

    /// A key of at most six bytes at `from` (just past its opening quote) whose closing quote and
    /// colon follow it within the eight bytes there: its length, and its bytes as a word (zero
    /// above them), as ``shortWords(_:_:_:_:)`` gives them. Nil for any other key, or when eight
    /// bytes from `from` do not lie in the line.
    ///
    /// The key is not checked to be plain: a caller looks it up among keys met plain before
    /// (``keyMemo``), and a key with a backslash, a control byte or a byte beyond ASCII before
    /// the quote is none of them.
    @inline(__always)
    static func shortKeyWithColon(_ p: UnsafePointer<UInt8>, from: Int, _ n: Int)
        -> (length: Int, word: UInt64)?
    {
        guard from &+ 8 <= n else { return nil }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let w = UInt64(littleEndian: UnsafeRawPointer(p + from).loadUnaligned(as: UInt64.self))
        let q = w ^ (ones &* 0x22)
        // The lowest mark is exact: a borrow runs only from a zero byte upwards.
        let k = ((q &- ones) & ~q & (ones &* 0x80)).trailingZeroBitCount &>> 3
        guard k <= 6, (w &>> UInt64(8 &* (k &+ 1))) & 0xFF == UInt64(UInt8(ascii: ":")) else {
            return nil
        }
        return (k, w & ((1 &<< UInt64(8 &* k)) &- 1))
    }

    /// `t`, `ev`, `gen`, `src` and `session` as little-endian words of their bytes.
    static let tWord: UInt64 = 0x74
    static let evWord: UInt64 = 0x76_65
    static let genWord: UInt64 = 0x6E_65_67
    static let srcWord: UInt64 = 0x63_72_73
    static let sessionWord: UInt64 = 0x6E_6F_69_73_73_65_73

    /// The `length` bytes (at most sixteen) at `start` of the line as two little-endian words,
    /// zero above them: ``ByteStringTable/words(_:)`` of them, with two loads when sixteen bytes
    /// from `start` lie in the line.
    @inline(__always)
    static func shortWords(_ p: UnsafePointer<UInt8>, _ start: Int, _ length: Int, _ n: Int)
        -> (UInt64, UInt64)
    {
        guard start &+ 16 <= n else {
            guard n >= 16 else { return shortWordsNearEnd(p, start, length) }
            return shortWordsBeforeEnd(p, start, length, n)
        }
        let raw = UnsafeRawPointer(p + start)
        let w0 = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
        if length < 8 { return (w0 & ((1 << UInt64(8 &* length)) &- 1), 0) }
        let w1 = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        if length == 16 { return (w0, w1) }
        return (w0, w1 & ((1 << UInt64(8 &* (length &- 8))) &- 1))
    }

    /// ``shortWords(_:_:_:_:)`` of a text within sixteen bytes of the end of a line of at least
    /// sixteen: the line's last sixteen bytes as two loads, shifted down to the text's start.
    @inline(__always)
    static func shortWordsBeforeEnd(
        _ p: UnsafePointer<UInt8>, _ start: Int, _ length: Int, _ n: Int
    ) -> (UInt64, UInt64) {
        let raw = UnsafeRawPointer(p + (n &- 16))
        let lo = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
        let hi = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        // The text's first byte is byte k of the sixteen (1 ≤ k ≤ 16), its last one byte 15 at
        // most, so a text that starts in the upper word has at most eight bytes.
        let k = start &- (n &- 16)
        guard length > 0 else { return (0, 0) }
        let w0: UInt64, w1: UInt64
        if k >= 8 {
            (w0, w1) = (hi &>> UInt64(8 &* (k &- 8)), 0)
        } else {
            w0 = (lo &>> UInt64(8 &* k)) | (hi &<< UInt64(64 &- 8 &* k))
            w1 = hi &>> UInt64(8 &* k)
        }
        if length < 8 { return (w0 & ((1 &<< UInt64(8 &* length)) &- 1), 0) }
        if length == 8 { return (w0, 0) }
        return (w0, w1 & ((1 &<< UInt64(8 &* (length &- 8))) &- 1))
    }

    /// ``shortWords(_:_:_:_:)`` of a text within sixteen bytes of the line's end: apart, so that
    /// the common case is small enough to be inlined.
    @inline(never)
    static func shortWordsNearEnd(_ p: UnsafePointer<UInt8>, _ start: Int, _ length: Int)
        -> (UInt64, UInt64)
    {
        ByteStringTable.words(UnsafeBufferPointer(start: p + start, count: length))
    }

    /// The index of the closing quote of the string whose body starts at `from`, when the body
    /// holds only ASCII without escapes or control bytes; nil for any other string.
    @inline(__always)
    static func plainStringEnd(_ p: UnsafePointer<UInt8>, from: Int, count n: Int) -> Int? {
        var i = from
        while i &+ 8 <= n {
            let mask = Cursor.specialBytes(
                UInt64(littleEndian: UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)))
            if mask == 0 {
                i &+= 8
                continue
            }
            i &+= mask.trailingZeroBitCount >> 3
            return p[i] == UInt8(ascii: "\"") ? i : nil
        }
        while i < n {
            let b = p[i]
            if b == UInt8(ascii: "\"") { return i }
            if b == UInt8(ascii: "\\") || b < 0x20 || b >= 0x80 { return nil }
            i &+= 1
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

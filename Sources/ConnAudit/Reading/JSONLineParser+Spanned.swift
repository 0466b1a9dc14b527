/// The fast path's shortest way: a line that is `{"t":` and a plain integer, a comma, and a kept
/// span that runs to the line's end (``PlainSpan/closes``), such as
/// `{"t":2179,"src":"pixel-000001","session":"s1","ev":"ws.ping","gen":3}`.
///
/// Such a line is read by ``JSONLineParser/parsePlain(_:into:)`` in two steps, its `t` and the
/// span, and nothing else: what it makes is fixed by the integer and the span. Read here, without
/// the pair loop's state, it makes the very same line; any other line is left to
/// ``JSONLineParser/parsePlain(_:into:)`` with nothing changed.
extension JSONLineParser {
    /// Reads `line` into `out` when it is `{"t":N,` with `N` a plain integer followed by a kept
    /// span that ends the line and names a non-empty `ev`; returns false, having changed nothing,
    /// for any other line.
    @inline(__always)
    mutating func parseSpanned(_ line: UnsafeBufferPointer<UInt8>, into out: inout ParsedLine)
        -> Bool
    {
        guard tracksSourceSpan, let p = line.baseAddress else { return false }
        let n = line.count
        // `{"t":` as the line's first five bytes, with room for the integer's word and the span's
        // lookahead after them.
        guard n >= 6 &+ SourceSpans.lookahead,
            UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
                & 0xFF_FFFF_FFFF == Self.braceT
        else { return false }
        var i = 5
        guard let t = Self.plainInteger(p, &i, n), i &+ 1 &+ SourceSpans.lookahead <= n,
            p[i] == UInt8(ascii: ","), p[i &+ 1] == UInt8(ascii: "\"")
        else { return false }
        i &+= 1
        guard let kept = sourceSpans.match(SourceSpans.slot(p, i), p, i, n), kept.closes,
            i &+ kept.length == n, kept.ev >= 0, !kept.evEmpty
        else { return false }
        // What parsePlain sets for this line, in its order.
        if !out.fields.isEmpty { out.fields = [] }
        out.setPlain(
            t: Double(t), tExact: t, evID: kept.evID, gen: kept.gen >= 0 ? UInt64(kept.gen) : nil)
        out.ev = evNames[Int(kept.ev)]
        out.setSources(kept.src, kept.session)
        return true
    }

    /// `{"t":` as a little-endian word of its bytes.
    private static let braceT: UInt64 = 0x3A_22_74_22_7B
}

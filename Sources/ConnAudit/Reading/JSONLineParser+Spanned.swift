/// The fast path's shortest way: a line that is `{"t":` and a plain integer, a comma, and a kept
/// span that runs to the line's end (``PlainSpan/closes``), such as
/// `{"t":2179,"src":"pixel-000001","session":"s1","ev":"ws.ping","gen":3}`.
///
/// Such a line is read by ``JSONLineParser/parsePlain(_:into:)`` in two steps, its `t` and the
/// span, and nothing else: what it makes is fixed by the integer and the span. Read here, without
/// the pair loop's state, it makes the very same line. A line that starts so but goes on past
/// the span, or holds no kept span there, is handed on where this left it (``PlainStart``): to
/// ``JSONLineParser/readPairsAfterSpan(_:into:from:)`` for the pairs after a kept span, else to the
/// pair loop. Its `t` and its span are not read twice.
extension JSONLineParser {
    /// Where ``readSpanned(_:into:)`` left a line it did not read whole.
    enum SpannedRead {
        /// The line is read into the parsed line.
        case read
        /// The line is `{"t":N,"…`, read up to the quote after the comma, with the span met
        /// there if any. The pairs after a span go on from there
        /// (``readPairsAfterSpan(_:into:from:)``), any other rest to the pair loop
        /// (``parsePlain(_:into:from:)``).
        case started(PlainStart)
        /// The line is not one the fast path answers: the general parser's.
        case general
        /// Nothing read: the pair loop reads the line from its start.
        case notStarted
    }

    /// A line's `{"t":N,` read ahead of the pair loop: `t`'s integer, the index of the quote that
    /// opens the next key, and the slot of ``sourceSpans`` whose span starts there (-1: none,
    /// the span is followed from there).
    struct PlainStart {
        var t: Int64
        var at: Int
        var slot: Int
    }

    /// Reads `line` into `out` when it is `{"t":N,` with `N` a plain integer followed by a kept
    /// span that ends the line and names a non-empty `ev`; returns false, having changed nothing,
    /// for any other line. (``readSpanned(_:into:)`` as a yes or no.)
    @inline(__always)
    mutating func parseSpanned(_ line: UnsafeBufferPointer<UInt8>, into out: inout ParsedLine)
        -> Bool
    {
        if case .read = readSpanned(line, into: &out) { return true }
        return false
    }

    /// Reads `line` into `out` when it is `{"t":N,` with `N` a plain integer followed by a kept
    /// span that ends the line and names a non-empty `ev` (``SpannedRead/read``). Changes nothing
    /// for any other line: one that starts so is handed on from after its `t`
    /// (``SpannedRead/started(_:)``), or to the general parser when its span ends it but sets no
    /// valid `ev` (as the pair loop would).
    @inline(__always)
    mutating func readSpanned(_ line: UnsafeBufferPointer<UInt8>, into out: inout ParsedLine)
        -> SpannedRead
    {
        guard tracksSourceSpan, let p = line.baseAddress else { return .notStarted }
        let n = line.count
        // `{"t":` as the line's first five bytes, with room for the integer's word and the span's
        // lookahead after them.
        guard n >= 6 &+ SourceSpans.lookahead,
            UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
                & 0xFF_FFFF_FFFF == Self.braceT
        else { return .notStarted }
        var i = 5
        guard let t = Self.plainInteger(p, &i, n), i &+ 1 &+ SourceSpans.lookahead <= n,
            p[i] == UInt8(ascii: ","), p[i &+ 1] == UInt8(ascii: "\"")
        else { return .notStarted }
        i &+= 1
        let home = SourceSpans.slot(p, i)
        var slot = sourceSpans.match(home, p, i, n)
        if slot < 0 {
            // A span not kept: kept here when its pairs were met before (``learnSpan``).
            slot = learnSpan(p, at: i, n, slot: home)
            guard slot >= 0 else { return .started(PlainStart(t: t, at: i, slot: -1)) }
        }
        let kept = sourceSpans[slot]
        guard kept.closes else { return .started(PlainStart(t: t, at: i, slot: slot)) }
        // A span that ends the line stands only for a line's whole rest.
        guard i &+ kept.length == n else { return .started(PlainStart(t: t, at: i, slot: -1)) }
        guard kept.ev >= 0, !kept.evEmpty else { return .general }
        // What parsePlain sets for this line, in its order.
        if !out.fields.isEmpty { out.fields = [] }
        out.setPlain(
            t: Double(t), tExact: t, evID: kept.evID, gen: kept.gen >= 0 ? UInt64(kept.gen) : nil)
        setEv(kept.ev, of: &out)
        out.setSources(kept.src, kept.session)
        return .read
    }

    /// `{"t":` as a little-endian word of its bytes.
    private static let braceT: UInt64 = 0x3A_22_74_22_7B
}

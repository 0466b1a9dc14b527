/// A span not kept yet, read and kept from pairs met before: the first line of a new `gen` (or
/// any new mix of `src`, `session`, `ev` and `gen`) after `{"t":N,`.
///
/// Such a line's span pairs are mostly texts the fast path knows already: the previous line's
/// `src` and `session` (``lastSource``, ``lastSession``), an `ev` name in ``evMemo``, and a plain
/// `gen`. Then what the span sets is known without the pair loop, and the span is kept as the
/// pair loop would keep it: the longest run of such pairs from the key after `t` that fits in
/// ``SpanMemo/capacity`` bytes, to the next key's opening quote, or to the line's `}` when they
/// end the line. The line is then read on as one whose span was met before. Any other span (a
/// text not met just before, white space, a value that is not plain) is left to the pair loop,
/// which keeps it; a key written with white space before its colon ends a learnt span, where the
/// pair loop's may go on (either stands for the same bytes).
///
/// What a span sets depends on its bytes alone, so keeping it before the rest of the line is
/// read changes no line's reading: a later line with these bytes makes what the pair loop makes
/// of them (`SpansLearntReadAsPairLoopTests`).
extension JSONLineParser {
    /// Keeps the span that starts at the key quote `at` of the line `p` of `n` bytes in `slot`
    /// (``SpanMemo/slot(_:_:)`` of it; ``SpanMemo/lookahead`` bytes lie in the line), when its
    /// pairs are as above, and returns `slot`; returns -1, having changed nothing, otherwise.
    /// Out of line: few lines start a span.
    @inline(never)
    mutating func learnSpan(_ p: UnsafePointer<UInt8>, at: Int, _ n: Int, slot: Int) -> Int {
        var i = at
        var span = PlainSpan()
        // The span up to the last pair read: its end (inclusive) and what it sets.
        var to = -1
        var kept = PlainSpan()
        while true {
            // At a key's opening quote: one of the span's keys, with its quote and colon (the
            // last pair's may lie within eight bytes of the line's end: `"gen":3}`).
            guard
                let (kind, length) = Self.connlogKey(p, at: i &+ 1, count: n)
                    ?? Self.connlogKeyNearEnd(p, at: i &+ 1, count: n)
            else { break }
            i &+= 1 &+ length
            guard i < n else { return -1 }
            switch kind {
            case .src, .session:
                let isSession = kind == .session
                guard p[i] == UInt8(ascii: "\""),
                    let close = Self.plainStringEnd(p, from: i &+ 1, count: n),
                    let memo = isSession ? lastSession : lastSource,
                    memo.length == close &- i &- 1,
                    case let (w0, w1) = Self.shortWords(p, i &+ 1, memo.length, n),
                    w0 == memo.w0, w1 == memo.w1
                else { return -1 }
                if isSession { span.session = memo.id } else { span.src = memo.id }
                i = close &+ 1
            case .ev:
                guard p[i] == UInt8(ascii: "\""),
                    let close = Self.plainStringEnd(p, from: i &+ 1, count: n),
                    close &- i &- 1 <= 16,
                    case let (w0, w1) = Self.shortWords(p, i &+ 1, close &- i &- 1, n),
                    let (number, id) = evMemo.find(w0, w1, close &- i &- 1)
                else { return -1 }
                (span.ev, span.evID, span.evEmpty) = (number, id, close &- i &- 1 == 0)
                i = close &+ 1
            case .gen:
                guard let g = Self.plainInteger(p, &i, n) else { return -1 }
                span.gen = g
            default:
                // `t` again: the span ends before it.
                i = -1
            }
            guard i >= 0 else { break }
            guard i < n else { return -1 }
            if p[i] == UInt8(ascii: "}") {
                // The line's `}` ends the span only when it ends the line.
                guard i &+ 1 == n else { return -1 }
                if i &- at < SourceSpans.capacity {
                    (to, kept) = (i, span)
                    kept.closes = true
                }
                break
            }
            guard p[i] == UInt8(ascii: ","), i &+ 1 < n, p[i &+ 1] == UInt8(ascii: "\"") else {
                return -1
            }
            i &+= 1
            // The longest run of such pairs that fits.
            guard i &- at < SourceSpans.capacity else { break }
            (to, kept) = (i, span)
        }
        guard to >= 0, to &- at &+ 1 >= 8 else { return -1 }
        sourceSpans.keep(slot, p + at, count: to &- at &+ 1, span: kept)
        return slot
    }
}

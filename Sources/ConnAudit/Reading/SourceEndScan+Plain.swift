extension SourceEndScan {
    /// ``scan(_:)``'s answer for a plain line, read a word at a time; nil for any other line,
    /// which the general scan then reads.
    ///
    /// A plain line is written the way loggers write connlog: `{` first, no white space between
    /// tokens, keys and string values of printable ASCII without escapes, scalars for every other
    /// value. Almost every line of a real log is one. Where it answers, it answers as the general
    /// scan does: both find the same keys and the same value bounds, and hand them to one
    /// ``Tally`` (`SourceEndScanPlainLinesTests` checks both on the same lines).
    ///
    /// The pairs after a leading `t` are taken from `spans` when their bytes are a span met
    /// before (``ScanSpan``), and kept there otherwise.
    static func plainScan(_ b: UnsafeBufferPointer<UInt8>, spans: inout ScanSpans) -> Line? {
        guard let p = b.baseAddress else { return nil }
        let n = b.count
        guard n >= 2, p[0] == openBrace, p[1] == quote else { return nil }
        var tally = Tally()
        var i = 1
        // This line's span for `spans`: where it starts (its slot), where its last pair's next
        // key opens, and where its values lie.
        var span = JSONLineParser.SpanState.first
        var spanFrom = 0, spanTo = -1, spanSlot = 0
        var spanKept = ScanSpan()
        while true {
            // At a key's opening quote.
            let key: Key
            if let (kind, length) = JSONLineParser.connlogKey(p, at: i + 1, count: n) {
                switch kind {
                case .t: key = .t
                case .ev: key = .ev
                case .src: key = .src
                case .session: key = .session
                default: key = .other
                }
                i += 1 + length
            } else {
                guard let close = JSONLineParser.plainStringEnd(p, from: i + 1, count: n),
                    close + 1 < n, p[close + 1] == colon
                else { return nil }
                key = Key(b, i + 1, close)
                i = close + 2
            }
            guard i < n else { return nil }
            let valueStart = i
            let first = p[i]
            if first == quote {
                guard let close = JSONLineParser.plainStringEnd(p, from: i + 1, count: n) else {
                    return nil
                }
                i = close + 1
            } else {
                // A scalar runs to the next `,` or `}`; containers, white space and `]` are the
                // general scan's. Most scalars are numbers: their digits first, eight at a time.
                i = Self.pastDigits(p, i, n)
                while i < n {
                    let c = p[i]
                    if c == comma || c == closeBrace { break }
                    if c <= 0x20 || c == openBrace || c == openBracket || c == closeBracket {
                        return nil
                    }
                    i += 1
                }
                guard i > valueStart else { return nil }
            }
            guard tally.take(key, first: first, value: valueStart..<i) else { return .unusual }
            let valueEnd = i
            guard i < n else { return nil }
            if p[i] == closeBrace { break }
            // `,"`: the next key's comma and opening quote, as one two-byte word.
            guard i + 1 < n,
                UInt16(littleEndian: UnsafeRawPointer(p + i).loadUnaligned(as: UInt16.self))
                    == 0x222C
            else { return nil }
            i += 1
            // At the next key's quote: the span after a leading `t`, taken whole when it is one
            // met before, else followed while its pairs are `src`, `session` and `ev` strings.
            if span != .closed {
                if span == .first {
                    span = .closed
                    if key == .t, i &+ ScanSpans.lookahead <= n {
                        let slot = ScanSpans.slot(p, i)
                        if spans.match(slot, p, i, n) >= 0 {
                            let kept = spans[slot]
                            guard kept.take(into: &tally, start: i) else { return .unusual }
                            i &+= kept.length &- 1
                        } else {
                            (span, spanFrom, spanSlot) = (.open, i, slot)
                        }
                    }
                } else if i &- spanFrom < ScanSpans.capacity, first == quote,
                    key == .src || key == .session || key == .ev
                {
                    // The longest run of such pairs that fits.
                    spanTo = i
                    spanKept.set(key, valueStart..<valueEnd, start: spanFrom)
                } else {
                    span = .closed
                }
            }
        }
        if spanTo >= 0 {
            spans.keep(spanSlot, p + spanFrom, count: spanTo &- spanFrom &+ 1, span: spanKept)
        }
        return tally.line
    }

    /// ``plainScan(_:spans:)`` with no span met before (for tests).
    static func plainScan(_ b: UnsafeBufferPointer<UInt8>) -> Line? {
        var spans = ScanSpans()
        return plainScan(b, spans: &spans)
    }

    /// The index of the first byte at or after `i` (at most `n`) that is not an ASCII digit:
    /// eight bytes at a time while eight remain (``JSONLineParser/digitWord(_:_:)``).
    @inline(__always)
    static func pastDigits(_ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int) -> Int {
        var i = i
        while i &+ 8 <= n {
            let marks = JSONLineParser.digitWord(p, i).marks
            if marks != 0 { return i &+ marks.trailingZeroBitCount >> 3 }
            i &+= 8
        }
        while i < n, p[i] &- 0x30 < 10 { i &+= 1 }
        return i
    }
}

/// The pairs after a kept span that does not end the line, such as `"id":"528694","ok":true}`
/// after `{"t":335,"src":"pixel-000001","session":"s1","ev":"sse.event",`.
///
/// The span sets `src`, `session`, `ev` and `gen`. What follows is often only keys met before
/// that are none of connlog's own, each with a plain value: such a rest is read here, in a loop
/// that keeps none of the pair loop's state, and makes what the pair loop makes of it (the same
/// value code, ``stepOverPlainValue(_:_:_:_:)`` and ``parsePlainValue(_:_:_:_:)``). Any other
/// rest (a key not in ``keyMemo``, one of connlog's own again, white space, a value that is not
/// plain, a token) is left to the pair loop, which reads the line from its span on.
extension JSONLineParser {
    /// Reads `line`'s pairs after the kept span ``readSpanned(_:into:)`` found
    /// (``PlainStart/slot``, whose span does not end the line) and sets `out` as
    /// ``parsePlain(_:into:from:)`` would, when the rest is as above; returns false otherwise,
    /// having changed nothing of `out` but its fields (the caller empties them again).
    @inline(__always)
    mutating func readPairsAfterSpan(
        _ line: UnsafeBufferPointer<UInt8>, into out: inout ParsedLine, from start: PlainStart
    ) -> Bool {
        let kept = sourceSpans[start.slot]
        guard kept.ev >= 0, !kept.evEmpty, let p = line.baseAddress else { return false }
        let n = line.count
        // The span ends with the opening quote of the next key.
        var i = start.at &+ kept.length &- 1
        while true {
            // The key by its words: a short one with its quote and colon in one word.
            let length: Int, close: Int, w0: UInt64, w1: UInt64
            if let (k, w) = Self.shortKeyWithColon(p, from: i &+ 1, n) {
                (length, close, w0, w1) = (k, i &+ 1 &+ k, w, 0)
            } else {
                guard let end = Self.plainStringEnd(p, from: i &+ 1, count: n) else {
                    return false
                }
                (length, close) = (end &- i &- 1, end)
                guard length <= 16, close &+ 2 < n, p[close &+ 1] == UInt8(ascii: ":") else {
                    return false
                }
                (w0, w1) = Self.shortWords(p, i &+ 1, length, n)
            }
            guard close &+ 2 < n else { return false }
            guard let (kind, wantedIndex) = keyMemo.find(w0, w1, length) else { return false }
            let key = UnsafeBufferPointer(start: p + (i &+ 1), count: length)
            i = close &+ 2
            let first = p[i]
            switch kind {
            case .skip:
                guard Self.stepOverPlainValue(p, &i, n, first) else { return false }
            case .field:
                guard appendPlainField(p, &i, n, first, wantedIndex, key, to: &out) else {
                    return false
                }
            default:
                return false
            }
            guard i < n else { return false }
            let b = p[i]
            i &+= 1
            if b == UInt8(ascii: "}") {
                guard i == n else { return false }
                break
            }
            guard b == UInt8(ascii: ","), i < n, p[i] == UInt8(ascii: "\"") else { return false }
        }
        out.setPlain(
            t: Double(start.t), tExact: start.t, evID: kept.evID,
            gen: kept.gen >= 0 ? UInt64(kept.gen) : nil)
        setEv(kept.ev, of: &out)
        out.setSources(kept.src, kept.session)
        return true
    }

    /// Decodes the plain value at `i` (first byte `first`) into `out`'s fields under `key`, as
    /// the pair loop does; false when it is not a plain value. Out of line: only a key a rule
    /// reads is decoded, and the loop above, which mostly steps over values, keeps a small frame.
    /// `mutating` though it changes nothing of the parser: the parser is then lent, not copied.
    @inline(never)
    mutating func appendPlainField(
        _ p: UnsafePointer<UInt8>, _ i: inout Int, _ n: Int, _ first: UInt8,
        _ wantedIndex: Int32, _ key: UnsafeBufferPointer<UInt8>, to out: inout ParsedLine
    ) -> Bool {
        guard let value = parsePlainValue(p, &i, n, first) else { return false }
        out.fields.append(plainField(wantedIndex, key, value))
        return true
    }
}

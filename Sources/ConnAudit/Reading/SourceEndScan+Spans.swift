/// The pre-pass's memo of the pairs after a line's leading `t` (``SpanMemo``): the bytes from
/// the key after `t` to the opening quote of the key after its `src`, `session` and `ev` pairs,
/// each pair's value a plain string.
///
/// What those bytes make of a line is fixed by the bytes alone: their keys, and where each value
/// lies from the span's start. So ``SourceEndScan/plainScan(_:spans:)`` takes a span met before
/// by handing the same keys and value bounds to its ``SourceEndScan/Tally`` as reading its pairs
/// one by one would, and reads on from the next key. A repeated key after the span is still
/// seen by the tally (`SourceEndScanSpanMetAgainTests`).
extension SourceEndScan {
    typealias ScanSpans = SpanMemo<ScanSpan>

    /// Where a kept span's values lie, from its start, quotes included (`from` -1: the key is
    /// not in the span).
    struct ScanSpan: SpanPayload {
        var length = 0
        var src = Bounds()
        var session = Bounds()
        var ev = Bounds()

        struct Bounds {
            var from: Int32 = -1
            var to: Int32 = -1
        }

        /// Records `key`'s value at `value` of a span starting at `start`.
        mutating func set(_ key: Key, _ value: Range<Int>, start: Int) {
            let bounds = Bounds(
                from: Int32(truncatingIfNeeded: value.lowerBound &- start),
                to: Int32(truncatingIfNeeded: value.upperBound &- start))
            switch key {
            case .src: src = bounds
            case .session: session = bounds
            case .ev: ev = bounds
            case .t, .other: break
            }
        }

        /// Hands the span's pairs, starting at `start` of a line, to `tally`: false when the
        /// tally refuses one. The tally's answer does not depend on the keys' order. A kept span
        /// holds `src` and `session` at most once each (a line repeating one is unusual, and is
        /// not kept); of a repeated `ev` it keeps the last, as the tally does.
        @inline(__always)
        func take(into tally: inout Tally, start: Int) -> Bool {
            @inline(__always) func range(_ b: Bounds) -> Range<Int> {
                start &+ Int(b.from)..<start &+ Int(b.to)
            }
            if src.from >= 0, !tally.take(.src, first: quote, value: range(src)) { return false }
            if session.from >= 0, !tally.take(.session, first: quote, value: range(session)) {
                return false
            }
            if ev.from >= 0, !tally.take(.ev, first: quote, value: range(ev)) { return false }
            return true
        }
    }
}

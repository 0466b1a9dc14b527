#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The bytes of plain lines from the key after their leading `t` to the opening quote of the key
/// after their `src`, `session`, `ev` and `gen` pairs
/// (`"src":"pixel-1","session":"s1","ev":"ws.ping","`), or to the `}` that ends the line when
/// those pairs are all it has (`…,"ev":"ws.ping","gen":3}`), with what they set: the fast path's
/// memo of the spans met, in 256 slots.
///
/// A source's lines are written alike, so a line mostly holds the very same bytes there as an
/// earlier line of its source with the same `ev`. What those bytes make is fixed by the bytes
/// alone: the keys `src`, `session`, `ev` and `gen` (no secret name), each `src`, `session` and
/// `ev` with a text the parser keeps under a fixed number (``JSONLineParser/sourceTexts``,
/// ``JSONLineParser/evNames``; kept texts hold no token), each `gen` with its integer, and the next
/// key's quote or the line's end. A line that holds a kept span after its `t` is read as if it had
/// been scanned pair by pair, in one comparison; one that ends the line (``PlainSpan/closes``)
/// only when the line ends with it.
///
/// Direct-mapped: a span's slot is picked by its first 48 bytes (the line's, for a span shorter
/// than that), so devices interleaved in one file each keep theirs, and the memo stays small
/// whatever the input. A span pushed out, or never kept, is only read the long way.
///
/// The pre-pass keeps its own spans (``SourceEndScan/ScanSpan``): the same bytes, with where
/// their values lie instead of what they set.
typealias SourceSpans = SpanMemo<PlainSpan>

/// What a plain span sets: its length in bytes (at least eight when one is kept), the numbers of
/// its `src` and `session` texts (-1: absent), its `ev` name's number (-1: absent), id and
/// emptiness, its last `gen` (-1: absent), and whether it ends with the line's `}`.
struct PlainSpan: SpanPayload {
    var length = 0
    var src: Int32 = -1
    var session: Int32 = -1
    var ev: Int32 = -1
    var evID: Int32 = -1
    var evEmpty = true
    var gen: Int64 = -1
    var closes = false
}

/// What a ``SpanMemo`` keeps with a span's bytes: at least its length (0: an empty slot).
protocol SpanPayload {
    init()
    var length: Int { get set }
}

/// Spans of line bytes met before, each with what it stands for, in 256 direct-mapped slots
/// (``SourceSpans``).
struct SpanMemo<Span: SpanPayload> {
    @inline(__always) static var slotCount: Int { 256 }
    /// The longest span kept, in bytes (eight words a slot).
    @inline(__always) static var capacity: Int { 64 }
    /// Bytes a line must hold from a span's start for the span to be looked up or kept.
    @inline(__always) static var lookahead: Int { 48 }

    /// Each slot's bytes, eight words a slot.
    private var words = ContiguousArray<UInt64>(repeating: 0, count: slotCount * 8)
    /// Each slot's span (``Span/length`` 0: empty).
    private var spans = ContiguousArray<Span>(repeating: Span(), count: slotCount)

    /// The slot of a span starting at `i` (``lookahead`` bytes from `i` lie in the line).
    @inline(__always)
    static func slot(_ p: UnsafePointer<UInt8>, _ i: Int) -> Int {
        let raw = UnsafeRawPointer(p + i)
        @inline(__always) func word(_ k: Int) -> UInt64 {
            raw.loadUnaligned(fromByteOffset: k, as: UInt64.self)
        }
        let h =
            (word(0) ^ word(16) ^ word(32))
            ^ (word(8) ^ word(24) ^ word(40)) &* 0x9E37_79B9
        return Int(truncatingIfNeeded: (h &* 0x9E37_79B9_7F4A_7C15) >> 56)
    }

    /// `slot` when the span kept there is the line's bytes from `i` (wholly within the line's `n`
    /// bytes), else -1. A slot, not the span: a caller reads only what it needs of the span
    /// (``subscript(_:)``), and no optional span is copied out per line.
    @inline(__always)
    func match(_ slot: Int, _ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int) -> Int {
        spans.withUnsafeBufferPointer { spans in
            let length = spans[slot].length
            guard length != 0, i &+ length <= n else { return -1 }
            // Compared inline, 16 bytes a step, the last step ending at the span's end (a span
            // holds at least eight bytes): no byte past the line's or the span's end is read.
            let same = words.withUnsafeBufferPointer { words in
                Self.sameBytes(p + i, UnsafeRawPointer(words.baseAddress! + slot &* 8), length)
            }
            return same ? slot : -1
        }
    }

    /// The span kept in `slot` (0 to ``slotCount`` - 1).
    @inline(__always)
    subscript(_ slot: Int) -> Span { spans[slot] }

    /// Whether the `count` bytes (8 to ``capacity``) at `a` and `b` are the same. Reads only
    /// those bytes: 16-byte steps from the start, and one that ends at the last byte (overlapping
    /// the one before it); eight-byte steps for fewer than 16 bytes.
    @inline(__always)
    static func sameBytes(_ a: UnsafePointer<UInt8>, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
        let a = UnsafeRawPointer(a)
        if count < 16 {
            let head =
                a.loadUnaligned(as: UInt64.self) ^ b.loadUnaligned(as: UInt64.self)
            let tail =
                a.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
                ^ b.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
            return head | tail == 0
        }
        @inline(__always) func diff(_ k: Int) -> SIMD16<UInt8> {
            a.loadUnaligned(fromByteOffset: k, as: SIMD16<UInt8>.self)
                ^ b.loadUnaligned(fromByteOffset: k, as: SIMD16<UInt8>.self)
        }
        var d = diff(0) | diff(count &- 16)
        if count > 32 {
            d |= diff(16)
            if count > 48 { d |= diff(32) }
        }
        let halves = unsafeBitCast(d, to: (UInt64, UInt64).self)
        return halves.0 | halves.1 == 0
    }

    /// Keeps the `count` bytes at `start` (from 8 to ``capacity``) as `slot`'s span, which sets
    /// what `span` says (its length aside).
    mutating func keep(_ slot: Int, _ start: UnsafePointer<UInt8>, count: Int, span: Span) {
        precondition(count >= 8 && count <= Self.capacity && slot >= 0 && slot < Self.slotCount)
        words.withUnsafeMutableBufferPointer { words in
            UnsafeMutableRawPointer(words.baseAddress! + slot * 8).copyMemory(
                from: start, byteCount: count)
        }
        var span = span
        span.length = count
        spans[slot] = span
    }

    /// How many slots hold a span (for tests).
    var keptCount: Int { spans.count { $0.length != 0 } }
}

/// A timeline's log as it grows, in ``EncodedEventLog``'s encoding: each event some rule reacted
/// to is written as it comes, so the log holds no event object, and retiring the timeline copies
/// the bytes (``encoded(first:)``).
///
/// It writes into memory of its own, made on the first entry and grown by doubling: each piece
/// makes room for its largest size once, then stores its bytes without an array's checks on each.
struct EventLogWriter: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>?
    private var capacity = 0
    private var count = 0
    private var texts: [String] = []
    /// The source's table of names; nil for a timeline that keeps no log (then nothing is
    /// written).
    private let names: EventLogNames?
    private var lastT: Int64 = 0
    private var lastLine = 0
    private var lastSeq = 0
    /// How many entries were written.
    private(set) var entries = 0
    /// Whether an entry is marked as the timeline's first event (``EncodedEventLog/Flag/first``).
    private(set) var holdsFirst = false
    /// `ev` names written, with their ids and indexes in ``names``, in four slots chosen by
    /// the id's low bits: a log names a few `ev`s, often in turn (a ping, then its pong), and
    /// each is found again by its id and its text's two words (the reader hands out one
    /// interned text per name) rather than by asking the table. The table never forgets a name,
    /// so the slots stay right when the log is emptied (``reset()``).
    private var ev0 = EvSlot(), ev1 = EvSlot(), ev2 = EvSlot(), ev3 = EvSlot()

    private struct EvSlot {
        var id: Int32 = -2
        /// Kept for its words: while the slot holds the text, no other text has them.
        var name = ""
        var index = 0
        /// ``name``'s two words (``EventLogWriter/words(_:)``).
        var words: (UInt64, UInt64) = (0, 0)

        init() {}

        init(id: Int32, name: String, index: Int) {
            (self.id, self.name, self.index) = (id, name, index)
            words = EventLogWriter.words(name) ?? (0, 0)
        }
    }

    /// A text's two words: equal words are the same small text held inline, or the same
    /// storage, so the same bytes (the reader hands out one interned text per `ev` name). Texts
    /// with the same bytes may still differ in them. Nil where a `String` is not two words.
    @inline(__always) private static func words(_ s: String) -> (UInt64, UInt64)? {
        String.isTwoWords ? s.words : nil
    }

    private typealias Flag = EncodedEventLog.Flag
    private typealias Tag = EncodedEventLog.Tag

    /// A varint takes at most 10 bytes (64 bits, 7 a byte).
    private static let varintMax = 10
    /// The most an entry's fixed part takes: its flags byte and eight numbers (a double's 8
    /// bytes or a varint's 10).
    private static let fixedMax = 1 + 8 * varintMax
    /// The first memory made: room for a few entries (a ping takes about 14 bytes).
    private static let firstCapacity = 128

    init(names: EventLogNames?) {
        self.names = names
    }

    deinit { base?.deallocate() }

    /// Appends an entry: `e`, and the highest time the source clock reached since the entry
    /// before. `isFirst`: `e` is the timeline's first event.
    mutating func append(_ e: Event, clock: Double, isFirst: Bool) {
        event(e, clock: clock, extra: isFirst ? Flag.first : 0)
        entries &+= 1
        if isFirst { holdsFirst = true }
    }

    /// Empties the log, keeping its memory.
    mutating func reset() {
        count = 0
        texts = []
        (lastT, lastLine, lastSeq) = (0, 0, 0)
        entries = 0
        holdsFirst = false
    }

    /// Empties the log and lets its memory go.
    mutating func discard() {
        reset()
        base?.deallocate()
        base = nil
        capacity = 0
    }

    /// The log so far, with the timeline's `first` event after the entries when no entry is it,
    /// copied out at its size: kept for long, it should not carry the room for more. The writer
    /// is left as it was.
    mutating func encoded(first: Event?) -> EncodedEventLog {
        let saved = (count, texts.count, lastT, lastLine, lastSeq)
        if let first, !holdsFirst {
            byte(EncodedEventLog.firstApart)
            event(first, clock: 0, extra: 0)
        }
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, n in
            if count > 0 { buffer.baseAddress!.initialize(from: base!, count: count) }
            n = count
        }
        let log = EncodedEventLog(bytes: bytes, texts: texts)
        (count, lastT, lastLine, lastSeq) = (saved.0, saved.2, saved.3, saved.4)
        if texts.count > saved.1 { texts.removeLast(texts.count - saved.1) }
        return log
    }

    /// Makes room for `n` more bytes.
    @inline(__always) private mutating func room(_ n: Int) {
        if count &+ n > capacity { grow(n) }
    }

    @inline(never) private mutating func grow(_ n: Int) {
        let larger = max(2 * capacity, count + n, Self.firstCapacity)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        if let base {
            moved.initialize(from: base, count: count)
            base.deallocate()
        }
        base = moved
        capacity = larger
    }

    /// Stores `b` where room was made for it.
    @inline(__always) private mutating func put(_ b: UInt8) {
        base.unsafelyUnwrapped[count] = b
        count &+= 1
    }

    @inline(__always) private mutating func byte(_ b: UInt8) {
        room(1)
        put(b)
    }

    @inline(__always) private mutating func varint(_ v: UInt64) {
        room(Self.varintMax)
        putVarint(v)
    }

    /// A varint where room was made for it.
    @inline(__always) private mutating func putVarint(_ v: UInt64) {
        var v = v
        while v >= 0x80 {
            put(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        put(UInt8(v))
    }

    /// Zigzag: small negative numbers stay short.
    @inline(__always) private mutating func signed(_ v: Int64) {
        varint(UInt64(bitPattern: (v << 1) ^ (v >> 63)))
    }

    /// ``signed(_:)`` where room was made for it.
    @inline(__always) private mutating func putSigned(_ v: Int64) {
        putVarint(UInt64(bitPattern: (v << 1) ^ (v >> 63)))
    }

    private mutating func double(_ d: Double) {
        room(8)
        putDouble(d)
    }

    /// A double's 8 bytes, little-endian, where room was made for them.
    @inline(__always) private mutating func putDouble(_ d: Double) {
        (UnsafeMutableRawPointer(base.unsafelyUnwrapped) + count).storeBytes(
            of: d.bitPattern.littleEndian, as: UInt64.self)
        count &+= 8
    }

    /// The index of the `ev` name `e` carries: from its slot (``ev0`` …) when the slot holds
    /// the same id and bytes, else from the table, and then kept in the slot.
    /// The slot is compared by the id and the text's words alone (no text is copied or
    /// compared byte by byte): the same bytes in other words go to the table.
    @inline(__always) private mutating func evIndex(_ e: Event) -> Int {
        let id = e.evID
        let (slotID, slotWords, index) =
            switch id & 3 {
            case 0: (ev0.id, ev0.words, ev0.index)
            case 1: (ev1.id, ev1.words, ev1.index)
            case 2: (ev2.id, ev2.words, ev2.index)
            default: (ev3.id, ev3.words, ev3.index)
            }
        if slotID == id, let words = Self.words(e.ev), words == slotWords { return index }
        return evIndexFromTable(e)
    }

    @inline(never) private mutating func evIndexFromTable(_ e: Event) -> Int {
        let slot = EvSlot(
            id: e.evID, name: e.ev, index: names!.index(of: e.ev, id: e.evID, isEv: true))
        switch e.evID & 3 {
        case 0: ev0 = slot
        case 1: ev1 = slot
        case 2: ev2 = slot
        default: ev3 = slot
        }
        return slot.index
    }

    /// A name (`ev`, a field key), by its index in the source's table.
    @inline(__always) private mutating func text(_ s: String, id: Int32 = -1, isEv: Bool = false) {
        varint(UInt64(names!.index(of: s, id: id, isEv: isEv)))
    }

    /// A text in a value: up to 15 bytes written out (length × 2), a longer one kept apart
    /// (its index × 2 + 1).
    private mutating func inlineText(_ s: String) {
        let n = s.utf8.count
        if n > 15 {
            varint(UInt64(texts.count) << 1 | 1)
            texts.append(s)
            return
        }
        varint(UInt64(n) << 1)
        room(n)
        for b in s.utf8 { put(b) }
    }

    /// One entry, its flags with `extra` set.
    private mutating func event(_ e: Event, clock: Double, extra: UInt8) {
        var flags: UInt8 = extra
        if e.gen != nil { flags |= Flag.hasGen }
        if e.isPseudo { flags |= Flag.pseudo }
        if !e.fields.isEmpty { flags |= Flag.hasFields }
        if e.hasRedactedKeys { flags |= Flag.hasRedacted }
        let t = EncodedEventLog.whole(e.t)
        if t != nil { flags |= Flag.wholeT }
        let clockWhole = EncodedEventLog.whole(clock)
        if clock == -.infinity {
            flags |= Flag.clockUnset
        } else if t != nil, clockWhole != nil {
            flags |= Flag.wholeClock
        }
        // The fixed part: room made once, then stored without a check per number.
        let index = evIndex(e)
        room(Self.fixedMax)
        put(flags)
        if let t {
            putSigned(t &- lastT)
            lastT = t
        } else {
            putDouble(e.t)
        }
        if flags & Flag.clockUnset == 0 {
            if flags & Flag.wholeClock != 0 {
                putSigned(clockWhole! &- t!)
            } else {
                putDouble(clock)
            }
        }
        putSigned(Int64(e.evID))
        putVarint(UInt64(index))
        if let gen = e.gen { putVarint(gen) }
        putSigned(Int64(e.file))
        putSigned(Int64(e.line) &- Int64(lastLine))
        lastLine = e.line
        putSigned(Int64(e.seq) &- Int64(lastSeq))
        lastSeq = e.seq
        if !e.fields.isEmpty {
            varint(UInt64(e.fields.count))
            for f in e.fields {
                text(f.key, id: f.id)
                signed(Int64(f.id))
                value(f.value)
            }
        }
        if e.hasRedactedKeys {
            varint(UInt64(e.redactedKeys.count))
            for k in e.redactedKeys { text(k) }
        }
    }

    /// A value: its tag, then what follows it (a boolean and null have nothing more).
    private mutating func value(_ v: Value) {
        byte(Self.tag(of: v))
        switch v {
        case .null, .bool: break
        case .int(let i): signed(i)
        case .double(let d): double(d)
        case .bigInt(let s), .string(let s): inlineText(s)
        case .array(let items):
            varint(UInt64(items.count))
            for item in items { value(item) }
        case .object(let entries):
            varint(UInt64(entries.count))
            for entry in entries {
                inlineText(entry.key)
                value(entry.value)
            }
        }
    }

    private static func tag(of v: Value) -> UInt8 {
        switch v {
        case .null: Tag.null
        case .bool(let b): b ? Tag.trueValue : Tag.falseValue
        case .int: Tag.int
        case .double: Tag.double
        case .bigInt: Tag.bigInt
        case .string: Tag.string
        case .array: Tag.array
        case .object: Tag.object
        }
    }
}

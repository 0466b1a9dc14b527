/// An entry of a timeline's log: an event some rule reacted to, and the highest time the source
/// clock reached since the entry before (``Timeline``). A struct, not a tuple: an array of
/// tuples is destroyed through the runtime's generic tuple witness, element by element.
struct LoggedEvent {
    var event: Event
    var clock: Double

    init(_ event: Event, _ clock: Double) {
        self.event = event
        self.clock = clock
    }
}

/// The log of a retired timeline (``RetiredTimeline``) in a compact byte encoding.
///
/// A retired generation is kept only for the case that it speaks again, and most never do, so
/// its events are kept as bytes rather than as ``Event`` objects: about 12–20 bytes for a ping
/// (a time and a line number as differences from the entry before, small integers as varints,
/// names as indexes into their source's ``EventLogNames``) instead of about 130 for the object
/// and its log entry, in one allocation per retired timeline (two when a value holds a text
/// longer than 15 bytes: such texts are kept as `String`s, sharing their storage, not copied).
/// A live timeline writes its log in this encoding as its events come (``EventLogWriter``), so
/// it holds no event for its log and retiring it copies bytes.
/// A rebuild decodes them into events equal in every field the rules can read (`t` to the bit,
/// `ev`, its id, `gen`, file, line, `$seq`, fields with their ids and values, redacted keys,
/// whether it is a reader finding); nothing compares events by identity.
struct EncodedEventLog {
    fileprivate let bytes: [UInt8]
    /// Texts in values longer than a `String` holds inline (15 bytes), kept as they are: they share
    /// their storage with the event's own text (and with any history that still holds the event)
    /// instead of being copied into ``bytes``.
    fileprivate let texts: [String]

    fileprivate init(bytes: [UInt8], texts: [String]) {
        self.bytes = bytes
        self.texts = texts
    }

    /// Encodes `log` and the timeline's `first` event (marked on its entry when it is one, else
    /// kept after the entries).
    init(log: [LoggedEvent], first: Event?, names: EventLogNames) {
        var w = EventLogWriter(names: names)
        for entry in log {
            let isFirst = !w.holdsFirst && entry.event === first
            w.append(entry.event, clock: entry.clock, isFirst: isFirst)
        }
        self = w.encoded(first: first)
    }

    /// The log's entries and the timeline's first event, as events again.
    func decode(names: EventLogNames) -> (log: [LoggedEvent], first: Event?) {
        var r = Reader(bytes: bytes, names: names.names, texts: texts)
        var first: Event?
        var log: [LoggedEvent] = []
        while !r.atEnd {
            if r.peek() == Self.firstApart {
                _ = r.byte()
                first = r.event().entry.event
                continue
            }
            let (entry, isFirst) = r.event()
            log.append(entry)
            if isFirst { first = entry.event }
        }
        return (log, first)
    }

    /// Bytes held (for tests and measurements).
    var byteCount: Int { bytes.count }

    // MARK: - Layout

    /// An entry: a flags byte, then `t`, the clock, `evID`, `ev`, `gen`, file, line, `$seq`,
    /// fields and redacted keys, each only as far as the flags say it is there. The entries come
    /// one after another; the timeline's first event, when no entry is it, follows them after a
    /// byte ``firstApart``.
    fileprivate enum Flag {
        static let hasGen: UInt8 = 1
        static let pseudo: UInt8 = 2
        static let hasFields: UInt8 = 4
        static let hasRedacted: UInt8 = 8
        /// `t` is a whole number (stored as the difference from the entry before's).
        static let wholeT: UInt8 = 16
        /// The clock is a whole number (stored as its difference from `t`).
        static let wholeClock: UInt8 = 32
        /// The clock is -infinity (a log's first entry).
        static let clockUnset: UInt8 = 64
        /// The entry's event is the timeline's first.
        static let first: UInt8 = 128
    }

    /// Starts the timeline's first event kept after the entries: no entry's flags byte is this
    /// (``Flag/wholeClock`` and ``Flag/clockUnset`` never go together).
    fileprivate static let firstApart: UInt8 = 0xFF

    fileprivate enum Tag {
        static let null: UInt8 = 0, falseValue: UInt8 = 1, trueValue: UInt8 = 2, int: UInt8 = 3,
            double: UInt8 = 4,
            bigInt: UInt8 = 5, string: UInt8 = 6, array: UInt8 = 7, object: UInt8 = 8
    }

    /// `d` as an integer when it is one exactly (sign of zero included) and below 2^53.
    @inline(__always) fileprivate static func whole(_ d: Double) -> Int64? {
        guard d.isFinite, Swift.abs(d) < 9.007199254740992e15 else { return nil }
        let i = Int64(d)
        return Double(i).bitPattern == d.bitPattern ? i : nil
    }

    private struct Reader {
        let bytes: [UInt8]
        let names: [String]
        let texts: [String]
        private var at = 0
        private var lastT: Int64 = 0
        private var lastLine = 0
        private var lastSeq = 0

        init(bytes: [UInt8], names: [String], texts: [String]) {
            self.bytes = bytes
            self.names = names
            self.texts = texts
        }

        var atEnd: Bool { at >= bytes.count }

        func peek() -> UInt8 { bytes[at] }

        mutating func byte() -> UInt8 {
            defer { at += 1 }
            return bytes[at]
        }

        mutating func varint() -> UInt64 {
            var v: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let b = byte()
                v |= UInt64(b & 0x7F) << shift
                if b < 0x80 { return v }
                shift += 7
            }
        }

        mutating func signed() -> Int64 {
            let u = varint()
            return Int64(bitPattern: (u >> 1) ^ (0 &- (u & 1)))
        }

        mutating func double() -> Double {
            var bits: UInt64 = 0
            for i in 0..<8 { bits |= UInt64(byte()) << UInt64(8 * i) }
            return Double(bitPattern: bits)
        }

        mutating func text() -> String { names[Int(varint())] }

        mutating func inlineText() -> String {
            let v = varint()
            if v & 1 == 1 { return texts[Int(v >> 1)] }
            let n = Int(v >> 1)
            defer { at += n }
            return String(decoding: bytes[at..<at + n], as: UTF8.self)
        }

        /// An entry, and whether it is marked as the timeline's first event.
        mutating func event() -> (entry: LoggedEvent, isFirst: Bool) {
            let flags = byte()
            let t: Double
            if flags & Flag.wholeT != 0 {
                lastT = lastT &+ signed()
                t = Double(lastT)
            } else {
                t = double()
            }
            let clock: Double
            if flags & Flag.clockUnset != 0 {
                clock = -.infinity
            } else if flags & Flag.wholeClock != 0 {
                clock = Double(signed() &+ lastT)
            } else {
                clock = double()
            }
            let evID = Int32(truncatingIfNeeded: signed())
            let ev = text()
            let gen = flags & Flag.hasGen != 0 ? varint() : nil
            let file = Int32(truncatingIfNeeded: signed())
            lastLine = Int(truncatingIfNeeded: Int64(lastLine) &+ signed())
            lastSeq = Int(truncatingIfNeeded: Int64(lastSeq) &+ signed())
            var fields: [Event.Field] = []
            if flags & Flag.hasFields != 0 {
                let n = Int(varint())
                fields.reserveCapacity(n)
                for _ in 0..<n {
                    let key = text()
                    let id = Int32(truncatingIfNeeded: signed())
                    fields.append(Event.Field(key, value(), id: id))
                }
            }
            var redacted: [String] = []
            if flags & Flag.hasRedacted != 0 {
                let n = Int(varint())
                redacted.reserveCapacity(n)
                for _ in 0..<n { redacted.append(text()) }
            }
            let e = Event(
                t: t, ev: ev, gen: gen, file: file, line: lastLine, fields: fields,
                redactedKeys: redacted,
                evID: evID, pseudo: flags & Flag.pseudo != 0)
            e.seq = lastSeq
            return (LoggedEvent(e, clock), flags & Flag.first != 0)
        }

        mutating func value() -> Value {
            switch byte() {
            case Tag.null: return .null
            case Tag.falseValue: return .bool(false)
            case Tag.trueValue: return .bool(true)
            case Tag.int: return .int(signed())
            case Tag.double: return .double(double())
            case Tag.bigInt: return .bigInt(inlineText())
            case Tag.string: return .string(inlineText())
            case Tag.array:
                let n = Int(varint())
                var items: [Value] = []
                items.reserveCapacity(n)
                for _ in 0..<n { items.append(value()) }
                return .array(items)
            default:
                let n = Int(varint())
                var entries: [Value.ObjectEntry] = []
                entries.reserveCapacity(n)
                for _ in 0..<n {
                    let key = inlineText()
                    entries.append(.init(key, value()))
                }
                return .object(entries)
            }
        }
    }
}

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
        guard MemoryLayout<String>.size == 16 else { return nil }
        return unsafeBitCast(s, to: (UInt64, UInt64).self)
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

/// The names (`ev`, field keys, redacted keys) of one source's encoded logs, each kept once:
/// an encoded event refers to them by index. Names are few (those the rules react to and read,
/// and the keys the secret scan flagged), and the table lives as long as its source.
final class EventLogNames {
    private(set) var names: [String] = []
    private var indexes: [TextKey: Int] = [:]
    /// The index last given for an `ev` id, and for a field id, with its text: most names are
    /// found here by one comparison instead of a hash (the text is compared, as an id alone does
    /// not fix the bytes of the name it came with).
    private var byEvID: [(index: Int, name: String)?] = []
    private var byFieldID: [(index: Int, name: String)?] = []

    /// Texts keyed by their bytes (String's `==` would make canonically equivalent ones one).
    private struct TextKey: Hashable {
        let text: String
        static func == (a: TextKey, b: TextKey) -> Bool { a.text.hasSameBytes(as: b.text) }
        func hash(into hasher: inout Hasher) { hasher.combine(text) }
    }

    /// The index of `name`, whose `ev` id (`isEv`) or field id is `id` (-1: none).
    func index(of name: String, id: Int32, isEv: Bool) -> Int {
        guard id >= 0 else { return index(of: name) }
        let slot = Int(id)
        // Read in place: a copy of either table would be counted per name.
        if let known = isEv ? Self.cached(byEvID, slot) : Self.cached(byFieldID, slot),
            known.name.hasSameBytes(as: name)
        {
            return known.index
        }
        let i = index(of: name)
        if isEv {
            Self.remember(i, name, at: slot, in: &byEvID)
        } else {
            Self.remember(i, name, at: slot, in: &byFieldID)
        }
        return i
    }

    @inline(__always) private static func cached(
        _ cache: borrowing [(index: Int, name: String)?], _ slot: Int
    ) -> (index: Int, name: String)? {
        slot < cache.count ? cache[slot] : nil
    }

    private static func remember(
        _ index: Int, _ name: String, at slot: Int, in cache: inout [(index: Int, name: String)?]
    ) {
        if slot >= cache.count { cache += Array(repeating: nil, count: slot + 1 - cache.count) }
        cache[slot] = (index, name)
    }

    func index(of name: String) -> Int {
        let key = TextKey(text: name)
        if let i = indexes[key] { return i }
        indexes[key] = names.count
        names.append(name)
        return names.count - 1
    }
}

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
    let bytes: [UInt8]
    /// Texts in values longer than a `String` holds inline (15 bytes), kept as they are: they share
    /// their storage with the event's own text (and with any history that still holds the event)
    /// instead of being copied into ``bytes``.
    let texts: [String]

    init(bytes: [UInt8], texts: [String]) {
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
    enum Flag {
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
    static let firstApart: UInt8 = 0xFF

    enum Tag {
        static let null: UInt8 = 0, falseValue: UInt8 = 1, trueValue: UInt8 = 2, int: UInt8 = 3,
            double: UInt8 = 4,
            bigInt: UInt8 = 5, string: UInt8 = 6, array: UInt8 = 7, object: UInt8 = 8
    }

    /// `d` as an integer when it is one exactly (sign of zero included) and below 2^53.
    @inline(__always) static func whole(_ d: Double) -> Int64? {
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

/// What one physical line of a log turned out to be.
enum LineItem {
    case blank
    /// Not a connlog event: the `$malformed` pseudo-event (its `reason` field says why).
    case malformed(Event)
    /// A valid event of the source numbered `source` in this file (``FileReader/key(of:)``);
    /// `regression` is the `$time_regression` pseudo-event when its `t` is lower than the
    /// previous valid line of the same source in this file.
    case event(Event, source: Int32, regression: Event?)
}

/// ``LineItem`` with the line's event lent, not handed over (``FileReader/read()``): the reader's
/// ``EventRing`` holds it, counted, at least until the reader's next line, so a caller that uses
/// it before then counts no reference for it, and one that keeps it counts its own. The line's
/// `$time_regression`, when it has one, is the reader's ``FileReader/regression``.
enum LentLine {
    case blank
    case malformed(Event)
    case event(Unmanaged<Event>, source: Int32)
}

/// Reads one log file line by line into events and the reader's findings.
///
/// Every physical line becomes exactly one ``LineItem``, so `lines = events + malformed + blank`
/// holds per file. Lines of JSON objects are also scanned for secrets (`$secret` pseudo-events),
/// even when they are malformed for another reason.
final class FileReader {
    let index: Int32
    let path: String
    private let lines: LineReader
    private var parser: JSONLineParser
    /// The line being read, parsed in place.
    private var parsed = ParsedLine()
    /// Emptied field arrays of events filled again, waiting for lines with fields: an event
    /// filled again often had fields when its new line has none, and the next line with fields
    /// then takes one of these instead of allocating (``ParsedLine/recycle(_:)``).
    ///
    /// At most as many as the ring keeps events (``EventRing/limit``): lines with fields and
    /// lines without come in runs, and an array let go in one run is made again in the next.
    /// Each spare came out of one of the ring's events, and the reader makes an array only when
    /// none is spare or in place of one it frees, so the spares and the arrays of the ring's
    /// events stay about as many as its slots.
    private var spareFields: [[Event.Field]] = []
    /// The most fields a spare array has room for: one sized by a line of many fields (a
    /// hostile one with thousands of duplicate keys) is freed, not kept for the rest of the
    /// file. Connlog lines name a handful of the fields rules read.
    static let spareFieldsRoom = 64
    /// Tests: the room of each spare field array.
    var spareFieldRooms: [Int] { spareFields.map(\.capacity) }
    /// The file's sources, numbered in the order their first event came (the id a
    /// ``LineItem/event(_:source:regression:)`` carries), and each one's number.
    private var keys: [SourceKey] = []
    private var ids: [SourceKey: Int32] = [:]
    /// Each source's latest `t`, by number, but for the previous line's source (``currentID``):
    /// its own is in ``currentStamp``, written back when a line of another source comes. Lines
    /// of one source usually come together: each then reads and sets a stored value, not an
    /// array's element.
    private var lastT: [Stamp] = []
    private var currentID: Int32 = -1
    private var currentStamp = Stamp(t: 0, exact: Stamp.none)
    /// The previous event's source: lines of one source usually come together, and a line whose
    /// `src` and `session` are the very texts of the previous line's (the parser hands out one
    /// interned text per value) is of its source without a key being made.
    private var previousID: Int32 = -1
    private var previousSrc: Value?
    private var previousSession: Value?
    /// Sources by the parser's numbers of their `src` and `session` texts (a plain line's
    /// ``ParsedLine/sourceTexts``, packed in one word), and the previous such line's.
    private var idsByTexts: [Int64: Int32] = [:]
    private var previousTexts: Int64 = 0
    private var previousTextsID: Int32 = -1
    /// Event names the loaded rules mention, as ids (looked up once per event).
    private let evIDs = EvNames.snapshot()
    private let malformedID: Int32
    private let secretID: Int32
    private let regressionID: Int32
    /// The events of the last lines read, each filled again for a later line once nothing else
    /// holds it.
    private var recent: EventRing
    /// `$secret` pseudo-events of the line just read.
    private(set) var secrets: [Event] = []
    /// The `$time_regression` pseudo-event of the line just read (``read()``), if it has one.
    private(set) var regression: Event?
    /// Whether ``regression`` is set, asked without taking a reference.
    var hasRegression: Bool { regression != nil }
    private(set) var stats: FileStats
    /// Where the bytes and events read are counted, ``RunProgress/eventStep`` lines (or one line
    /// over 1 MiB) at a time.
    var progress: RunProgress?
    /// Bytes and events already added to ``progress``.
    private var bytesCounted = 0
    private var eventsCounted = 0

    /// - Parameter eventsKept: the most events kept for reuse (``EventRing/limit``): more than
    ///   the default when the events go on to other threads and are held there a while.
    init(
        index: Int32, path: String, source: any ByteSource, wantedFields: Set<String>?,
        eventsKept: Int = EventRing.size
    ) {
        self.index = index
        recent = EventRing(limit: eventsKept, spares: .shared)
        self.path = path
        lines = LineReader(source)
        lines.scansLongLines = true
        parser = JSONLineParser(wantedFields: wantedFields, evIDs: evIDs)
        stats = FileStats(path: path)
        malformedID = evIDs["$malformed"] ?? -1
        secretID = evIDs["$secret"] ?? -1
        regressionID = evIDs["$time_regression"] ?? -1
    }

    /// The next line, or nil at the end. A read error ends the file: it is recorded in ``stats``
    /// and every line read before it has been returned.
    func next() -> LineItem? {
        switch read() {
        case nil: return nil
        case .blank?: return .blank
        case .malformed(let e)?: return .malformed(e)
        case .event(let e, let id)?:
            return .event(e.takeUnretainedValue(), source: id, regression: regression)
        }
    }

    /// ``next()`` with the line's event lent (``LentLine``): valid until the next call.
    func read() -> LentLine? { readInline() }

    /// ``read()``, inlined into the pass loop (``Auditor/scan``): a line then costs no call,
    /// and its result is not packed into a ``LentLine`` to be taken apart again.
    @inline(__always) func readInline() -> LentLine? {
        secrets.truncate(to: 0)
        if regression != nil { regression = nil }
        let raw: RawLine
        do {
            guard let r = try lines.next() else {
                stats.bytes = lines.bytesRead
                stats.compressed = lines.isCompressed
                countProgress()
                return nil
            }
            raw = r
        } catch {
            stats.error = error
            stats.bytes = lines.bytesRead
            stats.compressed = lines.isCompressed
            countProgress()
            return nil
        }
        stats.lines += 1
        if stats.lines & (RunProgress.eventStep - 1) == 0 { countProgress() }
        if let length = raw.tooLong { return tooLong(raw.number, length: length) }
        // A line that opens an object is not blank: the scan below is for the others.
        if raw.bytes.first != UInt8(ascii: "{"), isBlank(raw.bytes) {
            stats.blank += 1
            return .blank
        }
        parser.parse(raw.bytes, into: &parsed)
        if parsed.isObject, !parsed.secretPaths.isEmpty { noteSecrets(raw.number) }
        if parsed.malformedReason != nil { return malformedLine(raw) }
        stats.events += 1
        if !parsed.redactedKeys.isEmpty { redactSourceKeys() }
        // The previous line's source when its texts are the very same (most lines), without a
        // call.
        let id: Int32
        if let texts = parsed.sourceTexts {
            let packed = Self.packed(texts)
            id =
                previousTextsID >= 0 && packed == previousTexts
                ? previousTextsID : sourceID(texts: texts)
        } else {
            id = sourceID(src: parsed.src, session: parsed.session)
        }
        // An event of a line read earlier that nothing holds any more is filled again, not a new
        // one made (``made(line:)``). Its fields and redacted keys are set only when this line
        // or its earlier one has some (most lines have neither).
        let event: Unmanaged<Event>
        if let spare = recent.spare() {
            // A logged `ev` named as one of the reader's findings has the id of none: the
            // parser gives such a name -1 (``JSONLineParser/loggedEvID(_:)``).
            let evID = parsed.evID ?? parser.loggedEvID(parsed.ev)
            spare._withUnsafeGuaranteedRef { refill($0, line: raw.number, evID: evID) }
            event = spare
        } else {
            event = made(line: raw.number)
        }
        if id != currentID { switchStamp(to: id) }
        let now = Stamp(t: parsed.t, exact: parsed.tExact)
        if currentStamp.exact != Stamp.none, now.isBefore(currentStamp) {
            noteRegression(now, line: raw.number)
        }
        currentStamp = now
        return .event(event, source: id)
    }

    /// ``read()`` for a line longer than ``LineReader/maxLineBytes``: a `$malformed` event,
    /// and the secrets found as it was skipped (the line is never held).
    @inline(never) private func tooLong(_ line: Int, length: Int) -> LentLine {
        countProgress()
        stats.malformed += 1
        for p in lines.longLineSecretPaths {
            secrets.append(
                Event(
                    t: .nan, ev: "$secret", file: index, line: line,
                    fields: located(.init("path", .string(p)), line), evID: secretID))
        }
        return .malformed(malformed(line, "line is longer than 1 MiB (\(length) bytes)"))
    }

    /// The `$secret` events of the object just parsed, one per flagged path.
    @inline(never) private func noteSecrets(_ line: Int) {
        for p in parsed.secretPaths {
            secrets.append(
                Event(
                    t: parsed.malformedReason == nil ? parsed.t : .nan, ev: "$secret",
                    file: index,
                    line: line, fields: located(.init("path", .string(p)), line),
                    evID: secretID))
        }
    }

    /// ``read()`` for a line the parser found malformed: its `$malformed` event.
    @inline(never) private func malformedLine(_ raw: RawLine) -> LentLine {
        stats.malformed += 1
        let reason = parsed.malformedReason ?? ""
        // connlog: a last line without a newline that does not parse was cut off.
        let text =
            raw.unterminated && !parsed.isObject
            ? "last line is cut off (no newline at the end): \(reason)" : reason
        return .malformed(malformed(raw.number, text))
    }

    /// A new event for the line just parsed, which the ring keeps (``EventRing/keep(_:)``) and
    /// which is lent like a spare one. `fields` moves into the event: one reference counted,
    /// not a second one and a release. The redacted keys are passed only when there are some.
    @inline(never) private func made(line: Int) -> Unmanaged<Event> {
        var fields = parsed.takeFields()
        if !parsed.redactedKeys.isEmpty { appendRedacted(to: &fields) }
        takeSpare()
        let made = Event(
            t: parsed.t, ev: parsed.ev, gen: parsed.gen, file: index, line: line,
            fields: consume fields,
            redacted: parsed.redactedKeys.isEmpty ? nil : parsed.redactedKeys,
            evID: parsed.evID ?? parser.loggedEvID(parsed.ev),
            pseudo: false)
        recent.keep(made)
        return Unmanaged.passUnretained(made)
    }

    /// The `$time_regression` event of the line just parsed, whose `t` (`now`) is below its
    /// source's latest (``currentStamp``).
    @inline(never) private func noteRegression(_ now: Stamp, line: Int) {
        let earlier = currentStamp
        // `t_exact` only where the finding's own `t` does not read as the integer logged (from
        // 9e15 on, `Event.tValue` is a double, rounded from 2^53 on).
        var fields: [Event.Field] = [.init("previous_t", earlier.value)]
        if now.exact >= 0, Double(now.exact) >= 9e15 {
            fields.append(.init("t_exact", .int(now.exact)))
        }
        regression = Event(
            t: parsed.t, ev: "$time_regression", file: index, line: line,
            fields: located(fields, line), evID: regressionID)
    }

    /// Redacts a flagged `ev`, `src` or `session` of the line just parsed: those are printed
    /// everywhere, so a secret in them is never shown either.
    @inline(never) private func redactSourceKeys() {
        if parsed.redactedKeys.contains("ev") {
            // The stream stays when the secret is wholly after it: the event keeps its
            // timeline.
            let utf8 = parsed.ev.utf8
            if let dot = utf8.firstIndex(of: UInt8(ascii: ".")),
                case let stream = Substring(utf8[..<dot]),
                Self.streamKeepable(stream),
                JSONLineParser.holdsToken(String(Substring(utf8[utf8.index(after: dot)...])))
            {
                parsed.ev = stream + ".[redacted]"
            } else {
                parsed.ev = "[redacted]"
            }
            parsed.evID = nil
        }
        // Distinct secret values stay distinct sources, shown only by a hash.
        if parsed.redactedKeys.contains("src") {
            parsed.src =
                parsed.unhashableKeys.contains("src")
                ? Self.redactedInside(parsed.src) : .string(Self.redactedName(parsed.src))
        }
        if parsed.redactedKeys.contains("session") {
            parsed.session =
                parsed.unhashableKeys.contains("session")
                ? Self.redactedInside(parsed.session)
                : .string(Self.redactedName(parsed.session))
        }
    }

    /// Fills `spare`, an event of ``recent`` nothing else holds, with the line just parsed (its
    /// name, fields and redacted keys move in; its earlier ones go back to the line and spares).
    private func refill(_ spare: Event, line: Int, evID: Int32) {
        // The name moves into the event, and the event's earlier one into the line, which the
        // next line's parse overwrites: no reference counted for either.
        spare.refill(
            t: parsed.t, swappingEv: &parsed.ev, gen: parsed.gen, file: index, line: line,
            evID: evID)
        if !parsed.fields.isEmpty || !parsed.redactedKeys.isEmpty || spare.holdsFields {
            var fields = parsed.takeFields()
            if !parsed.redactedKeys.isEmpty { appendRedacted(to: &fields) }
            // The event's earlier fields become the room of a later line's.
            let earlier = spare.refill(
                fields: consume fields,
                redacted: parsed.redactedKeys.isEmpty ? nil : parsed.redactedKeys)
            if earlier.capacity > 0 { keepSpare(earlier) } else { takeSpare() }
        }
    }

    /// Gives the parsed line a spare array when its fields went to their event: the next line's
    /// go there. Called only where a line's fields were taken, not on every line. Without a
    /// spare, room for two fields is made at once: appended one by one into no room, a line's
    /// second field would allocate again.
    @inline(__always) private func takeSpare() {
        guard parsed.fields.capacity == 0 else { return }
        if !spareFields.isEmpty {
            parsed.recycle(spareFields.removeLast())
        } else {
            parsed.fields.reserveCapacity(2)
        }
    }

    /// Keeps `fields`, an event's earlier field array, emptied, for a later line's fields.
    @inline(__always) private func keepSpare(_ fields: consuming [Event.Field]) {
        if parsed.fields.capacity == 0 {
            parsed.recycle(fields)
        } else if spareFields.count < recent.limit, fields.capacity <= Self.spareFieldsRoom {
            var fields = fields
            fields.truncate(to: 0)
            spareFields.append(fields)
        }
    }

    /// Writes the latest `t` of the previous line's source back to ``lastT`` and takes source
    /// `id`'s out.
    @inline(never)
    private func switchStamp(to id: Int32) {
        if currentID >= 0 { lastT[Int(currentID)] = currentStamp }
        currentID = id
        currentStamp = lastT[Int(id)]
    }

    /// The key of the source numbered `id` (see ``LineItem/event(_:source:regression:)``).
    func key(of id: Int32) -> SourceKey { keys[Int(id)] }

    /// The number of the source of `src` and `session`, the previous line's when they are its very
    /// texts, else through the file's table (a new source gets the next number).
    private func sourceID(src: Value?, session: Value?) -> Int32 {
        if previousID >= 0, Self.same(src, previousSrc), Self.same(session, previousSession) {
            return previousID
        }
        let key = sourceKey(src: src, session: session)
        let id: Int32
        if let known = ids[key] {
            id = known
        } else {
            id = Int32(keys.count)
            keys.append(key)
            ids[key] = id
            lastT.append(Stamp(t: 0, exact: Stamp.none))
        }
        previousID = id
        previousSrc = src
        previousSession = session
        return id
    }

    /// The number of the source whose `src` and `session` texts have these numbers in the
    /// parser's ``JSONLineParser/sourceTexts`` (-1: absent): the same source as through
    /// ``sourceID(src:session:)`` with those texts as strings, found by two integers. For texts
    /// that are not the previous line's (the caller takes those itself).
    @inline(never)
    private func sourceID(texts: (src: Int32, session: Int32)) -> Int32 {
        let packed = Self.packed(texts)
        let id: Int32
        if let known = idsByTexts[packed] {
            id = known
        } else {
            let strings = parser.sourceTexts
            id = sourceID(
                src: texts.src >= 0 ? .string(strings[Int(texts.src)]) : nil,
                session: texts.session >= 0 ? .string(strings[Int(texts.session)]) : nil)
            idsByTexts[packed] = id
        }
        previousTexts = packed
        previousTextsID = id
        return id
    }

    /// The two numbers of ``sourceID(texts:)`` in one word.
    @inline(__always) private static func packed(_ texts: (src: Int32, session: Int32)) -> Int64 {
        Int64(texts.src) << 32 | Int64(UInt32(bitPattern: texts.session))
    }

    /// Whether two `src` (or `session`) values are the same string storage, or both absent: only
    /// then is the previous line's source taken without a look (equal texts in other storage are
    /// found through the table).
    @inline(__always) private static func same(_ a: Value?, _ b: Value?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (.string(let x)?, .string(let y)?):
            return String.isTwoWords && x.words == y.words
        default: return false
        }
    }

    /// Adds the bytes and events read since the last call to ``progress``.
    private func countProgress() {
        guard let progress else { return }
        progress.add(bytes: lines.bytesRead - bytesCounted)
        progress.add(events: stats.events - eventsCounted)
        bytesCounted = lines.bytesRead
        eventsCounted = stats.events
    }

    /// Takes back from ``progress`` what this reader counted (its file is read again).
    func abandonProgress() {
        progress?.add(bytes: -bytesCounted)
        progress?.add(events: -eventsCounted)
        bytesCounted = 0
        eventsCounted = 0
        progress = nil
    }

    /// A field for each redacted key but `t`, `ev` and `gen`: its hashed value, or `[redacted]`.
    /// The hashed values are looked up in a table when there are more than
    /// ``KeyLookup/searchLimit`` (a search of them all per key costs the square of a line's
    /// flagged keys). Out of line: lines without secrets never come here.
    @inline(never)
    private func appendRedacted(to fields: inout [Event.Field]) {
        let hashed =
            parsed.redactedValues.count > KeyLookup.searchLimit
            ? Dictionary(parsed.redactedValues.map { ($0.key, $0) }, uniquingKeysWith: { $1 }) : nil
        for k in parsed.redactedKeys where k != "t" && k != "ev" && k != "gen" {
            let value = hashed.map { $0[k] } ?? parsed.redactedValues.last { $0.key == k }
            fields.append(value ?? .init(k, .string("[redacted]")))
        }
    }

    private func malformed(_ line: Int, _ reason: String) -> Event {
        Self.malformed(
            file: index, shownPath: shownPath, line: line, reason: reason, evID: malformedID)
    }

    /// The `$malformed` event the reader makes for a line: its `reason`, and where it is. The
    /// corpus feed makes it again, the same, from a line and a reason it held (``CorpusItems``).
    static func malformed(file: Int32, shownPath: String, line: Int, reason: String, evID: Int32)
        -> Event
    {
        Event(
            t: .nan, ev: "$malformed", file: file, line: line,
            fields: located(.init("reason", .string(reason)), shownPath, line), evID: evID)
    }

    /// The path as the reader's findings name it (`file`).
    private var shownPath: String { path == "-" ? "<stdin>" : path }

    /// A reader finding's fields: its own, then `file` and `line`, which rules.md names them (as
    /// `$file` and `$line`).
    private func located(_ fields: [Event.Field], _ line: Int) -> [Event.Field] {
        var all = fields
        all.append(contentsOf: Self.located(nil, shownPath, line))
        return all
    }

    private func located(_ field: Event.Field, _ line: Int) -> [Event.Field] {
        Self.located(field, shownPath, line)
    }

    /// One array made at its size (`[field] + [file, line]` made three: every malformed line makes
    /// one).
    private static func located(_ field: Event.Field?, _ shownPath: String, _ line: Int) -> [Event
        .Field]
    {
        let file = Event.Field("file", .string(shownPath)),
            number = Event.Field("line", .int(Int64(line)))
        guard let field else { return [file, number] }
        return [field, file, number]
    }

    private func sourceKey(src: Value?, session sessionValue: Value?) -> SourceKey {
        // connlog: `src: null` is the same as no `src`; a `session` that is not a string — null
        // too, the brief names the exception for `src` only — is keyed by its JSON text.
        let session: String?
        switch sessionValue {
        case nil: session = nil
        case .string(let s)?: session = s
        case let other?: session = other.rendered(bare: false)
        }
        var key: SourceKey
        switch src {
        case nil, .null?: key = SourceKey(src: path, srcIsFile: true, session: session)
        case .string(let s)?: key = SourceKey(src: s, session: session)
        case let other?: key = SourceKey(src: other.rendered(bare: false), session: session)
        }
        // `"src": 42` and `"src": "42"` are different sources (keyed by JSON text vs string).
        if let s = src, s != .null, s.string == nil { key.srcIsJSON = true }
        if let s = sessionValue, s.string == nil { key.sessionIsJSON = true }
        return key
    }

    /// connlog: empty or ASCII white space only, after removing a BOM — the one the line reader
    /// takes off the file's first line, or one that starts a later line (files joined by `cat`).
    private func isBlank(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var rest = b[...]
        if rest.count >= 3, rest[rest.startIndex] == 0xEF, rest[rest.startIndex + 1] == 0xBB,
            rest[rest.startIndex + 2] == 0xBF
        {
            rest = rest.dropFirst(3)
        }
        for byte in rest where !(byte == 0x20 || (byte >= 0x09 && byte <= 0x0D)) { return false }
        return true
    }
}

/// A line's `t` as `log.time-monotonic` compares it: the double every rule reads, and the JSON
/// integer it was written as, if it was one. Two integers compare exactly, all 64 bits (as
/// doubles, 2^53 after 2^53 + 1 would not go back: both are 2^53), an integer and a
/// number written with a fraction or exponent exactly by value, two of those as doubles.
struct Stamp {
    var t: Double
    /// The integer `t` was written as; -1 when it was not one (`t` is never negative); ``none``
    /// for a source without an event yet.
    var exact: Int64
    static let none: Int64 = -2

    /// Whether this `t` is lower than `other`'s.
    @inline(__always) func isBefore(_ other: Stamp) -> Bool {
        if exact >= 0, other.exact >= 0 { return exact < other.exact }
        if exact < 0, other.exact < 0 { return t < other.t }
        return exact >= 0
            ? Self.integer(exact, isBelow: other.t) : Self.number(t, isBelow: other.exact)
    }

    /// `t` as messages show it: an integer with all its digits (`previous_t`), else as
    /// ``Value/normalizedNumber``.
    var value: Value { exact >= 0 ? .int(exact) : Value.double(t).normalizedNumber }

    /// Whether `i < d`, exactly (`d` finite): `i` is below `d` when it is below `d` rounded up.
    static func integer(_ i: Int64, isBelow d: Double) -> Bool {
        if d >= 0x1p63 { return true }
        if d < -0x1p63 { return false }
        // Below 2^63, `d` rounded up still fits: doubles that large are whole numbers.
        return i < Int64(d.rounded(.up))
    }

    /// Whether `d < i`, exactly (`d` finite): `d` is below `i` when it is rounded down.
    static func number(_ d: Double, isBelow i: Int64) -> Bool {
        if d >= 0x1p63 { return false }
        if d < -0x1p63 { return true }
        return Int64(d.rounded(.down)) < i
    }
}

extension Value {
    /// A double that holds a whole number becomes an int (for messages: `t` is shown as written).
    var normalizedNumber: Value {
        if case .double(let d) = self, d == d.rounded(), abs(d) < 9e15 { return .int(Int64(d)) }
        return self
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The first, light read of a large file: the line where each source's last event is, so that
/// the second read can evaluate and free each source there (docs/architecture.md, "Streaming and
/// memory").
///
/// It reads only what a line's source needs — the top-level `src` and `session`, and whether
/// `t` and `ev` are there in a form that can make an event — by skipping over everything else
/// structurally, without decoding values, checking UTF-8 or looking for secrets. Reading every
/// line in full (``FileReader``) would cost about a sixth of a whole run on a big file.
///
/// What it answers may only err one way: a source's line may come out later than its real last
/// event (a line the full reader finds malformed for a reason not looked at here: the source then
/// stays open longer, which costs memory and nothing else), never earlier (the second read would
/// take the source's later events for a changed file). So a line it cannot read exactly as the
/// full reader would — a top-level key with an escape, a `src` or `session` that is not a plain
/// string or null, or one holding a token (the full reader keys those by a hash), or either given
/// twice on one line — ends it with nil, and the caller reads the file in full instead.
enum SourceEndScan {
    /// The line of each source's last event in `lines` (a file at `path`); nil when a line needs
    /// the full reader. A read error ends the scan with what was read before it.
    static func ends(of lines: LineReader, path: String) -> [SourceKey: Int]? {
        merge([scan(lines, path: path)])
    }

    /// What the scan of a file, or of one part of it, found.
    struct Part {
        /// The line of each source's last event, counted from the part's first line.
        var ends: [SourceKey: Int] = [:]
        /// The physical lines read.
        var lines = 0
        var end = End.complete

        enum End {
            /// Read to its end.
            case complete
            /// Ended by a read error, after the lines before it.
            case failed
            /// Stopped at a line that needs the full reader.
            case unusual
        }
    }

    /// The scan of `lines`: a whole file, or one of its parts read by a reader of its own.
    static func scan(_ lines: LineReader, path: String) -> Part {
        var part = Part()
        // Lines of one source usually come together: the previous line's source, by its texts'
        // bytes (compared in place; copied only when the source changes). Its key is made then
        // too, and only its line moves while the source stays.
        var currentKey: SourceKey?
        var currentLine = 0
        // Asked instead of `currentKey != nil`, which copies the key and its texts.
        var hasCurrent = false
        var last = LastTexts()
        defer { last.free() }
        var spans = ScanSpans()
        while true {
            let next: RawLine?
            do { next = try lines.next() } catch {
                part.end = .failed
                break
            }
            guard let raw = next else { break }
            if raw.tooLong != nil { continue }
            let scanned: Scanned
            switch plainScan(raw.bytes, spans: &spans) ?? scan(raw.bytes) {
            case .notAnEvent: continue
            case .unusual:
                part.end = .unusual
                return part
            case .event(let s): scanned = s
            }
            let src = scanned.src.map { UnsafeBufferPointer(rebasing: raw.bytes[$0]) }
            let session = scanned.session.map { UnsafeBufferPointer(rebasing: raw.bytes[$0]) }
            if hasCurrent, last.holds(src, session) {
                currentLine = raw.number
                continue
            }
            // A token in either is keyed by a hash of it: the full reader's business.
            if src.map(JSONLineParser.containsToken) == true
                || session.map(JSONLineParser.containsToken) == true
            {
                part.end = .unusual
                return part
            }
            let sessionText = session.map { String(decoding: $0, as: UTF8.self) }
            let key =
                src.map {
                    SourceKey(src: String(decoding: $0, as: UTF8.self), session: sessionText)
                }
                ?? SourceKey(src: path, srcIsFile: true, session: sessionText)
            if let c = currentKey { part.ends[c] = currentLine }
            currentKey = key
            currentLine = raw.number
            hasCurrent = true
            last.keep(src, session)
        }
        if let c = currentKey { part.ends[c] = currentLine }
        part.lines = lines.lineCount
        return part
    }

    /// The ends of a file from the scans of its consecutive parts, as one scan of the whole file
    /// gives them: a source's end is its last part's, its lines counted on from the parts before.
    /// A read error ends the file there; a line that needs the full reader before that gives nil.
    static func merge(_ parts: [Part]) -> [SourceKey: Int]? {
        var ends: [SourceKey: Int] = [:]
        var before = 0
        for part in parts {
            if part.end == .unusual { return nil }
            if before == 0, ends.isEmpty {
                // The first part's table is taken whole: one read of a file copies nothing.
                ends = part.ends
            } else {
                for (key, line) in part.ends { ends[key] = before + line }
            }
            if part.end == .failed { break }
            before += part.lines
        }
        return ends
    }

    /// The `src` and `session` texts of the line whose source is current, kept in one buffer
    /// of their own: a line of the same source is told by comparing its texts' bytes in place.
    struct LastTexts {
        private var bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: 64)
        private var capacity = 64
        /// Each text's length; -1 when absent.
        private var srcCount = -1, sessionCount = -1

        /// Whether `src` and `session` (nil: absent) are the texts kept.
        @inline(__always) func holds(
            _ src: UnsafeBufferPointer<UInt8>?, _ session: UnsafeBufferPointer<UInt8>?
        ) -> Bool {
            guard (src?.count ?? -1) == srcCount, (session?.count ?? -1) == sessionCount else {
                return false
            }
            return Self.same(src, bytes) && Self.same(session, bytes + max(srcCount, 0))
        }

        mutating func keep(
            _ src: UnsafeBufferPointer<UInt8>?, _ session: UnsafeBufferPointer<UInt8>?
        ) {
            let total = (src?.count ?? 0) + (session?.count ?? 0)
            if total > capacity {
                bytes.deallocate()
                capacity = total
                bytes = .allocate(capacity: total)
            }
            srcCount = src?.count ?? -1
            sessionCount = session?.count ?? -1
            if let src, let base = src.baseAddress { bytes.update(from: base, count: src.count) }
            if let session, let base = session.baseAddress {
                (bytes + max(srcCount, 0)).update(from: base, count: session.count)
            }
        }

        func free() { bytes.deallocate() }

        /// Whether `text`'s bytes are those at `kept` (equal lengths known): a word at a time,
        /// then byte by byte.
        @inline(__always) private static func same(
            _ text: UnsafeBufferPointer<UInt8>?, _ kept: UnsafeMutablePointer<UInt8>
        ) -> Bool {
            guard let text, let p = text.baseAddress else { return true }
            let n = text.count
            var i = 0
            while i &+ 8 <= n {
                if UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
                    != UnsafeRawPointer(kept + i).loadUnaligned(as: UInt64.self)
                {
                    return false
                }
                i &+= 8
            }
            while i < n {
                if p[i] != kept[i] { return false }
                i &+= 1
            }
            return true
        }
    }

    /// Where a line's `src` and `session` texts are (nil: absent, or a null `src`).
    struct Scanned: Equatable {
        var src: Range<Int>?
        var session: Range<Int>?
    }

    enum Line: Equatable {
        /// Certainly not an event: not a JSON object, or no `t` or `ev` that could make one.
        case notAnEvent
        /// Could be an event, of the source these texts name.
        case event(Scanned)
        /// Needs the full reader.
        case unusual
    }

    // Computed, not stored: a stored static is read through a lazy-initialisation check on every
    // use, and these are read for every byte.
    @inline(__always) static var quote: UInt8 { 0x22 }
    @inline(__always) static var backslash: UInt8 { 0x5C }
    @inline(__always) static var colon: UInt8 { 0x3A }
    @inline(__always) static var comma: UInt8 { 0x2C }
    @inline(__always) static var openBrace: UInt8 { 0x7B }
    @inline(__always) static var closeBrace: UInt8 { 0x7D }
    @inline(__always) static var openBracket: UInt8 { 0x5B }
    @inline(__always) static var closeBracket: UInt8 { 0x5D }

    /// What one line can be, read only as far as its top-level structure: the general scan, for
    /// any line (``plainScan(_:)`` reads the common ones faster).
    static func scan(_ b: UnsafeBufferPointer<UInt8>) -> Line {
        let n = b.count
        var i = skipSpace(b, 0)
        guard i < n, b[i] == openBrace else { return .notAnEvent }
        i = skipSpace(b, i + 1)
        var tally = Tally()
        if i < n, b[i] == closeBrace { return .notAnEvent }
        while true {
            guard i < n, b[i] == quote else { return .notAnEvent }
            let keyStart = i + 1
            guard let keyEnd = stringEnd(b, keyStart) else { return .notAnEvent }
            // An escaped key may spell `src` or `t`: the full reader decodes it.
            for k in keyStart..<keyEnd where b[k] == backslash { return .unusual }
            let key = Key(b, keyStart, keyEnd)
            i = skipSpace(b, keyEnd + 1)
            guard i < n, b[i] == colon else { return .notAnEvent }
            i = skipSpace(b, i + 1)
            guard i < n else { return .notAnEvent }
            let valueStart = i
            // No value at all is not JSON.
            guard let valueEnd = skipValue(b, i), valueEnd > valueStart else { return .notAnEvent }
            // A `src` or `session` with an escape is keyed by its decoded text: the full reader's.
            if key == .src || key == .session, b[valueStart] == quote {
                for k in valueStart + 1..<valueEnd - 1 where b[k] == backslash { return .unusual }
            }
            guard tally.take(key, first: b[valueStart], value: valueStart..<valueEnd) else {
                return .unusual
            }
            i = skipSpace(b, valueEnd)
            guard i < n else { return .notAnEvent }
            if b[i] == comma {
                i = skipSpace(b, i + 1)
                continue
            }
            guard b[i] == closeBrace else { return .notAnEvent }
            break
        }
        return tally.line
    }

    /// What a scan saw of a line's top-level keys. Both scans keep one, so they answer alike.
    struct Tally {
        private var out = Scanned()
        // The last of each key wins, as in the full reader.
        private var tFirst: UInt8?
        private var evIsString = false, evEmpty = false, sawEv = false
        private var sawSrc = false, sawSession = false

        /// Takes the value of `key` at `value` (its first byte `first`); false when the line needs
        /// the full reader: a `src` or `session` keyed by its JSON text (any but a string, or a
        /// null `src`), or either given twice.
        @inline(__always) mutating func take(_ key: Key, first: UInt8, value: Range<Int>) -> Bool {
            switch key {
            case .t: tFirst = first
            case .ev:
                sawEv = true
                evIsString = first == quote
                evEmpty = value.count == 2
            case .src, .session:
                let text: Range<Int>?
                if first == quote {
                    text = value.lowerBound + 1..<value.upperBound - 1
                } else if key == .src, value.count == 4, first == UInt8(ascii: "n") {
                    // A null src (or not JSON at all, which makes the line malformed). A null
                    // session is keyed by its JSON text: unusual, for the full reader.
                    text = nil
                } else {
                    return false
                }
                // A repeated one: the last wins, but an earlier one holding a token still has the
                // full reader key the line by a hash.
                if key == .src {
                    if sawSrc { return false }
                    (sawSrc, out.src) = (true, text)
                } else {
                    if sawSession { return false }
                    (sawSession, out.session) = (true, text)
                }
            case .other: break
            }
            return true
        }

        /// The line, once every key was taken: an event when `t` is a number and `ev` a non-empty
        /// string (connlog; any other line is malformed).
        var line: Line {
            guard let t = tFirst,
                t == UInt8(ascii: "-") || (t >= UInt8(ascii: "0") && t <= UInt8(ascii: "9"))
            else { return .notAnEvent }
            guard sawEv, evIsString, !evEmpty else { return .notAnEvent }
            return .event(out)
        }
    }

    enum Key {
        case t, ev, src, session, other

        /// Compared byte by byte: a key is classified on every line.
        @inline(__always) init(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) {
            switch end - start {
            case 1 where b[start] == UInt8(ascii: "t"): self = .t
            case 2 where b[start] == UInt8(ascii: "e") && b[start + 1] == UInt8(ascii: "v"):
                self = .ev
            case 3
            where b[start] == UInt8(ascii: "s") && b[start + 1] == UInt8(ascii: "r")
                && b[start + 2] == UInt8(ascii: "c"):
                self = .src
            case 7
            where b[start] == UInt8(ascii: "s") && b[start + 1] == UInt8(ascii: "e")
                && b[start + 2] == UInt8(ascii: "s")
                && b[start + 3] == UInt8(ascii: "s") && b[start + 4] == UInt8(ascii: "i")
                && b[start + 5] == UInt8(ascii: "o")
                && b[start + 6] == UInt8(ascii: "n"):
                self = .session
            default: self = .other
            }
        }
    }

    /// Past spaces and control bytes (JSON's white space and more: reading more as space only
    /// makes more lines look like events).
    @inline(__always) private static func skipSpace(_ b: UnsafeBufferPointer<UInt8>, _ from: Int)
        -> Int
    {
        var i = from
        while i < b.count, b[i] <= 0x20 { i += 1 }
        return i
    }

    /// The index of the closing quote of a string whose text starts at `from`; nil if it has none.
    /// A quote is found with `memchr`; it closes the string unless an odd run of backslashes
    /// stands before it.
    @inline(__always) private static func stringEnd(_ b: UnsafeBufferPointer<UInt8>, _ from: Int)
        -> Int?
    {
        let base = b.baseAddress!
        var i = from
        while i < b.count {
            guard let hit = memchr(base + i, Int32(quote), b.count - i) else { return nil }
            let q = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            var slashes = 0
            while q - slashes - 1 >= from, base[q - slashes - 1] == backslash { slashes += 1 }
            if slashes % 2 == 0 { return q }
            i = q + 1
        }
        return nil
    }

    /// One past the end of the value at `from`; nil when the line ends inside it. Containers are
    /// matched by depth (brackets of either kind), scalars run to the next `,` `}` `]` or space.
    private static func skipValue(_ b: UnsafeBufferPointer<UInt8>, _ from: Int) -> Int? {
        let first = b[from]
        if first == quote { return stringEnd(b, from + 1).map { $0 + 1 } }
        if first == openBrace || first == openBracket {
            var depth = 0
            var i = from
            while i < b.count {
                let c = b[i]
                if c == quote {
                    guard let e = stringEnd(b, i + 1) else { return nil }
                    i = e + 1
                    continue
                }
                if c == openBrace || c == openBracket {
                    depth += 1
                } else if c == closeBrace || c == closeBracket {
                    depth -= 1
                    if depth == 0 { return i + 1 }
                }
                i += 1
            }
            return nil
        }
        var i = from
        while i < b.count {
            let c = b[i]
            if c == comma || c == closeBrace || c == closeBracket || c <= 0x20 { break }
            i += 1
        }
        return i
    }
}

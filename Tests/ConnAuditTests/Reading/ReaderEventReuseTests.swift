import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// The reader fills an event of an earlier line again (``EventRing``) only once nothing else holds
/// it: an event a caller, a history list, a capture or an obligation keeps stays as it was read,
/// however many lines come after it.
@Suite struct ReaderEventReuseTests {
    /// `count` valid lines of one source, each telling its own number in `n` and `tag`.
    static func log(_ count: Int) -> String {
        (1...count).map { #"{"t":\#($0),"ev":"x.step","n":\#($0),"tag":"line-\#($0)"}"# }
            .joined(separator: "\n") + "\n"
    }

    static func reader(_ text: String, eventsKept: Int = EventRing.size) -> FileReader {
        FileReader(
            index: 0, path: "reuse.jsonl",
            source: ByteSources.memory(Array(text.utf8), path: "reuse.jsonl"),
            wantedFields: nil, eventsKept: eventsKept)
    }

    @Test func anEventKeptByItsHolderKeepsItsFieldsAfterManyMoreLines() {
        let lines = EventRing.size * 10
        let reader = Self.reader(Self.log(lines))
        var kept: [Event] = []
        while let item = reader.next() {
            guard case .event(let e, _, _) = item else { continue }
            // Every seventh event is kept; the others are let go at once.
            if e.line % 7 == 1 { kept.append(e) }
        }
        #expect(kept.count == (lines + 6) / 7)
        for e in kept {
            #expect(e.ev == "x.step")
            #expect(e.t == Double(e.line))
            #expect(e.value(of: "n") == .int(Int64(e.line)))
            #expect(e.value(of: "tag") == .string("line-\(e.line)"))
        }
        #expect(Set(kept.map(ObjectIdentifier.init)).count == kept.count)
    }

    /// An event filled again hands its earlier field array to the reader, which decodes a later
    /// line's fields into it (``ParsedLine/recycle(_:)``). A field list someone still holds
    /// apart from its event keeps its values, and lines of none, one or three fields each read
    /// theirs, whatever array they are decoded into.
    @Test func aFieldListHeldApartFromItsEventKeepsItsValuesWhenTheEventIsFilledAgain() {
        let lines = EventRing.size * 6
        let text =
            (1...lines).map { i -> String in
                switch i % 3 {
                case 0: #"{"t":\#(i),"ev":"x.step"}"#
                case 1: #"{"t":\#(i),"ev":"x.step","n":\#(i)}"#
                default: #"{"t":\#(i),"ev":"x.step","n":\#(i),"tag":"line-\#(i)","ok":true}"#
                }
            }.joined(separator: "\n") + "\n"
        let reader = Self.reader(text)
        var held: [(fields: [Event.Field], line: Int)] = []
        while let item = reader.next() {
            guard case .event(let e, _, _) = item else { continue }
            #expect(e.fields.count == [0, 1, 3][e.line % 3], "line \(e.line)")
            if e.line % 3 != 0 { #expect(e.value(of: "n") == .int(Int64(e.line))) }
            // Every fifth line's fields are kept; its event is let go.
            if e.line % 5 == 2 { held.append((e.fields, e.line)) }
        }
        #expect(held.count == (lines + 3) / 5)
        for (fields, line) in held {
            #expect(fields.count == [0, 1, 3][line % 3], "line \(line)")
            if line % 3 != 0 {
                #expect(fields.first?.value == .int(Int64(line)), "line \(line)")
            }
            if line % 3 == 2 {
                #expect(fields.map(\.key) == ["n", "tag", "ok"], "line \(line)")
                #expect(fields.dropFirst().first?.value == .string("line-\(line)"))
            }
        }
    }

    @Test func anEventNothingElseHoldsIsFilledAgainAsItsLineReadsIt() {
        let lines = EventRing.size * 10
        let reader = Self.reader(Self.log(lines))
        var objects = Set<ObjectIdentifier>()
        var read = 0
        while let item = reader.next() {
            guard case .event(let e, _, _) = item else { continue }
            read += 1
            #expect(e.line == read)
            #expect(e.seq == 0)
            #expect(e.value(of: "tag") == .string("line-\(read)"))
            objects.insert(ObjectIdentifier(e))
        }
        #expect(read == lines)
        // The ring's first slots, and no more, serve every line: nothing holds an event past its
        // line, so the ring does not grow.
        #expect(objects.count <= EventRing.initial)
    }

    /// A reader whose events go to worker threads lets its ring grow: events held in a window
    /// longer than the ring's first round (batches on their way) are filled again once the
    /// window lets them go, never while it holds them.
    @Test func aRingAllowedToGrowFillsAgainWhatAWindowOfHoldersLetsGo() {
        let lines = EventRing.size * 12
        let window = EventRing.size * 3
        let reader = Self.reader(Self.log(lines), eventsKept: EventRing.size * 8)
        var held: [(event: Event, line: Int)] = []
        var first = 0
        var objects = Set<ObjectIdentifier>()
        func letGo(_ h: (event: Event, line: Int)) {
            #expect(h.event.line == h.line)
            #expect(h.event.t == Double(h.line))
            #expect(h.event.value(of: "tag") == .string("line-\(h.line)"))
        }
        while let item = reader.next() {
            guard case .event(let e, _, _) = item else { continue }
            objects.insert(ObjectIdentifier(e))
            held.append((e, e.line))
            if held.count - first > window {
                letGo(held[first])
                held[first].event = Event(t: 0, ev: "x.gone")
                first += 1
            }
        }
        for h in held[first...] { letGo(h) }
        // Past the window, the ring's events serve every line: the window and a round more.
        #expect(objects.count <= window + EventRing.size)
    }

    /// An event filled again keeps nothing of its earlier line: no field and no redacted key of
    /// it, whether this line has none, some, or others (they are set only when either line has
    /// some).
    @Test func anEventFilledAgainHoldsOnlyItsOwnLinesFieldsAndRedactedKeys() {
        let lines = EventRing.initial * 4
        // By the line's number: no field; a field; a secret key (redacted); both. A slot of the
        // ring serves lines one round apart: each round, its line is of the next kind.
        func kind(_ n: Int) -> Int { (n + (n - 1) / EventRing.initial) % 4 }
        func text(_ n: Int) -> String {
            switch kind(n) {
            case 0: return #"{"t":\#(n),"ev":"x.step"}"#
            case 1: return #"{"t":\#(n),"ev":"x.step","n":\#(n)}"#
            case 2: return #"{"t":\#(n),"ev":"x.step","password":"p\#(n)"}"#
            default: return #"{"t":\#(n),"ev":"x.step","n":\#(n),"password":"p\#(n)"}"#
            }
        }
        let reader = Self.reader((1...lines).map(text).joined(separator: "\n") + "\n")
        var read = 0
        var objects = Set<ObjectIdentifier>()
        while let item = reader.next() {
            guard case .event(let e, _, _) = item else { continue }
            read += 1
            objects.insert(ObjectIdentifier(e))
            let hasN = kind(read) % 2 == 1, secret = kind(read) >= 2
            #expect(e.value(of: "n") == (hasN ? .int(Int64(read)) : nil), "line \(e.line)")
            #expect(e.redactedKeys == (secret ? ["password"] : []), "line \(e.line)")
            #expect(e.hasRedactedKeys == secret)
            #expect(e.fields.contains { $0.key == "password" } == secret)
        }
        #expect(read == lines)
        // The lines were read into events filled again.
        #expect(objects.count <= EventRing.initial)
    }

    /// A logged line named as one of the reader's findings takes no id, also when its event is
    /// one filled again (the reader resolves the id, not the event): a log cannot pass a line
    /// for `$malformed`, `$secret` or `$time_regression`.
    @Test func aLoggedLineNamedAsAReaderFindingTakesNoIdInAnEventFilledAgain() {
        let findings = ["$malformed", "$secret", "$time_regression"]
        for name in findings { _ = EvNames.id(name) }
        let other = EvNames.id("x.step")
        let lines = EventRing.size * 3
        let text =
            (1...lines).map { n in
                #"{"t":\#(n),"ev":"\#(n % 4 == 0 ? "x.step" : findings[n % 4 - 1])"}"#
            }.joined(separator: "\n") + "\n"
        let reader = Self.reader(text)
        var read = 0
        while let item = reader.next() {
            guard case .event(let e, _, _) = item else { continue }
            read += 1
            #expect(!e.isPseudo)
            #expect(e.evID == (e.ev == "x.step" ? other : -1), "line \(e.line): \(e.ev)")
        }
        #expect(read == lines)
    }

    /// A few events held to the end (a sixteenth of a round or fewer) do not grow the ring: each
    /// is left to its holder when its slot comes round, and a new event takes the slot.
    @Test func aFewEventsHeldToTheEndDoNotGrowTheRing() {
        var ring = EventRing(limit: EventRing.size * 100)
        var kept: [Event] = []
        for line in 1...(EventRing.initial * 20) {
            if let spare = ring.spare() {
                spare.takeUnretainedValue().refill(
                    t: Double(line), ev: "x.step", gen: nil, file: 0, line: line, evID: -1)
            } else {
                let made = Event(t: Double(line), ev: "x.step", line: line)
                ring.keep(made)
                if line % 32 == 1 { kept.append(made) }
            }
        }
        #expect(kept.first?.line == 1)
        #expect(kept.allSatisfy { $0.line % 32 == 1 && $0.t == Double($0.line) })
        #expect(ring.count == EventRing.initial)
    }

    /// Events held a round or more, many of them, grow the ring: each held past a sixteenth of
    /// a round moves to a new slot at the end, and is filled again once let go. A slot added
    /// goes round with the next round, not this one: an event held to the end costs the ring
    /// one slot a round, not one a line.
    @Test func manyEventsHeldARoundGrowTheRingUntilTheyAreLetGoWithinOne() {
        var ring = EventRing(limit: EventRing.size * 100)
        let window = EventRing.initial * 6
        var held: [Event] = []
        var first = 0
        var forever: Event?
        var made = 0
        for line in 1...(window * 8) {
            let e: Event
            if let spare = ring.spare() {
                e = spare.takeUnretainedValue()
                e.refill(t: Double(line), ev: "x.step", gen: nil, file: 0, line: line, evID: -1)
            } else {
                e = Event(t: Double(line), ev: "x.step", line: line)
                ring.keep(e)
                made += 1
            }
            if line == 1 { forever = e }
            // Each event is held for the window's lines after its own.
            held.append(e)
            if held.count - first > window {
                #expect(held[first].line == first + 1)
                held[first] = forever!
                first += 1
            }
        }
        #expect(forever?.line == 1)
        // Grown past the window, not to the limit; the events made are the ring's and the few
        // left to their holders while it grew.
        #expect(ring.count > window && ring.count <= 2 * window)
        #expect(made <= ring.count + window)
    }

    /// One line through `ring`: a spare event filled again, or a new one kept (added to `made`).
    static func line(_ n: Int, _ ring: inout EventRing, made: inout [ObjectIdentifier]) -> Event {
        if let spare = ring.spare() {
            let e = spare.takeUnretainedValue()
            e.refill(t: Double(n), ev: "x.step", gen: nil, file: 0, line: n, evID: -1)
            return e
        }
        let e = Event(t: Double(n), ev: "x.step", line: n)
        ring.keep(e)
        made.append(ObjectIdentifier(e))
        return e
    }

    /// A ring at its limit passes a held event over for one of the next slots' that nothing
    /// else holds: the held event keeps its line, no event is made while a spare is that near,
    /// and the held one is filled again once let go.
    @Test func aRingAtItsLimitPassesAHeldEventOverForASpareJustAfterIt() {
        let limit = EventRing.initial
        var ring = EventRing(limit: limit)
        var made: [ObjectIdentifier] = []
        var held: [Event] = []
        // The first round makes an event for each slot; every tenth is held.
        for n in 1...limit {
            let e = Self.line(n, &ring, made: &made)
            if n % 10 == 1 { held.append(e) }
        }
        #expect(made.count == limit)
        for n in (limit + 1)...(limit * 4) { _ = Self.line(n, &ring, made: &made) }
        #expect(made.count == limit)
        #expect(ring.count == limit)
        #expect(held.allSatisfy { $0.line % 10 == 1 && $0.line <= limit })
        #expect(held.allSatisfy { $0.t == Double($0.line) })
        let heldIDs = Set(held.map(ObjectIdentifier.init))
        held = []
        var filled = Set<ObjectIdentifier>()
        for n in (limit * 4 + 1)...(limit * 5) {
            filled.insert(ObjectIdentifier(Self.line(n, &ring, made: &made)))
        }
        #expect(heldIDs.isSubset(of: filled))
        #expect(made.count == limit)
    }

    /// With every event held, the ring grows to its limit and no further.
    @Test func aRingOfHeldEventsStopsAtItsLimit() {
        let limit = EventRing.initial * 12
        var ring = EventRing(limit: limit)
        var held: [Event] = []
        for line in 1...(limit * 4) {
            #expect(ring.spare() == nil)
            let made = Event(t: Double(line), ev: "x.step", line: line)
            ring.keep(made)
            held.append(made)
        }
        #expect(ring.count == limit)
        #expect(held.enumerated().allSatisfy { $0.element.line == $0.offset + 1 })
    }

    /// An obligation keeps its anchor (a capture) open to the end of the log: its message reads
    /// the anchor's fields after every later line was read.
    @Test(arguments: [1, 2])
    func anEventAnObligationHoldsKeepsItsFieldsToTheEnd(jobs: Int) throws {
        let rules = try RuleRuns.rules(
            [
                "id: t.reuse\ntitle: T\nfor: source\neach: { ev: x.open, as: o }\nfollowed_by: { ev: x.close, where: \"n == o.n\" }\nat_end: fail\nmessage: \"open {o.n} {o.tag} never closed\""
            ], file: "rules/reuse.yaml")
        var text = #"{"t":0,"ev":"x.open","n":0,"tag":"first"}"# + "\n"
        text += Self.log(EventRing.size * 8)
        let report = RuleRuns.audit(rules, text, path: "reuse.jsonl", jobs: jobs)
        let findings = report.results[0].violations
        #expect(findings.map { $0.message } == ["open 0 first never closed"])
        #expect(findings.map { $0.line } == [1])
    }

    /// Field arrays of events filled again are kept for later lines' fields, but one with room
    /// for more than ``FileReader/spareFieldsRoom`` fields (a line of many) is freed, not kept
    /// for the rest of the file.
    @Test func spareFieldArraysKeepNoRoomForManyFields() {
        let round = EventRing.initial
        func line(_ i: Int, fields: Int) -> String {
            let extra = (0..<fields).map { #","f\#($0)":\#($0)"# }.joined()
            return #"{"t":\#(i),"ev":"x.step"\#(extra)}"#
        }
        // Runs of two rounds each: two fields, none, two hundred, none.
        let runs = [2, 0, 200, 0]
        let text =
            (0..<(2 * round * runs.count)).map { i in
                line(i + 1, fields: runs[i / (2 * round)])
            }.joined(separator: "\n") + "\n"
        let reader = Self.reader(text)
        var roomsAfterSmall: [Int] = []
        var seenWide = false
        while let item = reader.next() {
            guard case .event(let e, _, _) = item else { continue }
            if e.fields.count == 200 { seenWide = true }
            if e.line == 4 * round { roomsAfterSmall = reader.spareFieldRooms }
        }
        #expect(seenWide)
        // Arrays of two fields let go in the run of none are kept.
        #expect(!roomsAfterSmall.isEmpty)
        let rooms = reader.spareFieldRooms
        #expect(rooms.allSatisfy { $0 <= FileReader.spareFieldsRoom }, "\(rooms.max() ?? 0)")
    }
}

import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// A retired timeline keeps its events encoded (``EncodedEventLog``); a rebuild decodes them.
/// Decoding must give back every field of every event exactly, whatever the event holds.
@Suite struct EventLogCodingTests {
    /// Every field rules or reports can read, compared exactly (times and doubles by their bits,
    /// texts by their bytes).
    private func same(_ a: Event, _ b: Event) -> Bool {
        a.t.bitPattern == b.t.bitPattern && a.ev.hasSameBytes(as: b.ev) && a.evID == b.evID
            && a.gen == b.gen
            && a.file == b.file && a.line == b.line && a.seq == b.seq && a.isPseudo == b.isPseudo
            && a.redactedKeys.count == b.redactedKeys.count
            && zip(a.redactedKeys, b.redactedKeys).allSatisfy { $0.hasSameBytes(as: $1) }
            && a.fields.count == b.fields.count
            && zip(a.fields, b.fields).allSatisfy {
                $0.key.hasSameBytes(as: $1.key) && $0.id == $1.id && same($0.value, $1.value)
            }
    }

    private func same(_ a: Value, _ b: Value) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.int(let x), .int(let y)): return x == y
        case (.double(let x), .double(let y)): return x.bitPattern == y.bitPattern
        case (.bigInt(let x), .bigInt(let y)), (.string(let x), .string(let y)):
            return x.hasSameBytes(as: y)
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.object(let x), .object(let y)):
            return x.count == y.count
                && zip(x, y).allSatisfy {
                    $0.key.hasSameBytes(as: $1.key) && same($0.value, $1.value)
                }
        default: return false
        }
    }

    private func randomTime(_ rng: inout SplitMix64) -> Double {
        switch rng.below(9) {
        case 0: return Double(rng.below(2_000_000))
        case 1: return 693_745_044.0586978 + Double(rng.below(100_000))
        case 2: return -Double(rng.below(1000))
        case 3: return -0.0
        case 4: return .nan
        case 5: return 9.007199254740992e15 + Double(rng.below(4)) * 2
        case 6: return Double(Int64.max)
        case 7: return rng.next(in: -1e300, 1e300)
        default: return Double(rng.below(1_000_000)) / 8
        }
    }

    private func randomText(_ rng: inout SplitMix64) -> String {
        let pieces = [
            "ws.ping", "reason", "café", "cafe\u{301}", "", "\u{1F600}", "pong_timeout",
            "a somewhat longer text than fifteen bytes", "\"", "\u{0}"
        ]
        var s = ""
        for _ in 0..<rng.below(3) { s += pieces[rng.below(pieces.count)] }
        return s
    }

    private func randomValue(_ rng: inout SplitMix64, depth: Int = 0) -> Value {
        switch rng.below(depth > 2 ? 6 : 8) {
        case 0: return .null
        case 1: return .bool(rng.chance(50))
        case 2:
            return .int([0, 1, -1, Int64.max, Int64.min, Int64(rng.below(1 << 20))][rng.below(6)])
        case 3: return .double(randomTime(&rng))
        case 4: return .bigInt("123456789012345678901234567890")
        case 5: return .string(randomText(&rng))
        case 6: return .array((0..<rng.below(4)).map { _ in randomValue(&rng, depth: depth + 1) })
        default:
            return .object(
                (0..<rng.below(4)).map { _ in
                    .init(randomText(&rng), randomValue(&rng, depth: depth + 1))
                })
        }
    }

    /// A gen: mostly small, sometimes at the edges of Int64 and UInt64 (a gen past Int64 is a
    /// `.bigInt` to rules).
    private func randomGen(_ rng: inout SplitMix64) -> UInt64 {
        let small = UInt64(rng.below(1 << 40))
        return [small, small, 0, UInt64(Int64.max), UInt64(Int64.max) + 1, UInt64.max][rng.below(6)]
    }

    private func randomEvent(_ rng: inout SplitMix64, seq: Int) -> Event {
        let names = [
            "ws.ping", "ws.pong", "ws.connect_failed_with_a_long_name", "$malformed", "$custom",
            "cafe\u{301}.x", "café.x"
        ]
        let fields = (0..<rng.below(4)).map { _ in
            Event.Field(randomText(&rng), randomValue(&rng), id: Int32(rng.below(40)) - 1)
        }
        let gen = rng.chance(70) ? randomGen(&rng) : nil
        let e = Event(
            t: randomTime(&rng), ev: names[rng.below(names.count)], gen: gen,
            file: Int32(rng.below(3)), line: [1, rng.below(1_000_000), Int.max][rng.below(3)],
            fields: fields,
            redactedKeys: rng.chance(20) ? ["token", randomText(&rng)] : [],
            evID: Int32(rng.below(50)) - 1,
            pseudo: rng.chance(10))
        e.seq = seq
        return e
    }

    @Test func randomLogsComeBackExactly() {
        var rng = SplitMix64(seed: 5)
        // One table for every log, as one source's retired timelines share theirs.
        let names = EventLogNames()
        for round in 0..<400 {
            var seq = rng.below(100)
            let log: [LoggedEvent] = (0..<rng.below(30)).map { _ in
                seq += 1 + rng.below(3)
                let e = randomEvent(&rng, seq: seq)
                let clock = [-Double.infinity, e.t, e.t - 7, randomTime(&rng)][rng.below(4)]
                return LoggedEvent(e, clock)
            }
            let first: Event? =
                switch rng.below(3) {
                case 0: nil
                case 1: log.first?.event
                default: randomEvent(&rng, seq: 1)
                }
            let encoded = EncodedEventLog(log: log, first: first, names: names)
            let (decoded, decodedFirst) = encoded.decode(names: names)
            #expect(decoded.count == log.count, "round \(round)")
            for (a, b) in zip(log, decoded) {
                #expect(
                    same(a.event, b.event), "round \(round): \(a.event.ev) line \(a.event.line)")
                #expect(
                    a.clock.bitPattern == b.clock.bitPattern,
                    "round \(round): clock \(a.clock) came back as \(b.clock)")
            }
            #expect((first == nil) == (decodedFirst == nil), "round \(round)")
            if let first, let decodedFirst {
                #expect(same(first, decodedFirst), "round \(round): first")
            }
        }
    }

    @Test(
        "gens past Int64 come back exactly, and read as rules read them",
        arguments: [
            (UInt64(Int64.max), Value.int(Int64.max)),
            (UInt64(Int64.max) + 1, Value.bigInt("9223372036854775808")),
            (UInt64(Int64.max) + 2, Value.bigInt("9223372036854775809")),
            (UInt64.max, Value.bigInt("18446744073709551615"))
        ])
    func bigGensComeBack(_ gen: UInt64, _ asRead: Value) {
        let e = Event(t: 5, ev: "ws.ping", gen: gen, file: 0, line: 3)
        e.seq = 2
        let names = EventLogNames()
        let (decoded, _) = EncodedEventLog(log: [LoggedEvent(e, 5)], first: e, names: names).decode(
            names: names)
        #expect(decoded.count == 1)
        #expect(decoded.first?.event.gen == gen)
        #expect(decoded.first?.event.value(of: "gen") == asRead)
        #expect(decoded.first.map { same(e, $0.event) } == true)
    }

    /// The writer finds an `ev` name met just before by its id and its bytes: a name with the same
    /// id but other bytes (canonically equivalent, as `String`'s `==` has it) keeps its own.
    @Test func anEvNameWithTheIdOfTheOneBeforeKeepsItsOwnBytes() {
        let names = EventLogNames()
        let spellings = ["caf\u{E9}.x", "cafe\u{301}.x", "caf\u{E9}.x", "cafe\u{301}.x"]
        let log = spellings.enumerated().map { i, ev in
            let e = Event(t: Double(i), ev: ev, gen: 1, file: 0, line: i + 1, evID: 7)
            e.seq = i + 1
            return LoggedEvent(e, Double(i))
        }
        let (decoded, _) = EncodedEventLog(log: log, first: nil, names: names).decode(names: names)
        #expect(decoded.count == spellings.count)
        for (entry, ev) in zip(decoded, spellings) {
            #expect(entry.event.ev.hasSameBytes(as: ev), "\(Array(entry.event.ev.utf8))")
            #expect(entry.event.evID == 7)
        }
    }

    @Test func aHeartbeatLogTakesAFewBytesPerEvent() {
        var log: [LoggedEvent] = []
        var clock = -Double.infinity
        for i in 0..<100 {
            let t = 1_700_000_000_000 + Double(i * 500)
            let e = Event(
                t: t, ev: i % 2 == 0 ? "ws.ping" : "ws.pong", gen: 41, file: 0, line: 80_000 + 2 * i
            )
            e.seq = 80_000 + 2 * i
            log.append(LoggedEvent(e, clock))
            clock = t + 100
        }
        let names = EventLogNames()
        let encoded = EncodedEventLog(log: log, first: log[0].event, names: names)
        // Flags, t and clock as differences, ids, gen, file, line and seq differences.
        #expect(encoded.byteCount <= 100 * 14 + 16, "\(encoded.byteCount) bytes")
        #expect(encoded.decode(names: names).log.map(\.event.t) == log.map(\.event.t))
    }
}

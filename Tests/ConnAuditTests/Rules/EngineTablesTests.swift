import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// The small tables the engine keeps per rule instead of dictionaries and copies.
@Suite struct EngineTablesTests {
    @Test func aSlotTableAnswersOnlyTheSlotsItCovers() {
        var table = SlotTable<String>(covering: [41, 44, 42], [44: "d"])
        #expect(table.covers(41) && table.covers(43) && table.covers(44))
        #expect(!table.covers(40) && !table.covers(45) && !table.covers(-1))
        #expect(table[44] == "d")
        #expect(table[41] == nil)
        table[42] = "b"
        #expect(table[42] == "b")
        // A slot outside the range stores nothing and reads as absent.
        table[99] = "x"
        #expect(table[99] == nil)
        #expect(!table.covers(99))
    }

    @Test func anEmptySlotTableCoversNothing() {
        var table = SlotTable<Int>(covering: [])
        #expect(!table.covers(0))
        table[0] = 1
        #expect(table[0] == nil)
        let negative = SlotTable<Int>(covering: [-1])
        #expect(!negative.covers(-1))
    }

    @Test func anIDSetAnswersWhatItsSelectorsMayMatch() throws {
        func selector(_ text: String) throws -> Selector { try FileLoader.compileSelector(text, 0) }
        let ping = EvNames.id("ws.ping"), pong = EvNames.id("ws.pong"),
            close = EvNames.id("ws.close")
        let some = EvIDSet([try selector("{ev: ws.ping}"), try selector("{ev: [ws.pong]}")])
        #expect(some.contains(ping) && some.contains(pong))
        #expect(!some.contains(close) && !some.contains(-1) && !some.contains(Int32.max))
        #expect(!some.any)
        // One selector without `ev` names: every event, even one no rule names.
        let all = EvIDSet([try selector("{ev: ws.ping}"), try selector("{reason: x}")])
        #expect(all.any && all.contains(close) && all.contains(-1))
        #expect(!EvIDSet([]).contains(ping))
    }

    @Test func aFieldReadByIDFindsTaggedFieldsByIDAndOthersByName() {
        let reason = FieldNames.id("reason")
        let state = FieldNames.id("state")
        #expect(reason >= 0 && state >= 0 && reason != state)
        #expect(FieldNames.id("reason") == reason)
        // Built-in names are answered by the event itself: codes below -1, never a field's id.
        let codes = ["t", "ev", "gen", "$line", "$seq", "$file"].map { FieldNames.id($0) }
        #expect(codes.allSatisfy { $0 < -1 } && Set(codes).count == codes.count)

        let e = Event(
            t: 5, ev: "ws.close", gen: 2,
            fields: [
                .init("reason", .string("first"), id: reason),
                .init("state", .string("open")),  // untagged: found by its name
                .init("reason", .string("last"), id: reason)
            ])
        #expect(e.value(of: "reason", id: reason) == .string("last"))
        #expect(e.value(of: "state", id: state) == .string("open"))
        #expect(e.value(of: "missing", id: FieldNames.id("missing")) == nil)
        #expect(e.value(of: "gen", id: -1) == .int(2))
        #expect(e.value(of: "t", id: -1) == .int(5))
        // By code, as by name: the built-in values, and no gen where there is none.
        #expect(e.value(of: "gen", id: FieldNames.gen) == .int(2))
        #expect(e.value(of: "t", id: FieldNames.t) == .int(5))
        #expect(e.value(of: "ev", id: FieldNames.ev) == .string("ws.close"))
        #expect(e.value(of: "$line", id: FieldNames.line) == e.value(of: "$line"))
        #expect(Event(t: 1.5, ev: "x").value(of: "gen", id: FieldNames.gen) == nil)
        #expect(Event(t: 1.5, ev: "x").value(of: "t", id: FieldNames.t) == .double(1.5))
        // An untagged duplicate after a tagged one still wins (the last duplicate wins).
        let mixed = Event(
            t: 0, ev: "x",
            fields: [.init("reason", .string("a"), id: reason), .init("reason", .string("b"))])
        #expect(mixed.value(of: "reason", id: reason) == .string("b"))
    }

    @Test func theReaderTagsTheFieldsRulesReadWithTheirIDs() throws {
        let source = ByteSources.memory(
            Array(
                #"{"t":1,"ev":"ws.close","gen":1,"src":"d","reason":"user","other":1}"#.utf8 + [
                    0x0A
                ]), path: "x")
        let reader = FileReader(
            index: 0, path: "x", source: source, wantedFields: ["reason", "src"])
        guard case .event(let e, _, _)? = reader.next() else {
            Issue.record("expected an event")
            return
        }
        #expect(e.fields.map(\.key) == ["src", "reason"])
        #expect(e.fields.map(\.id) == [FieldNames.id("src"), FieldNames.id("reason")])
        // Decoding every key (the timeline view) tags nothing: fields are found by name.
        let all = FileReader(
            index: 0, path: "x",
            source: ByteSources.memory(Array(#"{"t":1,"ev":"a","reason":"r"}"#.utf8), path: "x"),
            wantedFields: nil)
        guard case .event(let f, _, _)? = all.next() else {
            Issue.record("expected an event")
            return
        }
        #expect(f.fields.allSatisfy { $0.id == -1 })
        #expect(f.value(of: "reason", id: FieldNames.id("reason")) == .string("r"))
    }

    @Test func capturesKeepNamesInOrderWhateverOrderTheyAreBoundIn() {
        let a = Event(t: 1, ev: "a"), b = Event(t: 2, ev: "b"), c = Event(t: 3, ev: "c")
        a.seq = 1
        b.seq = 2
        c.seq = 3
        var captures = Captures()
        captures["q"] = b
        #expect(captures.names == ["q"])
        captures["p"] = a
        captures["r"] = c
        #expect(captures.names == ["p", "q", "r"])
        captures["q"] = c  // rebinding keeps the place
        #expect(captures["q"] === c && captures.names == ["p", "q", "r"])
        captures["p"] = nil
        #expect(captures["p"] == nil && captures.names == ["q", "r"])
        #expect(captures.seqs(of: ["q", "r"]).numbers == [3, 3])
        var empty = Captures()
        empty["x"] = nil  // removing from nothing binds nothing
        #expect(empty.isEmpty)
        var other = Captures()
        other["r"] = c
        other["q"] = c
        #expect(other.sameEvents(as: captures, for: ["q", "r"]))
    }

    @Test func aHistoryCallIsAValue() {
        // Calls share one box until one of them changes: the other must not see the change.
        let a = HistoryCall(kind: .count, selector: Selector(terms: []), since: nil, slot: 7, at: 3)
        var b = a
        b.kind = .first
        b.slot = 8
        #expect(a.kind == .count && a.slot == 7)
        #expect(b.kind == .first && b.slot == 8 && b.at == 3)
    }

    @Test func valueFunctionsEvaluateEveryArgumentAndJudgeThemAfter() throws {
        func eval(_ text: String) throws -> Eval {
            let expr = try ExpressionParser.parse(text) {
                (text, offset, depth) throws(ExpressionError) in
                try FileLoader.compileSelector(text, offset, depth)
            }
            let ctx = EvalContext(
                event: Event(t: 5, ev: "x.y", fields: [.init("a", .int(3))]), params: [:],
                history: nil, files: [])
            return Evaluator.evaluate(expr, ctx)
        }
        #expect(try eval("min(a, 2)").value == .int(2))
        #expect(try eval("max(a, 2.5)").value == .int(3))
        #expect(try eval("min(a, 3.0)").value == .int(3))
        #expect(try eval("max([1, 7, 4])").value == .int(7))
        #expect(try eval("min(1, 2, 0, 3)").value == .int(0))
        #expect(try eval("min(a, missing)").value == nil)  // undecided
        #expect(try eval("min(a, 'x')").value == nil)
        #expect(try eval("pow(2, a)").value == .int(8))
        #expect(try eval("abs(0 - a)").value == .int(3))
        #expect(try eval("text(a)").value == .string("3"))
        #expect(try eval("len('abcd')").value == .int(4))
        #expect(try eval("is_int(a)").value == .bool(true))
        #expect(try eval("type(missing)").value == .string("null"))
    }
}

/// ``ValueBuckets``, the keyed index's table, against the dictionary it replaced.
@Suite struct ValueBucketsTests {
    private static func event(_ n: Int) -> Event { Event(t: Double(n), ev: "e", line: n) }

    @Test func itGroupsEventsAsADictionaryOfValuesDoes() {
        var rng = SplitMix64(seed: 5)
        let alphabet: [String] = ["a", "b", "é", "e\u{301}", "\u{212A}", "K", "7", "ﬀ", "\u{1F600}"]
        func randomKey() -> Value {
            switch rng.below(6) {
            case 0: return .int(Int64(rng.below(40)) - 20)
            case 1: return .int(Int64(bitPattern: rng.next()))
            case 2, 3:
                // Lengths around the eight-byte steps of the hash, from a small alphabet, so keys
                // repeat.
                return .string(
                    (0..<rng.below(20)).map { _ in
                        alphabet[rng.below(rng.chance(70) ? 2 : alphabet.count)]
                    }.joined())
            case 4:
                return [
                    Value.null, .bool(true), .bool(false), .double(0.5),
                    .bigInt("99999999999999999999")
                ][rng.below(5)]
            default: return .array([.int(Int64(rng.below(3))), .string(rng.chance(50) ? "x" : "y")])
            }
        }
        var buckets = ValueBuckets()
        var model: [Value: [Int]] = [:]
        for n in 0..<5_000 {
            let key = randomKey()
            buckets.append(Self.event(n), for: key)
            model[key, default: []].append(n)
        }
        #expect(buckets.count == model.count)
        for (key, lines) in model {
            #expect(buckets.events(for: key).map { $0.map(\.line) } == lines, "key \(key)")
        }
        for _ in 0..<2_000 {
            let key = randomKey()
            #expect(buckets.events(for: key)?.map(\.line) == model[key], "key \(key)")
        }
    }

    @Test func canonicallyEquivalentStringsAreOneKey() {
        var buckets = ValueBuckets()
        buckets.append(Self.event(1), for: .string("caf\u{E9}"))
        buckets.append(Self.event(2), for: .string("cafe\u{301}"))
        buckets.append(Self.event(3), for: .string("\u{212A}elvin"))
        buckets.append(Self.event(4), for: .string("Kelvin"))
        #expect(buckets.count == 2)
        #expect(buckets.events(for: .string("cafe\u{301}")).map { $0.map(\.line) } == [1, 2])
        #expect(buckets.events(for: .string("Kelvin")).map { $0.map(\.line) } == [3, 4])
        #expect(buckets.events(for: .string("cafe")) == nil)
        #expect(
            ValueBuckets.hash(.string("caf\u{E9}")) == ValueBuckets.hash(.string("cafe\u{301}")))
    }

    @Test func anEmptyTableFindsNothingAndNaNIsNeverFound() {
        var buckets = ValueBuckets()
        #expect(buckets.events(for: .int(0)) == nil)
        #expect(buckets.events(for: .string("")) == nil)
        buckets.append(Self.event(1), for: .double(.nan))
        buckets.append(Self.event(2), for: .double(.nan))
        // NaN is not equal to itself: as in a dictionary, each is its own entry and none is found.
        #expect(buckets.count == 2)
        #expect(buckets.events(for: .double(.nan)) == nil)
        buckets.append(Self.event(3), for: .string(""))
        #expect(buckets.events(for: .string("")).map { $0.map(\.line) } == [3])
    }

    @Test func anAnswerKeptWhileAnotherKeyIsLookedUpStaysAsItWas() {
        var buckets = ValueBuckets()
        buckets.append(Self.event(1), for: .string("a"))
        buckets.append(Self.event(2), for: .string("b"))
        buckets.append(Self.event(3), for: .int(7))
        buckets.append(Self.event(4), for: .int(7))
        // Keys with one event are answered from one reused list: an answer still held (a history
        // call inside another's candidates) must not change under it.
        let a = buckets.events(for: .string("a"))
        let b = buckets.events(for: .string("b"))
        let both = buckets.events(for: .int(7))
        #expect(a?.map(\.line) == [1])
        #expect(b?.map(\.line) == [2])
        #expect(both?.map(\.line) == [3, 4])
        #expect(buckets.events(for: .string("a"))?.map(\.line) == [1])
    }

    @Test func manyDistinctKeysStayFindable() {
        var buckets = ValueBuckets()
        for n in 0..<50_000 { buckets.append(Self.event(n), for: .string("id-\(n)")) }
        #expect(buckets.count == 50_000)
        #expect(buckets.events(for: .string("id-0")).map { $0.map(\.line) } == [0])
        #expect(buckets.events(for: .string("id-49999")).map { $0.map(\.line) } == [49_999])
        #expect(buckets.events(for: .string("id-50000")) == nil)
    }
}

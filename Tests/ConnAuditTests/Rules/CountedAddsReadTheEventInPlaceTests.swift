import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A counted index is given only the events whose id its term names (``CountedRows``), and reads
/// what it files them by where the event holds it: a boolean test and a short text key are not
/// copied out of the event (``Event/isBool(_:_:id:)``, ``Event/stringWords(_:id:)``,
/// ``CountedKeys/number(addingWords:)``). Each must say what a copy says.
@Suite struct CountedAddsReadTheEventInPlaceTests {
    typealias Keys = CountedKeysTests

    private static func event(_ fields: [Event.Field]) -> Event {
        Event(t: 0, ev: "x", gen: nil, fields: fields)
    }

    private static let ok = FieldNames.id("ok")
    private static let id = FieldNames.id("id")

    /// Fields tagged with an id and found by name, duplicates (the last wins), other types and
    /// absent ones: the in-place reads agree with ``Event/value(of:id:)``.
    @Test func inPlaceReadsAgreeWithACopy() {
        let values: [Value] = [
            .bool(true), .bool(false), .int(1), .double(1), .string("true"), .null,
            .string(Keys.made("528694")), .string(Keys.made("a text past fifteen bytes")),
            .string(Keys.stored("1"))
        ]
        var events: [Event] = [Self.event([])]
        for v in values {
            events.append(Self.event([Event.Field("ok", v, id: Self.ok)]))
            events.append(Self.event([Event.Field("ok", v)]))
            events.append(Self.event([Event.Field("id", v, id: Self.id)]))
            events.append(
                Self.event([Event.Field("ok", .bool(true), id: Self.ok), Event.Field("ok", v)]))
            events.append(
                Self.event([Event.Field("ok", v, id: Self.ok), Event.Field("ok", .null)]))
        }
        for e in events {
            for wanted in [true, false] {
                let copied = (e.value(of: "ok", id: Self.ok) ?? .null).looselyEquals(.bool(wanted))
                #expect(e.isBool(wanted, "ok", id: Self.ok) == copied, "\(e.fields)")
            }
            for (name, fieldID) in [("ok", Self.ok), ("id", Self.id)] {
                let words = e.stringWords(name, id: fieldID)
                if case .string(let s)? = e.value(of: name, id: fieldID) {
                    #expect(words.map { [$0.0, $0.1] } == [s.words.0, s.words.1], "\(e.fields)")
                } else {
                    #expect(words == nil, "\(e.fields)")
                }
            }
        }
    }

    /// Texts numbered by their words alone, where they allow it, get the numbers their Strings
    /// get, interleaved with texts that are not short ASCII held in place.
    @Test func textsNumberedByTheirWordsGetTheirTextsNumbers() {
        let byWords = CountedKeys()
        let byText = CountedKeys()
        var viaWords = 0
        for i in 0..<3_000 {
            let n = (i * 7919) % 1_200
            let text: String
            switch n % 5 {
            case 0: text = Keys.stored("\(n)")
            case 1: text = Keys.made("a text long enough for storage #\(n)")
            case 2: text = "caf\u{E9} \(n % 40)"
            default: text = Keys.made("\(n)")
            }
            let expected = byText.number(adding: text)
            let got: Int32
            if let n = byWords.number(addingWords: text.words) {
                viaWords += 1
                got = n
            } else {
                got = byWords.number(adding: text)
            }
            #expect(got == expected, "\(text)")
            #expect(byWords.number(of: Keys.made("never")) == nil)
        }
        #expect(byWords.count == byText.count)
        #expect(viaWords > 1_000)
    }

    /// Each id's row holds the indexes whose term names it; an id no term names reaches none.
    @Test func rowsHoldTheIndexesWhoseTermNamesTheID() throws {
        let expect =
            "count({ev: sse.processed, ok: true, where: 'text(id) == text(c.id)'}) > 0"
            + " and count({ev: [sse.event, sse.commit], where: 'text(id) == text(c.id)'}) > 0"
        let rule = try RuleRuns.rules(
            ["id: t.a\ntitle: T\nevery: { ev: sse.commit, as: c }\nexpect: \"\(expect)\""],
            file: "rules/checks.yaml")[0]
        let runner = BasicRunner(CompiledRule(rule: rule, index: 0, overrides: [:]), files: [])
        let indexes = runner.countedIndexes
        #expect(indexes.count == 2)
        let rows = CountedRows(indexes)
        for name in ["sse.processed", "sse.event", "sse.commit", "app.tick"] {
            let id = EvNames.id(name)
            var expected: UInt64 = 0
            for (i, index) in indexes.enumerated()
            where index.term.evIDs?.contains(id) ?? true {
                expected |= 1 << UInt64(i)
            }
            #expect(rows.row(for: id) == expected, "\(name)")
        }
        #expect(rows.row(for: -1) == 0 && rows.row(for: EvNames.id("app.tick")) == 0)
    }
}

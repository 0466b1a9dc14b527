import Testing

@testable import ConnAudit

/// A logged line named like one of the reader's findings (`$malformed`, `$secret`,
/// `$time_regression`) takes no id, even when a rule names the finding: the parser gives such a
/// name -1 when it first keeps it (``JSONLineParser/loggedEvID(_:)``), on every path.
@Suite struct LoggedFindingNameTests {
    static let ids: [String: Int32] = [
        "$malformed": 0, "$secret": 1, "$time_regression": 2, "x.step": 3, "$custom": 4
    ]

    static func parsed(_ text: String, parser: inout JSONLineParser) -> ParsedLine {
        var out = ParsedLine()
        Array(text.utf8).withUnsafeBufferPointer { parser.parse($0, into: &out) }
        return out
    }

    @Test(arguments: [[String]?.none, ["n"]])
    func aFindingsNameLoggedTakesNoID(wanted: [String]?) {
        var parser = JSONLineParser(wantedFields: wanted.map(Set.init), evIDs: Self.ids)
        for round in 0..<3 {
            for (name, id) in Self.ids {
                let expected: Int32 = Event.readerFindings.contains(name) ? -1 : id
                // Plain, then general (an escape), each read twice: first met and known.
                let plain = Self.parsed(
                    #"{"t":\#(round),"ev":"\#(name)","n":1}"#, parser: &parser)
                #expect(plain.malformedReason == nil)
                #expect(plain.ev == name && (plain.evID ?? -1) == expected, "\(name)")
                let general = Self.parsed(
                    #"{"t":\#(round),"ev":"\#(name)","n":"a\u0062"}"#, parser: &parser)
                #expect(general.malformedReason == nil)
                #expect(general.ev == name && (general.evID ?? -1) == expected, "\(name)")
            }
        }
    }

    @Test func theReaderGivesAFindingsNameLoggedNoID() {
        let lines = EventRing.size * 3
        let names = ["$malformed", "$secret", "$time_regression", "x.step", "$custom"]
        let text =
            (0..<lines).map { #"{"t":\#($0),"ev":"\#(names[$0 % names.count])"}"# }
            .joined(separator: "\n") + "\n"
        let malformed = EvNames.id("$malformed"), custom = EvNames.id("$custom")
        _ = (EvNames.id("$secret"), EvNames.id("$time_regression"))
        let step = EvNames.id("x.step")
        let reader = FileReader(
            index: 0, path: "forged.jsonl",
            source: ByteSources.memory(Array(text.utf8), path: "forged.jsonl"),
            wantedFields: nil)
        #expect(malformed >= 0)
        var read = 0
        while let item = reader.next() {
            guard case .event(let e, _, _) = item else { continue }
            read += 1
            #expect(!e.isPseudo)
            let expected: Int32 = e.ev == "x.step" ? step : e.ev == "$custom" ? custom : -1
            #expect(e.evID == expected, "line \(e.line): \(e.ev)")
        }
        #expect(read == lines)
    }

    @Test func theReaderGivesAnEscapedFindingsNameNoID() {
        // `\u0024` is `$`: the name is only known once its escape is decoded.
        let lines = EventRing.size * 2
        let names = [#"\u0024time_regression"#, #"\u0024malformed"#, "x.step"]
        let text =
            (0..<lines).map { #"{"t":\#($0),"ev":"\#(names[$0 % names.count])"}"# }
            .joined(separator: "\n") + "\n"
        _ = (EvNames.id("$time_regression"), EvNames.id("$malformed"))
        let step = EvNames.id("x.step")
        let reader = FileReader(
            index: 0, path: "escaped.jsonl",
            source: ByteSources.memory(Array(text.utf8), path: "escaped.jsonl"),
            wantedFields: nil)
        var read = 0
        while let item = reader.next() {
            guard case .event(let e, _, _) = item else { continue }
            read += 1
            #expect(!e.isPseudo)
            #expect(e.ev == "x.step" || e.ev == "$time_regression" || e.ev == "$malformed")
            #expect(e.evID == (e.ev == "x.step" ? step : -1), "line \(e.line): \(e.ev)")
        }
        #expect(read == lines)
    }
}

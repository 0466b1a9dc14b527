import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// ``FileReader/read()`` lends each line's event (``LentLine``): the reader's ring holds it while
/// the caller uses it, and the line's `$time_regression` is ``FileReader/regression``. It reads
/// every line as ``FileReader/next()`` does.
@Suite struct ReaderLentLineTests {
    static func reader(_ text: String) -> FileReader {
        FileReader(
            index: 0, path: "lent.jsonl",
            source: ByteSources.memory(Array(text.utf8), path: "lent.jsonl"),
            wantedFields: nil)
    }

    /// A line of each kind, and times that go back, many times round the ring.
    static let text =
        (1...(EventRing.size * 3)).map { i -> String in
            switch i % 5 {
            case 0: "not json"
            case 1: ""
            case 2: #"{"t":\#(i),"ev":"x.step","n":\#(i)}"#
            case 3: #"{"t":\#(i - 10),"ev":"x.back","src":"b"}"#
            default: #"{"t":\#(i),"ev":"x.step","src":"b","gen":\#(i)}"#
            }
        }.joined(separator: "\n") + "\n"

    /// What a line gave: its kind, event and regression as text.
    static func shown(_ e: Event?) -> String {
        guard let e else { return "-" }
        let fields = e.fields.map { "\($0.key)=\($0.value.rendered(bare: false))" }
        return "\(e.ev) t=\(e.t) line=\(e.line) gen=\(e.gen.map(String.init) ?? "-") \(fields)"
    }

    @Test func readGivesWhatNextGives() {
        var owned: [String] = []
        let first = Self.reader(Self.text)
        while let item = first.next() {
            switch item {
            case .blank: owned.append("blank")
            case .malformed(let e): owned.append("malformed " + Self.shown(e))
            case .event(let e, let id, let regression):
                owned.append("event \(id) \(Self.shown(e)) \(Self.shown(regression))")
            }
        }
        var lent: [String] = []
        let second = Self.reader(Self.text)
        var regressions = 0
        while let item = second.read() {
            switch item {
            case .blank: lent.append("blank")
            case .malformed(let e): lent.append("malformed " + Self.shown(e))
            case .event(let e, let id):
                #expect(second.hasRegression == (second.regression != nil))
                if second.hasRegression { regressions += 1 }
                lent.append(
                    "event \(id) \(Self.shown(e.takeUnretainedValue())) "
                        + Self.shown(second.regression))
            }
        }
        #expect(regressions > 0)
        #expect(lent == owned)
    }

    /// A line without a regression clears the previous line's.
    @Test func aLineAfterARegressionHasNone() {
        let reader = Self.reader(
            #"{"t":5,"ev":"a"}"# + "\n" + #"{"t":4,"ev":"a"}"# + "\n" + #"{"t":6,"ev":"a"}"# + "\n")
        var seen: [Bool] = []
        while let item = reader.read() {
            guard case .event = item else { continue }
            seen.append(reader.hasRegression)
        }
        #expect(seen == [false, true, false])
    }
}

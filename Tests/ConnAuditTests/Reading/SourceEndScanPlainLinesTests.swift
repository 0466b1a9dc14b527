import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// The pre-pass reads a plain line a word at a time (``SourceEndScan/plainScan(_:)``) and any
/// other line with the general scan. Where the plain scan answers, it must answer as the general
/// one does, or a source's end would move.
@Suite struct SourceEndScanPlainLinesTests {
    private func scans(_ line: [UInt8]) -> (plain: SourceEndScan.Line?, general: SourceEndScan.Line)
    {
        line.withUnsafeBufferPointer { (SourceEndScan.plainScan($0), SourceEndScan.scan($0)) }
    }

    /// Lines as loggers write them, with every kind of value and key connlog has.
    private static let plainLines: [String] = [
        #"{"t":2179,"src":"pixel-000001","session":"s1","ev":"ws.ping","gen":3}"#,
        #"{"t":17,"src":"pixel-000001","session":"s1","ev":"path.state","gen":1,"state":"unknown"}"#,
        #"{"t":338,"src":"a","ev":"sse.processed","id":"528694","ok":true}"#,
        #"{"t":1.5,"ev":"x.y"}"#,
        #"{"t":-1,"src":"a","ev":"ws.ping"}"#,
        #"{"t":"5","src":"a","ev":"ws.ping"}"#,
        #"{"src":"a","ev":"ws.ping"}"#,
        #"{"t":6,"src":"a"}"#,
        #"{"t":7,"src":"a","ev":""}"#,
        #"{"t":8,"src":"a","ev":5}"#,
        #"{"t":4,"src":null,"ev":"x.y"}"#,
        #"{"t":4,"src":nope,"ev":"x.y"}"#,
        #"{"t":4,"src":"a","session":null,"ev":"x.y"}"#,
        #"{"t":4,"src":42,"ev":"x.y"}"#,
        #"{"t":1,"src":"a","src":"b","ev":"x.y"}"#,
        #"{"t":1,"session":"a","src":"b","session":"c","ev":"x.y"}"#,
        #"{"t":16,"src":"b","ev":"ws.ping","t":"late"}"#,
        #"{"t":17,"ev":"ws.ping","ev":"","src":"a"}"#,
        #"{"ev":"x.y","t":1}"#,
        #"{"t":1,"ev":"x.y"} trailing"#,
        #"{"t":1,"ev":"x.y","session":"s"}"#,
        #"{"gen":1,"t":0,"ev":"ws.open","src":"d"}"#,
        #"{"tt":1,"evv":"x","srcs":"a","sessions":"b","t":2,"ev":"y.z"}"#
    ]

    @Test func plainLinesAreReadByThePlainScanAlike() {
        for line in Self.plainLines {
            let (plain, general) = scans(Array(line.utf8))
            #expect(plain != nil, "\(line) is plain")
            #expect(plain == general, "\(line)")
        }
    }

    @Test(
        "lines that are not plain go to the general scan",
        arguments: [
            #" {"t":1,"ev":"x.y"}"#,
            #"{ "t":1,"ev":"x.y"}"#,
            #"{"t" :1,"ev":"x.y"}"#,
            #"{"t": 1,"ev":"x.y"}"#,
            #"{"t":1 ,"ev":"x.y"}"#,
            #"{"t":1,"ev":"x.y","note":{"src":"z"}}"#,
            #"{"t":1,"ev":"x.y","list":[1,2]}"#,
            #"{"t":1,"src":"a\u0062","ev":"x.y"}"#,
            #"{"t":1,"src":"ipad-ü","ev":"x.y"}"#,
            #"{"t":1,"sr\u0063":"a","ev":"x.y"}"#,
            #"{}"#,
            #"{"t":1,"ev":"x.y""#,
            #"{"t":1,"ev":"x.y","x":}"#
        ])
    func notPlain(line: String) {
        #expect(scans(Array(line.utf8)).plain == nil)
    }

    /// Plain lines with bytes changed, inserted or cut at random: whatever the plain scan still
    /// answers, the general scan answers too.
    @Test func mutatedLinesAgree() {
        var rng = SplitMix64(seed: 36)
        let alphabet = Array(#"{}[]",: \tn0-1.e"tsvrcx\"#.utf8) + [0x80, 0xC3, 0x00, 0x7F]
        var answered = 0
        for round in 0..<20_000 {
            var line = Array(Self.plainLines[rng.below(Self.plainLines.count)].utf8)
            for _ in 0...rng.below(3) {
                let at = rng.below(line.count + 1)
                switch rng.below(3) {
                case 0 where at < line.count: line[at] = alphabet[rng.below(alphabet.count)]
                case 1: line.insert(alphabet[rng.below(alphabet.count)], at: at)
                default: if at < line.count { line.remove(at: at) }
                }
            }
            let (plain, general) = scans(line)
            guard let plain else { continue }
            answered += 1
            #expect(
                plain == general,
                "round \(round): \(String(decoding: line, as: UTF8.self))")
        }
        // The mutations leave many lines plain, so the comparison covers the plain scan's paths.
        #expect(answered > 5_000, "\(answered) of 20,000 mutated lines read by the plain scan")
    }

    /// A run of digits is skipped eight bytes at a time: it ends where the byte loop's ends, for
    /// runs of every length at every offset, followed by any byte or by the end.
    @Test func digitRunsEndWhereTheByteLoopEnds() {
        var rng = SplitMix64(seed: 8)
        for _ in 0..<20_000 {
            var bytes: [UInt8] = (0..<rng.below(6)).map { _ in UInt8(rng.below(256)) }
            let start = bytes.count
            bytes += (0..<rng.below(24)).map { _ in UInt8(ascii: "0") + UInt8(rng.below(10)) }
            // Then a byte of any value (digits' neighbours, high bytes), or the end.
            if rng.below(4) > 0 { bytes.append(UInt8(rng.below(256))) }
            bytes += (0..<rng.below(10)).map { _ in UInt8(rng.below(256)) }
            guard !bytes.isEmpty else { continue }
            var loop = start
            while loop < bytes.count, bytes[loop] &- 0x30 < 10 { loop += 1 }
            let words = bytes.withUnsafeBufferPointer {
                SourceEndScan.pastDigits($0.baseAddress!, start, $0.count)
            }
            #expect(words == loop, "\(bytes) from \(start)")
        }
    }
}

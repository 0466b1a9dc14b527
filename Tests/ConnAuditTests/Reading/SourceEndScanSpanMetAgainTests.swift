import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// The pre-pass takes the `src`, `session` and `ev` pairs after a line's leading `t` in one
/// comparison when their bytes are a span met before (``SourceEndScan/ScanSpan``): however the
/// pairs are written, repeated, near the line's end or too long to keep, whatever follows them,
/// and however many sources take turns, a line scans as the general scan reads it, or a source's
/// end would move.
@Suite struct SourceEndScanSpanMetAgainTests {
    @Test func spansMetAgainScanAsTheGeneralScan() {
        var spans = SourceEndScan.ScanSpans()
        var rng = SplitMix64(seed: 9201)
        var differing: [String] = []
        var plain = 0
        var previous = SourceSpanMetAgainTests.line(&rng)
        for _ in 0..<20_000 {
            // The previous line again now and then; else any line (sources taking turns).
            let text = rng.chance(30) ? previous : SourceSpanMetAgainTests.line(&rng)
            previous = text
            let (withSpans, general) = Array(text.utf8).withUnsafeBufferPointer {
                (SourceEndScan.plainScan($0, spans: &spans), SourceEndScan.scan($0))
            }
            guard let withSpans else { continue }
            plain += 1
            if withSpans != general, differing.count < 5 { differing.append(text) }
        }
        #expect(differing.isEmpty, "lines scanned otherwise: \(differing)")
        #expect(plain > 5_000, "\(plain) of 20,000 lines read by the plain scan")
        #expect(spans.keptCount > 0)
    }

    @Test func aSpanIsKeptAndStandsForTheSamePairsLater() {
        var spans = SourceEndScan.ScanSpans()
        func scan(_ text: String) -> SourceEndScan.Line? {
            Array(text.utf8).withUnsafeBufferPointer {
                SourceEndScan.plainScan($0, spans: &spans)
            }
        }
        func general(_ text: String) -> SourceEndScan.Line {
            Array(text.utf8).withUnsafeBufferPointer { SourceEndScan.scan($0) }
        }
        let head = #"{"t":1,"src":"device-1","session":"s1","ev":"ws.ping""#
        let line = head + #","gen":1,"interval_ms":100}"#
        #expect(scan(line) == general(line))
        #expect(spans.keptCount == 1)
        #expect(scan(line) == general(line))
        #expect(spans.keptCount == 1)
        // The same span, then a repeated `src` or `session`: the tally still sees the first.
        for rest in [#","src":"device-2"}"#, #","session":"s2"}"#, #","ev":"","gen":1}"#] {
            #expect(scan(head + rest) == general(head + rest), "\(rest)")
        }
        #expect(general(head + #","src":"device-2"}"#) == .unusual)
        #expect(spans.keptCount == 1)
        // A repeated `ev` among the pairs: the last wins, when the span is kept and met again.
        let twice = #"{"t":1,"src":"d3","ev":"ws.ping","ev":"ws.pong","session":"s3","#
        for _ in 0..<2 {
            #expect(scan(twice + #""gen":1}"#) == general(twice + #""gen":1}"#))
        }
        #expect(spans.keptCount == 2)
        // Values at other places of a longer `t`: bounds count from the span's start.
        let later = #"{"t":123456789,"src":"device-1","session":"s1","ev":"ws.ping","gen":2}"#
        #expect(scan(later) == general(later))
        #expect(spans.keptCount == 2)
    }
}

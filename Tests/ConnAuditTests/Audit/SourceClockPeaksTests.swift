import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// The clock's highest time since an event is the highest `t` of that event and every later one,
/// however `t` rises, falls or repeats: the peaks it keeps give way to a later `t` at or above
/// them.
@Suite struct SourceClockPeaksTests {
    @Test func theHighestTimeSinceEachEventIsTheMaximumOfTheRest() {
        var rng = SplitMix64(seed: 49)
        let sink = FindingSink(files: [])
        for _ in 0..<300 {
            let clock = SourceClock()
            var times: [Double] = []
            for seq in 1...(1 + rng.below(200)) {
                // Few distinct values, so ties are common; now and then no time at all.
                let t = rng.below(12) == 0 ? Double.nan : Double(rng.below(40)) - 10
                clock.advance(to: t, seq: seq, sink: sink)
                times.append(t)
            }
            for since in 1...(times.count + 1) {
                let rest = times.dropFirst(since - 1).filter { !$0.isNaN }
                #expect(clock.highest(since: since) == (rest.max() ?? -.infinity), "since \(since)")
            }
        }
    }
}

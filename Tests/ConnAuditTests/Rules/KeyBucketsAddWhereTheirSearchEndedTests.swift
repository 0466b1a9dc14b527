import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// A new key of ``KeyBuckets`` goes into the empty slot where the search for it ended, unless the
/// table grows first (then every key is placed again). A key put anywhere else would not be found
/// by the next search for it: its count would start again from one.
@Suite struct KeyBucketsAddWhereTheirSearchEndedTests {
    /// Keys that come again and again while the table grows past many sizes: each key's count
    /// and seqs are what a dictionary keeps, whether it came first just before a growth or just
    /// after one.
    @Test func everyKeyIsFoundAgainAcrossGrowths() {
        var rng = SplitMix64(seed: 51)
        var buckets = KeyBuckets<Int>()
        var model: [Value: [Int]] = [:]
        var keys: [Value] = []
        for seq in 0..<20_000 {
            let key: Value
            if keys.isEmpty || rng.chance(40) {
                key = rng.chance(50) ? .string("id-\(keys.count)") : .int(Int64(keys.count) * 7919)
                keys.append(key)
            } else {
                key = keys[rng.below(keys.count)]
            }
            buckets.append(seq, for: key)
            model[key, default: []].append(seq)
        }
        #expect(buckets.count == model.count)
        for (key, seqs) in model {
            #expect(buckets.count(for: key) == seqs.count, "\(key)")
            #expect(buckets.events(for: key).map(Array.init) == seqs, "\(key)")
        }
        #expect(buckets.count(for: .string("never")) == 0)
        #expect(buckets.events(for: .string("never")) == nil)
    }

    /// `count … by:` adds its keys the same way, short texts (``ShortTextNumbers``) and others.
    @Test func countsByKeyFindEveryKeyAgain() {
        var buckets = KeyCounts()
        for round in 1...3 {
            for k in 0..<3_000 {
                #expect(buckets.increment(.string("k\(k)")) == round)
                #expect(buckets.increment(.int(Int64(k))) == round)
            }
        }
        #expect(buckets.count == 6_000)
    }
}

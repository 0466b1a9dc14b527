import Testing

@testable import ConnAudit

/// A static let that is a running aggregate's `first` or `last` is read in place through one
/// code per slot (``LetTable/inPlaceEvents``), and a let the cache keeps through one mask
/// (``LetTable/cachedBits``): each must say what ``LetTable/direct`` says of the slot.
@Suite struct StaticLetsReadAggregateEventsByCodeTests {
    static let lets = [
        ("open", "first({ev: x.open})"), ("n", "count({ev: x.ping})"),
        ("prev", "last({ev: x.ping})"), ("I", "n * 10"), ("late", "last({ev: x.pong})")
    ]

    @Test func eachSlotsCodeAndCacheBitAreWhatItsDirectAggregateSays() throws {
        let defs = try Self.lets.map {
            (name: $0.0, expr: try IndexKeyAgreesWithTreeWalkerTests.parse($0.1))
        }
        // Aggregates by position: open 0, n 1, prev 2, late 3; `I` reads `n`'s.
        let table = LetTable(
            defs, staticNames: Set(Self.lets.map { $0.0 }),
            dependsOn: ["open": [0], "n": [1], "prev": [2], "I": [1], "late": [3]])
        let codes = (0..<defs.count).map { table.inPlaceEvents[$0] }
        #expect(codes == [0, -1, 5, -1, 7])
        for slot in defs.indices {
            let direct = table.direct[slot]
            let inPlace = direct.map { $0.kind == .first || $0.kind == .last } ?? false
            #expect((codes[slot] >= 0) == inPlace)
            if let direct, inPlace {
                #expect(Int(codes[slot] >> 1) == direct.aggregate)
                #expect((codes[slot] & 1 == 1) == (direct.kind == .last))
            }
            #expect((table.cachedBits & StaticLetCache.bit(slot) != 0) == (direct == nil))
        }
        // `n` is a count the aggregate answers (direct, never cached); `I` is cached.
        #expect(table.cachedBits == StaticLetCache.bit(3))
    }
}

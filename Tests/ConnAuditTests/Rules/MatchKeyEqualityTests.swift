import Testing

@testable import ConnAudit

/// A `MatchKey` holds three numbers inline and the rest in an array: two keys must be equal,
/// and hash alike, exactly when the arrays of their numbers are equal.
@Suite struct MatchKeyEqualityTests {
    @Test func keysAreEqualExactlyWhenTheirNumbersAre() {
        // Every sequence of up to five numbers from {0, 1, 2}, with 0 among them: an unused inline
        // place also holds 0, so a shorter key must not pass for a longer one ending in zeros.
        var sequences: [[Int]] = [[]]
        var frontier: [[Int]] = [[]]
        for _ in 0..<5 {
            frontier = frontier.flatMap { s in (0..<3).map { s + [$0] } }
            sequences += frontier
        }
        let keys = sequences.map(MatchKey.init)
        for (i, x) in sequences.enumerated() {
            #expect(keys[i].numbers == x)
            for (j, y) in sequences.enumerated() where (i * 31 + j) % 7 == 0 || x.count == y.count {
                #expect((keys[i] == keys[j]) == (x == y))
                if x == y { #expect(keys[i].hashValue == keys[j].hashValue) }
            }
        }
        #expect(Set(keys).count == Set(sequences).count)
    }
}

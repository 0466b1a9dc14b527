import ConnAuditTestSupport
import ConnSoak
import Testing

@testable import ConnAudit

/// The scalars every match of a pattern consumes (``BoundedRegex/Node/requiredScalars``), kept
/// as ascending lists: the same values the set operations give.
@Suite struct BoundedRegexRequiredScalarsTests {
    private static func required(_ pattern: String) throws -> [UInt32] {
        var parser = BoundedRegex.Parser(pattern)
        return try parser.parse().requiredScalars
    }

    private static func scalars(_ s: String) -> [UInt32] { s.unicodeScalars.map(\.value) }

    @Test func eachPatternRequiresTheScalarsOfEveryMatch() throws {
        #expect(try Self.required("cab") == Self.scalars("abc"))
        #expect(try Self.required("a(b|bc)d") == Self.scalars("abd"))
        #expect(try Self.required("(ab|cb|bx)") == Self.scalars("b"))
        #expect(try Self.required("x+y?z*") == Self.scalars("x"))
        #expect(try Self.required("aa{2}(a)") == Self.scalars("a"))
        #expect(try Self.required("(?i)ab") == [])
        #expect(try Self.required("^[a-z]+$") == [])
        #expect(
            try Self.required("^NSURLErrorDomain:-?[A-Za-z0-9_]+$")
                == Self.scalars(":DELNRSUaimnor"))
    }

    @Test func unionAndIntersectionAreTheSetOnes() {
        var rng = SplitMix64(seed: 37)
        for _ in 0..<500 {
            let lists = (0..<rng.below(4)).map { _ in
                Set((0..<rng.below(8)).map { _ in UInt32(rng.below(12)) }).sorted()
            }
            let union = BoundedRegex.Node.union(lists)
            #expect(union == lists.reduce(into: Set<UInt32>()) { $0.formUnion($1) }.sorted())
            if lists.count >= 2 {
                let both = BoundedRegex.Node.intersection(lists[0], lists[1])
                #expect(both == Set(lists[0]).intersection(lists[1]).sorted())
            }
        }
    }

    @Test(arguments: [
        ("a**", "quantifier '*' follows another quantifier"),
        ("a{2}{3}", "quantifier '{3}' follows another quantifier"),
        ("{2}", "quantifier '{2}' has nothing to repeat; write \\{ for a literal '{'"),
        ("^+?", "quantifier '+?' cannot repeat an anchor")
    ])
    func aQuantifierErrorQuotesItAsWritten(pattern: String, message: String) {
        #expect(throws: RegexSyntaxError.self) { try BoundedRegex(pattern) }
        do {
            _ = try BoundedRegex(pattern)
        } catch {
            #expect(error.message == message)
        }
    }
}

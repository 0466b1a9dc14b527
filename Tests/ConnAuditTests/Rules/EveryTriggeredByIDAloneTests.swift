import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// An `every` whose selector tests `ev` names alone, captures nothing, and whose expectation is an
/// expression is triggered by each event its runner handles, without the selector being matched
/// again (`BasicRunner.everyByID`). One with a field test, a `where:` or an `as:` name is matched
/// as before: only its matching events are judged, with their captures.
@Suite struct EveryTriggeredByIDAloneTests {
    private static let log = """
        {"t":0,"ev":"x.a","v":1}
        {"t":1,"ev":"x.a","v":0}
        {"t":2,"ev":"x.b","v":0,"ok":true}
        {"t":3,"ev":"x.b","v":0}
        {"t":4,"ev":"x.c","v":0}
        {"t":5,"ev":"x.b","v":2,"ok":true}
        """

    private static func violations(_ every: String) throws -> [Int] {
        let rule = """
            id: t.every
            title: Every trigger judged
            for: source
            every: \(every)
            expect: "v > 0"
            message: "v {v}"
            """
        let compiled = try RuleRuns.rules([rule], file: "rules/checks.yaml")[0]
        let result = RuleRuns.audit([compiled], files: [("a.jsonl", Self.log)]).results[0]
        #expect(result.inconclusive.isEmpty)
        return result.violations.compactMap(\.line)
    }

    @Test func namesAloneTriggerOnEachOfTheirEvents() throws {
        #expect(try Self.violations("{ ev: [x.a, x.b] }") == [2, 3, 4])
        #expect(try Self.violations("[{ ev: x.a }, { ev: x.b }]") == [2, 3, 4])
        #expect(try Self.violations("{ ev: x.c }") == [5])
    }

    @Test func aFieldTestWhereOrCaptureIsStillMatched() throws {
        #expect(try Self.violations("[{ ev: x.a }, { ev: x.b, ok: true }]") == [2, 3])
        #expect(try Self.violations("{ ev: [x.a, x.b], where: \"t >= 2\" }") == [3, 4])
        #expect(try Self.violations("{ ev: x.b, as: b }") == [3, 4])
    }
}

import Testing

@testable import ConnAudit

/// Keys of other check kinds are each reported where they stand, in a fixed order: by check
/// kind as the loader lists them (never, count, each, forbid, classify for an `every`), each
/// kind's keys sorted, so a key two other kinds take (`min`, `report_at`) is reported twice.
@Suite struct ForeignCheckKeysTests {
    @Test func keysOfOtherKindsAreReportedInTheirOrder() throws {
        let yaml = """
            rules:
              - id: a.b
                title: T
                every: {ev: x}
                expect: "true"
                min: 1
                report_at: q
                after: {ev: y}
                until: {ev: z}
            """
        let errors = try #require(loadErrors([("a.yaml", yaml)]))
        #expect(
            errors.map { "\($0.line):\($0.column) \($0.message)" } == [
                "8:12 'after' does not go with 'every'",
                "9:12 'until' does not go with 'every'",
                "6:10 'min' does not go with 'every'",
                "7:16 'report_at' does not go with 'every'",
                "7:16 'report_at' does not go with 'every'",
                "6:10 'min' does not go with 'every'"
            ])
    }

    @Test func aRuleWithOnlyItsOwnKeysHasNoSuchError() {
        let yaml = """
            rules:
              - id: a.b
                title: T
                count: {ev: x}
                min: 1
                by: gen
            """
        #expect(loadErrors([("a.yaml", yaml)]) == nil)
    }
}

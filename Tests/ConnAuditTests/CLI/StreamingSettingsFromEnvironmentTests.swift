import Testing

@testable import ConnAudit

/// The streaming limits a run takes from the environment (``StreamingSettings``): the defaults
/// where a variable is not set, its number where it is, and a usage error naming the variable,
/// never echoing its value, for anything else.
@Suite struct StreamingSettingsFromEnvironmentTests {
    private func settings(_ variables: [String: String]) throws(UsageError) -> StreamingSettings {
        try StreamingSettings.fromEnvironment { variables[$0] }
    }

    @Test func unsetVariablesLeaveTheAuditorsDefaults() throws {
        let s = try settings([:])
        #expect(s.readAheadFrom == Auditor.defaultReadAheadFrom)
        #expect(s.lightReadPart == Auditor.defaultLightReadPart)
        #expect(s.retireIdleAfter == Auditor.defaultRetireIdleAfter)
    }

    @Test func eachVariableSetsItsOwnLimit() throws {
        let s = try settings([
            "CONN_AUDIT_READ_AHEAD_FROM": "0", "CONN_AUDIT_LIGHT_READ_PART": "4096",
            "CONN_AUDIT_RETIRE_IDLE_AFTER": "3"
        ])
        #expect(s == StreamingSettings(readAheadFrom: 0, lightReadPart: 4096, retireIdleAfter: 3))
        let part = try settings(["CONN_AUDIT_LIGHT_READ_PART": "0"])
        // A part of no bytes would never end a split: one byte is the least.
        #expect(part.lightReadPart == 1)
        #expect(part.readAheadFrom == Auditor.defaultReadAheadFrom)
    }

    @Test(arguments: [
        "", "-1", "+5", "1e3", "12 ", " 12", "0x10", "99999999999999", "1099511627777"
    ])
    func aValueThatIsNotACountIsAUsageError(value: String) {
        for variable in [
            "CONN_AUDIT_READ_AHEAD_FROM", "CONN_AUDIT_LIGHT_READ_PART",
            "CONN_AUDIT_RETIRE_IDLE_AFTER"
        ] {
            do {
                _ = try settings([variable: value])
                Issue.record("\(variable)=\(value) was taken")
            } catch {
                #expect(error.description.hasPrefix("\(variable) must be a whole number"))
                #expect(value.isEmpty || !error.description.contains(value))
            }
        }
    }

    @Test func theLargestCountIsTaken() throws {
        #expect(
            try settings(["CONN_AUDIT_READ_AHEAD_FROM": "1099511627776"]).readAheadFrom == 1 << 40)
    }
}

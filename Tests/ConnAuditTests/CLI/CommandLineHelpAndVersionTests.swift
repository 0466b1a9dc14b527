import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// `--help` and `--version`.
@Suite struct CommandLineHelpAndVersionTests {
    @Test(arguments: [["--help"], ["-h"], ["help"], ["check", "--help"], ["rules", "--help"]])
    func helpExitsZero(_ arguments: [String]) {
        let run = CLI.run(arguments)
        #expect(run.code == 0)
        #expect(run.out.contains("USAGE"))
        #expect(run.out.contains("EXIT STATUS"))
        #expect(run.err.isEmpty)
    }

    @Test func versionExitsZero() {
        let run = CLI.run(["--version"])
        #expect(run.code == 0)
        #expect(run.out == "conn-audit \(ConnAuditVersion.string)\n")
    }

    @Test func versionRefusesAnArgument() {
        let run = CLI.run(["--version", "extra"])
        #expect(run.code == 2)
        #expect(run.out.isEmpty)
        #expect(run.err.contains("--version takes no argument: extra"))
    }
}

import Foundation
import ConnAuditTestSupport
import Testing
@testable import ConnAudit

/// The reports people read, on the bundled samples, compared with committed snapshots.
///
/// A change to what a report says shows up here as a diff to review. To accept an intended
/// change: `CONN_AUDIT_UPDATE_SNAPSHOTS=1 swift test --filter SnapshotTests`, then read the diff
/// of Tests/ConnAuditTests/Reports/Snapshots/ before committing it.
@Suite struct SnapshotTests {
    static let root = URL(fileURLWithPath: Repository.root)
    static let snapshots = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Snapshots")

    /// Runs the command line with paths under the repository written relative to it.
    static func run(_ args: [String]) -> (code: Int32, out: String) {
        let run = CommandLineRun(args)
        return (run.code, run.out.replacingOccurrences(of: root.path + "/", with: ""))
    }

    static func check(_ name: String, _ actual: String) throws {
        let file = snapshots.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["CONN_AUDIT_UPDATE_SNAPSHOTS"] == "1" {
            try actual.write(to: file, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: file, encoding: .utf8)
        // Column widths follow the length of the paths, which depends on where the repository is
        // checked out: compare with runs of spaces folded.
        func folded(_ s: String) -> [String] {
            s.split(separator: "\n", omittingEmptySubsequences: false).map {
                $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            }
        }
        if folded(expected) != folded(actual) {
            let a = folded(expected)
            let b = folded(actual)
            let first =
                zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(a.count, b.count)
            Issue.record(
                """
                \(name) differs from its snapshot at line \(first + 1):
                  snapshot: \(first < a.count ? String(a[first]) : "<end>")
                  actual:   \(first < b.count ? String(b[first]) : "<end>")
                (CONN_AUDIT_UPDATE_SNAPSHOTS=1 rewrites it)
                """)
        }
    }

    @Test func theTextReportOnTheSamples() throws {
        let run = Self.run([
            Self.root.appendingPathComponent("samples").path, "--color", "never", "--jobs", "1"
        ])
        #expect(run.code == 1)
        try Self.check("samples-text.txt", run.out)
    }

    @Test func theWellBehavedSamplesPass() throws {
        let dirs = ["healthy", "rotated", "uploads"].map {
            Self.root.appendingPathComponent("samples/\($0)").path
        }
        let run = Self.run(dirs + ["--color", "never"])
        #expect(run.code == 0)
        try Self.check("samples-healthy-text.txt", run.out)
    }

    @Test func theTimelineOfAFailingGeneration() throws {
        let run = Self.run([
            "timeline", Self.root.appendingPathComponent("samples").path, "--src", "ipad-b",
            "--gen", "1", "--color", "never"
        ])
        #expect(run.code == 0)
        try Self.check("timeline-ipad-b-gen1.txt", run.out)
    }

    @Test func theGitHubAnnotationsOnTheSamples() throws {
        let run = Self.run([Self.root.appendingPathComponent("samples").path, "--format", "github"])
        #expect(run.code == 1)
        try Self.check("samples-github.txt", run.out)
    }
}

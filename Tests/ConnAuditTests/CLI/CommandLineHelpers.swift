import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// Runs the command line and gives the command-line suites their fixtures.
enum CLI {
    /// Runs `conn-audit` with `arguments`, capturing its output and exit status.
    static func run(_ arguments: [String]) -> CommandLineRun { CommandLineRun(arguments) }

    /// Writes `text` to `dir/name` and returns the path.
    @discardableResult
    static func write(_ text: String, _ dir: String, _ name: String) throws -> String {
        let path = dir + "/" + name
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func ruleEntries(_ report: [String: Any]) throws -> [[String: Any]] {
        try #require(report["rules"] as? [[String: Any]])
    }

    static func ruleIDs(_ report: [String: Any]) throws -> [String] {
        try ruleEntries(report).compactMap { $0["id"] as? String }
    }

    static func entry(_ report: [String: Any], _ id: String) throws -> [String: Any] {
        try #require(
            try ruleEntries(report).first { $0["id"] as? String == id },
            "no rule \(id) in the report")
    }

    /// A log the whole built-in pack passes: no connection at all (`ws.required-outcomes` is then
    /// not applicable), nothing malformed.
    static let cleanLog = """
        {"t":0,"src":"dev1","ev":"app.launch"}
        {"t":5,"src":"dev1","ev":"app.ready"}

        """

    /// A close without a reason (`ws.close-has-reason`), after a malformed line (`log.malformed`).
    static let badLog = """
        {"t":0,"src":"dev1","ev":"app.launch"}
        not json
        {"t":7,"src":"dev1","ev":"ws.close","gen":3}

        """

    /// Three small rules: an error, a warning, and one with a param.
    static let testRules = """
        rules:
          - id: t.reason
            title: Every close has a reason
            every: { ev: ws.close }
            expect: "reason != null"
          - id: t.warn
            title: No pings
            severity: warning
            never: { ev: ws.ping }
          - id: u.limit
            title: Pongs are fast
            params: { limit_ms: 100 }
            every: { ev: ws.pong }
            expect: "delay_ms <= params.limit_ms"
        """
}

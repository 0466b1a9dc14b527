import ConnAudit

/// Rules written in a test, and a run of them over one log held in memory: what the suites that
/// compare two ways of answering a rule (counted and kept events, indexed and scanned) share.
public enum RuleRuns {
    /// The rules of one file whose entries are `bodies` (each a rule's keys, one per line).
    public static func rules(_ bodies: [String], file: String) throws -> [Rule] {
        var text = "rules:\n"
        for body in bodies {
            let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
            text += "  - " + lines.joined(separator: "\n    ") + "\n"
        }
        return try RuleLoader.load(files: [(file, text)]).rules
    }

    /// The whole audit of `log`, read as the file `path`.
    public static func audit(_ rules: [Rule], _ log: String, path: String, jobs: Int = 1) -> AuditReport {
        let bytes = Array(log.utf8)
        let auditor = Auditor(rules: RuleSet(rules: rules), jobs: jobs) { file throws(InputError) in
            ByteSources.memory(bytes, path: file.path)
        }
        return auditor.run([InputFile(path: path)])
    }
}

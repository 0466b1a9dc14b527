import ConnAudit
import Synchronization

/// Rules written in a test, and runs of them over logs held in memory: what the suites that run
/// a rule over a log they write share.
public enum RuleRuns {
    /// The rules of one file whose entries are `bodies` (each a rule's keys, one per line), with
    /// `header` (file-level keys such as `params:` and `let:`) above `rules:`.
    public static func rules(_ bodies: [String], file: String, header: String = "") throws -> [Rule]
    {
        var text = header.isEmpty ? "" : header + "\n"
        text += "rules:\n"
        for body in bodies {
            let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
            text += "  - " + lines.joined(separator: "\n    ") + "\n"
        }
        return try RuleLoader.load(files: [(file, text)]).rules
    }

    /// An opener that serves `files` from memory by path (the last of two with one path wins):
    /// a path in `unreadable` is refused ("permission denied"), and one not among `files` does
    /// not exist.
    public static func opener(
        _ files: [(path: String, bytes: [UInt8])], unreadable: Set<String> = []
    ) -> Auditor.Opener {
        let served = [String: [UInt8]](files.map { ($0.path, $0.bytes) }) { _, last in last }
        return { file throws(InputError) in
            if unreadable.contains(file.path) {
                throw InputError(path: file.path, reason: "permission denied")
            }
            guard let bytes = served[file.path] else {
                throw InputError(path: file.path, reason: "no such file or directory")
            }
            return ByteSources.memory(bytes, path: file.path)
        }
    }

    /// ``opener(_:unreadable:)`` for files given as text.
    public static func opener(
        _ files: [(path: String, text: String)], unreadable: Set<String> = []
    ) -> Auditor.Opener {
        opener(files.map { (path: $0.path, bytes: Array($0.text.utf8)) }, unreadable: unreadable)
    }

    /// The whole audit of `log`, read as the file `path`.
    public static func audit(_ rules: [Rule], _ log: String, path: String, jobs: Int = 1)
        -> AuditReport
    {
        audit(RuleSet(rules: rules), log, path: path, jobs: jobs)
    }

    /// The whole audit of `log`, read as the file `path`.
    public static func audit(_ rules: RuleSet, _ log: String, path: String, jobs: Int = 1)
        -> AuditReport
    {
        audit(rules, files: [(path, log)], jobs: jobs)
    }

    /// The whole audit of `files`, read in the order given.
    public static func audit(
        _ rules: [Rule], files: [(path: String, text: String)], overrides: [String: Value] = [:],
        jobs: Int = 1
    ) -> AuditReport {
        audit(RuleSet(rules: rules), files: files, overrides: overrides, jobs: jobs)
    }

    /// The whole audit of `files`, read in the order given.
    public static func audit(
        _ rules: RuleSet, files: [(path: String, text: String)], overrides: [String: Value] = [:],
        jobs: Int = 1
    ) -> AuditReport {
        let auditor = Auditor(rules: rules, overrides: overrides, jobs: jobs, opener: opener(files))
        return auditor.run(files.map { InputFile(path: $0.path) })
    }

    /// The whole audit of the one file `bytes`, read as `path`, reading ahead from
    /// `readAheadFrom` bytes on and allowed to open the file again; and how often it was opened.
    public static func auditCountingOpens(
        _ rules: RuleSet, _ bytes: [UInt8], path: String, jobs: Int, readAheadFrom: Int
    ) -> (report: AuditReport, opens: Int) {
        let opens = Mutex(0)
        let auditor = Auditor(
            rules: rules, jobs: jobs, readAheadFrom: readAheadFrom, rereadable: true,
            opener: { file throws(InputError) in
                opens.withLock { $0 += 1 }
                return ByteSources.memory(bytes, path: file.path)
            })
        let report = auditor.run([InputFile(path: path)])
        return (report, opens.withLock { $0 })
    }
}

import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// `conn-audit completions bash|zsh|fish`: scripts made from the commands' own option tables, run
/// in a real bash to see what they offer.
@Suite("Shell completions")
struct ShellCompletionTests {
    /// What the bash script offers for `words` (the last one being completed).
    static func complete(_ words: [String], in dir: String) throws -> [String] {
        let script = dir + "/conn-audit.bash"
        try #require(Completions.script(for: "bash")).write(
            toFile: script, atomically: true, encoding: .utf8)
        let quoted = words.map { "'" + $0 + "'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.currentDirectoryURL = URL(fileURLWithPath: dir)
        process.arguments = [
            "--norc", "-c",
            """
            source \(script)
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1)
            _conn_audit
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
            .sorted()
    }

    @Test func bashOffersWhatEachCommandTakes() throws {
        let dir = try makeTemporaryDirectory(["device.jsonl": ""])
        defer { removeTemporaryDirectory(dir) }
        #expect(try Self.complete(["conn-audit", "--fo"], in: dir) == ["--format"])
        #expect(try Self.complete(["conn-audit", "rules", "--ch"], in: dir) == ["--check"])
        #expect(try Self.complete(["conn-audit", "timeline", "--ar"], in: dir) == ["--around"])
        // An option a command does not take is not offered.
        #expect(try Self.complete(["conn-audit", "rules", "--ba"], in: dir).isEmpty)
        #expect(
            try Self.complete(["conn-audit", "logs", "-f", ""], in: dir)
                == (CommandLineTool.formats + ["partial"]).sorted())
        // `merge` has its own options, and writes every report but a partial.
        #expect(try Self.complete(["conn-audit", "merge", "--sh"], in: dir).isEmpty)
        #expect(
            try Self.complete(["conn-audit", "merge", "p.jsonl", "-f", ""], in: dir)
                == CommandLineTool.formats.sorted())
        #expect(
            try Self.complete(["conn-audit", "timeline", "x", "--format", ""], in: dir) == [
                "html", "json", "text"
            ])
        #expect(try Self.complete(["conn-audit", "x", "--fail-on", "w"], in: dir) == ["warning"])
        #expect(
            try Self.complete(["conn-audit", "x", "--only", "ws.single-c"], in: dir) == [
                "ws.single-close"
            ])
        #expect(try Self.complete(["conn-audit", "t"], in: dir) == ["timeline"])
        #expect(try Self.complete(["conn-audit", "de"], in: dir) == ["device.jsonl"])
        #expect(try Self.complete(["conn-audit", "completions", "f"], in: dir) == ["fish"])
    }

    @Test func everyOptionOfEveryCommandIsOffered() throws {
        for command in CommandLineTool.commands {
            let table = CommandLineTool.options(of: command)
            let offered = Completions.options(of: command)
            for option in table {
                #expect(offered.contains(option.name), "\(command) \(option.name)")
            }
            let fish = try #require(Completions.script(for: "fish"))
            for option in table {
                #expect(fish.contains("-l \(option.name.dropFirst(2))"), "\(option.name)")
            }
        }
    }

    @Test func theScriptsParseAndTheCommandRefusesOtherShells() throws {
        let dir = try makeTemporaryDirectory(["device.jsonl": ""])
        defer { removeTemporaryDirectory(dir) }
        for shell in ["bash", "zsh"] {
            let file = dir + "/s.\(shell)"
            try #require(Completions.script(for: shell)).write(
                toFile: file, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            // bash -n checks the syntax; zsh's script is the bash one behind bashcompinit.
            process.arguments = ["-n", file]
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(shell)")
        }
        let run = CommandLineRun(["completions", "tcsh"])
        #expect(run.code == 2 && run.err.contains("completions takes one of bash, zsh, fish"))
        #expect(
            CommandLineRun(["completions", "bash"]).out.contains(
                "complete -o filenames -F _conn_audit conn-audit"))
    }
}

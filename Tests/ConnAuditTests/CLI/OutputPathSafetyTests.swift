import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

#if canImport(Glibc)
    import Glibc
#endif

// The files a run writes never replace a file it reads, however that file is reached, and are
// written whole or not at all.

/// A log with a violation (`ws.close-has-reason`): a baseline of it is not empty.
private let log = """
    {"t":0,"src":"dev1","ev":"app.launch"}
    {"t":7,"src":"dev1","ev":"ws.close","gen":3}

    """

private func contents(_ path: String) throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: path))
}

private func inode(_ path: String) -> UInt64 {
    var info = stat()
    return stat(path, &info) == 0 ? UInt64(info.st_ino) : 0
}

/// The names in `dir` that a write left behind (its temporary files start with a dot).
private func hidden(_ dir: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(".conn-audit") }
}

@Suite struct OutputPathSafetyTests {
    /// A hard link to an input log has another name and no symbolic link to follow: only its
    /// device and inode say it is the log. Every option that writes refuses it, whichever way the
    /// log was found (named, inside a directory, gzip), and the log stays as it was.
    @Test(
        arguments: [
            (["LOG", "--format", "json", "--output", "OUT"], "--output OUT"),
            (["LOG", "--format", "json", "--report", "junit=OUT"], "--report junit=OUT"),
            (["LOG", "--write-exact-baseline", "OUT"], "--write-exact-baseline OUT"),
            (["timeline", "LOG", "--output", "OUT"], "--output OUT"),
            (["DIR", "--output", "OUT"], "--output OUT"),
            (["GZ", "--format", "sarif", "--output", "OUT"], "--output OUT"),
            (["timeline", "DIR", "--format", "html", "--output", "OUT"], "--output OUT")
        ] as [([String], String)])
    func aHardLinkToAnInputIsRefused(_ arguments: [String], _ named: String) throws {
        try withScratchDirectory("outputs") { dir in
            try FileManager.default.createDirectory(
                atPath: dir + "/logs", withIntermediateDirectories: true)
            let input: String
            if arguments.contains("GZ") {
                input = dir + "/a.jsonl.gz"
                try Data(Gzip.compress(Array(log.utf8))).write(to: URL(fileURLWithPath: input))
            } else {
                input = dir + "/logs/a.jsonl"
                try log.write(toFile: input, atomically: false, encoding: .utf8)
            }
            let out = dir + "/report.txt"
            try #require(link(input, out) == 0)
            let before = try contents(input)
            let args = arguments.map { a in
                a.replacingOccurrences(of: "LOG", with: input).replacingOccurrences(
                    of: "GZ", with: input
                )
                .replacingOccurrences(of: "DIR", with: dir + "/logs").replacingOccurrences(
                    of: "OUT", with: out)
            }
            let run = CommandLineRun(args)
            #expect(run.code == 2)
            let shownInput = arguments.contains("DIR") ? dir + "/logs/a.jsonl" : input
            let message =
                named.replacingOccurrences(of: "OUT", with: out)
                + " is one of the input logs, \(shownInput): the report would overwrite it"
            #expect(run.err.contains("conn-audit: error: " + message), "\(run.err)")
            #expect(run.out.isEmpty)
            #expect(try contents(input) == before, "the log was overwritten")
        }
    }

    /// Another spelling of an input's path (`./`), or a symbolic link to it, is the same file too.
    @Test func anotherSpellingOrALinkIsRefused() throws {
        try withScratchDirectory("outputs") { dir in
            let input = dir + "/a.jsonl"
            try log.write(toFile: input, atomically: false, encoding: .utf8)
            try FileManager.default.createSymbolicLink(
                atPath: dir + "/link.txt", withDestinationPath: "a.jsonl")
            let spelled = CommandLineRun([input, "--output", dir + "/./a.jsonl"])
            #expect(spelled.code == 2)
            #expect(
                spelled.err.contains(
                    "--output \(dir)/./a.jsonl is one of the input logs, \(input):"),
                "\(spelled.err)")
            let linked = CommandLineRun([input, "--write-exact-baseline", dir + "/link.txt"])
            #expect(linked.code == 2)
            #expect(
                linked.err.contains(
                    "--write-exact-baseline \(dir)/link.txt is one of the input logs, \(input):"),
                "\(linked.err)")
            #expect(try String(contentsOfFile: input, encoding: .utf8) == log)
        }
    }

    /// Standard input redirected from a file reads that file: a report may not replace it either.
    @Test func standardInputsFileIsRefused() throws {
        try withScratchDirectory("outputs") { dir in
            let input = dir + "/a.jsonl"
            try log.write(toFile: input, atomically: false, encoding: .utf8)
            try #require(link(input, dir + "/r.json") == 0)
            let run = try Subprocess.run(
                ["-", "--format", "json", "--output", dir + "/r.json"], scratch: dir,
                input: .file(input))
            #expect(run.code == 2)
            #expect(
                run.err.contains(
                    "--output \(dir)/r.json is one of the input logs, standard input:"),
                "\(run.err)")
            #expect(try String(contentsOfFile: input, encoding: .utf8) == log)
        }
    }

    /// A report replaces its file by a rename: a new file (another inode) with the old one's
    /// permissions, nothing left beside it; a symbolic link stays a link, and the file it names
    /// gets the report.
    @Test func aReportReplacesItsFileWhole() throws {
        try withScratchDirectory("outputs") { dir in
            let input = dir + "/a.jsonl"
            try log.write(toFile: input, atomically: false, encoding: .utf8)
            let out = dir + "/report.json"
            try "old report\n".write(toFile: out, atomically: false, encoding: .utf8)
            try #require(chmod(out, 0o640) == 0)
            let oldInode = inode(out)
            let run = CommandLineRun([input, "--format", "json", "--output", out])
            #expect(run.code == 1, "\(run.err)")
            let written = try String(contentsOfFile: out, encoding: .utf8)
            #expect(written.hasPrefix("{") && written.contains("\"verdict\": \"fail\""))
            #expect(inode(out) != oldInode, "written in place, not renamed into place")
            #expect(
                try FileManager.default.attributesOfItem(atPath: out)[.posixPermissions] as? Int
                    == 0o640)
            #expect(try hidden(dir).isEmpty)

            // A new file gets what the umask allows (the test's umask is 022 or stricter).
            let fresh = dir + "/fresh.json"
            #expect(CommandLineRun([input, "--write-exact-baseline", fresh, "--quiet"]).code == 1)
            let mask = umask(0)
            umask(mask)
            #expect(
                try FileManager.default.attributesOfItem(atPath: fresh)[.posixPermissions] as? Int
                    == 0o666 & ~Int(mask))

            try FileManager.default.createDirectory(
                atPath: dir + "/sub", withIntermediateDirectories: true)
            try "old\n".write(toFile: dir + "/sub/target.txt", atomically: false, encoding: .utf8)
            try FileManager.default.createSymbolicLink(
                atPath: dir + "/link.txt", withDestinationPath: "sub/target.txt")
            #expect(CommandLineRun([input, "--output", dir + "/link.txt"]).code == 1)
            #expect(
                try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/link.txt")
                    == "sub/target.txt")
            #expect(
                try String(contentsOfFile: dir + "/sub/target.txt", encoding: .utf8).contains(
                    "verdict: FAIL"))
            #expect(try hidden(dir).isEmpty && hidden(dir + "/sub").isEmpty)
        }
    }

    /// A write that fails half-way (here a file size limit: `ulimit -f`) leaves the old file as
    /// it was and no temporary file: the new text was never in its place.
    @Test func aFailedWriteLeavesTheOldFile() throws {
        try withScratchDirectory("outputs") { dir in
            let input = dir + "/a.jsonl"
            try log.write(toFile: input, atomically: false, encoding: .utf8)
            let out = dir + "/report.json"
            try "old report\n".write(toFile: out, atomically: false, encoding: .utf8)
            // The JSON report is several KB; one block (512 or 1,024 bytes) is too few.
            let run = try Subprocess.run(
                [input, "--format", "json", "--output", out], scratch: dir,
                shell: #"ulimit -f 1; trap '' XFSZ; exec "$@""#)
            #expect(run.code == 2)
            #expect(
                run.err.contains("conn-audit: error: cannot write \(out): file too large"),
                "\(run.err)")
            #expect(try String(contentsOfFile: out, encoding: .utf8) == "old report\n")
            #expect(try hidden(dir).isEmpty)
        }
    }

    /// Stopped by a signal mid-write (here SIGXFSZ, which a file size limit sends), the run
    /// leaves the old file as it was and removes its temporary file before it ends.
    @Test func aWriteStoppedBySignalLeavesTheOldFile() throws {
        try withScratchDirectory("outputs") { dir in
            let input = dir + "/a.jsonl"
            try log.write(toFile: input, atomically: false, encoding: .utf8)
            let out = dir + "/report.json"
            try "old report\n".write(toFile: out, atomically: false, encoding: .utf8)
            let run = try Subprocess.run(
                [input, "--format", "json", "--output", out], scratch: dir,
                shell: #"ulimit -f 1; exec "$@""#)
            #expect(run.code == 128 + SIGXFSZ)
            #expect(try String(contentsOfFile: out, encoding: .utf8) == "old report\n")
            #expect(try hidden(dir).isEmpty)
        }
    }
}

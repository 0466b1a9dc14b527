import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

// A report that cannot be written is no verdict (exit 2), and no misuse of the command line: the
// message names the file and the system's reason, with no usage hint after it.

@Suite struct WriteErrorMessageTests {
    private static let log = #"{"t":0,"src":"d","ev":"ws.close","gen":1}"# + "\n"

    /// /dev/full takes the open and fails the write: "no space left on device".
    @Test(arguments: [
        ["LOG", "--output", "/dev/full"],
        ["LOG", "--format", "json", "--output", "/dev/full"],
        ["LOG", "--quiet", "--report", "sarif=/dev/full"],
        ["LOG", "--quiet", "--write-exact-baseline", "/dev/full"],
        ["timeline", "LOG", "--output", "/dev/full"],
        ["timeline", "LOG", "--format", "html", "--output", "/dev/full"]
    ])
    func aFullDiskIsAWriteErrorNotAUsageError(_ arguments: [String]) throws {
        try withScratchDirectory("write") { dir in
            let path = dir + "/a.jsonl"
            try Self.log.write(toFile: path, atomically: false, encoding: .utf8)
            let run = CommandLineRun(arguments.map { $0 == "LOG" ? path : $0 })
            #expect(run.code == 2)
            #expect(
                run.err == "conn-audit: error: cannot write /dev/full: no space left on device\n",
                "\(run.err)")
        }
    }

    /// A report whose directory is not there fails before the run, the same way.
    @Test func aMissingDirectoryIsAWriteError() throws {
        try withScratchDirectory("write") { dir in
            let path = dir + "/a.jsonl"
            try Self.log.write(toFile: path, atomically: false, encoding: .utf8)
            let run = CommandLineRun([path, "--report", "junit=\(dir)/no/r.xml"])
            #expect(run.code == 2)
            #expect(
                run.err
                    == "conn-audit: error: cannot write \(dir)/no/r.xml: no such file or directory\n",
                "\(run.err)")
            #expect(run.out.isEmpty)
        }
    }
}

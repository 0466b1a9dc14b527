import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

// Run with standard output or input closed (`>&-`, `<&-`), conn-audit says so, instead of the
// reason of whatever descriptor took the closed one's number ("invalid argument", "bad file
// descriptor"), and no file it opens is mistaken for it.

/// A close without a reason: `ws.close-has-reason` fails.
private let log = #"{"t":0,"src":"d","ev":"ws.close","gen":1}"# + "\n"

@Suite struct ClosedStandardDescriptorTests {
    /// Whatever is printed to a closed standard output: exit 2 and one line that says it is closed.
    @Test(arguments: [
        ["LOG"], ["LOG", "--format", "json"], ["LOG", "--format", "sarif", "--jobs", "1"],
        ["timeline", "LOG"],
        ["--version"], ["rules", "--list"]
    ])
    func aClosedStandardOutputIsNamed(_ arguments: [String]) throws {
        try withScratchDirectory("closed") { dir in
            let path = dir + "/a.jsonl"
            try log.write(toFile: path, atomically: false, encoding: .utf8)
            let run = try Subprocess.run(
                arguments.map { $0 == "LOG" ? path : $0 }, scratch: dir, closedOutput: true)
            #expect(run.code == 2)
            #expect(
                run.err.hasSuffix(
                    "conn-audit: error: cannot write to standard output: standard output is closed\n"
                ),
                "\(run.err)")
        }
    }

    /// Nothing printed there, nothing lost: `--output` writes its report, the same as with a
    /// standard output; `/dev/stdout` as a report's file is the closed output.
    @Test func aReportToAFileNeedsNoStandardOutput() throws {
        try withScratchDirectory("closed") { dir in
            let path = dir + "/a.jsonl"
            try log.write(toFile: path, atomically: false, encoding: .utf8)
            let closed = try Subprocess.run(
                [path, "--format", "json", "--output", dir + "/closed.json"], scratch: dir,
                closedOutput: true)
            #expect(closed.code == 1, "\(closed.err)")
            let open = try Subprocess.run(
                [path, "--format", "json", "--output", dir + "/open.json"], scratch: dir)
            #expect(open.code == 1)
            let a = try String(contentsOfFile: dir + "/closed.json", encoding: .utf8)
            let b = try String(contentsOfFile: dir + "/open.json", encoding: .utf8)
            #expect(a == b)
            let toStdout = try Subprocess.run(
                [path, "--output", "/dev/stdout"], scratch: dir, closedOutput: true)
            #expect(toStdout.code == 2)
            #expect(
                toStdout.err
                    == "conn-audit: error: cannot write /dev/stdout: standard output is closed\n",
                "\(toStdout.err)")
        }
    }

    /// `-` with standard input closed is an input error that says so; the file beside it is
    /// checked.
    @Test func aClosedStandardInputIsNamed() throws {
        try withScratchDirectory("closed") { dir in
            let path = dir + "/a.jsonl"
            try log.write(toFile: path, atomically: false, encoding: .utf8)
            let run = try Subprocess.run(
                ["-", path, "--format", "json"], scratch: dir, input: .closed)
            #expect(run.code == 2)
            #expect(
                run.err.contains("conn-audit: error: could not read -: standard input is closed\n"),
                "\(run.err)")
            #expect(run.out.contains("\"reason\": \"standard input is closed\""))
            #expect(run.out.contains("ws.close-has-reason"))
            #expect(run.out.contains("\(path)"))
        }
    }
}

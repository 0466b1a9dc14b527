import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

#if canImport(Glibc)
    import Glibc
#endif

// Standard input read beside files is copied so it can be read again. The copy holds every
// secret of the input, raw: it lives in $TMPDIR, has no name there, and is gone with the process
// however the process ends.

/// Runs `body` with two fresh directories: one for the logs and the child's output, and an empty
/// one to be the child's `TMPDIR`. Both are removed afterwards.
private func withScratch(_ body: (_ dir: String, _ tmpdir: String) throws -> Void) throws {
    try withScratchDirectory("copy-tests") { dir in
        try FileManager.default.createDirectory(
            atPath: dir + "/tmp", withIntermediateDirectories: false)
        try body(dir, dir + "/tmp")
    }
}

/// A log with a secret and a violation; its source (`dev1`) is spread over standard input and the
/// file beside it, so the run needs to read standard input again.
private let stdinLog = """
    {"t":0,"src":"dev1","ev":"app.launch","password":"hunter2"}
    {"t":7,"src":"dev1","ev":"ws.close","gen":3}

    """
private let fileLog = """
    {"t":3,"src":"dev1","ev":"app.ready"}

    """

/// The child's descriptor that holds the copy, once it has one (at most 20 s): its number and the
/// path `/proc` gives for it. A copy made by the library in `tmpdir`, or one named like the
/// copies a run used to make anywhere (`conn-audit-stdin-…`, `conn-audit-timeline-…`), counts.
private func copyDescriptor(of child: Subprocess, tmpdir: String) throws -> (
    fd: Int32, target: String
) {
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline {
        if let found = child.openFiles().first(where: { file in
            let name = file.target.split(separator: "/").last ?? ""
            return file.fd > 2
                && (file.target.hasPrefix(tmpdir + "/") || name.hasPrefix("conn-audit-stdin-")
                    || name.hasPrefix("conn-audit-timeline-"))
        }) {
            return found
        }
        usleep(10_000)
    }
    throw SubprocessError(description: "no copy of standard input appeared in 20 s")
}

/// The size of what the child's descriptor `fd` leads to (-1: gone).
private func size(of child: Subprocess, fd: Int32) -> Int {
    var info = stat()
    return stat("/proc/\(child.pid)/fd/\(fd)", &info) == 0 ? Int(info.st_size) : -1
}

/// `target` without the ` (deleted)` `/proc` adds to a file that has no name any more.
private func named(_ target: String) -> String {
    target.hasSuffix(" (deleted)") ? String(target.dropLast(" (deleted)".count)) : target
}

private func contents(_ dir: String) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? ["(cannot list \(dir))"]
}

@Suite struct StandardInputCopyTests {
    /// Stopped by SIGTERM or SIGINT while it waits on standard input, with part of it already
    /// copied, a check or a timeline leaves nothing: not in `TMPDIR` (where the copy is made),
    /// and no file of any name where the copy was.
    @Test(
        arguments: [
            (["-", "FILE", "--quiet"], SIGTERM),
            (["-", "FILE", "--quiet"], SIGINT),
            (["timeline", "-", "FILE"], SIGTERM),
            (["timeline", "-", "FILE"], SIGINT)
        ] as [([String], Int32)])
    func aRunStoppedWhileReadingStandardInputLeavesNothing(_ arguments: [String], _ signal: Int32)
        throws
    {
        try withScratch { dir, tmpdir in
            let file = dir + "/b.jsonl"
            try fileLog.write(toFile: file, atomically: false, encoding: .utf8)
            var child = try Subprocess(
                arguments.map { $0 == "FILE" ? file : $0 }, scratch: dir, input: .pipe,
                environment: ["TMPDIR": tmpdir])
            defer {
                if kill(child.pid, 0) == 0 { kill(child.pid, SIGKILL) }
                _ = try? child.wait(timeout: 10)
            }
            let copy = try copyDescriptor(of: child, tmpdir: tmpdir)
            try child.writeInput(stdinLog)
            let deadline = Date().addingTimeInterval(20)
            while size(of: child, fd: copy.fd) < stdinLog.utf8.count, Date() < deadline {
                usleep(10_000)
            }
            #expect(
                size(of: child, fd: copy.fd) == stdinLog.utf8.count, "the copy never got the input")
            kill(child.pid, signal)
            let code = try child.wait(timeout: 20)
            #expect(code == 128 + signal, "\(child.errors)")
            #expect(
                copy.target.hasPrefix(tmpdir + "/"),
                "the copy was made outside TMPDIR: \(copy.target)")
            #expect(contents(tmpdir).isEmpty, "left in TMPDIR: \(contents(tmpdir))")
            let left = named(copy.target)
            #expect(
                !FileManager.default.fileExists(atPath: left), "the copy is still there: \(left)")
            if !left.hasPrefix(tmpdir + "/") { unlink(left) }
        }
    }

    /// A run to its end makes its copy in `TMPDIR` and leaves nothing there; the report is the one
    /// the same lines give from a file.
    @Test(arguments: [
        ["-", "FILE", "--format", "json"], ["timeline", "-", "FILE", "--format", "json"]
    ])
    func aRunToItsEndLeavesNothing(_ arguments: [String]) throws {
        try withScratch { dir, tmpdir in
            let file = dir + "/b.jsonl"
            try fileLog.write(toFile: file, atomically: false, encoding: .utf8)
            var child = try Subprocess(
                arguments.map { $0 == "FILE" ? file : $0 }, scratch: dir, input: .pipe,
                environment: ["TMPDIR": tmpdir])
            let copy = try copyDescriptor(of: child, tmpdir: tmpdir)
            #expect(
                copy.target.hasPrefix(tmpdir + "/"),
                "the copy was made outside TMPDIR: \(copy.target)")
            try child.writeInput(stdinLog)
            child.closeInput()
            let code = try child.wait(timeout: 60)
            #expect(code == (arguments[0] == "timeline" ? 0 : 1), "\(child.errors)")
            #expect(contents(tmpdir).isEmpty, "left in TMPDIR: \(contents(tmpdir))")
            #expect(!FileManager.default.fileExists(atPath: named(copy.target)))
            // The same run with standard input's lines in a file: the same merged source.
            let saved = dir + "/a.jsonl"
            try stdinLog.write(toFile: saved, atomically: false, encoding: .utf8)
            let fromFile = try Subprocess.run(
                arguments.map { $0 == "FILE" ? file : $0 == "-" ? saved : $0 },
                scratch: dir)
            #expect(child.output.replacingOccurrences(of: "<stdin>", with: saved) == fromFile.out)
        }
    }

    /// The copy has no name from the start: the directory it is made in stays empty. Readers read
    /// it from its start, each at its own offset, and where no file can be made (a directory
    /// that does not exist) the bytes are kept in memory and read the same.
    @Test(arguments: [true, false])
    func theCopyHasNoNameAndReadsBackWhole(_ inFile: Bool) throws {
        try withScratch { _, tmpdir in
            let copy = StandardInputCopy(directory: inFile ? tmpdir : tmpdir + "/missing")
            #expect(copy.isInFile == inFile)
            var written: [UInt8] = []
            for i in 0..<300 {
                let chunk = Array(
                    "{\"t\":\(i),\"ev\":\"x.y\",\"pad\":\"\(String(repeating: "p", count: i * 7))\"}\n"
                        .utf8)
                chunk.withUnsafeBytes { copy.append($0) }
                written += chunk
            }
            #expect(contents(tmpdir).isEmpty)
            let first = copy.reader(path: "-"), second = copy.reader(path: "-")
            var a: [UInt8] = [], b: [UInt8] = []
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4_093, alignment: 1)
            defer { buffer.deallocate() }
            var open = (true, true)
            while open.0 || open.1 {
                if open.0 {
                    let n = try first.read(into: buffer)
                    a += buffer[..<n]
                    open.0 = n > 0
                }
                if open.1 {
                    let n = try second.read(
                        into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<1_000]))
                    b += buffer[..<n]
                    open.1 = n > 0
                }
            }
            #expect(a == written)
            #expect(b == written)
        }
    }
}

import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

#if canImport(Glibc)
    import Glibc
#endif

// Inside a log directory, a name like a log that is not a regular file (a FIFO, a link to
// /dev/zero, a socket) is an input error that says what it is, and is never opened: a FIFO
// would wait forever for a writer, /dev/zero never end. Named on the command line, a FIFO is read.

/// Runs `body` with a fresh directory that holds an empty `logs` directory.
private func withScratch(_ body: (String) throws -> Void) throws {
    try withScratchDirectory("special") { dir in
        try FileManager.default.createDirectory(
            atPath: dir + "/logs", withIntermediateDirectories: false)
        try body(dir)
    }
}

/// A close without a reason: one violation of `ws.close-has-reason`.
private let closeWithoutReason = #"{"t":0,"src":"d","ev":"ws.close","gen":1}"# + "\n"

/// Binds a Unix socket at `path` (and closes it: the socket file stays).
private func makeSocket(_ path: String) throws {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    try #require(fd >= 0)
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    try #require(bytes.count < MemoryLayout.size(ofValue: address.sun_path))
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (i, b) in bytes.enumerated() { raw[i] = b }
    }
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    try #require(bound == 0, "bind: errno \(errno)")
}

@Suite struct SpecialFileInputTests {
    /// Each special file is named with what it is, exit 2, in bounded time; the regular log beside
    /// them is still checked. A FIFO named like a log but not like one (`other.txt`) is not looked
    /// at.
    @Test(arguments: [[], ["timeline"]])
    func aSpecialFileInADirectoryIsNamedNotRead(_ command: [String]) throws {
        try withScratch { dir in
            let logs = dir + "/logs"
            try closeWithoutReason.write(
                toFile: logs + "/a.jsonl", atomically: false, encoding: .utf8)
            try #require(mkfifo(logs + "/f.jsonl", 0o644) == 0)
            try #require(mkfifo(logs + "/other.txt", 0o644) == 0)
            try FileManager.default.createSymbolicLink(
                atPath: logs + "/z.log", withDestinationPath: "/dev/zero")
            try makeSocket(logs + "/s.ndjson.gz")
            let run = try Subprocess.run(
                command + [logs, "--format", "json"], scratch: dir, timeout: 30)
            #expect(run.code == 2)
            #expect(
                run.err.contains("could not read \(logs)/f.jsonl: not a regular file (a FIFO)\n"),
                "\(run.err)")
            #expect(
                run.err.contains(
                    "could not read \(logs)/z.log: not a regular file (a character device)\n"))
            #expect(
                run.err.contains(
                    "could not read \(logs)/s.ndjson.gz: not a regular file (a socket)\n"))
            #expect(!run.err.contains("other.txt"))
            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
            if command.isEmpty {
                // Named in the report too, and the regular log was checked.
                let errors = try #require(
                    report["input_errors"] as? [[String: Any]], "\(report.keys)")
                #expect(
                    errors.compactMap { $0["reason"] as? String }.sorted() == [
                        "not a regular file (a FIFO)", "not a regular file (a character device)",
                        "not a regular file (a socket)"
                    ])
                #expect(run.out.contains("\(logs)/a.jsonl"))
                #expect(run.out.contains("ws.close-has-reason"))
            } else {
                #expect(run.out.contains("ws.close"))
            }
        }
    }

    /// A FIFO named on the command line is read (`conn-audit <(zcat upload.jsonl.gz)`).
    @Test func aFIFONamedOnTheCommandLineIsRead() throws {
        try withScratch { dir in
            let fifo = dir + "/pipe.jsonl"
            try #require(mkfifo(fifo, 0o644) == 0)
            let writer = Thread {
                // Opening for writing waits for the reader.
                let fd = open(fifo, O_WRONLY)
                guard fd >= 0 else { return }
                let bytes = Array(closeWithoutReason.utf8)
                _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                close(fd)
            }
            writer.start()
            let run = try Subprocess.run(
                [fifo, "--format", "json", "--only", "ws.close-has-reason"], scratch: dir,
                timeout: 30)
            #expect(run.code == 1, "\(run.err)")
            #expect(run.out.contains("\"events\": 1"), "\(run.out.prefix(600))")
        }
    }
}

import ConnAuditTestSupport
import ConnPeer
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension SoakOnRealSockets {
    /// conn-soak against an independent server, PyPI's `websockets` (script/test installs
    /// it): the handshake, masking and ping/pong hold as another implementation reads them, and
    /// the heartbeat keeps every connection alive until the client ends it.
    @Suite("conn-soak against a Python websockets server")
    struct SoakAgainstPythonServerTests {
        @Test func heartbeatHoldsAndEveryRulePasses() throws {
            let server = Process()
            server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            // The server outlives the soak by far (its 20 s against the soak's 2 s and its
            // closes, even under load); the test ends it as soon as the soak is done.
            server.arguments = [
                "timeout", "30", "python3", Repository.path("Tests/Scripts/websockets-server.py"),
                "20"
            ]
            let pipe = Pipe()
            server.standardOutput = pipe
            server.standardError = FileHandle.nullDevice
            try server.run()
            defer {
                if server.isRunning { server.terminate() }
                server.waitUntilExit()
            }
            // The port line, waited for at most 10 s.
            let fd = pipe.fileHandleForReading.fileDescriptor
            var output: [UInt8] = []
            let clock = MonotonicClock()
            while !output.contains(UInt8(ascii: "\n")) && clock.elapsedMs() < 10_000 {
                var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&pfd, 1, 100) > 0 else { continue }
                var buffer = [UInt8](repeating: 0, count: 256)
                let n = read(fd, &buffer, buffer.count)
                if n <= 0 { break }
                output += buffer[0..<n]
            }
            let line = String(decoding: output, as: UTF8.self)
            let port = try #require(
                line.split(separator: " ").last.flatMap { UInt16($0.prefix { $0.isNumber }) },
                "the websockets server did not start (script/test installs websockets): '\(line)'")

            let dir = try makeTemporaryDirectory()
            defer { removeTemporaryDirectory(dir) }
            let soak = try Subprocess.run(
                [
                    "--peer", "127.0.0.1:\(port)", "--out", dir + "/logs", "--clients", "2",
                    "--duration", "2"
                ], scratch: dir, timeout: 20, program: "conn-soak")
            try #require(soak.code == 0, "\(soak.err)")
            // One server gives one outcome only: judged as a gate, coverage is not asked for.
            let audit = CommandLineRun(["check", dir + "/logs", "--format", "json", "--use", "gate"]
            )
            let statuses = try ruleStatuses(audit.out)
            let failing = statuses.filter { $0.value != "pass" && $0.value != "not_applicable" }
            #expect(failing.isEmpty, "\(audit.out)")
            // Every connection kept its heartbeat: pongs, no timeout, each ended by the client.
            for n in 1...2 {
                let log = try String(contentsOfFile: dir + "/logs/soak-\(n).jsonl", encoding: .utf8)
                let count = { (ev: String) in
                    log.components(separatedBy: #""ev":"\#(ev)""#).count - 1
                }
                #expect(count("ws.pong") >= 8, "\(log)")
                #expect(count("ws.connect") >= 2, "\(log)")
                #expect(!log.contains("pong_timeout"), "\(log)")
                #expect(!log.contains("ws.connect_failed"), "\(log)")
            }
        }
    }
}

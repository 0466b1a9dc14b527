import ConnAuditTestSupport
import ConnPeer
import ConnSoak
import Foundation
import Testing

extension SoakOnRealSockets {
    /// conn-soak's command line: bad usage is exit 2 with a message, it never connects beyond
    /// loopback, and a soak against a port where nothing listens still stops by itself.
    @Suite("conn-soak command line")
    struct SoakCommandLineTests {
        @Test(arguments: [
            (["--out", "x"], "--peer HOST:PORT is required"),
            (["--peer", "127.0.0.1:9"], "--out DIR is required"),
            (["--peer", "10.0.0.1:80", "--out", "x"], "refusing to connect to 10.0.0.1"),
            (["--peer", "example.com:80", "--out", "x"], "not an IPv4 address or localhost"),
            (["--peer", "127.0.0.1:9", "--out", "x", "--clients", "65"], "--clients must be"),
            (["--peer", "127.0.0.1:9", "--out", "x", "--bug", "nope"], "--bug must be one of"),
            (["--frobnicate"], "unknown argument '--frobnicate'")
        ])
        func badUsageExitsTwo(arguments: [String], message: String) throws {
            let dir = try makeTemporaryDirectory()
            defer { removeTemporaryDirectory(dir) }
            let run = try Subprocess.run(arguments, scratch: dir, timeout: 10, program: "conn-soak")
            #expect(run.code == 2)
            #expect(run.err.contains(message), "\(run.err)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/x"))
        }

        /// A mistyped option's value may be a secret: the message names the option only.
        @Test func unknownOptionValueIsNotEchoed() throws {
            let dir = try makeTemporaryDirectory()
            defer { removeTemporaryDirectory(dir) }
            let run = try Subprocess.run(
                ["--peer", "127.0.0.1:9", "--out", "x", "--token=s3cr3t-value"], scratch: dir,
                timeout: 10, program: "conn-soak")
            #expect(run.code == 2)
            #expect(run.err.contains("unknown argument '--token'"), "\(run.err)")
            #expect(!run.err.contains("s3cr3t"), "\(run.err)")
            for bad in [["--clients=s3cr3t"], ["--seed=s3cr3t"], ["--bug=s3cr3t"]] {
                let run = try Subprocess.run(
                    ["--peer", "127.0.0.1:9", "--out", "x"] + bad, scratch: dir, timeout: 10,
                    program: "conn-soak")
                #expect(run.code == 2)
                #expect(!run.err.contains("s3cr3t"), "\(run.err)")
            }
        }

        /// Logs an earlier run left in DIR are removed, so conn-audit DIR judges this run only;
        /// other files stay.
        @Test func earlierLogsAreRemoved() throws {
            let dir = try makeTemporaryDirectory()
            defer { removeTemporaryDirectory(dir) }
            let logs = dir + "/logs"
            try FileManager.default.createDirectory(
                atPath: logs + "/soak-9.jsonl", withIntermediateDirectories: true)
            for name in ["soak-2.jsonl", "soak-sse-1.jsonl", "notes.txt"] {
                try "{}\n".write(toFile: logs + "/" + name, atomically: false, encoding: .utf8)
            }
            let listener = try Listener(try ListenAddress.parse("127.0.0.1:0"))
            let port = listener.port
            listener.close()
            let run = try Subprocess.run(
                [
                    "--peer", "127.0.0.1:\(port)", "--out", logs, "--clients", "1", "--duration",
                    "1", "--max-attempts", "1"
                ], scratch: dir, timeout: 20, program: "conn-soak")
            #expect(run.code == 0, "\(run.err)")
            let names = try FileManager.default.contentsOfDirectory(atPath: logs).sorted()
            // A directory of a log's name is not removed.
            #expect(names == ["notes.txt", "soak-1.jsonl", "soak-9.jsonl"], "\(names)")
        }

        @Test func helpListsTheBugs() throws {
            let dir = try makeTemporaryDirectory()
            defer { removeTemporaryDirectory(dir) }
            let run = try Subprocess.run(
                ["--help"], scratch: dir, timeout: 10, program: "conn-soak")
            #expect(run.code == 0)
            for bug in PlantedBug.allCases {
                #expect(run.out.contains(bug.rawValue), "\(bug)")
            }
            let widest = run.out.split(separator: "\n").map(\.count).max() ?? 0
            #expect(widest <= 96, "\(run.out)")
        }

        /// Nothing listens: every attempt fails, the client gives up after --max-attempts, and the
        /// log shows each failure and each reconnect, within the limit.
        @Test func noPeerMeansFailuresUntilTheLimit() throws {
            let dir = try makeTemporaryDirectory()
            defer { removeTemporaryDirectory(dir) }
            // A port just released: nothing listens on it.
            let listener = try Listener(try ListenAddress.parse("127.0.0.1:0"))
            let port = listener.port
            listener.close()
            let run = try Subprocess.run(
                [
                    "--peer", "127.0.0.1:\(port)", "--out", dir + "/logs", "--clients", "1",
                    "--duration", "5", "--max-attempts", "2"
                ], scratch: dir, timeout: 20, program: "conn-soak")
            #expect(run.code == 0, "\(run.err)")
            let log = try String(contentsOfFile: dir + "/logs/soak-1.jsonl", encoding: .utf8)
            let events = try log.split(separator: "\n").map { line in
                try jsonObject(String(line))["ev"] as? String ?? ""
            }
            #expect(events.filter { $0 == "ws.connect_failed" }.count == 3, "\(log)")
            #expect(events.filter { $0 == "ws.reconnect" }.count == 2, "\(log)")
            #expect(log.contains("POSIXError.ECONNREFUSED"))
        }
    }
}

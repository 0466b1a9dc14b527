import ConnAuditTestSupport
import ConnPeer
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A soak on real sockets: conn-peer in this process, conn-soak as a child process, and
/// conn-audit's JSON report of the client logs.
///
/// Bounded: the peer stops by itself one second after the soak's duration; conn-soak is killed
/// (and the test fails) if it runs 20 s past its own.
struct SoakRun {
    /// The report, as conn-audit's JSON.
    let report: String
    /// Each rule's status, by id.
    let statuses: [String: String]
    /// The lines of each client's log, by file name (`soak-1.jsonl`).
    let logs: [String: [String]]

    /// The rules that did not pass (not applicable counts as passing).
    var failing: [String] {
        statuses.filter { $0.value != "pass" && $0.value != "not_applicable" }.keys.sorted()
    }

    /// Runs conn-soak with `arguments` (besides --peer and --out) for `duration` seconds against a
    /// peer playing `scenario` (YAML; nil: the default mix), and audits with `auditArguments`.
    init(
        scenario: String? = nil, duration: Int, _ arguments: [String],
        auditArguments: [String] = []
    ) throws {
        let (port, stopped) = try Self.startPeer(scenario: scenario, duration: duration)
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let soak = try Subprocess.run(
            [
                "--peer", "127.0.0.1:\(port)", "--out", dir + "/logs",
                "--duration", String(duration)
            ] + arguments,
            scratch: dir, timeout: Double(duration + 20), program: "conn-soak")
        _ = stopped.wait(timeout: .now() + .seconds(duration + 10))
        try #require(soak.code == 0, "conn-soak failed: \(soak.err)")
        var logs: [String: [String]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: dir + "/logs") {
            let text = try String(contentsOfFile: dir + "/logs/" + name, encoding: .utf8)
            logs[name] = text.split(separator: "\n").map(String.init)
        }
        self.logs = logs
        let audit = CommandLineRun(["check", dir + "/logs", "--format", "json"] + auditArguments)
        report = audit.out
        statuses = try ruleStatuses(audit.out)
    }

    /// Starts conn-peer in this process, playing `scenario` (YAML; nil: the default mix) for
    /// `duration` seconds and one more; its port, and a semaphore signalled when it stopped.
    static func startPeer(scenario: String?, duration: Int) throws -> (
        port: UInt16, stopped: DispatchSemaphore
    ) {
        let mix =
            try scenario.map { try ScenarioLoader.load($0, path: "scenario.yaml") }
            ?? Scenario.defaultMix
        let listener = try Listener(try ListenAddress.parse("127.0.0.1:0"))
        let server = PeerServer(
            listener: listener,
            options: PeerServer.Options(
                scenario: mix, maxConnections: 1000, durationS: duration + 1,
                idleTimeoutMs: 10_000),
            log: try PeerLog(path: nil, clock: MonotonicClock()))
        let stopped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = server.run()
            stopped.signal()
        }
        return (listener.port, stopped)
    }

    /// The count of each outcome `ws.required-outcomes` saw.
    func outcomes() throws -> [String: Int] {
        let entry = try ruleEntry(report, "ws.required-outcomes")
        return try #require(entry["labels"] as? [String: Int], "no labels in \(entry)")
    }
}

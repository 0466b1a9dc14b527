import ConnAuditTestSupport
import ConnPeer
import Foundation
import Testing

@testable import ConnSoak

/// One soak client run in this process against conn-peer (also in this process), so a test can
/// reach the client's write hook; then conn-audit's JSON report of its log.
///
/// Bounded: the client stops by itself after `durationMs` and its last closes; the peer one
/// second after the duration.
struct SoakClientRun {
    /// The client's events, in log order.
    let events: [[String: Any]]
    /// The client's log.
    let text: String
    /// The report, as conn-audit's JSON.
    let report: String
    /// Each rule's status, by id.
    let statuses: [String: String]

    /// The rules that did not pass (not applicable counts as passing).
    var failing: [String] {
        statuses.filter { $0.value != "pass" && $0.value != "not_applicable" }.keys.sorted()
    }

    /// Runs one client for `durationMs` against a peer playing `scenario`, with the options
    /// `configure` sets, and audits its log with `--use gate` (one client: no corpus coverage).
    init(
        scenario: String, durationMs: Int, configure: (inout SoakClient.Options) -> Void
    ) throws {
        let (port, stopped) = try SoakRun.startPeer(
            scenario: scenario, duration: (durationMs + 999) / 1000)
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        var options = SoakClient.Options(
            address: try PeerAddress.parse("127.0.0.1:\(port)"), durationMs: durationMs)
        configure(&options)
        let log = try SoakLog(path: dir + "/soak-1.jsonl", src: "soak-1", session: "s")
        SoakClient(options: options, log: log).run()
        _ = stopped.wait(timeout: .now() + .seconds(10))

        text = try String(contentsOfFile: dir + "/soak-1.jsonl", encoding: .utf8)
        events = try text.split(separator: "\n").map { try jsonObject(String($0)) }
        let audit = CommandLineRun(["check", dir, "--format", "json", "--use", "gate"])
        report = audit.out
        statuses = try ruleStatuses(audit.out)
    }

    /// The events of generation `gen` and the reconnects, each as its name followed by its
    /// reason and error if it has them (`ws.close pong_timeout`).
    func names(gen: Int) -> [String] {
        events.filter { $0["gen"] as? Int == gen || $0["ev"] as? String == "ws.reconnect" }
            .map { event in
                [event["ev"] as? String, event["reason"] as? String, event["error"] as? String]
                    .compactMap { $0 }.joined(separator: " ")
            }
    }
}

/// A write hook that fails the client's first ping with `error`, sending nothing; with `blocks`,
/// after waiting all the time the write is given, as a write to a full socket does. Every other
/// write goes out on the real socket.
final class FirstPingFails {
    let error: String
    let blocks: Bool
    private var pings = 0

    init(with error: String, blocks: Bool = false) {
        self.error = error
        self.blocks = blocks
    }

    func fault(_ frame: Frame, _ timeoutMs: Int) -> String? {
        guard frame.opcode == .ping else { return nil }
        pings += 1
        guard pings == 1 else { return nil }
        if blocks { usleep(UInt32(timeoutMs) * 1000) }
        return error
    }
}

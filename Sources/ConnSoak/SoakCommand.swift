import ConnAudit
import ConnPeer
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The `conn-soak` command line: options, help, and a run with exit statuses 0 (the soak ran),
/// 1 (a log could not be written), 2 (bad usage).
public enum SoakCommand {
    public static let help = """
        conn-soak: a reference WebSocket client that soaks a test peer and logs connlog

        Usage: conn-soak --peer HOST:PORT --out DIR [options]

        Runs N clients, each on its own thread, for S seconds. Each connects to the peer, keeps a
        heartbeat (a ping one interval after the open and after each on-time pong; no pong
        before the deadline closes the connection), ends a healthy connection after
        --session-ms, and reconnects with backoff and jitter, at most --max-attempts times in a
        row. Each client writes its own connlog file, DIR/soak-N.jsonl, for conn-audit.
        docs/conn-soak.md describes the models and the planted bugs.

        It connects to loopback only and stops by itself after --duration seconds (its last
        closes get at most one more second).

        Options:
          --peer HOST:PORT      the peer (conn-peer); HOST is 127.x.x.x or localhost
          --out DIR             where the logs go (created if missing); the soak-*.jsonl
                                files of an earlier run there are removed first
          --clients N           clients at once (default 4, at most 64)
          --sse-clients N       SSE clients besides them (default 0, at most 64): each reads
                                GET /events, commits each event's id after handling it, and
                                resumes with Last-Event-ID; logs DIR/soak-sse-N.jsonl
          --duration S          seconds to run (default 10, at most 3600)
          --seed N              seed of the jitter and the keys (default 1); the same seed
                                gives the same delays
          --interval-ms MS      heartbeat interval (default 100)
          --timeout-ms MS       pong timeout (default 1000)
          --session-ms MS       how long a healthy connection lives (default 500)
          --max-attempts N      reconnect attempts in a row before giving up (default 10)
          --bug NAME            plant a seed's bug, one of:
        \(bugList)
          -h, --help            this text

        Examples:
          conn-peer --listen 127.0.0.1:8765 &
          conn-soak --peer 127.0.0.1:8765 --clients 4 --duration 5 --out soak/
          conn-audit soak/

        """

    /// The planted bugs' names, wrapped under the help's option text (at most 96 columns).
    private static var bugList: String {
        let indent = String(repeating: " ", count: 24)
        var lines: [String] = []
        var line = indent
        let names = PlantedBug.allCases.map(\.rawValue)
        for (i, name) in names.enumerated() {
            let word = name + (i < names.count - 1 ? "," : "")
            if line.count > indent.count && line.count + 1 + word.count > 96 {
                lines.append(line)
                line = indent
            }
            line += (line.count > indent.count ? " " : "") + word
        }
        return (lines + [line]).joined(separator: "\n")
    }

    struct Settings {
        var peer: String?
        var out: String?
        var clients = 4
        var sseClients = 0
        var durationS = 10
        var seed: UInt64 = 1
        var intervalMs = 100
        var timeoutMs = 1000
        var sessionMs = 500
        var maxAttempts = 10
        var bug: PlantedBug?
        var help = false
    }

    /// Parses `arguments` (without the program name); a message for people on bad usage.
    static func parse(_ arguments: [String]) throws(UsageError) -> Settings {
        var settings = Settings()
        var reader = OptionReader(arguments, program: "conn-soak")
        while let name = reader.next() {
            switch name {
            case "-h", "--help": settings.help = true
            case "--peer": settings.peer = try reader.value()
            case "--out": settings.out = try reader.value()
            case "--clients": settings.clients = try reader.number(in: 1...64)
            case "--sse-clients": settings.sseClients = try reader.number(in: 0...64)
            case "--duration": settings.durationS = try reader.number(in: 1...3600)
            case "--seed":
                guard let seed = UInt64(try reader.value()) else {
                    throw UsageError("--seed must be a whole number from 0")
                }
                settings.seed = seed
            case "--interval-ms": settings.intervalMs = try reader.number(in: 1...60_000)
            case "--timeout-ms": settings.timeoutMs = try reader.number(in: 1...60_000)
            case "--session-ms": settings.sessionMs = try reader.number(in: 0...600_000)
            case "--max-attempts": settings.maxAttempts = try reader.number(in: 1...100)
            case "--bug":
                guard let bug = PlantedBug(rawValue: try reader.value()) else {
                    let names = PlantedBug.allCases.map(\.rawValue).joined(separator: ", ")
                    throw UsageError("--bug must be one of: \(names)")
                }
                settings.bug = bug
            default: throw reader.unknown()
            }
        }
        return settings
    }

    /// Runs the command; returns its exit status.
    public static func run(_ arguments: [String]) -> Int32 {
        let settings: Settings
        let address: PeerAddress
        do {
            settings = try parse(arguments)
            if settings.help {
                fputs(help, stdout)
                return 0
            }
            guard let peer = settings.peer else { throw UsageError("--peer HOST:PORT is required") }
            guard settings.out != nil else { throw UsageError("--out DIR is required") }
            address = try PeerAddress.parse(peer)
        } catch {
            fputs("conn-soak: error: \(error)\n", stderr)
            return 2
        }
        let out = settings.out ?? "."
        do {
            try FileManager.default.createDirectory(
                atPath: out, withIntermediateDirectories: true)
        } catch {
            fputs("conn-soak: error: cannot create \(out)\n", stderr)
            return 1
        }
        // An earlier run's logs left in DIR would be judged with this run's: they go first.
        // unlink removes files only: a directory of that name stays (EISDIR).
        for name in (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []
        where name.hasPrefix("soak-") && name.hasSuffix(".jsonl") {
            guard unlink(out + "/" + name) == 0 || errno == ENOENT || errno == EISDIR else {
                fputs("conn-soak: error: cannot remove the earlier log \(out)/\(name)\n", stderr)
                return 1
            }
        }
        var clients: [() -> Void] = []
        do {
            for n in 1...settings.clients {
                let log = try SoakLog(
                    path: out + "/soak-\(n).jsonl", src: "soak-\(n)", session: "run-\(getpid())")
                var options = SoakClient.Options(
                    address: address, durationMs: settings.durationS * 1000)
                options.intervalMs = settings.intervalMs
                options.timeoutMs = settings.timeoutMs
                options.sessionMs = settings.sessionMs
                options.maxAttempts = settings.maxAttempts
                options.seed = settings.seed &+ UInt64(n) &* 0x9E37_79B9_7F4A_7C15
                options.bug = settings.bug
                let client = SoakClient(options: options, log: log)
                clients.append { client.run() }
            }
            for n in stride(from: 1, through: settings.sseClients, by: 1) {
                let log = try SoakLog(
                    path: out + "/soak-sse-\(n).jsonl", src: "soak-sse-\(n)",
                    session: "run-\(getpid())")
                let client = SSEClient(
                    options: SSEClient.Options(
                        address: address, durationMs: settings.durationS * 1000, bug: settings.bug),
                    log: log)
                clients.append { client.run() }
            }
        } catch {
            fputs("conn-soak: error: \(error)\n", stderr)
            return 1
        }
        let done = DispatchSemaphore(value: 0)
        for client in clients {
            Thread.detachNewThread {
                client()
                done.signal()
            }
        }
        // Each client ends by itself within its duration plus its last closes; the wait is
        // bounded anyway.
        let limit = DispatchTime.now() + .seconds(settings.durationS + 10)
        var finished = 0
        while finished < clients.count, done.wait(timeout: limit) == .success { finished += 1 }
        fputs(
            "conn-soak: \(finished) of \(clients.count) clients finished; logs in \(out)\n", stderr)
        return finished == clients.count ? 0 : 1
    }
}

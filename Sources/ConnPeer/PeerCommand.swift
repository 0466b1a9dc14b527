import ConnAudit
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The `conn-peer` command line: options, help, and a run with exit statuses 0 (stopped by its
/// bounds), 1 (could not listen or write its log), 2 (bad usage or scenario).
public enum PeerCommand {
    public static let help = """
        conn-peer: a WebSocket and SSE server that misbehaves on purpose, for testing clients

        Usage: conn-peer [--listen HOST:PORT] [--scenario FILE] [--log FILE] [options]

        Each connection is played from a scenario: the n-th WebSocket connection follows the
        n-th entry of the scenario's 'websocket' list, the n-th SSE request (any other GET) the
        n-th entry of its 'sse' list, each list starting over when it runs out. Without a
        scenario, WebSocket clients that connect again and again meet, in turn: pongs at once,
        pongs 2 s late, a close (1001) right after the handshake, and a connection closed before
        the handshake. docs/conn-peer.md describes the scenario format.

        It listens on loopback only and stops by itself, after --max-connections connections
        (once they end) or after --duration seconds, whichever comes first.

        Options:
          --listen HOST:PORT       where to listen (default 127.0.0.1:0); HOST is 127.x.x.x,
                                   localhost or [::1]; port 0 picks a free port. The address is
                                   printed on standard output as 'listening 127.0.0.1:PORT'.
          --scenario FILE          the scenario (YAML); errors are 'FILE:LINE:COLUMN: error: ...'
          --log FILE               write the peer's side of every connection as connlog (JSON
                                   Lines, stream 'peer'), readable by conn-audit
          --max-connections N      stop after N connections (default 1000)
          --duration S             stop after S seconds (default 600)
          --idle-timeout-ms MS     close a connection silent for MS ms (default 10000; a
                                   scenario's idle_timeout_ms wins)
          --check                  read the scenario, report errors, and exit without listening
          -h, --help               this text

        Examples:
          conn-peer --listen 127.0.0.1:8765 --log peer.jsonl
          conn-peer --listen 127.0.0.1:0 --scenario flaky.yaml --duration 30
          conn-peer --scenario flaky.yaml --check

        """

    struct Settings {
        var listen = "127.0.0.1:0"
        var scenarioPath: String?
        var logPath: String?
        var maxConnections = 1000
        var durationS = 600
        var idleTimeoutMs = 10_000
        var check = false
        var help = false
    }

    /// Parses `arguments` (without the program name); a message for people on bad usage.
    static func parse(_ arguments: [String]) throws(UsageError) -> Settings {
        var settings = Settings()
        var reader = OptionReader(arguments, program: "conn-peer")
        while let name = reader.next() {
            switch name {
            case "-h", "--help": settings.help = true
            case "--check": settings.check = true
            case "--listen": settings.listen = try reader.value()
            case "--scenario": settings.scenarioPath = try reader.value()
            case "--log": settings.logPath = try reader.value()
            case "--max-connections": settings.maxConnections = try reader.number(in: 1...1_000_000)
            case "--duration": settings.durationS = try reader.number(in: 1...86_400)
            case "--idle-timeout-ms": settings.idleTimeoutMs = try reader.number(in: 1...600_000)
            default: throw reader.unknown()
            }
        }
        return settings
    }

    /// Runs the command; returns its exit status. `out` gets the listening line, `err` errors.
    public static func run(_ arguments: [String]) -> Int32 {
        let settings: Settings
        do {
            settings = try parse(arguments)
        } catch {
            fputs("conn-peer: error: \(error)\n", stderr)
            return 2
        }
        if settings.help {
            fputs(help, stdout)
            return 0
        }
        var scenario = Scenario.defaultMix
        if let path = settings.scenarioPath {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                fputs("conn-peer: error: cannot read scenario \(path)\n", stderr)
                return 2
            }
            do {
                scenario = try ScenarioLoader.load(text, path: path)
            } catch {
                fputs("\(error)\n", stderr)
                return 2
            }
        }
        if settings.check {
            print("\(settings.scenarioPath ?? "the default mix"): ok")
            return 0
        }
        let address: ListenAddress
        do {
            address = try ListenAddress.parse(settings.listen)
        } catch {
            fputs("conn-peer: error: \(error)\n", stderr)
            return 2
        }
        let clock = MonotonicClock()
        do {
            let log = try PeerLog(path: settings.logPath, clock: clock)
            let listener = try Listener(address)
            print("listening \(listener.address)")
            fflush(stdout)
            log.write(
                "peer.start",
                [
                    "port": .int(Int(listener.port)),
                    "scenario": .string(settings.scenarioPath.map { _ in "file" } ?? "default")
                ])
            let server = PeerServer(
                listener: listener,
                options: PeerServer.Options(
                    scenario: scenario, maxConnections: settings.maxConnections,
                    durationS: settings.durationS, idleTimeoutMs: settings.idleTimeoutMs),
                log: log)
            let reason = server.run()
            fputs("conn-peer: stopped (\(reason))\n", stderr)
            return 0
        } catch {
            fputs("conn-peer: error: \(error)\n", stderr)
            return 1
        }
    }
}

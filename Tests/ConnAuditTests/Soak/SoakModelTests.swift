import ConnAudit
import ConnAuditTestSupport
import ConnSoak
import Foundation
import Testing

/// The client's models, offline: the seeds' heartbeat assertions (000/001), the backoff's range
/// and limit (002), and the loopback-only address.
@Suite("conn-soak models")
struct SoakModelTests {
    /// The seed's own assertions, step for step.
    @Test func heartbeatKeepsGenerationsApart() {
        var h = Heartbeat(interval: 100, timeout: 1000)
        let first = h.connect()
        h.opened(first, now: 0)
        let at99 = h.tick(now: 99)
        #expect(at99 == nil)
        let at100 = h.tick(now: 100)
        #expect(at100 == .ping(first))
        let at1099 = h.tick(now: 1099)
        #expect(at1099 == nil)
        h.pong(first, now: 1100)
        let at1100 = h.tick(now: 1100)
        #expect(at1100 == .close(first))

        let second = h.connect()
        h.opened(first, now: 1200)
        #expect(h.phase == .connecting)
        h.opened(second, now: 2000)
        let at2100 = h.tick(now: 2100)
        #expect(at2100 == .ping(second))
        let stale = h.pong(first, now: 2150)
        #expect(!stale)
        let at3100 = h.tick(now: 3100)
        #expect(at3100 == .close(second))

        let third = h.connect()
        h.opened(third, now: 4000)
        let at4100 = h.tick(now: 4100)
        #expect(at4100 == .ping(third))
        let answered = h.pong(third, now: 4200)
        #expect(answered)
        let at4299 = h.tick(now: 4299)
        #expect(at4299 == nil)
        let at4300 = h.tick(now: 4300)
        #expect(at4300 == .ping(third))
    }

    /// The planted bug: without the generation check the old pong extends the new connection.
    @Test func stalePongBugExtendsTheNewConnection() {
        var h = Heartbeat(interval: 100, timeout: 1000)
        h.checksPongGeneration = false
        let first = h.connect()
        h.opened(first, now: 0)
        _ = h.tick(now: 100)
        let second = h.connect()
        h.opened(second, now: 2000)
        let at2100 = h.tick(now: 2100)
        #expect(at2100 == .ping(second))
        let extended = h.pong(first, now: 2150)
        #expect(extended)
        // A second ping where the close was due, and the close one timeout later.
        let at3100 = h.tick(now: 3100)
        #expect(at3100 == .ping(second))
        let at4099 = h.tick(now: 4099)
        #expect(at4099 == nil)
        let at4100 = h.tick(now: 4100)
        #expect(at4100 == .close(second))
    }

    @Test func oneCloseForOneFailure() {
        var h = Heartbeat(interval: 100, timeout: 1000)
        let gen = h.connect()
        h.opened(gen, now: 0)
        h.opened(gen, now: 50)
        let unasked = h.pong(gen, now: 60)
        #expect(!unasked)
        let at100 = h.tick(now: 100)
        #expect(at100 == .ping(gen))
        let at1100 = h.tick(now: 1100)
        #expect(at1100 == .close(gen))
        let at1200 = h.tick(now: 1200)
        #expect(at1200 == nil)
        let at5000 = h.tick(now: 5000)
        #expect(at5000 == nil)
    }

    @Test(arguments: [UInt64(1), 7, 12345])
    func backoffStaysInItsRangeAndStopsAtTheLimit(seed: UInt64) {
        var backoff = Backoff(maxAttempts: 10, seed: seed)
        for attempt in 1...10 {
            let next = backoff.next()
            let base = min((1 << attempt) * 100, 10_000)
            #expect(next?.attempt == attempt)
            #expect((base / 2...base).contains(next?.delayMs ?? -1))
        }
        let past = backoff.next()
        #expect(past == nil)
        backoff.reset()
        let again = backoff.next()
        #expect(again?.attempt == 1)
    }

    @Test func offByOneLetsOneMoreAttemptThrough() {
        var backoff = Backoff(maxAttempts: 3, seed: 1)
        backoff.offByOne = true
        let attempts = (0..<5).compactMap { _ in backoff.next()?.attempt }
        #expect(attempts == [1, 2, 3, 4])
    }

    @Test func sameSeedSameDelays() {
        var a = Backoff(maxAttempts: 10, seed: 42)
        var b = Backoff(maxAttempts: 10, seed: 42)
        let first = (0..<10).map { _ in a.next()?.delayMs }
        let second = (0..<10).map { _ in b.next()?.delayMs }
        #expect(first == second)
    }

    @Test func onlyLostNetworkDeadSocketAndUnknownErrorsAreFatal() {
        // Every spelling of the four fatal errors, other domains and unknown spellings, as
        // reconnect.fatal-errors-only reads them.
        for fatal in [
            "POSIXError.ECONNRESET", "POSIXError.EPIPE", "URLError.networkConnectionLost",
            "URLError.notConnectedToInternet", "NSURLErrorDomain:-1009", "NSURLErrorDomain:-1005",
            "NSPOSIXErrorDomain:32", "NSPOSIXErrorDomain:ECONNRESET", "URLError.-1005",
            "NWError.posix", "kCFErrorDomainCFNetwork:-1", "URLError.", "POSIXError.E PIPE", ""
        ] {
            #expect(Backoff.isFatal(pingError: fatal), "\(fatal)")
        }
        for transient in [
            "POSIXError.ETIMEDOUT", "POSIXError.ENOBUFS", "URLError.timedOut",
            "NSURLErrorDomain:-1001", "NSPOSIXErrorDomain:60"
        ] {
            #expect(!Backoff.isFatal(pingError: transient), "\(transient)")
        }
    }

    /// The client and the rule agree on every spelling: a reconnect after a ping error passes
    /// reconnect.fatal-errors-only exactly when the client calls the error fatal.
    @Test(arguments: [
        "POSIXError.ECONNRESET", "NSURLErrorDomain:-1005", "URLError.-1009", "NWError.posix",
        "URLError.", "POSIXError.E PIPE", "", "POSIXError.ETIMEDOUT", "URLError.timedOut",
        "NSURLErrorDomain:-1001", "NSPOSIXErrorDomain:60"
    ])
    func clientAndRuleAgreeOnFatalPingErrors(error: String) throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let quoted = error.replacingOccurrences(of: "\"", with: "\\\"")
        let log = """
            {"t":0,"ev":"ws.ping_error","gen":1,"error":"\(quoted)"}
            {"t":1,"ev":"ws.reconnect","attempt":1,"delay_ms":150}

            """
        try log.write(toFile: dir + "/e.jsonl", atomically: false, encoding: .utf8)
        let audit = CommandLineRun(["check", dir + "/e.jsonl", "--format", "json"])
        let status = try ruleStatuses(audit.out)["reconnect.fatal-errors-only"]
        #expect(status == (Backoff.isFatal(pingError: error) ? "pass" : "fail"), "\(audit.out)")
    }

    @Test(arguments: [
        ("127.0.0.1:8765", "127.0.0.1:8765"), ("localhost:1", "127.0.0.1:1"),
        ("127.1.2.3:65535", "127.1.2.3:65535")
    ])
    func loopbackPeersAreTaken(text: String, address: String) throws {
        #expect(try PeerAddress.parse(text).description == address)
    }

    @Test(arguments: ["10.0.0.1:80", "8.8.8.8:443", "[::1]:80", "127.0.0.1:0", "127.0.0.1", "x:1"])
    func otherPeersAreRefused(text: String) {
        #expect(throws: UsageError.self) { try PeerAddress.parse(text) }
    }
}

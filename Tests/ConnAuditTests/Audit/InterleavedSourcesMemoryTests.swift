import Foundation
import Testing
import ConnAuditTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A file that interleaves many devices keeps every one of them open to its last line: each open
/// source with a handful of events must cost about as much as those events, not an evaluation of
/// every rule (docs/robustness.md, Memory). The command line runs as a child process, whose peak
/// resident memory is compared with the same binary's peak on one device: what grows with the
/// devices is what they cost.
@Suite struct InterleavedSourcesMemoryTests {
    static let devices = 20_000
    /// Kilobytes per device at most, over the binary's own: a device of three events holds them
    /// and the reader's bookkeeping, and keeps its outcome (1.4–1.8 KB measured); with its rules'
    /// runners made as its first event came, it cost about 20.
    static let perSourceKB = 2.5

    /// `count` devices of three lines (`ws.connect`, `ws.open`, `ws.close` with a reason, gen 1),
    /// all first lines, then all second ones, then all third: every device is open at once.
    private static func interleaved(_ count: Int) -> String {
        var text = ""
        text.reserveCapacity(count * 3 * 70)
        for (step, ev) in ["ws.connect", "ws.open", "ws.close"].enumerated() {
            let extra = ev == "ws.close" ? #","code":1000,"reason":"going away""# : ""
            for i in 0..<count {
                text +=
                    #"{"t":\#(1000 + 10 * step),"src":"dev-\#(i)","ev":"\#(ev)","gen":1\#(extra)}"#
                    + "\n"
            }
        }
        return text
    }

    /// Runs the `conn-audit` built beside the tests; its exit status and peak RSS in KB.
    ///
    /// The peak is the child's `VmHWM` (/proc), read every 2 ms while it runs: `ru_maxrss` will
    /// not do, as Linux keeps in it the high-water mark of the memory the child shared with this
    /// process until its `exec` (posix_spawn's vfork), which is this whole test process's.
    private static func peakKB(_ arguments: [String]) throws -> (status: Int32, kb: Int) {
        let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let binary = (exe as NSString).deletingLastPathComponent + "/conn-audit"
        try #require(
            FileManager.default.isExecutableFile(atPath: binary),
            "no conn-audit at \(binary): swift build first")
        var pointers: [UnsafeMutablePointer<CChar>?] = ([binary] + arguments).map { strdup($0) }
        pointers.append(nil)
        defer { for p in pointers { free(p) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var pid = pid_t()
        let spawned = posix_spawn(&pid, binary, &actions, nil, pointers, environ)
        try #require(spawned == 0, "posix_spawn: \(spawned)")
        var status: Int32 = 0
        var peak = 0
        while true {
            // Read before asking whether it ended: the last reading is taken as late as can be.
            if let kb = highWaterKB(pid) { peak = max(peak, kb) }
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid || (done < 0 && errno != EINTR) { break }
            usleep(2_000)
        }
        return ((status >> 8) & 0xFF, peak)
    }

    /// `VmHWM` of a running process, in KB (nil once it has exited).
    private static func highWaterKB(_ pid: pid_t) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return nil }
        return Int(
            line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }

    private func withLogs(_ body: (_ one: String, _ many: String) throws -> Void) throws {
        try withScratchDirectory("interleaved") { dir in
            let one = dir + "/one.jsonl", many = dir + "/many.jsonl"
            try Self.interleaved(1).write(toFile: one, atomically: false, encoding: .utf8)
            try Self.interleaved(Self.devices).write(
                toFile: many, atomically: false, encoding: .utf8)
            try body(one, many)
        }
    }

    @Test(
        "20,000 interleaved devices of three events cost a few KB each, in check and timeline --src",
        .timeLimit(.minutes(10)))
    func interleavedDevicesAreCheap() throws {
        try withLogs { one, many in
            for arguments in [
                ["check", "--jobs", "1"], ["check", "--jobs", "2"],
                ["timeline", "--src", "dev-5", "--jobs", "1"]
            ] {
                let base = try Self.peakKB(arguments + [one])
                let run = try Self.peakKB(arguments + [many])
                // check: every device's generation lacks the outcomes coverage asks for (exit 1).
                #expect(run.status == (arguments[0] == "check" ? 1 : 0), "\(arguments)")
                let perSource = Double(run.kb - base.kb) / Double(Self.devices)
                #expect(
                    perSource <= Self.perSourceKB,
                    "\(arguments.joined(separator: " ")): \(run.kb) KB peak, \(base.kb) KB for one device: \(perSource) KB per device"
                )
            }
        }
    }
}

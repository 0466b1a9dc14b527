import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// An executable built beside the test bundle (`conn-audit` unless told), run as a child process:
/// for what an in-process run cannot show (signals, closed descriptors, standard input, the
/// environment), and for servers such as `conn-peer`.
public struct Subprocess {
    /// What the child's standard input is.
    public enum Input {
        /// `/dev/null`.
        case empty
        /// A file, opened for reading.
        case file(String)
        /// A pipe whose write end the caller holds (``writeInput(_:)``, ``closeInput()``).
        case pipe
        /// No standard input at all: descriptor 0 closed (`<&-`).
        case closed
    }

    public let pid: pid_t
    /// The write end of the standard input pipe (-1: none, or closed).
    public private(set) var inputFD: Int32
    private let outPath: String
    private let errPath: String
    private var status: Int32?
    private let program: String

    /// The path of `program` (a product of this package) beside the running test bundle.
    public static func binary(_ program: String = "conn-audit") throws -> String {
        let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let binary = (exe as NSString).deletingLastPathComponent + "/" + program
        try #require(
            FileManager.default.isExecutableFile(atPath: binary),
            "no \(program) at \(binary): swift build first")
        return binary
    }

    /// Starts `program` with `arguments`, its standard output and error going to files in
    /// `scratch` (standard output closed when `closedOutput`), and `environment` over the
    /// test's own environment. With `shell`, `/bin/sh -c` runs that command line, in which `"$@"`
    /// is the binary and its arguments (to set a resource limit first).
    public init(
        _ arguments: [String], scratch: String, input: Input = .empty, closedOutput: Bool = false,
        environment: [String: String] = [:], shell: String? = nil, program: String = "conn-audit"
    ) throws {
        let binary = try Self.binary(program)
        self.program = program
        let id = UUID().uuidString
        outPath = scratch + "/.out-\(id)"
        errPath = scratch + "/.err-\(id)"
        var argv = [binary] + arguments
        if let shell { argv = ["/bin/sh", "-c", shell, "sh"] + argv }
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        let envStrings = env.map { "\($0.key)=\($0.value)" }
        var argvPointers: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        var envPointers: [UnsafeMutablePointer<CChar>?] = envStrings.map { strdup($0) } + [nil]
        defer {
            for p in argvPointers { free(p) }
            for p in envPointers { free(p) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var fds: [Int32] = [-1, -1]
        switch input {
        case .empty:
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        case .file(let path):
            posix_spawn_file_actions_addopen(&actions, 0, path, O_RDONLY, 0)
        case .closed:
            posix_spawn_file_actions_addclose(&actions, 0)
        case .pipe:
            try #require(pipe(&fds) == 0)
            posix_spawn_file_actions_adddup2(&actions, fds[0], 0)
            posix_spawn_file_actions_addclose(&actions, fds[1])
        }
        if closedOutput {
            posix_spawn_file_actions_addclose(&actions, 1)
        } else {
            posix_spawn_file_actions_addopen(
                &actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // Every signal at its default action, whatever the test runner ignores (SIGPIPE, SIGXFSZ).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        var pid = pid_t()
        let spawned = posix_spawn(&pid, argv[0], &actions, &attributes, &argvPointers, &envPointers)
        if fds[0] >= 0 { close(fds[0]) }
        if spawned != 0, fds[1] >= 0 { close(fds[1]) }
        try #require(spawned == 0, "posix_spawn: \(spawned)")
        self.pid = pid
        inputFD = fds[1]
        // The write end must not leak into children spawned later by other tests.
        if inputFD >= 0 { _ = fcntl(inputFD, F_SETFD, FD_CLOEXEC) }
    }

    /// Runs `program` to its end (at most `timeout` seconds: then it is killed, and the test
    /// fails) and returns its exit status (128 + the signal when a signal ended it), standard
    /// output and standard error.
    public static func run(
        _ arguments: [String], scratch: String, input: Input = .empty, closedOutput: Bool = false,
        environment: [String: String] = [:], shell: String? = nil,
        timeout: Double = 60, program: String = "conn-audit"
    ) throws -> (code: Int32, out: String, err: String) {
        var child = try Subprocess(
            arguments, scratch: scratch, input: input, closedOutput: closedOutput,
            environment: environment, shell: shell, program: program)
        let code = try child.wait(timeout: timeout)
        return (code, child.output, child.errors)
    }

    /// Writes `text` to the child's standard input.
    public func writeInput(_ text: String) throws {
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(inputFD, $0.baseAddress, $0.count) }
        try #require(written == bytes.count)
    }

    /// Closes the child's standard input (its end of input).
    public mutating func closeInput() {
        if inputFD >= 0 { close(inputFD) }
        inputFD = -1
    }

    /// Waits for the child to end, at most `timeout` seconds (then kills it and fails the test):
    /// its exit status, or 128 + the signal that ended it.
    public mutating func wait(timeout: Double = 60) throws -> Int32 {
        if let status { return status }
        let deadline = Date().addingTimeInterval(timeout)
        var raw: Int32 = 0
        while true {
            let r = waitpid(pid, &raw, WNOHANG)
            if r == pid { break }
            if r < 0, errno != EINTR {
                throw SubprocessError(description: "waitpid: errno \(errno)")
            }
            if Date() > deadline {
                terminate()
                throw SubprocessError(description: "\(program) ran past \(timeout) s: killed")
            }
            usleep(5_000)
        }
        closeInput()
        let code = Self.code(raw)
        status = code
        return code
    }

    /// Kills the child and reaps it, unless it was reaped already: once reaped, its pid may
    /// belong to another process (another test's child), which must not get the signal.
    public mutating func terminate() {
        defer { closeInput() }
        guard status == nil else { return }
        kill(pid, SIGKILL)
        var raw: Int32 = 0
        var r = waitpid(pid, &raw, 0)
        while r < 0 && errno == EINTR { r = waitpid(pid, &raw, 0) }
        // Reaped here, or (waitpid failing) not this process's child any more: never signal again.
        status = r == pid ? Self.code(raw) : 128 + SIGKILL
    }

    /// The exit status, or 128 + the signal, of a raw waitpid status.
    private static func code(_ raw: Int32) -> Int32 {
        raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
    }

    /// What the child wrote to standard output (so far).
    public var output: String { (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "" }
    /// What the child wrote to standard error (so far).
    public var errors: String { (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "" }

    /// The child's open descriptors: each one's number and what `/proc` says it leads to.
    public func openFiles() -> [(fd: Int32, target: String)] {
        let dir = "/proc/\(pid)/fd"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else {
            return []
        }
        return names.compactMap { name in
            guard let fd = Int32(name),
                let target = try? FileManager.default.destinationOfSymbolicLink(
                    atPath: dir + "/" + name)
            else { return nil }
            return (fd, target)
        }
    }

    /// Removes the files that held the child's output.
    public func removeOutputFiles() {
        unlink(outPath)
        unlink(errPath)
    }
}

public struct SubprocessError: Error, CustomStringConvertible {
    public var description: String

    public init(description: String) { self.description = description }
}

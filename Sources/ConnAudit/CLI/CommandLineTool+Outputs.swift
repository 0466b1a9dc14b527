import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// The files a run writes: reports (`--output`, `--report FMT=FILE`, `timeline --output`) and
// baselines (`--write-exact-baseline`). None may be a file the run reads, and none is changed until
// its new text is complete: it is written to a temporary file in the same directory, then renamed
// over the old one, so a failed or interrupted write leaves the old file as it was. A merge stages
// them (``StagedOutputs``): every file is renamed into place only once every report is written and
// the partials read again were found unchanged.

/// A file the run cannot write (a report, a baseline): exit 2 with this message. Not a usage
/// error: a full disk or a missing directory is no misuse of the command line.
public struct OutputError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension CommandLineTool {
    /// A file as the outputs check compares it: by device and inode when it exists (so a hard
    /// link, a symbolic link and any spelling of its path are the same file), else by its canonical
    /// absolute path (its directory's canonical path and its name).
    private enum FileKey: Hashable {
        case file(device: UInt64, inode: UInt64)
        case path([UInt8])

        init(_ info: stat) {
            self = .file(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        }

        init(_ path: [UInt8]) {
            var info = stat()
            if InputFile.withCString(path, { stat($0, &info) }) == 0 {
                self.init(info)
            } else {
                self = .path(CommandLineTool.canonicalOutput(path))
            }
        }
    }

    /// Files the run writes may not be one of its input logs, nor each other, nor — for a report —
    /// the `--exact-baseline` it reads: the report would replace the log it judged, one report
    /// another, or the reviewed baseline, silently. `--write-exact-baseline` may be the
    /// `--exact-baseline` file: it is read before it is rewritten, and the entries it keeps keep
    /// their reasons. Files compare by device and inode (``FileKey``): another spelling of the
    /// path, a symbolic link or a hard link is the same file, and so is standard input redirected
    /// from it.
    static func checkOutputs(
        _ outputs: [(option: String, path: String)], inputs: [InputFile], baseline: String? = nil
    ) throws {
        var inputKeys: [FileKey: String] = [:]
        for input in inputs {
            if input.isStdin {
                var info = stat()
                guard fstat(0, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
                inputKeys[FileKey(info)] = "standard input"
            } else {
                let key = FileKey(input.bytes)
                if inputKeys[key] == nil { inputKeys[key] = input.path }
            }
        }
        let baselineKey = baseline.map { FileKey(Array($0.utf8)) }
        var seen: [FileKey: String] = [:]
        for (option, path) in outputs {
            // A device or pipe (`/dev/null`, `/dev/stdout` — even when it leads to a file) is not
            // a report file: several outputs may share one.
            var info = stat()
            let exists = stat(path, &info) == 0
            if exists, info.st_mode & S_IFMT == S_IFDIR {
                throw OutputError("cannot write \(path): is a directory")
            }
            if isDevice(path) { continue }
            // A report that cannot be written is found now, not after the run: a typo in a
            // report's path fails at once, and before any report is written that would say `pass`.
            try writable(path, exists: exists)
            let key = FileKey(Array(path.utf8))
            let named = option.hasSuffix("=") ? option + path : "\(option) \(path)"
            if let input = inputKeys[key] {
                let spelled = input == path ? "" : ", \(input)"
                throw UsageError(
                    "\(named) is one of the input logs\(spelled): the report would overwrite it")
            }
            if let baseline, key == baselineKey, option != "--write-exact-baseline" {
                let spelled = baseline == path ? "" : " \(baseline)"
                throw UsageError(
                    "\(named) is the --exact-baseline file\(spelled): the report would overwrite it"
                )
            }
            if let other = seen[key] {
                throw UsageError("\(named) and \(other) name the same file")
            }
            seen[key] = named
        }
    }

    /// A device or pipe, not a report file: `/dev/…`, `/proc/…`, or anything there that is not a
    /// regular file (a FIFO, `/dev/stdout` even when it leads to a file).
    private static func isDevice(_ path: String) -> Bool {
        var info = stat()
        return path.hasPrefix("/dev/") || path.hasPrefix("/proc/")
            || (stat(path, &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG)
    }

    /// Whether `path` can be written: the file's own permission, if it is there, and its
    /// directory's, where the new file is made before it replaces the old. (The write itself can
    /// still fail — a full disk — and says so then.)
    private static func writable(_ path: String, exists: Bool) throws(OutputError) {
        let target: String
        do {
            target = try resolvedTarget(path)
        } catch {
            throw OutputError("cannot write \(path): \(describe(error.code))")
        }
        if exists, access(target, W_OK) != 0 {
            throw OutputError("cannot write \(path): \(describe(errno))")
        }
        let directory = directoryOf(target)
        guard access(directory, W_OK | X_OK) != 0 else { return }
        let reason = describe(errno)
        guard exists else { throw OutputError("cannot write \(path): \(reason)") }
        throw OutputError(
            "cannot write \(path): its directory \(directory): \(reason) "
                + "(the new file is made there, then renamed over the old one)")
    }

    static func canonicalOutput(_ path: [UInt8]) -> [UInt8] {
        if let resolved = InputFile.canonical(path) { return resolved }
        // Not there yet: its directory's canonical path and its name.
        let slash = path.lastIndex(of: UInt8(ascii: "/"))
        let dir =
            slash.map { $0 == 0 ? [UInt8(ascii: "/")] : Array(path[..<$0]) } ?? [UInt8(ascii: ".")]
        let name = slash.map { Array(path[($0 + 1)...]) } ?? path
        guard let base = InputFile.canonical(dir) else { return path }
        return (base == [UInt8(ascii: "/")] ? [] : base) + [UInt8(ascii: "/")] + name
    }

    /// `strerror(code)` in lowercase; "write error" for 0 (a failure that set no `errno`).
    private static func describe(_ code: Int32) -> String {
        code != 0 ? String(cString: strerror(code)).lowercased() : "write error"
    }

    /// The path a write to `path` replaces: `path`, or the file its symbolic links lead to (the
    /// link stays a link; the file it names gets the new text, as opening it would give).
    ///
    /// - Throws: the `errno` of a link that cannot be read, `ELOOP` after 40 links.
    private static func resolvedTarget(_ path: String) throws(SystemError) -> String {
        var current = path
        for _ in 0..<40 {
            var info = stat()
            guard lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else {
                return current
            }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(current, &buffer, buffer.count - 1)
            guard n > 0 else { throw SystemError(code: n == 0 ? ENOENT : errno) }
            let link = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = link.hasPrefix("/") ? link : directoryOf(current) + "/" + link
        }
        throw SystemError(code: ELOOP)
    }

    /// A system call's failure: its `errno`.
    private struct SystemError: Error {
        var code: Int32
    }

    /// The directory part of `path` (`.` for a bare name, `/` for a name at the root).
    private static func directoryOf(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    // MARK: - Writing

    /// Where a report's pieces go as it is made: as bytes (``JSONWriter``) or as text.
    struct Pieces {
        let bytes: ([UInt8]) -> Void
        let text: (String) -> Void
    }

    /// Hands `write` the pieces for the file at `path`, or for standard output when `path` is nil;
    /// with `staged`, the file is put in place by it.
    static func writing(
        to path: String?, console: Console, staged: StagedOutputs? = nil,
        _ write: (Pieces) -> Void
    ) throws(OutputError) {
        guard let path else {
            write(
                Pieces(
                    bytes: { console.out(String(decoding: $0, as: UTF8.self)) },
                    text: { console.out($0) }))
            return
        }
        try withFile(path, staged: staged) { put in
            write(
                Pieces(
                    bytes: { chunk in chunk.withUnsafeBufferPointer { put($0) } },
                    text: {
                        var piece = $0; piece.withUTF8 { put($0) }
                    }))
        }
    }

    /// Writes `report` in `format` to the file at `path`, or to standard output when `path` is
    /// nil. JSON, SARIF and JUnit go out in pieces as they are written: a report of a million
    /// findings is never held whole.
    static func emit(
        _ report: AuditReport, format: String, color: Bool, to path: String?, console: Console,
        staged: StagedOutputs? = nil
    ) throws(OutputError) {
        try writing(to: path, console: console, staged: staged) { pieces in
            switch format {
            case "json": _ = JSONReport.render(report, flush: pieces.bytes)
            case "sarif": _ = SARIFReport.render(report, flush: pieces.bytes)
            case "junit": JUnitReport.render(report, flush: pieces.text)
            case "concise": ConciseReport.render(report, flush: pieces.text)
            case "gitlab": GitLabReport.render(report, flush: pieces.bytes)
            default: pieces.text(render(report, format: format, color: color))
            }
        }
    }

    static func writeFile(_ path: String, _ text: String, staged: StagedOutputs? = nil)
        throws(OutputError)
    {
        var text = text
        try withFile(path, staged: staged) { put in text.withUTF8 { put($0) } }
    }

    /// Hands `body` a function that writes bytes to the file at `path`, and puts them in place: a
    /// file that could not be made, written to the end, closed or put in place is an error naming
    /// it, and leaves the file at `path` as it was.
    ///
    /// A regular file (or one not there yet) is written to a temporary file in its directory
    /// (`.conn-audit-XXXXXX`, removed if anything fails), which is then renamed over it: the old
    /// file stays whole until the new one is. The new file takes the old one's permission bits
    /// and, where the system allows, its owner and group; a file not there before gets those
    /// `fopen` would give it (0666 less the umask). A device or pipe is written directly. With
    /// `staged`, the temporary file is left to it, to be renamed with the others or removed.
    private static func withFile(
        _ path: String, staged: StagedOutputs? = nil,
        _ body: (_ put: @escaping (UnsafeBufferPointer<UInt8>) -> Void) -> Void
    ) throws(OutputError) {
        // What is already on its way to standard output goes first: a report written to
        // /dev/stdout beside the one printed there would otherwise land in the middle of it.
        fflush(stdout)
        if isDevice(path) {
            // A device or pipe (`/dev/stdout`, which may lead to the file standard output was sent
            // to) is appended to, not truncated: what was printed there already stays.
            errno = 0
            guard let f = fopen(path, "ab") else {
                throw OutputError("cannot write \(path): \(describe(errno))")
            }
            if StandardDescriptors.isClosedOutput(fileno(f)) {
                fclose(f)
                throw OutputError("cannot write \(path): standard output is closed")
            }
            if let failure = write(to: f, body) {
                throw OutputError("cannot write \(path): \(describe(failure))")
            }
            return
        }
        let target: String
        do {
            target = try resolvedTarget(path)
        } catch {
            throw OutputError("cannot write \(path): \(describe(error.code))")
        }
        let directory = directoryOf(target)
        var template = Array(
            ((directory == "/" ? "" : directory) + "/.conn-audit-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw OutputError("cannot write \(path): \(describe(errno))") }
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var placed = false
        let slot = TemporaryOnSignal.guard(template)
        defer {
            if !placed {
                unlink(temporary)
                TemporaryOnSignal.release(slot)
            }
        }
        var old = stat()
        if stat(target, &old) == 0 {
            _ = fchmod(fd, old.st_mode & 0o777)
            if fchown(fd, old.st_uid, old.st_gid) != 0 { _ = fchown(fd, uid_t.max, old.st_gid) }
        } else {
            let mask = umask(0)
            umask(mask)
            _ = fchmod(fd, 0o666 & ~mask)
        }
        guard let f = fdopen(fd, "wb") else {
            let code = errno
            close(fd)
            throw OutputError("cannot write \(path): \(describe(code))")
        }
        if let failure = write(to: f, body) {
            throw OutputError("cannot write \(path): \(describe(failure))")
        }
        if let staged {
            staged.add(temporary: temporary, target: target, path: path, slot: slot)
            placed = true
            return
        }
        try place(temporary, at: target, path: path)
        placed = true
        TemporaryOnSignal.release(slot)
    }

    /// Renames the written file `temporary` over `target` (the file `path` names).
    fileprivate static func place(_ temporary: String, at target: String, path: String)
        throws(OutputError)
    {
        guard rename(temporary, target) == 0 else {
            throw OutputError("cannot write \(path): \(describe(errno))")
        }
    }

    /// Runs `body` with a function that writes to `f`, then closes `f`: the `errno` of the first
    /// write or of the close that failed (0 when it set none), or nil.
    private static func write(
        to f: UnsafeMutablePointer<FILE>,
        _ body: (_ put: @escaping (UnsafeBufferPointer<UInt8>) -> Void) -> Void
    ) -> Int32? {
        var failure: Int32?
        body { bytes in
            guard failure == nil, bytes.count > 0 else { return }
            errno = 0
            if fwrite(bytes.baseAddress!, 1, bytes.count, f) != bytes.count { failure = errno }
        }
        errno = 0
        let closed = fclose(f)
        if closed != 0, failure == nil { failure = errno }
        return failure
    }
}

/// The report files of a run, each written whole to a temporary file beside it, to be renamed
/// into place together (``place()``) or removed (``discard()``, and when it goes). A merge stages
/// its files until the partials it read again are found unchanged: a merge that fails leaves
/// every file as it was, and no temporary file. What goes to standard output or to a device is
/// written as it is made.
final class StagedOutputs {
    private var pending: [(temporary: String, target: String, path: String, slot: Int?)] = []

    fileprivate func add(temporary: String, target: String, path: String, slot: Int?) {
        pending.append((temporary, target, path, slot))
    }

    /// Renames every file into place, in the order written; a rename that fails names its file,
    /// and the files after it are removed.
    func place() throws(OutputError) {
        while !pending.isEmpty {
            let next = pending.removeFirst()
            defer { TemporaryOnSignal.release(next.slot) }
            do {
                try CommandLineTool.place(next.temporary, at: next.target, path: next.path)
            } catch {
                unlink(next.temporary)
                throw error
            }
        }
    }

    /// Removes every file not yet placed.
    func discard() {
        for p in pending {
            unlink(p.temporary)
            TemporaryOnSignal.release(p.slot)
        }
        pending = []
    }

    deinit { discard() }
}

// MARK: - Stopped while writing

/// Removes the temporary files of the writes under way, then ends the process by `signal` as its
/// default action would (the exit status still says which signal). Only an atomic load, `unlink`,
/// `sigaction` and `raise`: all async-signal-safe.
private func removeTemporaryAndStop(_ signal: Int32) {
    let filled = TemporaryOnSignal.filled.load(ordering: .acquiring)
    for slot in 0..<TemporaryOnSignal.slotCount where filled & 1 << slot != 0 {
        unlink(TemporaryOnSignal.buffers + slot * TemporaryOnSignal.slotBytes)
    }
    var action = sigaction()
    sigemptyset(&action.sa_mask)
    sigaction(signal, &action, nil)
    raise(signal)
}

/// While a report is written, SIGINT, SIGTERM, SIGHUP and SIGXFSZ (a file size limit, `ulimit
/// -f`), when they would end the process (their default action), remove its temporary file first:
/// a run stopped mid-write leaves neither a changed file nor a half-written one beside it.
///
/// Runs of the library in one process (the tests run several at once) may write at the same
/// time, so each write takes a slot of its own under a lock: the handlers go in when the first
/// slot is taken and the earlier ones come back when the last is given up. A slot's buffer is
/// allocated once and never freed, and its bit in ``filled`` is set only while it holds a whole
/// path, so the handler never reads freed or half-written memory (unless a write ends and another
/// takes its slot during the handler's own `unlink`). A write past the slots goes unguarded.
private enum TemporaryOnSignal {
    static let signals = [SIGINT, SIGTERM, SIGHUP, SIGXFSZ]
    static let slotCount = 16
    /// A path `mkstemp` could create fits, with its terminating zero.
    static let slotBytes = Int(PATH_MAX)
    static let buffers = UnsafeMutablePointer<CChar>.allocate(capacity: slotCount * slotBytes)
    /// Bit `k` is set while slot `k`'s buffer holds the path of a write under way.
    static let filled = Atomic<UInt32>(0)

    private struct Slots {
        var taken: UInt32 = 0
        /// The actions the handlers replaced, restored when the last slot is given up.
        var previous: [sigaction] = []
    }

    private static let slots = Mutex(Slots())

    /// Takes a slot for the temporary file at `path` (a C string); nil when none is free.
    static func `guard`(_ path: [CChar]) -> Int? {
        slots.withLock { state -> Int? in
            guard path.count <= slotBytes,
                let slot = (0..<slotCount).first(where: { state.taken & 1 << $0 == 0 })
            else { return nil }
            let bit = UInt32(1) << slot
            let first = state.taken == 0
            state.taken |= bit
            path.withUnsafeBufferPointer {
                (buffers + slot * slotBytes).update(from: $0.baseAddress!, count: path.count)
            }
            filled.bitwiseOr(bit, ordering: .releasing)
            if first { state.previous = install() }
            return slot
        }
    }

    /// Gives up `slot`; the last one given up restores the actions the handlers replaced.
    static func release(_ slot: Int?) {
        guard let slot else { return }
        let bit = UInt32(1) << slot
        slots.withLock { state in
            filled.bitwiseAnd(~bit, ordering: .releasing)
            state.taken &= ~bit
            guard state.taken == 0 else { return }
            for (signal, var old) in zip(signals, state.previous) { sigaction(signal, &old, nil) }
            state.previous = []
        }
    }

    /// Puts the handler on each signal at its default action; the actions it found.
    private static func install() -> [sigaction] {
        signals.map { signal in
            var old = sigaction()
            sigaction(signal, nil, &old)
            // SIG_DFL is a null handler; one ignored (SIG_IGN, as under `nohup`) stays ignored.
            if unsafeBitCast(old.__sigaction_handler.sa_handler, to: Int.self) == 0 {
                var action = sigaction()
                action.__sigaction_handler.sa_handler = removeTemporaryAndStop
                sigemptyset(&action.sa_mask)
                sigaction(signal, &action, nil)
            }
            return old
        }
    }
}

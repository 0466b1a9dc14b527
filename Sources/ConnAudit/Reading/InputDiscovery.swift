import Glibc

/// One input to read: a file found under a PATH argument, or standard input.
public struct InputFile: Sendable, Hashable {
    /// The path as found and as reports show it: the PATH given joined with the path below it.
    ///
    /// `logs` + `a/b.jsonl` gives `logs/a/b.jsonl`; `logs/` + `a.jsonl` gives `logs/a.jsonl` (no
    /// double slash). `-` for standard input. A byte that is not part of valid UTF-8 shows as
    /// `\x{FF}` (``shown(_:)``); the file is opened by ``bytes``.
    public var path: String
    /// The path as the file system has it, byte for byte (Linux names are bytes, not text): what
    /// the file is opened and stat'ed by.
    public var bytes: [UInt8]
    /// True for standard input (`-`).
    public var isStdin: Bool
    /// What orders this file among the files of a source when two events have the same `t`
    /// (connlog: file path order): its canonical absolute path, so `./logs/a.jsonl`,
    /// `logs/a.jsonl` and `/home/me/logs/a.jsonl` rank alike; the path as given when it cannot be
    /// resolved (and `-` for standard input). Bytes, compared in byte order.
    public var orderKey: [UInt8]

    public init(path: String, isStdin: Bool = false) {
        self.init(path: path, bytes: Array(path.utf8), isStdin: isStdin)
    }

    /// A file named by the bytes of its path (shown as ``shown(_:)`` has it).
    public init(bytes: [UInt8]) {
        self.init(path: Self.shown(bytes), bytes: bytes, isStdin: false)
    }

    private init(path: String, bytes: [UInt8], isStdin: Bool) {
        self.path = path
        self.bytes = bytes
        self.isStdin = isStdin
        orderKey = isStdin ? bytes : Self.canonical(bytes) ?? bytes
    }

    /// The canonical absolute path of an existing file (symbolic links resolved), as bytes; nil
    /// otherwise.
    static func canonical(_ path: [UInt8]) -> [UInt8]? {
        guard let resolved = withCString(path, { realpath($0, nil) }) else { return nil }
        defer { free(resolved) }
        return Array(UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)))
    }

    /// Whether `a` comes before `b` in file path order (byte order of the order keys).
    public static func pathOrder(_ a: InputFile, _ b: InputFile) -> Bool {
        a.orderKey.lexicographicallyPrecedes(b.orderKey)
    }

    /// Standard input, as the PATH `-` names it.
    public static let stdin = InputFile(path: "-", isStdin: true)

    /// A path's bytes as text for people and reports: valid UTF-8 as it is, and each byte that
    /// is not part of valid UTF-8 (a Latin-1 name, a cut sequence) as `\x{FF}`, its value in two
    /// upper-case hex digits. Every report prints this text (with its own escapes on top: JSON's
    /// `\\`, SARIF's percent-encoding), so a name reads the same everywhere.
    public static func shown(_ path: [UInt8]) -> String {
        if let text = String(validating: path, as: UTF8.self) { return text }
        var out = ""
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = path.makeIterator()
        var at = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                out.unicodeScalars.append(Unicode.UTF8.decode(encoded))
                at += encoded.count
            case .error(let length):
                for b in path[at..<at + length] {
                    let hex = String(b, radix: 16, uppercase: true)
                    out += "\\x{" + (hex.count < 2 ? "0" : "") + hex + "}"
                }
                at += length
            case .emptyInput:
                return out
            }
        }
    }

    /// Calls `body` with `path` as a NUL-terminated C string.
    static func withCString<R>(_ path: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
        (path + [0]).withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
        }
    }
}

/// An input that could not be found or read.
///
/// The reason is the OS or zlib reason in lowercase: `no such file or directory`, `permission
/// denied`, `truncated gzip data`, `corrupt gzip data: invalid block type`.
public struct InputError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String
    /// The input was read, but held no event: nothing failed to read, and nothing was judged.
    public var heldNoEvent = false

    public init(path: String, reason: String, heldNoEvent: Bool = false) {
        self.path = path
        self.reason = reason
        self.heldNoEvent = heldNoEvent
    }

    /// How reports name it: `could not read PATH: REASON`, or `PATH: REASON` for an input that
    /// held no event. `shownPath` is the path as the report escapes it.
    public func headline(shownPath: String? = nil) -> String {
        let shown = shownPath ?? path
        return heldNoEvent ? "\(shown): \(reason)" : "could not read \(shown): \(reason)"
    }

    /// An error whose reason is `strerror(code)` in lowercase.
    init(path: String, errno code: Int32) {
        self.init(path: path, reason: String(cString: strerror(code)).lowercased())
    }

    public var description: String { "\(path): \(reason)" }
}

/// Finds the files that PATH arguments name.
public enum InputDiscovery {
    /// The extensions read inside a directory; each is also read with `.gz` after it.
    public static let extensions = [".jsonl", ".ndjson", ".log"]

    /// Expands PATH arguments into files, in a deterministic order.
    ///
    /// - `-` is standard input, listed once however often it is given.
    /// - A path naming a file (or anything that is not a directory) is read whatever its extension.
    /// - A directory is searched recursively for ``extensions`` and their `.gz` forms; entries are
    ///   sorted by name in byte order at each level and hidden names (starting with `.`) are
    ///   skipped below the PATH given. Only regular files are listed from inside a directory:
    ///   anything else there with a log's name (a FIFO, a link to a device, a socket) is an error,
    ///   "not a regular file (a FIFO)", and is never opened. A FIFO named as a PATH is read
    ///   (`<(zcat …)`).
    /// - Symbolic links are followed, but a directory already visited (same device and inode) is
    ///   never entered again, so link loops end and report nothing.
    /// - A regular file reachable twice (given twice, or through a link) is listed once, at its
    ///   first occurrence.
    /// - Names are bytes: a name that is not valid UTF-8 is found and read like any other, and
    ///   shown as ``InputFile/shown(_:)`` has it.
    ///
    /// Problems are returned, not thrown, so the other files are still checked: a missing PATH, an
    /// unreadable directory, or an entry with a log extension that cannot be stat'ed (a dangling
    /// link) or is not a regular file.
    ///
    /// - Complexity: O(n log n) in the number of entries of each directory searched.
    public static func discover(_ paths: [String]) -> (files: [InputFile], errors: [InputError]) {
        discover(bytes: paths.map { Array($0.utf8) })
    }

    /// ``discover(_:)`` for PATH arguments as the bytes the command line gave (`argv`, which
    /// `CommandLine.arguments` decodes with repair: a byte 0xFF there is U+FFFD, another name).
    public static func discover(bytes paths: [[UInt8]]) -> (
        files: [InputFile], errors: [InputError]
    ) {
        var walk = Walk()
        for path in paths {
            walk.add(path)
        }
        return (walk.files, walk.errors)
    }

    /// Whether a name inside a directory is read: it ends with one of ``extensions``, optionally
    /// followed by `.gz`.
    static func isLogName(_ name: [UInt8]) -> Bool {
        var stem = name[...]
        if stem.count > 3, stem.suffix(3).elementsEqual(".gz".utf8) {
            stem = stem.dropLast(3)
        }
        // An extension alone (a name like `.log`) is a hidden name, never reached here; still
        // require a stem.
        return extensions.contains { ext in
            stem.count > ext.utf8.count && stem.suffix(ext.utf8.count).elementsEqual(ext.utf8)
        }
    }
}

// MARK: - Walking the file system

/// A file's identity on this machine.
private struct FileID: Hashable {
    var device: UInt64
    var inode: UInt64

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}

/// The state of one discovery: what was found, what failed, and what was already seen.
private struct Walk {
    var files: [InputFile] = []
    var errors: [InputError] = []
    private var seenFiles: Set<FileID> = []
    private var visitedDirectories: Set<FileID> = []
    private var sawStdin = false

    mutating func add(_ path: [UInt8]) {
        if path == [UInt8(ascii: "-")] {
            if !sawStdin {
                sawStdin = true
                files.append(.stdin)
            }
            return
        }
        var info = Glibc.stat()
        let code = Self.status(path, &info)
        guard code == 0 else {
            errors.append(InputError(path: InputFile.shown(path), errno: code))
            return
        }
        if Self.isDirectory(info) {
            enter(path, info)
        } else {
            addFile(path, info)
        }
    }

    /// Lists a file once; regular files are recognised by device and inode.
    private mutating func addFile(_ path: [UInt8], _ info: stat) {
        if Self.isRegular(info), !seenFiles.insert(FileID(info)).inserted {
            return
        }
        files.append(InputFile(bytes: path))
    }

    /// Searches a directory, unless it was already visited.
    private mutating func enter(_ directory: [UInt8], _ info: stat) {
        guard visitedDirectories.insert(FileID(info)).inserted else { return }
        let names: [[UInt8]]
        switch Self.listNames(directory) {
        case .success(let found):
            names = found
        case .failure(let error):
            errors.append(error)
            return
        }
        for name in names {
            let path = Self.join(directory, name)
            var info = Glibc.stat()
            let code = Self.status(path, &info)
            guard code == 0 else {
                // A dangling link or a loop of links is only a problem where a log was expected;
                // any other failure (such as a directory that cannot be searched) hides what the
                // entry is, so say so.
                if InputDiscovery.isLogName(name)
                    || (code != ENOENT && code != ELOOP && code != ENOTDIR)
                {
                    errors.append(InputError(path: InputFile.shown(path), errno: code))
                }
                continue
            }
            if Self.isDirectory(info) {
                enter(path, info)
            } else if InputDiscovery.isLogName(name) {
                if Self.isRegular(info) {
                    addFile(path, info)
                } else {
                    // Never opened: a FIFO may wait forever for a writer, a device never end.
                    errors.append(
                        InputError(
                            path: InputFile.shown(path),
                            reason: "not a regular file (\(Self.kind(info)))"))
                }
            }
        }
    }

    /// What a file that is neither a directory nor a regular file is, for people: "a FIFO".
    private static func kind(_ info: stat) -> String {
        switch info.st_mode & mode_t(S_IFMT) {
        case mode_t(S_IFIFO): return "a FIFO"
        case mode_t(S_IFCHR): return "a character device"
        case mode_t(S_IFBLK): return "a block device"
        case mode_t(S_IFSOCK): return "a socket"
        default: return "of an unknown kind"
        }
    }

    /// The visible names in a directory, sorted by byte order. The directory is closed before
    /// returning, so a deep tree does not hold one descriptor per level.
    private static func listNames(_ directory: [UInt8]) -> Result<[[UInt8]], InputError> {
        var openError: Int32 = 0
        let opened = InputFile.withCString(directory) { path in
            let handle = opendir(path)
            openError = errno
            return handle
        }
        guard let handle = opened else {
            return .failure(InputError(path: InputFile.shown(directory), errno: openError))
        }
        defer { closedir(handle) }
        var names: [[UInt8]] = []
        while true {
            errno = 0
            guard let entry = readdir(handle) else {
                let code = errno
                if code != 0 {
                    return .failure(InputError(path: InputFile.shown(directory), errno: code))
                }
                break
            }
            // Read in place up to its NUL: the bytes after it, up to the size `d_name` is
            // declared with, may lie past the entry's record.
            let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
            let start = (UnsafeRawPointer(entry) + offset).assumingMemoryBound(to: CChar.self)
            let name = Array(UnsafeRawBufferPointer(start: start, count: strlen(start)))
            // Hidden names, and `.` and `..`.
            if name.first == UInt8(ascii: ".") { continue }
            names.append(name)
        }
        names.sort { $0.lexicographicallyPrecedes($1) }
        return .success(names)
    }

    // MARK: - Paths as bytes

    /// Joins a directory and a name with one slash (`logs/` + `a` is `logs/a`).
    private static func join(_ directory: [UInt8], _ name: [UInt8]) -> [UInt8] {
        var path = directory
        if path.last != UInt8(ascii: "/") {
            path.append(UInt8(ascii: "/"))
        }
        path += name
        return path
    }

    /// `stat(2)`, following links: 0, or the `errno` of the failure.
    private static func status(_ path: [UInt8], _ info: inout stat) -> Int32 {
        InputFile.withCString(path) { stat($0, &info) == 0 ? 0 : errno }
    }

    private static func isDirectory(_ info: stat) -> Bool {
        info.st_mode & mode_t(S_IFMT) == mode_t(S_IFDIR)
    }

    private static func isRegular(_ info: stat) -> Bool {
        info.st_mode & mode_t(S_IFMT) == mode_t(S_IFREG)
    }
}

import Glibc

/// Standard input, kept while it is read so it can be read again.
///
/// Standard input can be read once; a check with other inputs beside it (a source spread over
/// standard input and a file is merged in a second read) and a timeline (three reads) need it
/// again. Its bytes, as decoded (gzip already inflated), go to a file without a name in
/// `$TMPDIR` (`/tmp` when unset): opened with `O_TMPFILE`, or made by `mkstemp` and unlinked at
/// once, and reached only through its descriptor. It holds every secret the input held, raw, so
/// no name of it is left on disk while the run lasts or after it ends, however it ends — SIGKILL
/// included: the system frees the file when the descriptor closes. When no such file can be made,
/// or a write to it fails (a full disk), the bytes are kept in memory from there on.
///
/// Written by one thread (``append(_:)``) before any reader is made; readers (``reader(path:)``)
/// may then read at once from several threads, each at its own offset (`pread`).
final class StandardInputCopy: @unchecked Sendable {
    /// The file's descriptor; -1 once the bytes are in ``memory``.
    private var descriptor: Int32
    /// Bytes written to the file.
    private var length = 0
    /// The bytes, when there is no file to hold them.
    private var memory: [UInt8] = []
    /// Whether standard input was gzip (for the readers' ``ByteSource/isCompressed``).
    var isCompressed = false

    /// A copy in `directory`: by default `$TMPDIR`, or `/tmp` when it is unset or empty.
    init(directory: String = StandardInputCopy.temporaryDirectory) {
        descriptor = Self.makeFile(in: directory)
    }

    /// Whether the bytes are in a file (false: in memory).
    var isInFile: Bool { descriptor >= 0 }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// `$TMPDIR`, or `/tmp` when it is unset or empty.
    static var temporaryDirectory: String {
        if let value = getenv("TMPDIR"), value.pointee != 0 { return String(cString: value) }
        return "/tmp"
    }

    /// A new file without a name in `directory`, open for reading and writing: its descriptor, or
    /// -1 when none can be made there.
    static func makeFile(in directory: String) -> Int32 {
        #if os(Linux) && (arch(x86_64) || arch(arm64))
            // O_TMPFILE (Linux's `__O_TMPFILE | O_DIRECTORY`; Swift does not import the macro): the
            // file never has a name. Not every file system has it; then mkstemp below.
            let fd = open(directory, O_RDWR | O_CLOEXEC | 0o20000000 | O_DIRECTORY, 0o600)
            if fd >= 0 { return fd }
        #endif
        var template = Array(
            ((directory.hasSuffix("/") ? directory : directory + "/") + "conn-audit-stdin-XXXXXX")
                .utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard made >= 0 else { return -1 }
        // Its name goes before a byte is written to it.
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        _ = fcntl(made, F_SETFD, FD_CLOEXEC)
        return made
    }

    /// Adds `bytes` at the end of the copy.
    func append(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        guard descriptor >= 0 else {
            memory.append(contentsOf: bytes)
            return
        }
        var done = 0
        while done < bytes.count {
            let written = pwrite(
                descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(length))
            if written < 0, errno == EINTR { continue }
            if written <= 0 { break }
            done += written
            length += written
        }
        guard done < bytes.count else { return }
        // The file cannot take more: what it holds, and the rest, go to memory.
        memory = readBack()
        close(descriptor)
        descriptor = -1
        memory.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[done...]))
    }

    /// The bytes the file holds (when a read fails, those before it).
    private func readBack() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        var done = 0
        out.withUnsafeMutableBytes { buffer in
            while done < length {
                let n = pread(descriptor, buffer.baseAddress! + done, length - done, off_t(done))
                if n < 0, errno == EINTR { continue }
                if n <= 0 { break }
                done += n
            }
        }
        out.removeSubrange(done...)
        return out
    }

    /// A reader of the copy from its start, its errors naming `path`.
    func reader(path: String) -> any ByteSource {
        CopyReader(self, path: path)
    }

    /// Reads up to `buffer.count` bytes from `offset`: how many (0 at the end).
    fileprivate func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer, path: String)
        throws(InputError) -> Int
    {
        guard descriptor >= 0 else {
            let count = min(buffer.count, memory.count - offset)
            guard count > 0 else { return 0 }
            memory.withUnsafeBytes { source in
                buffer.copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: source[offset..<offset + count]))
            }
            return count
        }
        let count = min(buffer.count, length - offset)
        guard count > 0 else { return 0 }
        while true {
            let n = pread(descriptor, buffer.baseAddress!, count, off_t(offset))
            if n >= 0 { return n }
            if errno != EINTR { throw InputError(path: path, errno: errno) }
        }
    }
}

/// One reading of a ``StandardInputCopy``, from its start.
private final class CopyReader: ByteSource {
    private let copy: StandardInputCopy
    private let path: String
    private var offset = 0

    init(_ copy: StandardInputCopy, path: String) {
        self.copy = copy
        self.path = path
    }

    var isCompressed: Bool { copy.isCompressed }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        guard buffer.count > 0 else { return 0 }
        let n = try copy.read(at: offset, into: buffer, path: path)
        offset += n
        return n
    }
}

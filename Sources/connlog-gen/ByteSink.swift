import CZlib
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Errors of the output layer.
enum OutputError: Error, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    case cannotWrite(path: String, reason: String)
    case cannotCreateDirectory(path: String, reason: String)

    var description: String {
        switch self {
        case let .cannotOpen(path, reason): return "cannot open \(path) for writing: \(reason)"
        case let .cannotWrite(path, reason): return "cannot write \(path): \(reason)"
        case let .cannotCreateDirectory(path, reason):
            return "cannot create directory \(path): \(reason)"
        }
    }
}

// MARK: - Files

/// One output file: plain (`write(2)` in large chunks) or gzip (zlib's `gzwrite`).
final class OutputFile {
    let path: String
    private var fd: Int32 = -1
    private var gz: gzFile?

    /// Opens `path` for writing (`-` is standard output, plain only).
    init(path: String, gzip: Bool, level: Int) throws {
        self.path = path
        if gzip {
            guard let f = gzopen(path, "wb\(max(1, min(9, level)))") else {
                throw OutputError.cannotOpen(path: path, reason: String(cString: strerror(errno)))
            }
            gzbuffer(f, 1 << 20)
            gz = f
        } else if path == "-" {
            fd = STDOUT_FILENO
        } else {
            fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            if fd < 0 {
                throw OutputError.cannotOpen(path: path, reason: String(cString: strerror(errno)))
            }
        }
    }

    /// Writes all `count` bytes at `base`.
    func write(_ base: UnsafePointer<UInt8>, _ count: Int) throws {
        if let gz {
            var done = 0
            while done < count {
                let n = min(count - done, 1 << 30)
                let w = gzwrite(gz, base + done, UInt32(n))
                if w <= 0 {
                    var code: Int32 = 0
                    let msg = gzerror(gz, &code).map { String(cString: $0) } ?? "zlib error"
                    throw OutputError.cannotWrite(path: path, reason: msg)
                }
                done += Int(w)
            }
            return
        }
        var done = 0
        while done < count {
            #if canImport(Glibc)
                let w = Glibc.write(fd, base + done, count - done)
            #else
                let w = Darwin.write(fd, base + done, count - done)
            #endif
            if w < 0 {
                if errno == EINTR { continue }
                throw OutputError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
            }
            done += w
        }
    }

    func close() throws {
        if let gz {
            let rc = gzclose(gz)
            self.gz = nil
            if rc != Z_OK {
                throw OutputError.cannotWrite(path: path, reason: "gzclose failed (\(rc))")
            }
        } else if fd >= 0 && fd != STDOUT_FILENO {
            #if canImport(Glibc)
                let rc = Glibc.close(fd)
            #else
                let rc = Darwin.close(fd)
            #endif
            fd = -1
            if rc != 0 {
                throw OutputError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
            }
        }
    }
}

// MARK: - The byte buffer

/// A big reusable byte buffer that lines are formatted into, flushed to the current file in large
/// chunks. Also counts the lines and bytes of the current file, for rotation and the manifest.
///
/// All `put` methods are unchecked appends into spare capacity; `reserve` is called once per line
/// (a line is far below `slack` bytes), so the hot path does one comparison per line.
final class ByteSink {
    private let capacity: Int
    private let slack = 64 * 1024
    private let base: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var file: OutputFile?

    /// 1-based index of the current file in the whole corpus (0 before the first file).
    private(set) var fileIndex = 0
    /// Path of the current file.
    private(set) var filePath = ""
    /// Lines written to the current file so far (= the number of the last line written).
    var fileLines = 0
    /// Bytes written to the current file so far (flushed or buffered).
    var fileBytes: Int { flushedInFile + count }
    private var flushedInFile = 0
    /// Bytes and lines written to all files, this sink's lifetime.
    private(set) var totalBytes = 0
    var totalLines = 0

    init(capacity: Int = 8 << 20) {
        self.capacity = capacity
        base = .allocate(capacity: capacity + 64 * 1024)
    }

    deinit { base.deallocate() }

    /// Closes the current file (if any) and starts writing to a new one.
    func startFile(_ f: OutputFile, index: Int) throws {
        try finishFile()
        file = f
        fileIndex = index
        filePath = f.path
        fileLines = 0
        flushedInFile = 0
    }

    /// Flushes and closes the current file.
    func finishFile() throws {
        try flush()
        try file?.close()
        file = nil
    }

    /// Writes the buffered bytes to the current file.
    func flush() throws {
        if count > 0, let file {
            try file.write(base, count)
        }
        flushedInFile += count
        totalBytes += count
        count = 0
    }

    /// Bytes written so far including the buffer (for budgets).
    @inline(__always)
    var position: Int { totalBytes + count }

    /// Makes room for one more line (flushing when the buffer is full).
    @inline(__always)
    func reserve() throws {
        if count >= capacity { try flush() }
    }

    @inline(__always)
    func put(_ s: StaticString) {
        let n = s.utf8CodeUnitCount
        (base + count).update(from: s.utf8Start, count: n)
        count &+= n
    }

    @inline(__always)
    func put(byte: UInt8) {
        base[count] = byte
        count &+= 1
    }

    @inline(__always)
    func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        (base + count).update(from: bytes.baseAddress!, count: bytes.count)
        count &+= bytes.count
    }

    /// Appends the decimal text of `v`.
    @inline(__always)
    func put(int v: Int) {
        if v < 0 {
            put(byte: UInt8(ascii: "-"))
            put(uint: UInt64(0 &- v))
        } else {
            put(uint: UInt64(v))
        }
    }

    @inline(__always)
    func put(uint v: UInt64) {
        if v < 10 {
            base[count] = 48 &+ UInt8(truncatingIfNeeded: v)
            count &+= 1
            return
        }
        var digits = 0
        var x = v
        while x > 0 { digits &+= 1; x /= 10 }
        var p = count &+ digits
        x = v
        while x > 0 {
            p &-= 1
            base[p] = 48 &+ UInt8(truncatingIfNeeded: x % 10)
            x /= 10
        }
        count &+= digits
    }
}

internal import CZlib
import Glibc

/// A stream of bytes from one input, read in chunks the caller chooses.
public protocol ByteSource: AnyObject {
    /// Reads up to `buffer.count` bytes; returns 0 only at the end of the stream (or for an empty
    /// buffer).
    ///
    /// Bytes decoded before a failure are returned first; the error is thrown by the following
    /// call, and by every call after it.
    ///
    /// - Throws: ``InputError`` with the input's path.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int

    /// Whether the input is gzip, decompressed as it is read; known once the first read began.
    var isCompressed: Bool { get }
}

extension ByteSource {
    /// A source that decodes nothing reads its bytes as they are.
    public var isCompressed: Bool { false }
}

/// Opens inputs as ``ByteSource``s.
public enum ByteSources {
    /// The fixed size of the buffer a source reads its input through; memory does not grow with the
    /// input.
    static let inputBufferSize = 256 * 1024

    /// Opens a file (or stdin) for streaming.
    ///
    /// Gzip is recognised by its magic bytes (1f 8b) at the start of the stream, whatever the name,
    /// and decompressed transparently; concatenated members decode as one stream. Nothing is read
    /// until the first call to `read(into:)`, so opening stdin does not wait for input.
    ///
    /// A gzip input may expand to `maxExpansion` times the compressed bytes read so far, plus
    /// ``expansionAllowance``; past that it fails as a possible gzip bomb (0: no cap).
    ///
    /// - Throws: ``InputError`` when the file cannot be opened (`no such file or directory`, ...).
    public static func open(_ file: InputFile, maxExpansion: Int = defaultMaxExpansion)
        throws(InputError)
        -> any ByteSource
    {
        if file.isStdin {
            guard !StandardDescriptors.inputClosed else {
                throw InputError(path: file.path, reason: "standard input is closed")
            }
            return DecodingSource(
                FileSource(descriptor: 0, path: file.path, closes: false), path: file.path,
                maxExpansion: maxExpansion)
        }
        var descriptor: Int32
        repeat {
            descriptor = InputFile.withCString(file.bytes) { Glibc.open($0, O_RDONLY | O_CLOEXEC) }
        } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else { throw InputError(path: file.path, errno: errno) }
        return DecodingSource(
            FileSource(descriptor: descriptor, path: file.path, closes: true), path: file.path,
            maxExpansion: maxExpansion)
    }

    /// Wraps an in-memory buffer (for tests and fixtures), also sniffing gzip.
    public static func memory(
        _ bytes: [UInt8], path: String, maxExpansion: Int = defaultMaxExpansion
    )
        -> any ByteSource
    {
        DecodingSource(MemorySource(bytes), path: path, maxExpansion: maxExpansion)
    }

    /// Decodes any raw source as a file's would be (tests: one that gives a few bytes per read, as
    /// a pipe may).
    static func decoding(
        _ base: any ByteSource, path: String, maxExpansion: Int = defaultMaxExpansion
    )
        -> any ByteSource
    {
        DecodingSource(base, path: path, maxExpansion: maxExpansion)
    }

    // MARK: Expansion cap

    /// How many times its compressed size a gzip input may expand to (`--max-expansion`).
    ///
    /// Logs compress 6 to 16 times (connlog-gen corpora, the samples, a soak log of pings, at
    /// gzip -1 to -9); one line repeated with only its time changing about 50 times; lines that
    /// repeat a 2 KB payload up to 123 times. Bombs start at 147 (one line repeated, gzip -1) and
    /// reach deflate's bound of about 1,030 (newlines or zeros, gzip -6). A cap of 100 lets a
    /// gzip input cost at most what a plain file 100 times its size would.
    public static let defaultMaxExpansion = 100

    /// Output a gzip input may produce beyond `maxExpansion` times its compressed bytes: a small
    /// file, or a burst of repeated lines, is not held to the ratio.
    public static let expansionAllowance = 4 << 20
}

// MARK: - Raw sources

/// A file descriptor read with `read(2)`, retried on `EINTR`, closed in `deinit` when owned.
private final class FileSource: ByteSource {
    private let descriptor: Int32
    private let path: String
    private let closes: Bool
    /// For a regular file, the bytes between the position when opened and the end then: reaching
    /// the end before reading that many means the file shrank under us (log rotation by copy and
    /// truncate).
    private let expected: Int?
    /// Where the descriptor stood when opened (stdin redirected from a file may start part-way
    /// in): offset 0 of ``read(at:into:)``.
    private let start: Int
    private var offset = 0
    private var ended = false

    init(descriptor: Int32, path: String, closes: Bool) {
        self.descriptor = descriptor
        self.path = path
        self.closes = closes
        var info = stat()
        let start = lseek(descriptor, 0, SEEK_CUR)
        self.start = max(0, Int(start))
        if fstat(descriptor, &info) == 0, info.st_mode & mode_t(S_IFMT) == mode_t(S_IFREG),
            start >= 0
        {
            expected = max(0, Int(info.st_size) - Int(start))
        } else {
            expected = nil
        }
    }

    deinit {
        if closes {
            _ = close(descriptor)
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        guard !ended, let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let count = Glibc.read(descriptor, base, buffer.count)
            if count > 0 {
                offset += count
                return count
            }
            if count == 0 {
                ended = true
                if let expected, offset < expected {
                    throw InputError(path: path, reason: "file shrank while being read")
                }
                return 0
            }
            let code = errno
            if code != EINTR {
                throw InputError(path: path, errno: code)
            }
        }
    }
}

/// Bytes already in memory.
private final class MemorySource: ByteSource {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        let count = min(buffer.count, bytes.count - offset)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { source in
            buffer.copyMemory(
                from: UnsafeRawBufferPointer(rebasing: source[offset..<offset + count]))
        }
        offset += count
        return count
    }
}

extension FileSource: RandomAccessBytes {
    /// A regular file's bytes from where it was opened to its end then; nil for a pipe or a
    /// device, which read once.
    var knownSize: Int? { expected }

    func read(at position: Int, into buffer: UnsafeMutableRawBufferPointer) throws(InputError)
        -> Int
    {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let count = pread(descriptor, base, buffer.count, off_t(start + position))
            if count >= 0 { return count }
            let code = errno
            if code != EINTR { throw InputError(path: path, errno: code) }
        }
    }
}

extension MemorySource: RandomAccessBytes {
    var knownSize: Int? { bytes.count }

    func read(at position: Int, into buffer: UnsafeMutableRawBufferPointer) throws(InputError)
        -> Int
    {
        let count = max(0, min(buffer.count, bytes.count - position))
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { source in
            buffer.copyMemory(
                from: UnsafeRawBufferPointer(rebasing: source[position..<position + count]))
        }
        return count
    }
}

// MARK: - Gzip sniffing and decoding

/// Reads a raw source, deciding from its first bytes whether it is gzip.
///
/// Plain input is passed through (after the few bytes read to decide); gzip input is inflated
/// through a fixed input buffer of ``ByteSources/inputBufferSize`` bytes, member after member.
private final class DecodingSource: ByteSource {
    private enum Mode {
        case undecided
        case plain
        case gzip(UnsafeMutablePointer<z_stream>)
        case finished
    }

    private let base: any ByteSource
    private let path: String
    private var mode = Mode.undecided
    /// Set when the first bytes were gzip's magic.
    private(set) var isCompressed = false
    /// Input read from `base` and not yet used is `input[pendingStart..<pendingEnd]`.
    private let input: UnsafeMutableRawBufferPointer
    private var pendingStart = 0
    private var pendingEnd = 0
    private var baseEnded = false
    /// Set after a gzip member's end, until the next member starts.
    private var memberEnded = false
    /// Zero bytes followed the last member: only more zeros may come.
    private var inZeroPadding = false
    /// The error thrown by every call once something failed.
    private var failure: InputError?
    /// See ``ByteSources/defaultMaxExpansion``; 0: no cap.
    private let maxExpansion: Int
    /// Compressed bytes given to the decoder (every member's), and the bytes they decoded to.
    private var compressedBytes = 0
    private var expandedBytes = 0

    init(_ base: any ByteSource, path: String, maxExpansion: Int) {
        self.base = base
        self.path = path
        self.maxExpansion = max(0, maxExpansion)
        input = .allocate(byteCount: ByteSources.inputBufferSize, alignment: 16)
    }

    deinit {
        if case .gzip(let stream) = mode {
            inflateEnd(stream)
            stream.deinitialize(count: 1)
            stream.deallocate()
        }
        input.deallocate()
    }

    private var pendingCount: Int { pendingEnd - pendingStart }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        if let failure { throw failure }
        guard buffer.count > 0 else { return 0 }
        do {
            while true {
                switch mode {
                case .undecided:
                    try decide()
                case .plain:
                    if pendingCount > 0 {
                        let count = min(buffer.count, pendingCount)
                        buffer.copyMemory(
                            from: UnsafeRawBufferPointer(
                                rebasing: input[pendingStart..<pendingStart + count]))
                        pendingStart += count
                        return count
                    }
                    if baseEnded { return 0 }
                    return try base.read(into: buffer)
                case .gzip(let stream):
                    return try inflate(stream, into: buffer)
                case .finished:
                    return 0
                }
            }
        } catch {
            failure = error
            throw error
        }
    }

    /// Reads until two bytes are known (or the input ends) and picks the mode.
    private func decide() throws(InputError) {
        while pendingCount < 2 && !baseEnded {
            try fill()
        }
        // A `.gz` of zero bytes is no gzip stream (`gzip -t` says so): an upload cut to nothing
        // must not pass as an empty log. A non-empty plain file named `.gz` is read as it is.
        let namedGz = path.lowercased().hasSuffix(".gz")
        if pendingCount == 0, namedGz {
            throw InputError(path: path, reason: "empty file, not gzip data")
        }
        guard pendingCount >= 2, input[pendingStart] == 0x1f, input[pendingStart + 1] == 0x8b else {
            // A `.gz` that is neither gzip nor text is a corrupt gzip (connlog: "cannot be read"):
            // zlib or raw DEFLATE data (`NSData.compressed(using: .zlib)`) named `.jsonl.gz` would
            // otherwise pass as one cut-off line, and a gate as a complete verdict. Judged on the
            // first 512 bytes (a pipe may give fewer at first).
            if namedGz {
                while pendingCount < Self.sniffLength && !baseEnded { try fill() }
                let head = UnsafeBufferPointer(
                    start: input.baseAddress!.assumingMemoryBound(to: UInt8.self) + pendingStart,
                    count: min(pendingCount, Self.sniffLength))
                if !Self.looksLikeText(
                    head, complete: baseEnded && pendingCount <= Self.sniffLength)
                {
                    let shown = head.prefix(2).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }
                        .joined(separator: " ")
                    throw InputError(
                        path: path,
                        reason:
                            "not gzip data, nor text: it starts with \(shown) (gzip starts with 1f 8b)"
                    )
                }
            }
            mode = .plain
            return
        }
        isCompressed = true
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = inflateInit2_(
            stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw InputError(
                path: path,
                reason: status == Z_MEM_ERROR ? "out of memory" : "cannot start gzip decoder")
        }
        mode = .gzip(stream)
    }

    /// How many bytes of a `.gz` input that is not gzip are looked at to tell text from binary.
    static let sniffLength = 512

    /// Whether `head`, the first bytes of an input, reads as text (a plain log named `.gz`, read as
    /// it is): no control characters but tab, line feed and carriage return, and either valid
    /// UTF-8 or a JSON object's `{` first (a log line may hold a stray byte; compressed data holds
    /// control bytes within a few dozen). When `head` is not the whole input, a UTF-8 sequence cut
    /// at its end is not held against it.
    static func looksLikeText(_ head: UnsafeBufferPointer<UInt8>, complete: Bool) -> Bool {
        for b in head where (b < 0x20 && b != 0x09 && b != 0x0A && b != 0x0D) || b == 0x7F {
            return false
        }
        let first = head.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
        if first == UInt8(ascii: "{") { return true }
        if let bad = JSONLineParser.firstInvalidUTF8(head), complete || bad < head.count - 3 {
            return false
        }
        return true
    }

    /// Reads more of `base` after the pending bytes, moving them to the front first. Sets
    /// `baseEnded` at the end.
    private func fill() throws(InputError) {
        if pendingStart > 0 {
            if pendingCount > 0 {
                input.baseAddress!.copyMemory(
                    from: input.baseAddress! + pendingStart, byteCount: pendingCount)
            }
            pendingEnd = pendingCount
            pendingStart = 0
        }
        let count = try base.read(
            into: UnsafeMutableRawBufferPointer(rebasing: input[pendingEnd...]))
        if count == 0 {
            baseEnded = true
        } else {
            pendingEnd += count
        }
    }

    /// Whether the output passed the cap: `maxExpansion` times the compressed bytes read, plus
    /// the allowance (a product too large for an `Int` is no cap).
    private var expandsTooMuch: Bool {
        guard maxExpansion > 0, expandedBytes > ByteSources.expansionAllowance else { return false }
        let (ratioBound, overflow) = compressedBytes.multipliedReportingOverflow(by: maxExpansion)
        return !overflow && expandedBytes - ByteSources.expansionAllowance > ratioBound
    }

    /// A byte count for people: bytes below 1 KiB, else KiB, MiB or GiB with one decimal.
    static func size(_ bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) bytes" }
        var value = Double(bytes) / 1024
        for unit in ["KiB", "MiB", "GiB"] {
            if value < 1024 || unit == "GiB" {
                let tenths = Int((value * 10).rounded())
                return "\(tenths / 10).\(tenths % 10) \(unit)"
            }
            value /= 1024
        }
        return "\(bytes) bytes"
    }

    /// Inflates into `buffer` until it is full, the input ends, or more input would have to be
    /// waited for while some output is ready (so a pipe's lines are not held back).
    private func inflate(
        _ stream: UnsafeMutablePointer<z_stream>, into buffer: UnsafeMutableRawBufferPointer
    )
        throws(InputError) -> Int
    {
        var produced = 0

        /// Returns the bytes decoded so far and keeps the error for the next call; throws it if
        /// there are none.
        func fail(_ reason: String) throws(InputError) -> Int {
            let error = InputError(path: path, reason: reason)
            guard produced > 0 else { throw error }
            failure = error
            return produced
        }

        while true {
            if memberEnded {
                // Another member, the end, or garbage: look at two bytes to know which.
                if pendingCount < 2 && !baseEnded {
                    if produced > 0 { return produced }
                    try fill()
                    continue
                }
                if pendingCount > 0, input[pendingStart] == 0 || inZeroPadding {
                    // Zeros after the last member (block-aligned writers pad with them): ignored,
                    // as GNU gzip does; anything after them is garbage.
                    inZeroPadding = true
                    while pendingCount > 0, input[pendingStart] == 0 { pendingStart += 1 }
                    if pendingCount > 0 { return try fail("trailing garbage after gzip data") }
                    if !baseEnded {
                        if produced > 0 { return produced }
                        try fill()
                        continue
                    }
                }
                if pendingCount == 0 {
                    // The decoder is done: free it now (deinit only frees a stream still in use).
                    inflateEnd(stream)
                    stream.deinitialize(count: 1)
                    stream.deallocate()
                    mode = .finished
                    return produced
                }
                guard pendingCount >= 2, input[pendingStart] == 0x1f,
                    input[pendingStart + 1] == 0x8b
                else {
                    return try fail("trailing garbage after gzip data")
                }
                inflateReset(stream)
                memberEnded = false
            }

            let room = UInt32(clamping: buffer.count - produced)
            let available = UInt32(pendingCount)
            stream.pointee.next_in = (input.baseAddress! + pendingStart).assumingMemoryBound(
                to: Bytef.self)
            stream.pointee.avail_in = available
            stream.pointee.next_out = (buffer.baseAddress! + produced).assumingMemoryBound(
                to: Bytef.self)
            stream.pointee.avail_out = room
            let status = CZlib.inflate(stream, Z_NO_FLUSH)
            let consumed = Int(available - stream.pointee.avail_in)
            let written = Int(room - stream.pointee.avail_out)
            pendingStart += consumed
            produced += written
            stream.pointee.next_in = nil
            stream.pointee.next_out = nil
            compressedBytes += consumed
            expandedBytes += written
            if expandsTooMuch {
                return try fail(
                    "gzip data expands more than \(maxExpansion) times (\(Self.size(expandedBytes)) from "
                        + "\(Self.size(compressedBytes))): refused as a possible gzip bomb; "
                        + "--max-expansion raises the cap")
            }

            switch status {
            case Z_STREAM_END:
                memberEnded = true
            case Z_OK, Z_BUF_ERROR:
                if produced == buffer.count { return produced }
                // Room is left, so zlib wants input; it has used all it was given.
                guard pendingCount == 0 else {
                    if consumed > 0 || written > 0 { continue }
                    return try fail("corrupt gzip data")
                }
                if baseEnded { return try fail("truncated gzip data") }
                if produced > 0 { return produced }
                try fill()
            case Z_MEM_ERROR:
                return try fail("out of memory")
            default:
                // Z_DATA_ERROR, and Z_NEED_DICT / Z_STREAM_ERROR, which a gzip stream cannot
                // rightly cause.
                let message = stream.pointee.msg.map { String(cString: $0).lowercased() } ?? ""
                return try fail(
                    message.isEmpty ? "corrupt gzip data" : "corrupt gzip data: \(message)")
            }
        }
    }
}

// MARK: - Compressing (tests and fixtures)

/// Gzip compression, for building `.gz` test inputs.
enum Gzip {
    /// One gzip member holding `bytes`, repeated `times` times.
    ///
    /// Repeating lets a test build a large decompressed stream (a gzip bomb) without holding it in
    /// memory.
    static func compress(_ bytes: [UInt8], repeated times: Int = 1, level: Int = 6) -> [UInt8] {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer {
            deflateEnd(stream)
            stream.deinitialize(count: 1)
            stream.deallocate()
        }
        let status = deflateInit2_(
            stream, Int32(level), Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
            Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "deflateInit2_ failed: \(status)")

        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var input = bytes
        input.withUnsafeMutableBufferPointer { source in
            for index in 0..<max(times, 1) {
                let last = index == max(times, 1) - 1
                stream.pointee.next_in = source.baseAddress
                stream.pointee.avail_in = UInt32(times > 0 ? source.count : 0)
                var result: Int32
                repeat {
                    result = chunk.withUnsafeMutableBufferPointer { out in
                        stream.pointee.next_out = out.baseAddress
                        stream.pointee.avail_out = UInt32(out.count)
                        let result = deflate(stream, last ? Z_FINISH : Z_NO_FLUSH)
                        output += out[..<(out.count - Int(stream.pointee.avail_out))]
                        return result
                    }
                    precondition(result == Z_OK || result == Z_STREAM_END || result == Z_BUF_ERROR)
                } while last ? result != Z_STREAM_END : stream.pointee.avail_in > 0
            }
        }
        return output
    }
}

extension DecodingSource: SplittableSource {
    func parts(_ count: Int, minimumPart: Int) -> [any ByteSource]? {
        // Only before anything was read, and never gzip (one stream, decoded in order) nor a
        // file named `.gz` (its first read judges whether it is one).
        guard case .undecided = mode, pendingCount == 0, !path.lowercased().hasSuffix(".gz"),
            let bytes = base as? any RandomAccessBytes
        else { return nil }
        return ByteParts.split(bytes, path: path, count: count, minimumPart: minimumPart)
    }
}

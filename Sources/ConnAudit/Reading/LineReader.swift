#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One physical line handed out by ``LineReader``.
struct RawLine {
    /// 1-based physical line number.
    var number: Int
    /// The line's bytes without its line end (`\n`, `\r\n`) and without a leading BOM.
    /// Empty when ``tooLong`` (the bytes were skipped, never held).
    var bytes: UnsafeBufferPointer<UInt8>
    /// The line ran to the end of the input without a `\n`.
    var unterminated: Bool
    /// Length in bytes when the line exceeded ``LineReader/maxLineBytes``; nil otherwise.
    var tooLong: Int?
}

/// Splits a byte stream into lines, in bounded memory.
///
/// Reads in large chunks into one buffer and hands out lines as views into it. A line longer than
/// ``maxLineBytes`` is measured and skipped without being held, so a 100 MB line with no newline
/// costs no more memory than a short one; with ``scansLongLines`` its bytes go through a
/// ``LongLineSecretScanner`` on the way (``longLineSecretPaths``).
final class LineReader {
    /// connlog: a line may hold 1 MiB (1,048,576 bytes) without its line end.
    static let maxLineBytes = 1 << 20

    private let source: any ByteSource
    private let chunk: Int
    private var buffer: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private var start = 0  // first byte not yet handed out
    private var end = 0  // one past the last byte read
    private var scanned = 0  // bytes from `start` known to hold no newline
    private var eof = false
    private var lineNumber = 0
    private var atFileStart = true
    /// Total bytes read from the source (after decompression).
    private(set) var bytesRead = 0
    /// Whether the source is gzip (known once the first line was asked for).
    var isCompressed: Bool { source.isCompressed }
    /// Scans each line too long to hand out for secrets as it is skipped (``FileReader`` does;
    /// a reader that only looks for where sources end does not).
    private var longLineScanner: LongLineSecretScanner?
    /// The secret key paths of the last line handed out as ``RawLine/tooLong``, when
    /// ``scansLongLines`` (``LongLineSecretScanner/finish()``).
    private(set) var longLineSecretPaths: [String] = []

    var scansLongLines: Bool {
        get { longLineScanner != nil }
        set { longLineScanner = newValue ? LongLineSecretScanner() : nil }
    }

    /// The physical lines handed out so far.
    var lineCount: Int { lineNumber }

    /// - Parameter midFile: the source starts just after a newline of a file (a part of it,
    ///   ``SplittableSource``): its first line is no file's first, which alone may start with a
    ///   BOM.
    init(_ source: any ByteSource, chunkSize: Int = 1 << 20, midFile: Bool = false) {
        self.source = source
        self.chunk = chunkSize
        atFileStart = !midFile
        // Room for a whole maximal line plus its line end and one chunk to read into.
        capacity = Self.maxLineBytes + 5 + chunkSize
        buffer = .allocate(capacity: capacity)
    }

    deinit { buffer.deallocate() }

    /// The next line, or nil at the end of the input. Throws the source's InputError; lines read
    /// before an error have all been handed out first.
    ///
    /// Inlined into the reader's loop: most lines end in what is buffered already.
    @inline(__always) func next() throws(InputError) -> RawLine? {
        if let nl = findNewline(from: start + scanned) { return makeTerminatedLine(endingAt: nl) }
        return try nextAfterReading()
    }

    /// ``next()`` when the buffer holds no newline past what was scanned: reads on to one (or
    /// to the end, or past a line too long to hold).
    @inline(never) private func nextAfterReading() throws(InputError) -> RawLine? {
        while true {
            // Look for a newline in what is buffered.
            if let nl = findNewline(from: start + scanned) {
                return makeTerminatedLine(endingAt: nl)
            }
            scanned = end - start
            // A line may hold maxLineBytes plus a `\r` (and a BOM on the first line) before its
            // `\n`.
            if scanned > Self.maxLineBytes + 1 + (atFileStart ? 3 : 0) {
                return try skipLongLine()
            }
            if eof {
                if start == end {
                    if let error = pendingError {
                        pendingError = nil
                        throw error
                    }
                    return nil
                }
                return makeLine(endingAt: end, terminated: false)
            }
            fillKeepingError()
        }
    }

    /// A read error, thrown once the lines read before it are handed out.
    private var pendingError: InputError?

    /// Reads more; on an error, ends the input there and keeps the error for later: what was
    /// read before it is still handed out (the last line, cut off, as an unterminated one), since
    /// connlog keeps and checks the lines before a read error.
    private func fillKeepingError() {
        do {
            try fill()
        } catch {
            pendingError = error
            eof = true
        }
    }

    @inline(__always) private func findNewline(from position: Int) -> Int? {
        guard position < end else { return nil }
        guard let p = memchr(buffer + position, 0x0A, end - position) else { return nil }
        return buffer.distance(to: p.assumingMemoryBound(to: UInt8.self))
    }

    /// The line before the newline at `nl`. A file's first line (which may start with a BOM) and
    /// one that may be too long go the general way, out of line; any other is a view as it is, a
    /// `\r` before its newline left out.
    @inline(__always) private func makeTerminatedLine(endingAt nl: Int) -> RawLine {
        guard !atFileStart, nl - start <= Self.maxLineBytes else {
            return makeLine(endingAt: nl, terminated: true)
        }
        lineNumber += 1
        let lineStart = start
        var lineEnd = nl
        if lineEnd > lineStart, buffer[lineEnd - 1] == 0x0D { lineEnd -= 1 }
        start = nl + 1
        scanned = 0
        return RawLine(
            number: lineNumber,
            bytes: UnsafeBufferPointer(start: buffer + lineStart, count: lineEnd - lineStart),
            unterminated: false, tooLong: nil)
    }

    @inline(never) private func makeLine(endingAt nl: Int, terminated: Bool) -> RawLine {
        lineNumber += 1
        var lineStart = start
        var lineEnd = nl
        if atFileStart {
            atFileStart = false
            if lineEnd - lineStart >= 3, buffer[lineStart] == 0xEF, buffer[lineStart + 1] == 0xBB,
                buffer[lineStart + 2] == 0xBF
            {
                lineStart += 3
            }
        }
        if lineEnd > lineStart, buffer[lineEnd - 1] == 0x0D { lineEnd -= 1 }
        start = terminated ? nl + 1 : nl
        scanned = 0
        let length = lineEnd - lineStart
        if length > Self.maxLineBytes {
            if longLineScanner != nil {
                longLineScanner!.reset()
                longLineScanner!.feed(UnsafeBufferPointer(start: buffer + lineStart, count: length))
                longLineSecretPaths = longLineScanner!.finish()
            }
            return RawLine(
                number: lineNumber, bytes: UnsafeBufferPointer(start: buffer, count: 0),
                unterminated: !terminated, tooLong: length)
        }
        return RawLine(
            number: lineNumber,
            bytes: UnsafeBufferPointer(start: buffer + lineStart, count: length),
            unterminated: !terminated, tooLong: nil)
    }

    /// Consumes a line that is too long, counting its bytes (a BOM on the first line not
    /// counted), until its newline or the end; its bytes go through the scanner as they pass.
    private func skipLongLine() throws(InputError) -> RawLine {
        lineNumber += 1
        if atFileStart {
            atFileStart = false
            if buffer[start] == 0xEF, buffer[start + 1] == 0xBB, buffer[start + 2] == 0xBF {
                start += 3
            }
        }
        var length = end - start
        if longLineScanner != nil {
            longLineScanner!.reset()
            scanLong(from: start, to: end)
        }
        start = end
        scanned = 0
        var lastByte: UInt8 = buffer[end - 1]
        while true {
            if start == end {
                if eof {
                    finishLongLine()
                    return RawLine(
                        number: lineNumber, bytes: UnsafeBufferPointer(start: buffer, count: 0),
                        unterminated: true, tooLong: length)
                }
                start = 0
                end = 0
                fillKeepingError()
                continue
            }
            if let nl = findNewline(from: start) {
                length += nl - start
                if nl > start { lastByte = buffer[nl - 1] }
                if lastByte == 0x0D { length -= 1 }
                // A `\r` before the newline reaches the scanner: white space, it changes nothing.
                scanLong(from: start, to: nl)
                finishLongLine()
                start = nl + 1
                return RawLine(
                    number: lineNumber, bytes: UnsafeBufferPointer(start: buffer, count: 0),
                    unterminated: false, tooLong: length)
            }
            length += end - start
            lastByte = buffer[end - 1]
            scanLong(from: start, to: end)
            start = end
        }
    }

    private func scanLong(from: Int, to: Int) {
        guard longLineScanner != nil, to > from else { return }
        longLineScanner!.feed(UnsafeBufferPointer(start: buffer + from, count: to - from))
    }

    private func finishLongLine() {
        guard longLineScanner != nil else { return }
        longLineSecretPaths = longLineScanner!.finish()
    }

    private func fill() throws(InputError) {
        if start > 0 {
            let remaining = end - start
            if remaining > 0 { memmove(buffer, buffer + start, remaining) }
            end = remaining
            start = 0
        }
        let room = min(chunk, capacity - end)
        let n = try source.read(
            into: UnsafeMutableRawBufferPointer(start: buffer + end, count: room))
        if n == 0 { eof = true }
        end += n
        bytesRead += n
    }
}

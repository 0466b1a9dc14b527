/// Bytes that can be read at any position, from several threads at once: a regular file (with
/// `pread(2)`), or bytes in memory.
protocol RandomAccessBytes: AnyObject {
    /// The number of bytes when opened; nil when they can only be read once, in order.
    var knownSize: Int? { get }
    /// Reads up to `buffer.count` bytes from `position`; 0 at the end.
    func read(at position: Int, into buffer: UnsafeMutableRawBufferPointer) throws(InputError)
        -> Int
}

/// A source that can give its bytes as consecutive parts, each read by a reader of its own.
protocol SplittableSource: ByteSource {
    /// At most `count` sources that give, one after another, the bytes this source would give;
    /// each part but the first starts just after a newline, and each but the last holds at least
    /// `minimumPart` bytes. Nil when the input cannot be split: gzip, a pipe, something already
    /// read, or too few bytes.
    func parts(_ count: Int, minimumPart: Int) -> [any ByteSource]?
}

/// Splits ``RandomAccessBytes`` at newlines into parts of about equal size.
enum ByteParts {
    /// How far past a part's planned start a newline is looked for: connlog's longest line and
    /// its line end. Past a longer line, that boundary is dropped, and the file is read in one
    /// part fewer.
    static let newlineSearch = LineReader.maxLineBytes + 2

    static func split(
        _ bytes: any RandomAccessBytes, path: String, count: Int, minimumPart: Int
    ) -> [any ByteSource]? {
        guard count > 1, minimumPart > 0, let size = bytes.knownSize, size >= 2 * minimumPart
        else { return nil }
        // gzip's magic in a file not named `.gz`: decoded as one stream, never split.
        let head = UnsafeMutableRawBufferPointer.allocate(byteCount: 2, alignment: 1)
        defer { head.deallocate() }
        guard (try? bytes.read(at: 0, into: head)) == 2, head[0] != 0x1f || head[1] != 0x8b
        else { return nil }
        let parts = min(count, size / minimumPart)
        var starts = [0]
        for k in 1..<parts {
            let planned = max(size / parts * k, starts[starts.count - 1] + minimumPart)
            guard planned < size else { break }
            let start: Int?
            do { start = try lineStart(from: planned, in: bytes, size: size) } catch {
                return nil
            }
            if let start, start < size { starts.append(start) }
        }
        guard starts.count > 1 else { return nil }
        return starts.indices.map { i in
            BytePart(
                bytes, path: path, from: starts[i],
                to: i + 1 < starts.count ? starts[i + 1] : nil)
        }
    }

    /// The position just after the first newline at or after `position - 1`, looked for over at
    /// most ``newlineSearch`` bytes; nil when there is none there.
    static func lineStart(from position: Int, in bytes: any RandomAccessBytes, size: Int)
        throws(InputError) -> Int?
    {
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
        defer { chunk.deallocate() }
        var at = position - 1
        let limit = min(size, at + newlineSearch)
        while at < limit {
            let wanted = min(chunk.count, limit - at)
            let n = try bytes.read(
                at: at, into: UnsafeMutableRawBufferPointer(rebasing: chunk[0..<wanted]))
            guard n > 0 else { return nil }
            if let i = chunk[0..<n].firstIndex(of: 0x0A) { return at + i + 1 }
            at += n
        }
        return nil
    }
}

/// One part of ``RandomAccessBytes``, read in order: from `from` to `to`, or to the end of the
/// input when `to` is nil (the last part reads what the file holds by then, as a whole read
/// would). Reading stops with an error when the input ends before `to`.
final class BytePart: ByteSource {
    private let bytes: any RandomAccessBytes
    private let path: String
    private var position: Int
    private let end: Int?

    init(_ bytes: any RandomAccessBytes, path: String, from: Int, to end: Int?) {
        self.bytes = bytes
        self.path = path
        position = from
        self.end = end
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        let room = end.map { min(buffer.count, $0 - position) } ?? buffer.count
        guard room > 0 else { return 0 }
        let n = try bytes.read(
            at: position, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<room]))
        if n == 0, end != nil {
            throw InputError(path: path, reason: "file shrank while being read")
        }
        position += n
        return n
    }
}

/// A source that hands what each read returned to a tap: to copy the bytes as they are read
/// (``Spool``), or to end the stream with an error after them (``StdinCopy``).
final class TappedSource: ByteSource {
    /// Called after each read with the bytes it returned, and whether it was the end of the
    /// stream (nothing read into a buffer with room). What it throws, the read throws.
    typealias Tap = (_ bytes: UnsafeRawBufferPointer, _ atEnd: Bool) throws(InputError) -> Void

    private let inner: any ByteSource
    private let tap: Tap

    init(_ inner: any ByteSource, tap: @escaping Tap) {
        self.inner = inner
        self.tap = tap
    }

    var isCompressed: Bool { inner.isCompressed }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        let n = try inner.read(into: buffer)
        try tap(UnsafeRawBufferPointer(rebasing: buffer[..<n]), n == 0 && buffer.count > 0)
        return n
    }
}

/// Standard input can be read once; when other files are given too, pass 1 copies it as it is
/// read (``StandardInputCopy``) so pass 2 can read it again.
final class Spool: @unchecked Sendable {
    private var copy: StandardInputCopy?

    init(inputs: [InputFile]) {
        guard inputs.count > 1, inputs.contains(where: \.isStdin) else { return }
        copy = StandardInputCopy()
    }

    func wrap(_ input: InputFile, _ source: any ByteSource) -> any ByteSource {
        guard input.isStdin, let copy else { return source }
        return TeeSource(source, copy: copy)
    }

    /// `input` opened again: standard input from its copy, any other file by `opener`.
    func reopen(_ input: InputFile, _ opener: Auditor.Opener) throws(InputError) -> any ByteSource {
        guard input.isStdin, let copy else { return try opener(input) }
        return copy.reader(path: input.path)
    }

    func close() {
        copy = nil
    }
}

/// A source whose bytes are also added to a ``StandardInputCopy`` as they are read.
private final class TeeSource: ByteSource {
    private let inner: any ByteSource
    private let copy: StandardInputCopy

    init(_ inner: any ByteSource, copy: StandardInputCopy) {
        self.inner = inner
        self.copy = copy
    }

    var isCompressed: Bool { inner.isCompressed }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        let n = try inner.read(into: buffer)
        copy.isCompressed = inner.isCompressed
        copy.append(UnsafeRawBufferPointer(rebasing: buffer[..<n]))
        return n
    }
}

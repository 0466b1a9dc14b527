/// Standard input can be read once; the timeline reads it three times, so it is read whole into
/// a ``StandardInputCopy`` first.
final class StdinCopy: @unchecked Sendable {
    private var copy: StandardInputCopy?
    private let path: String
    private var openError: InputError?
    /// A read error met while copying: every later read ends with it, after the bytes read before
    /// it.
    private var readError: InputError?

    init(_ input: InputFile, opener: Auditor.Opener) {
        path = input.path
        let source: any ByteSource
        do {
            source = try opener(input)
        } catch {
            openError = error
            return
        }
        let copy = StandardInputCopy()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n: Int
            do {
                n = try source.read(into: buffer)
            } catch {
                readError = error
                break
            }
            if n == 0 { break }
            copy.append(UnsafeRawBufferPointer(rebasing: buffer[..<n]))
        }
        copy.isCompressed = source.isCompressed
        self.copy = copy
    }

    func open() throws(InputError) -> any ByteSource {
        if let openError { throw openError }
        let inner = copy?.reader(path: path) ?? ByteSources.memory([], path: path)
        guard let readError else { return inner }
        // Standard input that failed mid-stream: its copy ends with the error after its bytes.
        return TappedSource(inner) { _, atEnd throws(InputError) in
            if atEnd { throw readError }
        }
    }

    func remove() {
        copy = nil
    }
}

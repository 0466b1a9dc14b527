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
        // The bytes are added to the copy as they are read.
        return TappedSource(source) { bytes, _ in
            copy.isCompressed = source.isCompressed
            copy.append(bytes)
        }
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

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension InputFile {
    /// Its size on disk as `stat` gives it now (a gzip file's compressed size); nil for standard
    /// input or a file that cannot be looked at.
    var sizeOnDisk: Int? {
        guard !isStdin else { return nil }
        var info = stat()
        guard Self.withCString(bytes, { stat($0, &info) }) == 0 else { return nil }
        return Int(info.st_size)
    }
}

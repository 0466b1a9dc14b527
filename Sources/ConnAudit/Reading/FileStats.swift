/// What was read, per file: lines read = events + malformed + blank, always.
public struct FileStats: Sendable {
    public var path: String
    public var lines = 0
    public var events = 0
    public var malformed = 0
    public var blank = 0
    /// Bytes read (after decompression).
    public var bytes = 0
    /// Set when the file could not be read to its end.
    public var error: InputError?
    /// Whether it was gzip (decompressed as it was read), whatever its name; set when read to its
    /// end or to its error.
    public var compressed = false

    public init(path: String) { self.path = path }
}

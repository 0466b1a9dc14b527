/// What `conn-audit timeline` shows: which sources, streams and generations, or the events around
/// one line.
///
/// A source matches when `src` and `session` equal the query's (a source without `src` is named by
/// its file path as found); `stream` is the part of `ev` before the first dot; `gen` the
/// generation. Unset parts match everything.
public struct TimelineQuery: Sendable {
    public var src: String?
    public var session: String?
    public var stream: String?
    public var gen: UInt64?
    /// Centre on the event at this file and line: its source and, when it has a `gen`, its
    /// generation are selected. Filters given as well must agree with it.
    public var around: (file: String, line: Int)?
    /// With ``around``: how many events of the selection are shown before and after it.
    public var radius: Int = 15

    public init(
        src: String? = nil, session: String? = nil, stream: String? = nil, gen: UInt64? = nil,
        around: (file: String, line: Int)? = nil, radius: Int = 15
    ) {
        self.src = src
        self.session = session
        self.stream = stream
        self.gen = gen
        self.around = around
        self.radius = radius
    }

    /// Parses `--around FILE:LINE` (split at the last colon, so paths may hold colons).
    ///
    /// - Throws: ``UsageError`` when there is no colon or the line is not a positive integer.
    public static func parseAround(_ text: String) throws(UsageError) -> (file: String, line: Int) {
        guard let colon = text.lastIndex(of: ":"), colon != text.startIndex else {
            throw UsageError(
                "--around expects FILE:LINE (for example logs/a.jsonl:42), got '\(text)'")
        }
        let file = String(text[..<colon])
        guard let line = Int(text[text.index(after: colon)...]), line >= 1 else {
            throw UsageError("--around expects FILE:LINE with a line number from 1, got '\(text)'")
        }
        return (file, line)
    }

    /// Whether the query's `src` and `session` match `key` (an unset one matches every source).
    func selects(_ key: SourceKey) -> Bool {
        (src == nil || SourceKey.sameBytes(key.src, src))
            && (session == nil || SourceKey.sameBytes(key.session, session))
    }

    /// `--src a --gen 2`, for messages.
    var described: String {
        var parts: [String] = []
        if let src { parts.append("--src \(src)") }
        if let session { parts.append("--session \(session)") }
        if let stream { parts.append("--stream \(stream)") }
        if let gen { parts.append("--gen \(gen)") }
        return parts.isEmpty ? "the query" : parts.joined(separator: " ")
    }
}

/// The text of a report being written: handed to `flush` in pieces of about
/// ``JSONWriter/flushSize`` bytes as it grows, never held whole; kept whole without a `flush`.
///
/// A piece ends where a `+=` did, so it is whole characters (a report of a million findings, or a
/// timeline of a million events, was built as one string and then copied on its way out).
struct ReportText {
    private(set) var text = ""
    private let flush: ((String) -> Void)?

    init(flush: ((String) -> Void)? = nil) { self.flush = flush }

    static func += (out: inout ReportText, piece: String) {
        out.text += piece
        if let flush = out.flush, out.text.utf8.count >= JSONWriter.flushSize {
            flush(out.text)
            out.text = ""
        }
    }

    /// What `write` makes: the whole text without a `flush`; with one, handed over in pieces as
    /// it is made, and the result is empty.
    static func made(flush: ((String) -> Void)? = nil, _ write: (inout ReportText) -> Void)
        -> String
    {
        var out = ReportText(flush: flush)
        write(&out)
        return out.finish()
    }

    /// The whole text without a `flush`; with one, the rest is handed over and the result is empty.
    mutating func finish() -> String {
        guard let flush else { return text }
        flush(text)
        text = ""
        return ""
    }
}

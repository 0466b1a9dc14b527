/// Text that conn-audit prints without reading it as a log — a rule's fixture logs and YAML
/// (`rules --explain`, `rules --test`), its title (`rules --list`), a rules file's lines and text
/// quoted by a diagnostic — with what `log.no-secrets` flags replaced by `[redacted]`.
///
/// The detection is every output's: what the reader flags
/// (``FileReader/redactingSecrets(_:token:)``) and what ``SecretShapes`` finds.
enum SecretRedaction {
    /// What stands for a secret here (as in a report's context lines: `token=[redacted]`).
    static let marker = "[redacted]"

    /// Every line of `text` as ``line(_:)`` shows it.
    static func text(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line($0) }.joined(
            separator: "\n")
    }

    /// One line with its secrets replaced; a line with none is returned as it is.
    ///
    /// A JSON object or array where the line's text starts (after spaces and tabs, as in a YAML
    /// block) is shown with each flagged value `[redacted]` and its keys kept:
    /// `{"t":0,"password":"[redacted]","h":{"x":"[redacted]"}}` (written again compactly, since
    /// its text changes). Any other text — a line that is not JSON, text after the value — has each
    /// bearer token (from its `bearer`) and each JWT replaced.
    static func line(_ line: Substring) -> String {
        let bytes = Array(line.utf8)
        if let json = redactedJSON(at: bytes) {
            return String(decoding: bytes[..<json.range.lowerBound], as: UTF8.self) + json.shown
                + tokens(bytes[json.range.upperBound...])
        }
        return tokens(bytes[...])
    }

    /// The JSON object or array where the line's text starts (after spaces and tabs), when it
    /// holds a flagged value: where it lies, and how it is shown (each flagged value
    /// `[redacted]`, written again compactly).
    private static func redactedJSON(at bytes: [UInt8]) -> (range: Range<Int>, shown: String)? {
        let start = bytes.firstIndex { $0 != 0x20 && $0 != 0x09 } ?? bytes.count
        guard start < bytes.count,
            bytes[start] == UInt8(ascii: "{") || bytes[start] == UInt8(ascii: "["),
            let (value, length) = bytes.withUnsafeBufferPointer({
                JSONDocument.parsePrefix(UnsafeBufferPointer(rebasing: $0[start...]))
            })
        else { return nil }
        let redacted = FileReader.redactingSecrets(value) { _ in .string(marker) }.shownInside
        return redacted == value ? nil : (start..<(start + length), redacted.rendered(bare: false))
    }

    /// A line of a rules file as written, shown under a diagnostic: its secrets replaced where they
    /// stand, and where the 1-based `column` (in Unicode scalars) of the line as written lies in
    /// the line shown, for the caret.
    ///
    /// Replaced: what ``line(_:)`` replaces — each flagged value of a JSON object or array at the
    /// line's start (the object written again compactly), each bearer token and JWT — and, since
    /// the line is YAML as written, where a fixture log may stand inside quotes (`log: '{…}'`,
    /// escaped in `"{\"password\":…}"`), everything after a secret key name written as a JSON key
    /// (`"password":`, `\"token\":`, `"pass\u0077ord":`) to the line's end: the value's own end is
    /// not known there. A column after a replaced span moves by the difference in length; a column
    /// inside one goes to the start of what replaced it, the `[redacted]`.
    static func positioned(_ line: String, column: Int) -> (text: String, column: Int) {
        let bytes = Array(line.utf8)
        var spans: [(range: Range<Int>, with: [UInt8])] = []
        var from = 0
        if let json = redactedJSON(at: bytes) {
            spans.append((json.range, Array(json.shown.utf8)))
            from = json.range.upperBound
        }
        let keyAt = secretKeyValue(bytes, from: from)
        let tokens = bytes.withUnsafeBufferPointer {
            SecretShapes.ranges(UnsafeBufferPointer(rebasing: $0[from..<(keyAt ?? bytes.count)]))
        }
        spans += tokens.map {
            ((from + $0.lowerBound)..<(from + $0.upperBound), Array(marker.utf8))
        }
        if let keyAt, keyAt < bytes.count {
            spans.append((keyAt..<bytes.count, Array(marker.utf8)))
        }
        guard !spans.isEmpty else { return (line, column) }

        // The column's byte offset (past the line's end: the bytes it lacks). Spans start at ASCII
        // bytes and end after them, so cutting there keeps UTF-8 whole and offsets between spans
        // stay on scalars.
        let scalars = Array(line.unicodeScalars)
        let before = max(0, column - 1)
        let at =
            scalars.prefix(before).reduce(0) { $0 + UTF8.width($1) }
            + max(0, before - scalars.count)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var copied = 0
        var caret: Int?
        for span in spans {
            if caret == nil, at < span.range.lowerBound { caret = out.count + at - copied }
            out += bytes[copied..<span.range.lowerBound]
            if caret == nil, at < span.range.upperBound { caret = out.count }
            out += span.with
            copied = span.range.upperBound
        }
        if caret == nil { caret = out.count + at - copied }
        out += bytes[copied...]
        let shownBefore = String(decoding: out.prefix(caret!), as: UTF8.self).unicodeScalars.count
        return (String(decoding: out, as: UTF8.self), shownBefore + max(0, caret! - out.count) + 1)
    }

    /// Where the value after the first secret key name written as a JSON key in `bytes[from...]`
    /// starts (just after its colon), if there is one: a quoted key (`"…"`, or `\"…\"` inside a
    /// YAML double-quoted text) that reads, its escapes undone, as one of the reader's secret key
    /// names, then white space and a colon. Every two quotes in a row are tried as a key's, since
    /// a YAML quote before a log's own shifts which of them open one; a key name holds no quote.
    private static func secretKeyValue(_ bytes: [UInt8], from: Int) -> Int? {
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        guard var open = bytes[from...].firstIndex(of: quote) else { return nil }
        while let close = bytes[(open + 1)...].firstIndex(of: quote) {
            defer { open = close }
            var raw = bytes[(open + 1)..<close]
            if raw.last == backslash { raw = raw.dropLast() }
            // A secret key name is short, even spelled with escapes.
            guard !raw.isEmpty, raw.count <= 256 else { continue }
            var j = close + 1
            while j < bytes.count, bytes[j] == 0x20 || bytes[j] == 0x09 { j += 1 }
            guard j < bytes.count, bytes[j] == UInt8(ascii: ":") else { continue }
            if isSecretKeyName(raw) { return j + 1 }
        }
        return nil
    }

    /// Whether the text of a quoted key, as written, is a secret key name: as it is, with its JSON
    /// escapes undone, or with a YAML double-quoted text's escapes undone first (`\\u0077`, in
    /// `"{\"pass\\u0077ord\":…}"`, is the JSON escape `\u0077`, a `w`).
    private static func isSecretKeyName(_ raw: ArraySlice<UInt8>) -> Bool {
        let backslash = UInt8(ascii: "\\")
        func decoded(_ text: [UInt8]) -> Bool {
            let quoted = [UInt8(ascii: "\"")] + text + [UInt8(ascii: "\"")]
            guard
                case (.string(let key), _)? = quoted.withUnsafeBufferPointer({
                    JSONDocument.parsePrefix($0)
                })
            else { return false }
            return SecretShapes.isSecretKey(key)
        }
        if SecretShapes.isSecretKey(raw) { return true }
        guard raw.contains(backslash) else { return false }
        if decoded(Array(raw)) { return true }
        var once: [UInt8] = []
        var k = raw.startIndex
        while k < raw.endIndex {
            once.append(raw[k])
            k += raw[k] == backslash && k + 1 < raw.endIndex && raw[k + 1] == backslash ? 2 : 1
        }
        return decoded(once)
    }

    /// `text` with each secret ``SecretShapes`` finds in it replaced by ``marker``.
    static func tokens(_ text: ArraySlice<UInt8>) -> String {
        let ranges = text.withUnsafeBufferPointer { SecretShapes.ranges($0) }
        guard !ranges.isEmpty else { return String(decoding: text, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var at = 0
        // Ranges start and end at ASCII bytes: cutting there keeps UTF-8 whole.
        for r in ranges {
            out.append(contentsOf: text[(text.startIndex + at)..<(text.startIndex + r.lowerBound)])
            out.append(contentsOf: marker.utf8)
            at = r.upperBound
        }
        out.append(contentsOf: text[(text.startIndex + at)...])
        return String(decoding: out, as: UTF8.self)
    }
}

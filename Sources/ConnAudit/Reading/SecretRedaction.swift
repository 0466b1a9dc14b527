/// Text that conn-audit prints without reading it as a log — a rule's fixture logs and YAML
/// (`rules --explain`, `rules --test`) — with what `log.no-secrets` flags replaced by `[redacted]`.
///
/// The detection is the reader's own: the secret key names and the token patterns of
/// ``JSONLineParser``, walked as ``FileReader/redactingSecrets(_:token:)`` walks a `src`.
enum SecretRedaction {
    /// What stands for a secret here (as in a report's context lines: `token=[redacted]`).
    static let marker = "[redacted]"

    /// Every line of `text` as ``line(_:)`` shows it.
    static func text(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line($0) }.joined(separator: "\n")
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
        let start = bytes.firstIndex { $0 != 0x20 && $0 != 0x09 } ?? bytes.count
        if start < bytes.count, bytes[start] == UInt8(ascii: "{") || bytes[start] == UInt8(ascii: "[") {
            let parsed = bytes.withUnsafeBufferPointer {
                JSONLineParser.parsePrefix(UnsafeBufferPointer(rebasing: $0[start...]))
            }
            if let (value, length) = parsed {
                let redacted = FileReader.redactingSecrets(value) { _ in .string(marker) }
                if redacted != value {
                    return String(decoding: bytes[..<start], as: UTF8.self) + redacted.rendered(bare: false)
                        + tokens(bytes[(start + length)...])
                }
            }
        }
        return tokens(bytes[...])
    }

    /// `text` with each bearer token and JWT in it replaced by ``marker``.
    static func tokens(_ text: ArraySlice<UInt8>) -> String {
        let ranges = text.withUnsafeBufferPointer { JSONLineParser.tokenRanges($0) }
        guard !ranges.isEmpty else { return String(decoding: text, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var at = 0
        // Ranges start at an ASCII letter and end after ASCII bytes: cutting there keeps UTF-8 whole.
        for r in ranges {
            out.append(contentsOf: text[(text.startIndex + at)..<(text.startIndex + r.lowerBound)])
            out.append(contentsOf: marker.utf8)
            at = r.upperBound
        }
        out.append(contentsOf: text[(text.startIndex + at)...])
        return String(decoding: out, as: UTF8.self)
    }
}

import Testing

@testable import ConnAudit

/// The reader: bytes → physical lines → connlog events, malformed lines and secret findings.
///
/// Everything goes through ``FileReader`` over an in-memory ``ByteSource`` (connlog.md, "Lines",
/// "Bad lines" and "Fine print"); the suite of reader findings in a run runs whole audits to check
/// what reaches a report. Each nested suite has its own file, `Reader<Behaviour>Tests.swift`.
@Suite("Reader")
struct ReaderTests {
    // MARK: - Helpers

    /// One physical line as the reader handed it out, with the secrets found on it.
    struct Read {
        var item: LineItem
        var secrets: [Event]
        /// The key of the event's source, as the reader numbered it.
        var key: SourceKey?

        var isBlank: Bool {
            if case .blank = item { return true }
            return false
        }

        var event: Event? {
            if case .event(let e, _, _) = item { return e }
            return nil
        }

        var source: SourceKey? { key }

        var regression: Event? {
            if case .event(_, _, let r) = item { return r }
            return nil
        }

        var malformed: Event? {
            if case .malformed(let e) = item { return e }
            return nil
        }

        /// The `reason` of a malformed line.
        var reason: String? { malformed?.value(of: "reason")?.string }

        /// Key paths of the `$secret` findings of this line.
        var secretPaths: [String] { secrets.compactMap { $0.value(of: "path")?.string } }
    }

    /// Reads `source` to its end through a ``FileReader``.
    static func read(
        source: any ByteSource, path: String = "logs/test.jsonl", wanted: Set<String>? = nil
    ) -> (lines: [Read], stats: FileStats) {
        let reader = FileReader(index: 0, path: path, source: source, wantedFields: wanted)
        var lines: [Read] = []
        while let item = reader.next() {
            var key: SourceKey?
            if case .event(_, let id, _) = item { key = reader.key(of: id) }
            lines.append(Read(item: item, secrets: reader.secrets, key: key))
        }
        return (lines, reader.stats)
    }

    static func read(
        _ bytes: [UInt8], path: String = "logs/test.jsonl", wanted: Set<String>? = nil
    ) -> (lines: [Read], stats: FileStats) {
        read(source: ByteSources.memory(bytes, path: path), path: path, wanted: wanted)
    }

    static func read(
        _ text: String, path: String = "logs/test.jsonl", wanted: Set<String>? = nil
    ) -> (lines: [Read], stats: FileStats) {
        read(Array(text.utf8), path: path, wanted: wanted)
    }

    /// Reads one line (with a newline) and returns what it became.
    static func one(_ line: String, wanted: Set<String>? = nil) -> Read {
        let lines = read(line + "\n", wanted: wanted).lines
        precondition(lines.count == 1, "expected one line, got \(lines.count)")
        return lines[0]
    }

    /// A valid event line of exactly `size` bytes, padded with a long string field.
    static func paddedLine(size: Int, t: Int = 0) -> [UInt8] {
        let head = Array(#"{"t":\#(t),"ev":"x.pad","pad":""#.utf8)
        let tail = Array(#""}"#.utf8)
        return head + [UInt8](repeating: UInt8(ascii: "a"), count: size - head.count - tail.count)
            + tail
    }

    static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// A source that hands out its bytes in the read sizes it is told (then `rest` at a time), as a
    /// pipe or a gzip stream may.
    final class ChunkedSource: ByteSource {
        private let bytes: [UInt8]
        private var offset = 0
        private var plan: [Int]
        private let rest: Int

        init(_ bytes: [UInt8], plan: [Int] = [], rest: Int) {
            self.bytes = bytes
            self.plan = plan
            self.rest = rest
        }

        func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
            guard buffer.count > 0, offset < bytes.count else { return 0 }
            let want = plan.isEmpty ? rest : plan.removeFirst()
            let count = min(want, buffer.count, bytes.count - offset)
            bytes.withUnsafeBytes { source in
                buffer.copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: source[offset..<offset + count]))
            }
            offset += count
            return count
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The findings of a merge's partials read again, in report order, for the reports that list
/// every finding (``FindingStream``).
///
/// Each partial lists a rule's violations, then its inconclusive cases, in report order
/// (``PartialReport/version`` 3), rule by rule. A k-way merge over one reader per partial gives
/// each list of the merged report in order, each finding handed on as it is read: the merge holds
/// one finding per reader, never the list. Equal findings come in the order of the partials, as
/// the merge's first reading added them.
///
/// Each lane (``FindingStream/each(rule:violations:lane:_:)``) has readers of its own: a report
/// that lists a rule's kept, baselined and suppressed violations reads three lanes, each forward.
///
/// At most ``fanIn`` partials are read at once (file descriptors, and each reader's buffers).
/// With more, groups of ``fanIn`` are first merged into temporary files (in `TMPDIR`, else
/// `/tmp`) that hold only their findings, in the same order, and these are merged in turn. A
/// temporary file is removed from its directory as soon as it is made, so no exit, not even a
/// kill, leaves it behind; it is read again through `/proc/self/fd`. Without `/proc` (not
/// Linux), it stays named until the stream ends.
final class PartialFindingStream: FindingStream, @unchecked Sendable {
    /// The most partials (or temporary files) read at once.
    static let fanIn = 64

    private var inputs: [InputFile]
    private let opener: Auditor.Opener
    /// Rule ids, in the run's order (a finding names its rule by its place here).
    private let rules: [String]
    private let ruleIndex: [String: Int]
    private let fileCount: Int
    /// How many suppressions the merge applies (a violation's `fields_match` names some).
    private let suppressionCount: Int
    /// Each list's length, as the first reading counted it.
    private let counts: [FindingGroup: Int]
    private let fanIn: Int
    /// Temporary files of merged groups (already unlinked), closed with the stream.
    private var descriptors: [Int32] = []
    /// Whether ``inputs`` are temporary files of merged groups (opened as files, not by
    /// ``opener``).
    private var temporary = false
    /// Each lane's readers, and the last list it handed out: asked for that list or one before
    /// it, the lane starts over.
    private var lanes: [Int: (readers: [Reader], position: FindingGroup)] = [:]
    private(set) var failure: String?
    /// The most findings the readers of a lane held at once (one each at most).
    private(set) var peakHeld = 0

    init(
        inputs: [InputFile], opener: @escaping Auditor.Opener, rules: [String], fileCount: Int,
        suppressionCount: Int = 0, counts: [FindingGroup: Int],
        fanIn: Int = PartialFindingStream.fanIn
    ) {
        self.inputs = inputs
        self.opener = opener
        self.rules = rules
        var index: [String: Int] = [:]
        for (i, id) in rules.enumerated() where index[id] == nil { index[id] = i }
        ruleIndex = index
        self.fileCount = fileCount
        self.suppressionCount = suppressionCount
        self.counts = counts
        self.fanIn = max(2, fanIn)
    }

    /// Temporary files still in their directory (where they cannot be read again through
    /// `/proc/self/fd`), removed with the stream.
    private var named: [String] = []

    deinit {
        for fd in descriptors { close(fd) }
        for path in named { unlink(path) }
    }

    func each(rule id: String, violations: Bool, lane: Int, _ body: (Finding) -> Void) {
        guard failure == nil, let rule = ruleIndex[id] else { return }
        let group = FindingGroup(rule: rule, violations: violations)
        // A list already handed out in the lane (this one too) is read again from the start.
        var readers: [Reader]
        if let open = lanes[lane], open.position < group {
            readers = open.readers
        } else {
            lanes[lane] = nil
            guard let opened = openReaders() else { return }
            readers = opened
        }
        lanes[lane] = (readers, group)
        var given = 0
        merge(readers, group: group) { f in
            given += 1
            body(f)
        }
        if failure == nil, given != counts[group, default: 0] {
            failure =
                "the partials changed while they were merged: \(id) has \(given) \(violations ? "violations" : "inconclusive cases") now, \(counts[group, default: 0]) before"
        }
    }

    /// Hands `body` every finding of `group` the readers hold, in report order (ties: the
    /// readers' order), and leaves each reader at its first finding past the group.
    private func merge(_ readers: [Reader], group: FindingGroup, _ body: (Finding) -> Void) {
        var heap = ReaderHeap()
        for (i, r) in readers.enumerated() {
            r.skip(before: group)
            if let head = r.head, head.group == group { heap.push(i, readers) }
        }
        peakHeld = max(peakHeld, readers.count { $0.head != nil })
        while let i = heap.pop(readers) {
            let r = readers[i]
            body(r.head!.finding)
            r.advance()
            if let head = r.head, head.group == group { heap.push(i, readers) }
        }
        if let e = readers.lazy.compactMap(\.failure).first { failure = e }
    }

    /// One reader per input, the inputs first merged in groups while there are more than
    /// ``fanIn`` (once: the lanes share the temporary files); nil (and ``failure``) when one
    /// cannot be read.
    private func openReaders() -> [Reader]? {
        while inputs.count > fanIn {
            var merged: [InputFile] = []
            var start = 0
            while start < inputs.count {
                let group = Array(inputs[start..<min(start + fanIn, inputs.count)])
                start += fanIn
                guard let file = mergeToTemporary(group) else { return nil }
                merged.append(file)
            }
            inputs = merged
            temporary = true
        }
        var opened: [Reader] = []
        for input in inputs {
            guard let r = open(input) else { return nil }
            opened.append(r)
        }
        return opened
    }

    private func open(_ input: InputFile) -> Reader? {
        do {
            let source =
                temporary ? try ByteSources.open(input, maxExpansion: 0) : try opener(input)
            let r = Reader(
                source, path: input.path, fileCount: fileCount, ruleCount: rules.count,
                suppressionCount: suppressionCount)
            r.advance()
            if let e = r.failure { failure = e }
            return failure == nil ? r : nil
        } catch {
            failure = "cannot read the partial \(input.path) again: \(error.reason)"
            return nil
        }
    }

    /// The findings of `group`, merged in report order into a temporary file that holds only
    /// them; nil (and ``failure``) when it cannot be made or written.
    private func mergeToTemporary(_ group: [InputFile]) -> InputFile? {
        let directory = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array(
            ((directory.isEmpty ? "/tmp" : directory) + "/.conn-audit-merge-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            failure =
                "cannot make a temporary file in \(directory) to merge \(group.count) partials: \(String(cString: strerror(errno)))"
            return nil
        }
        let path = String(
            decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #if os(Linux)
            _ = unlink(path)
            let reread = "/proc/self/fd/\(fd)"
        #else
            // No /proc: the file stays named until the stream ends.
            named.append(path)
            let reread = path
        #endif
        descriptors.append(fd)
        var readers: [Reader] = []
        for input in group {
            guard let r = open(input) else { return nil }
            readers.append(r)
        }
        var out: [UInt8] = []
        var writeError: Int32 = 0
        func flush() {
            var done = 0
            while done < out.count, writeError == 0 {
                let n = out[done...].withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
                if n < 0 {
                    if errno != EINTR { writeError = errno }
                } else {
                    done += n
                }
            }
            out.removeAll(keepingCapacity: true)
        }
        for rule in rules.indices {
            for violations in [true, false] {
                let g = FindingGroup(rule: rule, violations: violations)
                merge(readers, group: g) { f in
                    out +=
                        PartialReport.findingLine(
                            violations ? "violation" : "inconclusive", rule: rule, f,
                            fieldMatches: f.fieldMatches ?? []
                        ).utf8
                    if out.count >= JSONWriter.flushSize { flush() }
                }
            }
        }
        flush()
        if failure != nil { return nil }
        guard writeError == 0 else {
            failure =
                "cannot write a temporary file in \(directory) to merge \(group.count) partials: \(String(cString: strerror(writeError)))"
            return nil
        }
        return InputFile(path: reread)
    }

    /// Reads one partial's findings, one at a time.
    final class Reader {
        private let lines: LineReader
        private let path: String
        private let fileCount: Int
        private let ruleCount: Int
        private let suppressionCount: Int
        /// The next finding, or nil at the end.
        private(set) var head: (group: FindingGroup, finding: Finding)?
        private(set) var failure: String?

        init(
            _ source: any ByteSource, path: String, fileCount: Int, ruleCount: Int,
            suppressionCount: Int
        ) {
            // Small reads: a merge reads up to ``fanIn`` of these at once.
            lines = LineReader(source, chunkSize: 1 << 16)
            self.path = path
            self.fileCount = fileCount
            self.ruleCount = ruleCount
            self.suppressionCount = suppressionCount
        }

        /// Moves ``head`` to the next finding.
        func advance() {
            head = nil
            guard failure == nil else { return }
            while true {
                let raw: RawLine
                do {
                    guard let r = try lines.next() else { return }
                    raw = r
                } catch {
                    failure = "cannot read the partial \(path) again: \(error.reason)"
                    return
                }
                guard raw.tooLong == nil,
                    let value = try? JSONDocument.parse(Array(raw.bytes)),
                    case .object(let entries) = value, entries.count == 1
                else {
                    failure = "the partial \(path) changed while it was merged (line \(raw.number))"
                    return
                }
                let kind = entries[0].key
                guard kind == "violation" || kind == "inconclusive" else {
                    if kind == "end" { return }
                    continue
                }
                do {
                    let (rule, f) = try PartialMerge.finding(
                        entries[0].value, violation: kind == "violation", fileCount: fileCount,
                        ruleCount: ruleCount, suppressionCount: suppressionCount)
                    head = (FindingGroup(rule: rule, violations: kind == "violation"), f)
                } catch {
                    failure = "the partial \(path) line \(raw.number): \(error.message)"
                }
                return
            }
        }

        /// Advances past every finding of a group before `group`.
        func skip(before group: FindingGroup) {
            while let h = head, h.group < group { advance() }
        }
    }
}

/// A binary min-heap of reader indexes, by their heads in report order (ties: the lower index).
private struct ReaderHeap {
    private var items: [Int] = []

    private static func less(
        _ a: Int, _ b: Int, _ readers: [PartialFindingStream.Reader]
    ) -> Bool {
        let x = readers[a].head!.finding, y = readers[b].head!.finding
        if Finding.precedes(x, y) { return true }
        if Finding.precedes(y, x) { return false }
        return a < b
    }

    mutating func push(_ i: Int, _ readers: [PartialFindingStream.Reader]) {
        items.append(i)
        var c = items.count - 1
        while c > 0 {
            let p = (c - 1) / 2
            guard Self.less(items[c], items[p], readers) else { break }
            items.swapAt(c, p)
            c = p
        }
    }

    mutating func pop(_ readers: [PartialFindingStream.Reader]) -> Int? {
        guard let top = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var p = 0
            while true {
                let l = 2 * p + 1, r = l + 1
                var m = p
                if l < items.count, Self.less(items[l], items[m], readers) { m = l }
                if r < items.count, Self.less(items[r], items[m], readers) { m = r }
                if m == p { break }
                items.swapAt(p, m)
                p = m
            }
        }
        return top
    }
}

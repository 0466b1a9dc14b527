import Synchronization

/// The corpus timeline, fed while pass 1 reads: the reader's findings (`$malformed`, `$secret`) and
/// the real events corpus rules react to, in file order and, within a file, in line order — what
/// one reader reading every file in turn would feed it.
///
/// Every reader finding takes its place (`$seq`) on the corpus timeline, as rules.md says, but
/// only those a corpus rule reacts to are handed to it; the others are only counted.
///
/// A file's items go to the timeline as they are read while every file before it is finished
/// (with one worker, always), unless the file may yet be read again from its start (a file read in
/// one pass that turns out to hold too many sources, see ``Auditor``): that reading's items are
/// held until it ends, and thrown away if it is abandoned, so the items are always those of the
/// reading whose counts the report gives. A file read beside an unfinished earlier one has its
/// items held until that one finishes. Items are held compactly (``CorpusItems``). Before, every
/// item waited to the end of the run: a file of 340,000 non-JSON lines held 110 MB of `$malformed`
/// events that no rule was still to read.
final class CorpusFeed: @unchecked Sendable {
    private struct State {
        let timeline: Timeline
        let sink: FindingSink
        /// The first file not finished: its items are fed as they come.
        var live = 0
        var held: [Int: CorpusItems] = [:]
        var finished = Set<Int>()
        /// The corpus timeline's `$seq`: a sequence check tells captures apart by it.
        var seq = 0
        var closed = false
    }

    private let state: Mutex<State>

    /// `plan` is the corpus timeline's alone: no other thread evaluates with it.
    init(plan: EvaluationPlan, files: [String]) {
        let sink = FindingSink(files: files, keep: plan.keepFindings, divert: plan.divert)
        // The reader's findings are about unrelated lines: no neighbouring events are shown.
        let context = TimelineContext(source: nil, enabled: false)
        let timeline = Timeline(
            rules: plan.corpus, dispatch: plan.corpusDispatch,
            scope: ContextScope(context: context),
            files: files, clock: nil)
        state = Mutex(State(timeline: timeline, sink: sink))
    }

    /// What one scan of file `file` gives the feed.
    final class Share {
        private let feed: CorpusFeed
        let file: Int
        /// False for a file another shard owns (``Shard``): its items take no place here.
        let counted: Bool
        /// Set while the file's reading may still be abandoned: its items wait here.
        private var pending: CorpusItems?

        init(feed: CorpusFeed, file: Int, counted: Bool) {
            self.feed = feed
            self.file = file
            self.counted = counted
        }

        /// The reading that starts may be abandoned for another from the file's start: hold its
        /// items.
        func holdUntilRead() {
            if pending == nil { pending = CorpusItems() }
        }

        /// An item of the file, in line order: an event a corpus rule reacts to, or (nil) a reader
        /// finding none does, which only takes its place.
        func add(_ e: Event?) {
            guard counted else { return }
            if pending != nil { pending!.append(e) } else { feed.add(e, file: file) }
        }

        /// The reading is abandoned: the file is read again from its first line.
        func restart() {
            precondition(
                pending != nil, "a reading that fed the corpus timeline cannot be abandoned")
            pending = nil
        }

        /// The reading ended: what it held goes on.
        func release() {
            guard let items = pending else { return }
            pending = nil
            feed.add(items, file: file)
        }
    }

    /// `counted` false: the file's items are dropped (another shard owns the file).
    func share(file: Int, counted: Bool = true) -> Share {
        Share(feed: self, file: file, counted: counted)
    }

    private func add(_ e: Event?, file: Int) {
        state.withLock { s in
            precondition(
                !s.closed && !s.finished.contains(file), "corpus item after its file was finished")
            if file == s.live {
                Self.observe(e, &s)
            } else {
                s.held[file, default: CorpusItems()].append(e)
            }
        }
    }

    private func add(_ items: CorpusItems, file: Int) {
        state.withLock { s in
            precondition(
                !s.closed && !s.finished.contains(file),
                "corpus items after their file was finished")
            if file == s.live {
                items.replay(file: Int32(file)) { Self.observe($0, &s) }
            } else {
                s.held[file, default: CorpusItems()].append(contentsOf: items)
            }
        }
    }

    /// File `file` is read to its end (or could not be read): the files after it may be fed.
    func finish(file: Int) {
        state.withLock { s in
            s.finished.insert(file)
            while s.finished.contains(s.live) {
                s.live += 1
                guard let held = s.held.removeValue(forKey: s.live) else { continue }
                held.replay(file: Int32(s.live)) { Self.observe($0, &s) }
            }
        }
    }

    /// Every file finished: the corpus timeline ends, and its findings are handed over.
    func close() -> FindingSink {
        state.withLock { s in
            precondition(
                s.held.isEmpty, "corpus items held for a file that never became the one fed")
            s.closed = true
            s.timeline.finish(lastT: nil, sink: s.sink)
            return s.sink
        }
    }

    private static func observe(_ e: Event?, _ s: inout State) {
        s.seq += 1
        guard let e else { return }
        e.seq = s.seq
        s.timeline.observe(e, sink: s.sink)
    }
}

/// Corpus items of one file kept for later, in order, compactly: a `$malformed` event as its line
/// and a reason shared with the file's other lines of that reason (consecutive lines of one reason
/// as one run: a file of lines that are not JSON is a few runs), a reader finding no rule reacts to
/// as a count, other events as they are.
struct CorpusItems {
    private enum Item {
        case event(Event)
        /// `count` `$malformed` events of consecutive lines from `line` on, all of one reason.
        case malformed(line: Int, count: Int, reason: Int32)
        /// Reader findings that only take their place.
        case unfed(Int)
    }

    private var items: [Item] = []
    private var reasons: [String] = []
    private var reasonIndex: [String: Int32] = [:]
    private var lastPlace: Int32?
    /// What the file's `$malformed` events say in their `file` field, and their `ev` id.
    private var path = ""
    private var malformedID: Int32 = -1

    mutating func append(_ e: Event?) {
        guard let e else {
            if case .unfed(let n)? = items.last {
                items[items.count - 1] = .unfed(n + 1)
            } else {
                items.append(.unfed(1))
            }
            return
        }
        guard let (reason, path) = Self.malformedParts(e) else {
            items.append(.event(e))
            return
        }
        self.path = path
        malformedID = e.evID
        let index = place(of: reason)
        if case .malformed(let line, let count, index)? = items.last, line + count == e.line {
            items[items.count - 1] = .malformed(line: line, count: count + 1, reason: index)
        } else {
            items.append(.malformed(line: e.line, count: 1, reason: index))
        }
    }

    mutating func append(contentsOf other: CorpusItems) {
        guard !items.isEmpty else {
            self = other
            return
        }
        if !other.path.isEmpty || other.malformedID >= 0 {
            (path, malformedID) = (other.path, other.malformedID)
        }
        var index: [Int32] = []
        for reason in other.reasons { index.append(place(of: reason)) }
        for item in other.items {
            if case .malformed(let line, let count, let reason) = item {
                items.append(.malformed(line: line, count: count, reason: index[Int(reason)]))
            } else {
                items.append(item)
            }
        }
    }

    /// `reason`'s place in ``reasons``, added if new.
    private mutating func place(of reason: String) -> Int32 {
        // Runs of one reason are the common case, and the reader hands them one string: the last
        // reason placed answers them without hashing the text.
        if let last = lastPlace, reasons[Int(last)].hasSameBytes(as: reason) { return last }
        let index = known(reason)
        lastPlace = index
        return index
    }

    private mutating func known(_ reason: String) -> Int32 {
        if let known = reasonIndex[reason] { return known }
        let index = Int32(reasons.count)
        reasons.append(reason)
        reasonIndex[reason] = index
        return index
    }

    /// The items in order, `$malformed` events made again as the reader made them for the file
    /// at index `file`, nil for those that only take their place.
    func replay(file: Int32, _ body: (Event?) -> Void) {
        for item in items {
            switch item {
            case .event(let e): body(e)
            case .unfed(let n): for _ in 0..<n { body(nil) }
            case .malformed(let line, let count, let reason):
                for l in line..<(line + count) {
                    body(
                        FileReader.malformed(
                            file: file, shownPath: path, line: l, reason: reasons[Int(reason)],
                            evID: malformedID))
                }
            }
        }
    }

    /// The reason and the shown path of an event
    /// ``FileReader/malformed(file:shownPath:line:reason:evID:)`` made; nil for any other event.
    private static func malformedParts(_ e: Event) -> (reason: String, path: String)? {
        guard e.isPseudo, e.ev == "$malformed", e.fields.count == 3, e.redactedKeys.isEmpty,
            e.fields[0].key == "reason", case .string(let reason) = e.fields[0].value,
            e.fields[1].key == "file", case .string(let path) = e.fields[1].value,
            e.fields[2].key == "line", case .int(let line) = e.fields[2].value,
            line == Int64(e.line)
        else { return nil }
        return (reason, path)
    }
}

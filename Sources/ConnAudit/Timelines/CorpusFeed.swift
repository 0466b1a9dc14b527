import Synchronization

/// The corpus timeline, fed while pass 1 reads: the reader's findings (`$malformed`, `$secret`) and
/// the real events corpus rules react to, in file order and, within a file, in line order — what
/// one reader reading every file in turn would feed it.
///
/// A file's items go to the timeline as they are read while every file before it is finished
/// (with one worker, always). A file read beside an unfinished earlier one has its items held until
/// that one finishes: its `$malformed` events as a line and a reason (shared by the lines that give
/// it), not as events. Before, every item waited to the end of the run: a file of 340,000 non-JSON
/// lines held 110 MB of `$malformed` events that no rule was still to read.
final class CorpusFeed: @unchecked Sendable {
    /// An item held for a file that is not yet the one being fed.
    private enum Item {
        case event(Event)
        /// A `$malformed` event, as its line and its reason's place in ``Held/reasons``.
        case malformed(line: Int, reason: Int32)
    }

    private struct Held {
        var items: [Item] = []
        var reasons: [String] = []
        var reasonIndex: [String: Int32] = [:]
        /// What the file's `$malformed` events say in their `file` field, and their `ev` id.
        var path = ""
        var malformedID: Int32 = -1
    }

    private struct State {
        let timeline: Timeline
        let sink: FindingSink
        /// The first file not finished: its items are fed as they come.
        var live = 0
        var held: [Int: Held] = [:]
        var finished = Set<Int>()
        /// The corpus timeline's `$seq`: a sequence check tells captures apart by it.
        var seq = 0
        var closed = false
    }

    private let state: Mutex<State>
    private let files: [String]

    /// `plan` is the corpus timeline's alone: no other thread evaluates with it.
    init(plan: EvaluationPlan, files: [String]) {
        self.files = files
        let sink = FindingSink(files: files, keep: plan.keepFindings)
        // The reader's findings are about unrelated lines: no neighbouring events are shown.
        let context = TimelineContext(source: nil, enabled: false)
        let timeline = Timeline(rules: plan.corpus, dispatch: plan.corpusDispatch, scope: ContextScope(context: context),
                                files: files, clock: nil)
        state = Mutex(State(timeline: timeline, sink: sink))
    }

    /// What one scan of file `file` gives the feed. A file read again from its start (it held
    /// more sources than a first pass keeps open) gives again what it gave before: ``restart()``
    /// makes those items be passed over, so each is fed once.
    final class Share {
        private let feed: CorpusFeed
        let file: Int
        /// Items given in this reading of the file, and the most given in any reading.
        private var position = 0
        private var delivered = 0

        init(feed: CorpusFeed, file: Int) {
            self.feed = feed
            self.file = file
        }

        /// One item of the file, in line order (the same order every time the file is read).
        func add(_ e: Event) {
            position += 1
            guard position > delivered else { return }
            delivered = position
            feed.add(e, file: file)
        }

        /// The file is read again from its first line.
        func restart() { position = 0 }
    }

    func share(file: Int) -> Share { Share(feed: self, file: file) }

    private func add(_ e: Event, file: Int) {
        state.withLock { s in
            precondition(!s.closed && !s.finished.contains(file), "corpus item after its file was finished")
            if file == s.live {
                Self.observe(e, &s)
                return
            }
            var held = s.held.removeValue(forKey: file) ?? Held()
            if let (reason, path) = Self.malformedParts(e) {
                held.path = path
                held.malformedID = e.evID
                let index: Int32
                if let known = held.reasonIndex[reason] {
                    index = known
                } else {
                    index = Int32(held.reasons.count)
                    held.reasons.append(reason)
                    held.reasonIndex[reason] = index
                }
                held.items.append(.malformed(line: e.line, reason: index))
            } else {
                held.items.append(.event(e))
            }
            s.held[file] = held
        }
    }

    /// File `file` is read to its end (or could not be read): the files after it may be fed.
    func finish(file: Int) {
        state.withLock { s in
            s.finished.insert(file)
            while s.finished.contains(s.live) {
                s.live += 1
                guard let held = s.held.removeValue(forKey: s.live) else { continue }
                for item in held.items {
                    switch item {
                    case .event(let e): Self.observe(e, &s)
                    case .malformed(let line, let reason):
                        Self.observe(Self.malformed(file: Int32(s.live), shownPath: held.path, line: line,
                                                    reason: held.reasons[Int(reason)], evID: held.malformedID), &s)
                    }
                }
            }
        }
    }

    /// Every file finished: the corpus timeline ends, and its findings are handed over.
    func close() -> FindingSink {
        state.withLock { s in
            precondition(s.held.isEmpty, "corpus items held for a file that never became the one fed")
            s.closed = true
            s.timeline.finish(lastT: nil, sink: s.sink)
            return s.sink
        }
    }

    private static func observe(_ e: Event, _ s: inout State) {
        s.seq += 1
        e.seq = s.seq
        s.timeline.observe(e, sink: s.sink)
    }

    /// The `$malformed` event the reader makes for a line (``FileReader``): its `reason`, and its
    /// `file` (`shownPath`) and `line` (rules.md names the reader's findings' fields so, besides
    /// `$file` and `$line`).
    static func malformed(file: Int32, shownPath: String, line: Int, reason: String, evID: Int32) -> Event {
        Event(t: .nan, ev: "$malformed", file: file, line: line,
              fields: [.init("reason", .string(reason)), .init("file", .string(shownPath)), .init("line", .int(Int64(line)))],
              evID: evID)
    }

    /// The reason and the shown path of an event ``malformed(file:shownPath:line:reason:evID:)``
    /// made; nil for any other event.
    private static func malformedParts(_ e: Event) -> (reason: String, path: String)? {
        guard e.isPseudo, e.ev == "$malformed", e.fields.count == 3, e.redactedKeys.isEmpty,
              e.fields[0].key == "reason", case .string(let reason) = e.fields[0].value,
              e.fields[1].key == "file", case .string(let path) = e.fields[1].value,
              e.fields[2].key == "line", case .int(let line) = e.fields[2].value, line == Int64(e.line)
        else { return nil }
        return (reason, path)
    }
}

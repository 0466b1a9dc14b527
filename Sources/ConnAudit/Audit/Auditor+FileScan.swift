#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Pass 1: each file read once, each of its sources evaluated as if the file held all of it.
extension Auditor {
    /// What pass 1 learned from one file.
    struct FileScan {
        var stats: FileStats
        var sources: [SourceKey: SourceOutcome] = [:]
        var order: [SourceKey] = []
        /// With ``Fold/now``: the findings, counts and labels of the sources already finished,
        /// taken out of their outcomes (whose sinks are then empty).
        var folded: FindingSink?

        /// Keeps `outcome` as `key`'s, its sink first folded into ``folded`` when `fold` says so.
        mutating func finished(
            _ key: SourceKey, _ outcome: SourceOutcome, fold: Fold, plan: EvaluationPlan
        ) {
            if fold == .now {
                FindingSink.fold(
                    outcome.sink, into: &folded, files: plan.files, keep: plan.keepFindings)
            }
            sources[key] = outcome
        }
    }

    /// When a finished source's findings join the run's: `.now`, as it finishes, when no source can
    /// span files (a run of one input), so that a file of many sources holds the findings the
    /// reports keep, not every source's; `.atEnd` otherwise, when pass 1 has told which sources
    /// span several files and are judged again from all of them (their pass-1 findings dropped).
    enum Fold { case now, atEnd }

    /// Sources a file read in one pass may hold open at once before it is read again with a first
    /// pass that finds each source's last line (then each source is evaluated and freed in turn).
    static let maxOpenSources = 4_096

    func scan(
        _ input: InputFile, index: Int32, plan: EvaluationPlan, spool: Spool, workers: Int,
        corpus: CorpusFeed.Share, fold: Fold, readAhead: Bool = false
    ) -> FileScan {
        var result = FileScan(stats: FileStats(path: input.path))
        let source: any ByteSource
        do {
            source = spool.wrap(input, try opener(input))
        } catch {
            result.stats.error = error
            return result
        }
        // With workers, the reader keeps for reuse as many events as can be on their way to them.
        let reader = FileReader(
            index: index, path: input.path, source: source, wantedFields: wanted,
            eventsKept: workers > 1
                ? PartitionedScan.eventsInFlight(workers: workers) + EventRing.size
                : EventRing.size)
        reader.progress = progress
        // A reading abandoned to start again takes back what it counted.
        func restart() {
            reader.abandonProgress()
            corpus.restart()
        }
        let ends = endLines(of: input, index: index, always: readAhead, workers: workers)
        // Without a first pass every source of the file stays open to its end: past a few
        // thousand, the file is read again with one (a file of 100,000 one-line sources held
        // 2.4 KB each), unless it cannot be read again (standard input).
        let mayRestart =
            ends == nil && !readAhead && !input.isStdin && (rereadable ?? Self.isRegularFile(input))
        // A reading that may be abandoned holds its corpus items until it ends.
        if mayRestart { corpus.holdUntilRead() }
        if workers > 1 {
            if let scanned = scanPartitioned(
                reader, plan: plan, workers: workers, ends: ends, mayRestart: mayRestart,
                corpus: corpus, fold: fold)
            {
                return scanned
            }
            restart()
            return scan(
                input, index: index, plan: plan, spool: spool, workers: workers, corpus: corpus,
                fold: fold,
                readAhead: true)
        }
        // By the reader's number of each source: open (an evaluator), not seen yet (nil past the
        // end), or ended (nil, and ``ended``).
        var evaluators: [SourceEvaluator?] = []
        var ended: [Bool] = []
        var open = 0
        // Lines of one source usually come together: the previous line's evaluator first. Not
        // counted: ``evaluators`` holds it until it finishes (then this is cleared too).
        var lastID: Int32 = -1
        var lastSource: Unmanaged<SourceEvaluator>?
        // The evaluator of source `id` when it is not the previous line's: found, or made for a
        // source met the first time; nil with what became of the event when the source already
        // ended or the reading is abandoned. Out of the loop: most lines do not come here.
        @inline(never) func openEvaluator(of id: Int32) -> (Unmanaged<SourceEvaluator>?, Taken) {
            let evaluator: Unmanaged<SourceEvaluator>
            if Int(id) < evaluators.count, let existing = evaluators[Int(id)] {
                evaluator = Unmanaged.passUnretained(existing)
            } else if Int(id) < ended.count, ended[Int(id)] {
                // A source already ended here: the file grew or changed since it was read ahead.
                return (nil, .ended)
            } else {
                if mayRestart, open >= Self.maxOpenSources { return (nil, .abandoned) }
                let key = reader.key(of: id)
                let made = SourceEvaluator(key: key, plan: plan)
                made.endLine = ends?[key]
                while evaluators.count <= Int(id) {
                    evaluators.append(nil)
                    ended.append(false)
                }
                evaluators[Int(id)] = made
                open += 1
                evaluator = Unmanaged.passUnretained(made)
                result.order.append(key)
            }
            lastID = id
            lastSource = evaluator
            return (evaluator, .fed)
        }
        // Finishes source `id`, whose last line was just fed.
        @inline(never) func finishSource(_ id: Int32, _ evaluator: SourceEvaluator) {
            result.finished(evaluator.key, evaluator.finish(), fold: fold, plan: plan)
            evaluators[Int(id)] = nil
            ended[Int(id)] = true
            open -= 1
            lastID = -1
            lastSource = nil
        }
        let stats = readEvents(reader, plan: plan, corpus: corpus) { e, id, regression in
            let evaluator: Unmanaged<SourceEvaluator>
            if id == lastID, let last = lastSource {
                evaluator = last
            } else {
                let (found, taken) = openEvaluator(of: id)
                guard let found else { return taken }
                evaluator = found
            }
            let last = evaluator._withUnsafeGuaranteedRef { evaluator in
                if let regression { evaluator.feed(regression) }
                evaluator.feed(e)
                return evaluator.endLine == e.line
            }
            if last { finishSource(id, evaluator.takeUnretainedValue()) }
            return .fed
        }
        guard let stats else {
            restart()
            return scan(
                input, index: index, plan: plan, spool: spool, workers: workers, corpus: corpus,
                fold: fold,
                readAhead: true)
        }
        result.stats = stats
        // In the order the sources came (their numbers), as ``FileScan/order`` lists them.
        for case let evaluator? in evaluators {
            result.finished(evaluator.key, evaluator.finish(), fold: fold, plan: plan)
        }
        return result
    }

    static func changedReason(line: Int) -> String {
        "changed while it was read: line \(line) belongs to a source whose last line was already passed"
    }

    /// Whether `input` is a regular file, which reads the same again (a pipe, a FIFO or
    /// `<(zcat …)` would give nothing the second time).
    public static func isRegularFile(_ input: InputFile) -> Bool {
        guard !input.isStdin else { return false }
        var info = stat()
        return InputFile.withCString(input.bytes) { stat($0, &info) } == 0
            && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// How many bytes a file's lines take, as near as can be told before reading it: its size on
    /// disk, or for a gzip file (its first bytes 1f 8b) the larger of that and its trailer's
    /// ISIZE (the last member's uncompressed size modulo 2^32; zeros padded after the last
    /// member read as 0). The size on disk alone would judge a fleet's 200 MB gzipped to 15 MB
    /// too small for the read-ahead, and every source would stay open to the end.
    static func contentSize(of input: InputFile, onDisk: Int) -> Int {
        // A gzip member is at least a 10-byte header and an 8-byte trailer.
        guard onDisk >= 18 else { return onDisk }
        let fd = InputFile.withCString(input.bytes) { open($0, O_RDONLY) }
        guard fd >= 0 else { return onDisk }
        defer { close(fd) }
        var head: (UInt8, UInt8) = (0, 0)
        var tail: UInt32 = 0
        guard withUnsafeMutableBytes(of: &head, { pread(fd, $0.baseAddress, 2, 0) }) == 2,
            head == (0x1f, 0x8b),
            withUnsafeMutableBytes(of: &tail, { pread(fd, $0.baseAddress, 4, off_t(onDisk - 4)) })
                == 4
        else { return onDisk }
        return max(onDisk, Int(UInt32(littleEndian: tail)))
    }

    /// The total a ``RunProgress`` reads for `inputs`: each file's ``contentSize(of:onDisk:)``;
    /// nil when one of them is standard input or cannot be looked at.
    public static func progressTotal(of inputs: [InputFile]) -> Int? {
        var total = 0
        for input in inputs {
            guard !input.isStdin else { return nil }
            var info = stat()
            guard InputFile.withCString(input.bytes, { stat($0, &info) }) == 0 else { return nil }
            total += contentSize(of: input, onDisk: Int(info.st_size))
        }
        return total
    }

    /// For a large file that can be read again: the line of each source's last event.
    private func endLines(
        of input: InputFile, index: Int32, always: Bool = false, workers: Int = 1
    ) -> [SourceKey: Int]? {
        guard !input.isStdin else { return nil }
        if readAheadFrom > 0, !always {
            var info = stat()
            let code = InputFile.withCString(input.bytes) { stat($0, &info) }
            guard code == 0, Self.contentSize(of: input, onDisk: Int(info.st_size)) >= readAheadFrom
            else { return nil }
        }
        // Most files are read lightly; one with a line only the full reader keys exactly (an
        // escaped key, a `src` that is not a plain string, ...) in full. The light read's source
        // is closed before the full read opens its own.
        if let ends = (try? opener(input)).flatMap({
            lightEnds(of: $0, path: input.path, workers: workers)
        }) {
            return ends
        }
        guard let source = try? opener(input) else { return nil }
        let reader = FileReader(index: index, path: input.path, source: source, wantedFields: [])
        var lines: [Int] = []
        while let item = reader.next() {
            guard case .event(let e, let id, _) = item else { continue }
            if Int(id) == lines.count { lines.append(0) }
            lines[Int(id)] = e.line
        }
        var ends: [SourceKey: Int] = [:]
        for (id, line) in lines.enumerated() { ends[reader.key(of: Int32(id))] = line }
        return ends
    }

    /// The light read's ends of `source`: on `workers` threads, a part of the file each, when
    /// the file can be split (a plain regular file of at least two parts of ``lightReadPart``
    /// bytes); else in one read. Both give the same answer (``SourceEndScan/merge``).
    private func lightEnds(of source: any ByteSource, path: String, workers: Int)
        -> [SourceKey: Int]?
    {
        guard workers > 1, let splittable = source as? any SplittableSource,
            let parts = splittable.parts(workers, minimumPart: lightReadPart)
        else {
            return SourceEndScan.ends(of: LineReader(source), path: path)
        }
        let scanned = parallelMap(parts.count, jobs: workers) { i, _ in
            SourceEndScan.scan(LineReader(parts[i], midFile: i > 0), path: path)
        }
        return SourceEndScan.merge(scanned)
    }

    /// ``scan`` with the file's sources evaluated on `workers` threads (``PartitionedScan``); nil
    /// when `mayRestart` and the file holds too many sources to keep open (read it again with a
    /// first pass).
    private func scanPartitioned(
        _ reader: FileReader, plan: EvaluationPlan, workers: Int, ends: [SourceKey: Int]?,
        mayRestart: Bool, corpus: CorpusFeed.Share, fold: Fold
    ) -> FileScan? {
        var result = FileScan(stats: reader.stats)
        // Each worker compiles its own rules: no objects shared with the reader's thread or
        // with each other.
        let partitions = PartitionedScan(
            plans: (0..<workers).map { _ in makePlan(files: plan.files) }, ends: ends,
            folds: fold == .now)
        let stats = readEvents(reader, plan: plan, corpus: corpus) { e, id, regression in
            switch partitions.feed(e, source: id, key: reader.key(of:), regression: regression) {
            case .new:
                result.order.append(reader.key(of: id))
                return mayRestart && result.order.count > Self.maxOpenSources ? .abandoned : .fed
            case .known: return .fed
            case .ended: return .ended
            }
        }
        guard let stats else {
            _ = partitions.finish()
            return nil
        }
        result.stats = stats
        (result.sources, result.folded) = partitions.finish()
        return result
    }

    /// What pass 1 did with an event it read.
    private enum Taken {
        /// Fed to its source's evaluator.
        case fed
        /// Dropped: its source already ended at the line read ahead as its last.
        case ended
        /// The reading is abandoned (too many sources open: it starts again with a first pass).
        case abandoned
    }

    /// The reader loop of pass 1: hands each event to `take`, puts every reader finding and each
    /// event fed that its rules react to on the corpus timeline, and returns the file's stats;
    /// nil when `take` abandoned the reading.
    ///
    /// An event dropped as `.ended` means the file grew or changed after it was read ahead: the
    /// stats then carry an error naming the first such line (unless reading failed anyway).
    /// Inlined into both scans, so `take` is their own code, not a call per event.
    @inline(__always) private func readEvents(
        _ reader: FileReader, plan: EvaluationPlan, corpus: CorpusFeed.Share,
        take: (_ event: Event, _ source: Int32, _ regression: Event?) -> Taken
    ) -> FileStats? {
        var changed: Int?
        // Each event lent: the reader's ring holds it while this iteration uses it, and whatever
        // keeps it counts its own reference.
        while let item = reader.readInline() {
            // Every reader finding takes its place on the corpus timeline; only those its rules
            // react to are handed to it.
            if !reader.secrets.isEmpty {
                for e in reader.secrets { corpus.add(plan.corpusDispatch.reacts(to: e) ? e : nil) }
            }
            // Consumed: its events move into the cases' names, not copied and then released.
            switch consume item {
            case .blank: break
            case .malformed(let e): corpus.add(plan.corpusDispatch.reacts(to: e) ? e : nil)
            case .event(let lent, let id):
                let taken = lent._withUnsafeGuaranteedRef { e in
                    // The regression is read only when there is one: no reference counted else.
                    let taken =
                        reader.hasRegression ? take(e, id, reader.regression) : take(e, id, nil)
                    switch taken {
                    case .fed:
                        // The corpus timeline numbers its events itself: it gets its own copy.
                        if plan.corpusWantsEvents, plan.corpusDispatch.reacts(to: e) {
                            corpus.add(e.copy())
                        }
                    case .ended:
                        if changed == nil { changed = e.line }
                    case .abandoned:
                        break
                    }
                    return taken
                }
                if case .abandoned = taken { return nil }
            }
        }
        var stats = reader.stats
        if let changed, stats.error == nil {
            stats.error = InputError(path: reader.path, reason: Self.changedReason(line: changed))
        }
        return stats
    }
}

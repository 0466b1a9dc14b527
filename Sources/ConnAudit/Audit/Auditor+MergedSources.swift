/// Pass 2: a source whose lines pass 1 found in several files (rotation, several uploads) is
/// judged again from all of them, merged by `t` (ties: file path order, then line order).
extension Auditor {
    /// Re-reads the files holding `key` and feeds its events to one evaluator in merged order.
    /// A file that cannot be opened again (deleted or rotated away since pass 1) is an input error.
    func mergeEvaluate(
        _ key: SourceKey, files: [Int], inputs: [InputFile], plan: EvaluationPlan, spool: Spool
    ) -> (SourceOutcome, [InputError]) {
        let evaluator = SourceEvaluator(key: key, plan: plan)
        var streams: [SourceStream] = []
        var errors: [InputError] = []
        // Each stream's place in file path order (canonical paths: see ``InputFile/orderKey``).
        var rankOf: [Int: Int] = [:]
        for (rank, i) in files.sorted(by: { InputFile.pathOrder(inputs[$0], inputs[$1]) })
            .enumerated()
        { rankOf[i] = rank }
        var ranks: [Int] = []
        for i in files {
            let source: any ByteSource
            do {
                source = try spool.reopen(inputs[i], opener)
            } catch {
                errors.append(
                    InputError(
                        path: inputs[i].path,
                        reason: "could not be read again to merge its source: \(error.reason)"))
                continue
            }
            streams.append(
                SourceStream(
                    FileReader(
                        index: Int32(i), path: inputs[i].path, source: source, wantedFields: wanted),
                    key: key))
            ranks.append(rankOf[i]!)
        }
        // k-way merge on the head of each file's stream: lowest t first, then file order. The
        // streams with a head wait in a binary heap, so an event costs log(files), not files.
        func before(_ a: Int, _ b: Int) -> Bool {
            let x = streams[a].head!.event.t, y = streams[b].head!.event.t
            return x < y || (x == y && ranks[a] < ranks[b])
        }
        var heap = streams.indices.filter { streams[$0].head != nil }
        func siftDown(_ from: Int) {
            var i = from
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < heap.count, before(heap[l], heap[m]) { m = l }
                if r < heap.count, before(heap[r], heap[m]) { m = r }
                if m == i { return }
                heap.swapAt(i, m)
                i = m
            }
        }
        for i in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(i) }
        while let b = heap.first {
            let item = streams[b].head!
            if let r = item.regression { evaluator.feed(r) }
            evaluator.feed(item.event)
            streams[b].advance()
            if streams[b].head == nil {
                heap.swapAt(0, heap.count - 1)
                heap.removeLast()
            }
            siftDown(0)
        }
        for s in streams {
            if let e = s.reader.stats.error {
                errors.append(
                    InputError(
                        path: inputs[Int(s.reader.index)].path,
                        reason: "failed while merging its source: \(e.reason)"))
            }
        }
        return (evaluator.finish(), errors)
    }
}

/// One file's events of one source, one at a time.
private struct SourceStream {
    let reader: FileReader
    let key: SourceKey
    var head: (event: Event, regression: Event?)?

    init(_ reader: FileReader, key: SourceKey) {
        self.reader = reader
        self.key = key
        advance()
    }

    /// The number the reader gave ``key`` (-1: not seen yet).
    private var id: Int32 = -1

    mutating func advance() {
        head = nil
        while let item = reader.next() {
            guard case .event(let e, let k, let r) = item else { continue }
            if id < 0, reader.key(of: k) == key { id = k }
            if k == id {
                head = (e, r)
                return
            }
        }
    }
}

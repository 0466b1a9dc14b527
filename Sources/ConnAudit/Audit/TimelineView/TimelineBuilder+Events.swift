/// Pass B: the selected sources' events, every field decoded, merged as the Auditor merges them.
extension TimelineBuilder {
    struct FileEvents {
        var index: Int
        var events: [SourceKey: [Event]] = [:]
        var error: InputError?
    }

    /// The events of `keys` in `input`, in line order; events outside the selected streams and
    /// generations keep only `t`, `ev` and `gen` (they order the merge and drive the phases).
    static func collect(
        _ input: InputFile, index: Int, open: Auditor.Opener, keys: Set<SourceKey>,
        wanted: (Substring, UInt64?) -> Bool
    ) -> FileEvents {
        var out = FileEvents(index: index)
        let error = read(input, index: index, open: open, wantedFields: nil) { reader in
            while let item = reader.next() {
                guard case .event(let e, let id, _) = item, case let key = reader.key(of: id),
                    keys.contains(key)
                else {
                    continue
                }
                // Events outside the wanted generations keep only what ordering needs.
                let kept =
                    wanted(e.stream, e.gen)
                    ? e
                    : Event(t: e.t, ev: e.ev, gen: e.gen, file: e.file, line: e.line, evID: e.evID)
                out.events[key, default: []].append(kept)
            }
        }
        out.error = error
        return out
    }

    /// The Auditor's merge: the lowest `t` among the files' next events, ties by file path order
    /// (``InputFile/pathOrder(_:_:)``); each file keeps its own order.
    static func merge(_ lists: [(file: InputFile, events: [Event])]) -> [Event] {
        if lists.count == 1 { return lists[0].events }
        var heads = [Int](repeating: 0, count: lists.count)
        var out: [Event] = []
        out.reserveCapacity(lists.reduce(0) { $0 + $1.events.count })
        while true {
            var best: Int?
            for i in lists.indices where heads[i] < lists[i].events.count {
                if let b = best {
                    let bt = lists[b].events[heads[b]].t, t = lists[i].events[heads[i]].t
                    if bt < t { continue }
                    if bt == t, !InputFile.pathOrder(lists[i].file, lists[b].file) { continue }
                }
                best = i
            }
            guard let b = best else { break }
            out.append(lists[b].events[heads[b]])
            heads[b] += 1
        }
        return out
    }
}

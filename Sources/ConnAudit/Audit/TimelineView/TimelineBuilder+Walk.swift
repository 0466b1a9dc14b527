/// Walking a source: each event's times since the connect and the last ping, and its phase.
extension TimelineBuilder {
    /// A section of a source: a generation of a stream, or (`gen` nil, stream "") the events
    /// without gen.
    struct SectionKey: Hashable {
        var stream: String
        var gen: UInt64?
    }

    struct Pending {
        var event: Event
        var section: SectionKey
        var sinceConnect: Double?
        var sincePing: Double?
        var phase: String?
        var phaseChanged: Bool
    }

    struct Walk {
        /// The selected events, in merged order.
        var pending: [Pending]
        /// Selected events per section (before any window).
        var totals: [SectionKey: Int]
    }

    /// Goes through a source's events in merged order, keeping the selected ones with their times
    /// and phases (which depend on every event of the source: a newer `ws.connect` makes the older
    /// generations stale).
    static func walk(_ events: [Event], wanted: (Substring, UInt64?) -> Bool) -> Walk {
        struct State {
            var firstConnect: Int?
            var firstConnectT: Double?
            var lastPingT: Double?
            var phase: String?
        }
        var states: [SectionKey: State] = [:]
        var latestConnect: (gen: UInt64, seq: Int)?
        var out: [Pending] = []
        var totals: [SectionKey: Int] = [:]
        for (seq, e) in events.enumerated() {
            let stream = e.stream
            guard let g = e.gen else {
                if wanted(stream, nil) {
                    let key = SectionKey(stream: "", gen: nil)
                    out.append(Pending(event: e, section: key, phaseChanged: false))
                    totals[key, default: 0] += 1
                }
                continue
            }
            let key = SectionKey(stream: String(stream), gen: g)
            var st = states[key] ?? State()
            let name = e.ev.count > stream.count ? e.ev.dropFirst(stream.count + 1) : ""
            let sincePing = st.lastPingT.map { DecimalRounding.sum(e.t, -$0) }
            if name == "ping" { st.lastPingT = e.t }
            if name == "connect", st.firstConnectT == nil {
                st.firstConnectT = e.t
                st.firstConnect = seq
            }
            var phase = st.phase
            if stream == "ws" {
                if name == "connect" {
                    phase = "connecting"
                    latestConnect = (g, seq)
                } else if let latest = latestConnect, latest.gen != g,
                    st.firstConnect.map({ $0 < latest.seq }) ?? (g < latest.gen)
                {
                    // A newer connection replaced this one, and it is still acting.
                    phase = "stale"
                } else {
                    switch name {
                    case "open": if phase == nil || phase == "connecting" { phase = "open" }
                    case "close": if phase != "closed" { phase = "closing" }
                    case "closed", "connect_failed": phase = "closed"
                    default: break
                    }
                }
            }
            let changed = phase != nil && phase != st.phase
            st.phase = phase
            states[key] = st
            if wanted(stream, g) {
                out.append(
                    Pending(
                        event: e, section: key, sincePing: sincePing, phase: phase,
                        phaseChanged: changed))
                totals[key, default: 0] += 1
            }
        }
        // Relative to the generation's first connect, wherever it is (an event logged before it is
        // negative).
        for i in out.indices where out[i].event.gen != nil {
            if let c = states[out[i].section]?.firstConnectT {
                out[i].sinceConnect = DecimalRounding.sum(out[i].event.t, -c)
            }
        }
        return Walk(pending: out, totals: totals)
    }

    /// Each selected source merged from its files and walked (times, phases); with `--around`,
    /// the focus event's source keeps the window around it and the others nothing. Also every
    /// line of the selected sources, where a finding counts as elsewhere when no entry shows it.
    ///
    /// - Throws: ``UsageError`` when the `--around` event is not among them (the file changed
    ///   while it was read).
    static func mergeAndWalk(
        _ selected: [SourceKey], reads: [FileEvents], inputs: [InputFile], selection: Selection,
        query: TimelineQuery
    ) throws(UsageError) -> (walks: [Walk], positions: Set<Position>) {
        var walks: [Walk] = []
        var positions = Set<Position>()
        var focusAt: (source: Int, index: Int)?
        for (s, key) in selected.enumerated() {
            let lists = reads.compactMap { r -> (file: InputFile, events: [Event])? in
                guard let events = r.events[key] else { return nil }
                return (inputs[r.index], events)
            }
            let merged = merge(lists)
            for e in merged { positions.insert(Position(file: e.file, line: e.line)) }
            let w = walk(merged, wanted: selection.eventWanted)
            if let f = selection.focus, f.key == key,
                let i = w.pending.firstIndex(where: {
                    $0.event.file == f.file && $0.event.line == f.line
                })
            {
                focusAt = (s, i)
            }
            walks.append(w)
        }
        if let around = query.around {
            guard let f = focusAt else {
                throw UsageError(
                    "no event at \(around.file):\(around.line) (the file changed while it was read)"
                )
            }
            let r = max(0, query.radius)
            let all = walks[f.source].pending
            let lo = max(0, f.index - r), hi = min(all.count - 1, f.index + r)
            for s in walks.indices { walks[s].pending = s == f.source ? Array(all[lo...hi]) : [] }
        }
        return (walks, positions)
    }
}

/// Collects what rules find on one timeline and the context around it.
/// Decides, as a violation of rule `rule` (its id) is found, whether a known issue accepts it:
/// the index of the accepting entry, or nil. An accepted violation is counted, not kept.
public typealias ViolationFilter = @Sendable (_ rule: String, _ finding: Finding) -> Int?

final class FindingSink {
    /// Findings by rule index (into the run's rule list).
    var violations: [Int: [Finding]] = [:]
    /// Violations ``divert`` accepted, counted by rule index and then by the accepting entry.
    var diverted: [Int: [Int: Int]] = [:]
    /// See ``ViolationFilter``; nil: every violation is kept (or counted past ``keep``).
    let divert: ViolationFilter?
    var inconclusive: [Int: [Finding]] = [:]
    /// `classify` rules: how many generations carry each label.
    var labels: [Int: [String: Int]] = [:]
    /// `classify` rules whose `applies_if` matched an event.
    var applicable = Set<Int>()
    let files: [String]
    /// See ``Auditor/keepFindings``: past twice this many findings of a rule and kind, they are
    /// cut to the ones that come first in report order, and the rest only counted here.
    let keep: Int?
    var omittedViolations: [Int: Int] = [:]
    var omittedInconclusive: [Int: Int] = [:]
    /// Per rule and kind (``cutKey(_:_:)``): the size past which the next cut is made — twice what
    /// the last cut left, and at least twice ``keep``, so each finding is sorted a bounded number
    /// of times.
    private var nextCut: [Int: Int] = [:]

    init(files: [String], keep: Int? = nil, divert: ViolationFilter? = nil) {
        self.files = files
        self.keep = keep
        self.divert = divert
    }

    /// Whether rule `rule`'s findings of one kind are past what ``trim`` cuts back.
    @inline(__always) func overflows(violation: Bool, rule: Int) -> Bool {
        guard let keep else { return false }
        let count = (violation ? violations[rule]?.count : inconclusive[rule]?.count) ?? 0
        return count > 2 * keep && count > nextCut[Self.cutKey(violation, rule), default: 0]
    }

    private static func cutKey(_ violation: Bool, _ rule: Int) -> Int {
        violation ? 2 * rule : 2 * rule + 1
    }

    /// With ``keep``: cuts rule `rule`'s findings of one kind to the `keep` of them that come first
    /// in report order (file, line, message; equal ones in the order they came), and counts the
    /// rest. What is kept stays in the order it came, so the stable sort at the end of the run
    /// orders it as it would have ordered everything. Whatever is cut could never be shown: `keep`
    /// kept findings come before it, whatever context lines either still waits for. Returns the
    /// old indexes of what was kept, ascending (the new index of each is its place there), or nil
    /// when nothing was cut.
    func trim(violation: Bool, rule: Int) -> [Int]? {
        guard let keep else { return nil }
        let survivors =
            violation
            ? Self.cut(&violations[rule], keep: keep, omitted: &omittedViolations[rule, default: 0])
            : Self.cut(
                &inconclusive[rule], keep: keep, omitted: &omittedInconclusive[rule, default: 0])
        let left = (violation ? violations[rule]?.count : inconclusive[rule]?.count) ?? 0
        nextCut[Self.cutKey(violation, rule)] = 2 * left
        return survivors
    }

    /// ``trim(violation:rule:)`` on one list: what it keeps, in the order it came.
    private static func cut(_ findings: inout [Finding]?, keep: Int, omitted: inout Int) -> [Int]? {
        guard let list = findings, list.count > keep else { return nil }
        // A total order (ties by arrival), so no sort's stability is relied on.
        let order = list.indices.sorted { a, b in
            Finding.precedes(list[a], list[b]) || (a < b && !Finding.precedes(list[b], list[a]))
        }
        var kept = [Bool](repeating: false, count: list.count)
        for i in order.prefix(keep) { kept[i] = true }
        let indexes = list.indices.filter { kept[$0] }
        guard indexes.count < list.count else { return nil }
        findings = indexes.map { list[$0] }
        omitted += list.count - indexes.count
        return indexes
    }

    /// Counts the `classify` labels of `times` generations that have the same (at least one).
    func count(_ results: [LabelResult], times: Int = 1) {
        for r in results {
            labels[r.rule, default: [:]][r.name, default: 0] += r.holds ? times : 0
        }
    }

    /// Takes everything of `other` over: its findings (a run's findings are not held twice, once
    /// per source and once in the total), counts and labels. `other` is left empty.
    func merge(_ other: FindingSink) {
        for (k, n) in other.omittedViolations { omittedViolations[k, default: 0] += n }
        for (k, n) in other.omittedInconclusive { omittedInconclusive[k, default: 0] += n }
        other.omittedViolations = [:]
        other.omittedInconclusive = [:]
        for (k, counts) in other.diverted {
            for (entry, n) in counts { diverted[k, default: [:]][entry, default: 0] += n }
        }
        other.diverted = [:]
        let added = (
            violations: Array(other.violations.keys), inconclusive: Array(other.inconclusive.keys)
        )
        Self.move(&other.violations, into: &violations)
        Self.move(&other.inconclusive, into: &inconclusive)
        for k in added.violations where overflows(violation: true, rule: k) {
            _ = trim(violation: true, rule: k)
        }
        for k in added.inconclusive where overflows(violation: false, rule: k) {
            _ = trim(violation: false, rule: k)
        }
        for (k, counts) in other.labels {
            for (label, n) in counts { labels[k, default: [:]][label, default: 0] += n }
        }
        other.labels = [:]
        applicable.formUnion(other.applicable)
        other.applicable = []
    }

    /// Merges `sink` into `folded`, which is made on first use to keep what `keep` says.
    static func fold(
        _ sink: FindingSink, into folded: inout FindingSink?, files: [String], keep: Int?
    ) {
        if folded == nil { folded = FindingSink(files: files, keep: keep) }
        folded!.merge(sink)
    }

    private static func move(_ from: inout [Int: [Finding]], into to: inout [Int: [Finding]]) {
        for (k, v) in from {
            if to[k] == nil { to[k] = v } else { to[k]! += v }
        }
        from = [:]
    }
}

/// Whether one `classify` label holds for one generation.
struct LabelResult: Hashable {
    var rule: Int
    var name: String
    var holds: Bool
}

/// The recent events of one source, shown as context around findings.
///
/// One ring per source (not per timeline), so a source with thousands of generations keeps a
/// handful of events, not a handful per generation. A generation's finding shows the ring's events
/// of its own generation.
final class TimelineContext {
    static let before = 2
    static let after = 2
    /// How many recent source events are kept to find a generation's neighbours among. A
    /// finding decided after its anchor (a deadline, a look-ahead, the end of the log) shows the
    /// anchor's neighbours while the anchor is among them. A ping whose deadline passes a second
    /// later, in a source that also carries SSE events, is then many events back: with 16, a
    /// fifth of `ws.timeout-closes` findings on a generated fleet would show the ping alone; with
    /// 64, about one in 266 does. Events are references, most of them held anyway: a larger ring
    /// costs little memory and time (its events are freed later). A power of two: the oldest
    /// slot moves on by a mask.
    static let ring = 64
    /// The last ``ring`` events, oldest first from ``oldest`` (a circular buffer).
    private var ringEvents = RingSlots()
    private var oldest = 0
    /// Each ring event's text once rendered (nil: not yet). Findings close together show the
    /// same events: they share one copy of each event's text instead of each rendering its own
    /// (a heartbeat whose every ping breaks three rules would keep five texts per finding).
    /// Empty until a finding asks for a ring event's text: a source without findings does not
    /// keep it up.
    private var ringTexts: [String?] = []
    /// The text of the latest event rendered that is not in the ring (yet): the event being
    /// processed, which the findings it causes are anchored at, and then shown after earlier ones.
    private var pending: (event: Event, text: String)?
    /// Findings waiting for later neighbours: those of a source-wide scope, and those of a
    /// generation's by its `gen`, so an event is looked for only among the findings it can be a
    /// neighbour of (else a source of 20,000 generations, each breaking a rule at its last event,
    /// keeps 20,000 findings waiting to its end, each looked at for every event).
    private var waitingAll: [Waiting] = []
    private var waitingByGen: [UInt64: [Waiting]] = [:]
    /// Findings made while the current event is processed: they wait from the next event on.
    private var fresh: [Waiting] = []
    let source: SourceKey?
    /// ``source``, as the findings of the source name it.
    let sharedSource: SharedSource?
    /// Whether findings show neighbouring events (not on the corpus timeline, whose events are
    /// the reader's findings about unrelated lines).
    let enabled: Bool

    /// Whether an event only joins the ring: the context is enabled, no text is pending, and no
    /// finding waits (``fresh``, ``waitingAll``, ``waitingByGen`` empty). One flag read per event;
    /// ``settle()`` sets it again after each change of what it sums up.
    private var quiet: Bool
    /// ``quiet`` but for ``waitingByGen``: an event without `gen` only joins the ring while
    /// generations' findings wait (a source of many generations keeps some waiting to its end).
    private var quietButGens: Bool

    private struct Waiting {
        var violation: Bool
        var rule: Int
        var index: Int
        var left: Int
        /// Which events count as its neighbours: the scope's stream and generation, not the scope
        /// itself, whose context is this object (else a finding still waiting when its source
        /// ends holds its source's context alive, ring and all: a leak per such source).
        var scope: ContextScope.Events
        /// The `seq` of the finding's anchor (`Int.max`: none).
        var anchorSeq: Int
    }

    init(source: SourceKey?, enabled: Bool = true) {
        self.source = source
        sharedSource = source.map(SharedSource.init)
        self.enabled = enabled
        quiet = enabled
        quietButGens = enabled
    }

    /// Sets ``quiet`` and ``quietButGens`` from what they sum up.
    private func settle() {
        quietButGens = enabled && pending == nil && fresh.isEmpty && waitingAll.isEmpty
        quiet = quietButGens && waitingByGen.isEmpty
    }

    /// Set while a retired timeline is rebuilt by replaying its events: the findings made then
    /// were reported the first time, and are thrown away (see ``RetiredTimeline``).
    var replaying = false

    /// Context for a finding anchored at `anchor`: up to two events of its timeline before it and,
    /// when the finding is made later than its anchor (a deadline), the ones after it seen so far.
    func lines(anchor: Event?, scope: ContextScope) -> (lines: [ContextLine], after: Int) {
        guard enabled, !replaying else { return ([], 0) }
        guard let anchor else { return ([], 0) }
        let n = ringEvents.count
        // Ring slots from the oldest event to the newest.
        @inline(__always) func slot(_ k: Int) -> Int { (oldest + k) % n }
        // An anchor that has left the ring (a trigger judged long after it came, by a look-ahead)
        // has no neighbours left to show: the ring's events are not next to it.
        if !anchor.isPseudo, n > 0, ringEvents[slot(0)].seq > anchor.seq {
            return ([line(anchor, text(of: anchor), anchor: true)], TimelineContext.after)
        }
        // The ring holds events in `seq` order: `p` is the place of the first one after the anchor,
        // found by halving (a finding costs a few steps, not one per ring slot).
        var low = 0, high = n
        while low < high {
            let mid = (low + high) / 2
            if ringEvents[slot(mid)].seq <= anchor.seq { low = mid + 1 } else { high = mid }
        }
        let p = low
        var out: [ContextLine] = []
        out.reserveCapacity(Self.before + 1 + Self.after)
        // The anchor itself sits just before `p` when it is in the ring (a reader's pseudo-event,
        // which the ring does not hold, has only neighbours there).
        let inRing = p > 0 && ringEvents[slot(p - 1)] === anchor
        var k = inRing ? p - 2 : p - 1
        var before = 0
        while k >= 0, before < Self.before {
            let e = ringEvents[slot(k)]
            if e.seq < anchor.seq && scope.contains(e) {
                out.append(line(e, ringText(slot(k)), anchor: false))
                before += 1
            }
            k -= 1
        }
        out.reverse()
        out.append(line(anchor, inRing ? ringText(slot(p - 1)) : text(of: anchor), anchor: true))
        var after = 0
        k = p
        while k < n, after < Self.after {
            let e = ringEvents[slot(k)]
            if scope.contains(e) {
                out.append(line(e, ringText(slot(k)), anchor: false))
                after += 1
            }
            k += 1
        }
        return (out, after)
    }

    @inline(__always) private func line(_ e: Event, _ text: String, anchor: Bool) -> ContextLine {
        ContextLine(file: e.file, line: e.line, text: text, isAnchor: anchor)
    }

    /// The text of ring slot `k`, rendered on first use.
    private func ringText(_ k: Int) -> String {
        if ringTexts.isEmpty { ringTexts = Array(repeating: nil, count: ringEvents.count) }
        if let known = ringTexts[k] { return known }
        let made = Self.text(ringEvents[k])
        ringTexts[k] = made
        return made
    }

    /// The text of an event that is not in the ring, kept while it is the latest one rendered.
    private func text(of e: Event) -> String {
        if let p = pending, p.event === e { return p.text }
        let made = Self.text(e)
        pending = (e, made)
        quiet = false
        quietButGens = false
        return made
    }

    /// Cuts `sink`'s findings of rule `rule` of one kind to what the reports show
    /// (``FindingSink/trim(violation:rule:)``). A cut finding that still waited for events after
    /// its anchor waits no more; the indexes of the kept ones follow them.
    func trim(_ sink: FindingSink, violation: Bool, rule: Int) {
        guard let kept = sink.trim(violation: violation, rule: rule) else { return }
        let mine = { (w: Waiting) in w.violation == violation && w.rule == rule }
        /// The new index of the finding at `old`: its place in `kept` (ascending); nil when cut.
        func moved(_ old: Int) -> Int? {
            var low = 0, high = kept.count
            while low < high {
                let mid = (low + high) / 2
                if kept[mid] < old { low = mid + 1 } else { high = mid }
            }
            return low < kept.count && kept[low] == old ? low : nil
        }
        func follow(_ list: inout [Waiting]) {
            list = list.compactMap { w in
                guard mine(w) else { return w }
                guard let index = moved(w.index) else { return nil }
                var w = w
                w.index = index
                return w
            }
        }
        follow(&waitingAll)
        for gen in Array(waitingByGen.keys) {
            follow(&waitingByGen[gen]!)
            if waitingByGen[gen]!.isEmpty { waitingByGen[gen] = nil }
        }
        follow(&fresh)
        settle()
    }

    /// The finding at `index` waits for `count` more events of its timeline after its anchor.
    func awaitAfter(
        violation: Bool, rule: Int, index: Int, scope: ContextScope,
        count: Int = TimelineContext.after,
        anchorSeq: Int = .max
    ) {
        guard enabled, !replaying, count > 0 else { return }
        fresh.append(
            Waiting(
                violation: violation, rule: rule, index: index, left: count, scope: scope.events,
                anchorSeq: anchorSeq))
        quiet = false
        quietButGens = false
    }

    private func enqueue(_ findings: [Waiting]) {
        for w in findings {
            if let gen = w.scope.gen {
                waitingByGen[gen, default: []].append(w)
            } else {
                waitingAll.append(w)
            }
        }
    }

    /// Called once per source event, after every timeline saw it.
    ///
    /// Inlined into each event's feed: most events find no finding waiting and no text rendered,
    /// and only join the ring.
    @inline(__always) func record(_ e: Event, sink: FindingSink) {
        if quiet || quietButGens && e.gen == nil, !e.isPseudo {
            keep(e, text: nil)
        } else if enabled {
            recordOther(e, sink: sink)
            settle()
        }
        // Not enabled: no finding waits (``awaitAfter`` keeps none), and the ring stays empty.
    }

    /// ``record(_:sink:)`` for an event that serves or makes findings, or is not to be shown.
    @inline(never) private func recordOther(_ e: Event, sink: FindingSink) {
        // The reader's pseudo-events are findings, not things that happened: not shown as context.
        guard enabled, !e.isPseudo else {
            // A finding anchored at a pseudo-event shows the real event of the same line after it.
            enqueue(fresh)
            fresh.removeAll()
            return
        }
        keep(e, text: serveWaiting(e, sink: sink))
    }

    /// Puts `e` in the ring, in place of the oldest event once it is full.
    @inline(__always) private func keep(_ e: Event, text known: String?) {
        if ringEvents.count < Self.ring {
            ringEvents.append(e)
            if !ringTexts.isEmpty { ringTexts.append(known) }
        } else {
            ringEvents[oldest] = e
            if !ringTexts.isEmpty { ringTexts[oldest] = known }
            oldest = (oldest &+ 1) & (Self.ring &- 1)
        }
    }

    /// ``record(_:sink:)``'s work before `e` joins the ring: adds `e` to the context of the
    /// findings it is a neighbour of, and lets this event's findings wait. Returns `e`'s text when
    /// it was rendered (for the ring). Out of line: most events never come here.
    @inline(never)
    private func serveWaiting(_ e: Event, sink: FindingSink) -> String? {
        var known: String?
        if let p = pending {
            if p.event === e { known = p.text }
            pending = nil
        }
        // A finding made at this event but anchored before it (a deadline that passed here) has
        // this event as its next neighbour: it was skipped, and the window had a hole.
        if fresh.contains(where: { $0.anchorSeq < e.seq }) {
            enqueue(fresh.filter { $0.anchorSeq < e.seq })
            fresh.removeAll { $0.anchorSeq < e.seq }
        }
        var line: ContextLine?
        // Adds `e` to the findings of `list` it is a neighbour of; drops those that have all
        // theirs.
        func serve(_ list: inout [Waiting]) {
            var kept = 0
            for j in list.indices {
                var w = list[j]
                if w.scope.contains(e) {
                    let rendered = line ?? self.line(e, known ?? Self.text(e), anchor: false)
                    line = rendered
                    known = rendered.text
                    if w.violation {
                        sink.violations[w.rule]![w.index].context.append(rendered)
                    } else {
                        sink.inconclusive[w.rule]![w.index].context.append(rendered)
                    }
                    w.left -= 1
                }
                if w.left > 0 {
                    list[kept] = w
                    kept += 1
                }
            }
            list.removeLast(list.count - kept)
        }
        if !waitingAll.isEmpty { serve(&waitingAll) }
        if let gen = e.gen, waitingByGen[gen] != nil {
            serve(&waitingByGen[gen]!)
            if waitingByGen[gen]!.isEmpty { waitingByGen[gen] = nil }
        }
        if !fresh.isEmpty {
            enqueue(fresh)
            fresh.removeAll()
        }
        return known
    }

    /// `t=1100 ws.close gen=1 reason="pong_timeout"`: scalar fields only, redacted ones never,
    /// and every name and value through ``SecretShapes`` (`reason="Basic [redacted]"` is
    /// `reason="[redacted]"`).
    static func text(_ e: Event) -> String {
        // Each name and value is clipped (``String/clipped(bytes:)``): findings show a long one
        // in every context line that holds its event.
        let ev = SecretShapes.text(e.ev).clipped()
        var text = e.t.isNaN ? ev : "t=\(Value.double(e.t).rendered()) \(ev)"
        if let g = e.gen { text += " gen=\(g)" }
        // A reader finding's file and line are the line's own: shown once, as file:line.
        // The finding names its source, and a reader finding's file and line are shown as
        // file:line. A set of the redacted keys when there are many: one search of the list per
        // field costs the square of a line's flagged keys.
        let redacted = KeyLookup(e.redactedKeys)
        for f in e.fields
        where !redacted.contains(f.key) && f.key != "src" && f.key != "session"
            && !(e.isPseudo && (f.key == "file" || f.key == "line"))
        {
            switch f.value {
            case .array, .object: continue
            default:
                // A value the shared detector hides whole is left out, as a flagged one is.
                guard let shown = f.value.shown(under: f.key) else { continue }
                text += " \(SecretShapes.text(f.key).clipped())=\(shown.renderedClipped())"
            }
        }
        return text
    }
}

/// The events of a ``TimelineContext``'s ring, at most ``TimelineContext/ring`` of them, in a
/// buffer of their own: putting a source's every event in place of the oldest checks no
/// array's reference count. Each slot holds its event counted, as an array would.
private struct RingSlots: ~Copyable {
    private var slots: UnsafeMutablePointer<Event>?
    private(set) var count = 0

    init() {}

    deinit {
        guard let slots else { return }
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    @inline(__always) subscript(k: Int) -> Event {
        get {
            assert(k >= 0 && k < count)
            return slots.unsafelyUnwrapped[k]
        }
        set {
            assert(k >= 0 && k < count)
            slots.unsafelyUnwrapped[k] = newValue
        }
    }

    /// Adds an event in the next free slot (the buffer made on the first).
    @inline(__always) mutating func append(_ e: Event) {
        assert(count < TimelineContext.ring)
        if slots == nil { slots = .allocate(capacity: TimelineContext.ring) }
        (slots.unsafelyUnwrapped + count).initialize(to: e)
        count += 1
    }
}

/// Which events of the source ring belong to a timeline: all (source, corpus) or one generation's.
struct ContextScope {
    var context: TimelineContext
    /// The events of the scope, without the context they are looked for in (what a finding
    /// waiting for later neighbours keeps).
    var events: Events

    init(context: TimelineContext, stream: Substring? = nil, gen: UInt64? = nil) {
        self.context = context
        events = Events(stream: stream, gen: gen)
    }

    func contains(_ e: Event) -> Bool { events.contains(e) }

    struct Events {
        var stream: Substring?
        var gen: UInt64?

        func contains(_ e: Event) -> Bool {
            guard let gen else { return true }
            return e.gen == gen && e.stream == stream
        }
    }
}

/// Collects what rules find on one timeline and the context around it.
final class FindingSink {
    /// Findings by rule index (into the run's rule list).
    var violations: [Int: [Finding]] = [:]
    var inconclusive: [Int: [Finding]] = [:]
    /// `classify` rules: how many generations carry each label.
    var labels: [Int: [String: Int]] = [:]
    /// `classify` rules whose `applies_if` matched an event.
    var applicable = Set<Int>()
    let files: [String]

    init(files: [String]) { self.files = files }

    /// Counts one generation's `classify` labels.
    func count(_ results: [LabelResult]) {
        for r in results { labels[r.rule, default: [:]][r.name, default: 0] += r.holds ? 1 : 0 }
    }

    func merge(_ other: FindingSink) {
        for (k, v) in other.violations { violations[k, default: []] += v }
        for (k, v) in other.inconclusive { inconclusive[k, default: []] += v }
        for (k, counts) in other.labels {
            for (label, n) in counts { labels[k, default: [:]][label, default: 0] += n }
        }
        applicable.formUnion(other.applicable)
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
    /// How many recent source events are kept to find a generation's neighbours among.
    static let ring = 16
    /// The last ``ring`` events, oldest first from ``oldest`` (a circular buffer).
    private var ringEvents: [Event] = []
    private var oldest = 0
    /// The ring's events, oldest first.
    private var recent: [Event] {
        oldest == 0 ? ringEvents : Array(ringEvents[oldest...] + ringEvents[..<oldest])
    }
    private var waiting: [Waiting] = []
    /// Findings made while the current event is processed: they wait from the next event on.
    private var fresh: [Waiting] = []
    let source: SourceKey?
    /// Whether findings show neighbouring events (not on the corpus timeline, whose events are
    /// the reader's findings about unrelated lines).
    let enabled: Bool

    private struct Waiting {
        var violation: Bool
        var rule: Int
        var index: Int
        var left: Int
        var scope: ContextScope
    }

    init(source: SourceKey?, enabled: Bool = true) {
        self.source = source
        self.enabled = enabled
    }

    /// Set while a retired timeline is rebuilt by replaying its events: the findings made then
    /// were reported the first time, and are thrown away (see ``RetiredTimeline``).
    var replaying = false

    /// Context for a finding anchored at `anchor`: up to two events of its timeline before it and,
    /// when the finding is made later than its anchor (a deadline), the ones after it seen so far.
    func lines(anchor: Event?, scope: ContextScope) -> (lines: [ContextLine], after: Int) {
        guard enabled, !replaying else { return ([], 0) }
        guard let anchor else { return ([], 0) }
        let recent = self.recent
        // An anchor that has left the ring (a trigger judged long after it came, by a look-ahead)
        // has no neighbours left to show: the ring's events are not next to it.
        if !anchor.isPseudo, let oldest = recent.first, oldest.seq > anchor.seq {
            return ([Self.render(anchor, anchor: true)], TimelineContext.after)
        }
        var before: [ContextLine] = []
        for e in recent.reversed() where before.count < Self.before && e.seq < anchor.seq && scope.contains(e) {
            before.append(Self.render(e, anchor: false))
        }
        var out = Array(before.reversed())
        out.append(Self.render(anchor, anchor: true))
        var after = 0
        for e in recent where after < Self.after && e.seq > anchor.seq && scope.contains(e) {
            out.append(Self.render(e, anchor: false))
            after += 1
        }
        return (out, after)
    }

    func awaitAfter(violation: Bool, rule: Int, index: Int, scope: ContextScope, count: Int = TimelineContext.after) {
        guard enabled, !replaying, count > 0 else { return }
        fresh.append(Waiting(violation: violation, rule: rule, index: index, left: count, scope: scope))
    }

    /// Called once per source event, after every timeline saw it.
    func record(_ e: Event, sink: FindingSink) {
        // The reader's pseudo-events are findings, not things that happened: not shown as context.
        guard enabled, !e.isPseudo else {
            // A finding anchored at a pseudo-event shows the real event of the same line after it.
            waiting += fresh
            fresh.removeAll()
            return
        }
        if !waiting.isEmpty {
            var line: ContextLine?
            var still: [Waiting] = []
            for var w in waiting {
                if w.scope.contains(e) {
                    let rendered = line ?? Self.render(e, anchor: false)
                    line = rendered
                    if w.violation {
                        sink.violations[w.rule]![w.index].context.append(rendered)
                    } else {
                        sink.inconclusive[w.rule]![w.index].context.append(rendered)
                    }
                    w.left -= 1
                }
                if w.left > 0 { still.append(w) }
            }
            waiting = still
        }
        if !fresh.isEmpty {
            waiting += fresh
            fresh.removeAll()
        }
        if ringEvents.count < Self.ring {
            ringEvents.append(e)
        } else {
            ringEvents[oldest] = e
            oldest = (oldest + 1) % Self.ring
        }
    }

    /// `t=1100 ws.close gen=1 reason="pong_timeout"`: scalar fields only, redacted ones never.
    static func render(_ e: Event, anchor: Bool) -> ContextLine {
        var text = e.t.isNaN ? e.ev : "t=\(Value.double(e.t).rendered()) \(e.ev)"
        if let g = e.gen { text += " gen=\(g)" }
        // A reader finding's file and line are the line's own: shown once, as file:line.
        // The finding names its source, and a reader finding's file and line are shown as file:line.
        // A set of the redacted keys when there are many: one search of the list per field cost the
        // square of a line's flagged keys.
        let redacted = KeyLookup(e.redactedKeys)
        for f in e.fields where !redacted.contains(f.key) && f.key != "src" && f.key != "session"
            && !(e.isPseudo && (f.key == "file" || f.key == "line")) {
            switch f.value {
            case .array, .object: continue
            default: text += " \(f.key)=\(f.value.rendered(bare: false))"
            }
        }
        return ContextLine(file: e.file, line: e.line, text: text, isAnchor: anchor)
    }
}

/// Which events of the source ring belong to a timeline: all (source, corpus) or one generation's.
struct ContextScope {
    var context: TimelineContext
    var stream: Substring?
    var gen: UInt64?

    func contains(_ e: Event) -> Bool {
        guard let gen else { return true }
        return e.gen == gen && e.stream == stream
    }
}


/// Collects what rules find on one timeline and the context around it.
final class FindingSink {
    /// Findings by rule index (into the run's rule list).
    var violations: [Int: [Finding]] = [:]
    var inconclusive: [Int: [Finding]] = [:]
    let files: [String]

    init(files: [String]) { self.files = files }

    func merge(_ other: FindingSink) {
        for (k, v) in other.violations { violations[k, default: []] += v }
        for (k, v) in other.inconclusive { inconclusive[k, default: []] += v }
    }
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
    private var recent: [Event] = []
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

    /// Context for a finding anchored at `anchor` (the event being processed, or an earlier one).
    func lines(anchor: Event?, scope: ContextScope) -> [ContextLine] {
        guard enabled else { return [] }
        var before: [ContextLine] = []
        for e in recent.reversed() where before.count < Self.before && scope.contains(e) {
            if let a = anchor, e.file == a.file && e.line == a.line { continue }
            before.append(Self.render(e, anchor: false))
        }
        var out = Array(before.reversed())
        if let anchor { out.append(Self.render(anchor, anchor: true)) }
        return out
    }

    func awaitAfter(violation: Bool, rule: Int, index: Int, scope: ContextScope) {
        guard enabled else { return }
        fresh.append(Waiting(violation: violation, rule: rule, index: index, left: Self.after, scope: scope))
    }

    /// Called once per source event, after every timeline saw it.
    func record(_ e: Event, sink: FindingSink) {
        // The reader's pseudo-events are findings, not things that happened: not shown as context.
        guard enabled, !e.ev.hasPrefix("$") else {
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
        recent.append(e)
        if recent.count > Self.ring { recent.removeFirst(recent.count - Self.ring) }
    }

    /// `t=1100 ws.close gen=1 reason="pong_timeout"`: scalar fields only, redacted ones never.
    static func render(_ e: Event, anchor: Bool) -> ContextLine {
        var text = e.t.isNaN ? e.ev : "t=\(Value.double(e.t).rendered()) \(e.ev)"
        if let g = e.gen { text += " gen=\(g)" }
        for f in e.fields where !e.isRedacted(f.key) {
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
    var gen: Int64?

    func contains(_ e: Event) -> Bool {
        guard let gen else { return true }
        return e.gen == gen && e.stream == stream
    }
}

/// Runs one rule over one timeline, event by event.
///
/// Looks back only: `first/last/count` read the events retained so far (only those the rule's
/// history selectors can match), so memory follows what the rule needs, not the timeline's length.
final class RuleRunner: HistoryProvider {
    let compiled: CompiledRule
    private let files: [String]
    private var retained: [Event] = []
    private var matched = 0
    private var firstEvent: Event?
    private var lastEvent: Event?
    private var afterOpen = false
    private var beforeClosed = false

    init(_ compiled: CompiledRule, files: [String]) {
        self.compiled = compiled
        self.files = files
        if case .never(_, let after, _) = compiled.rule.check { afterOpen = after == nil }
    }

    private var rule: Rule { compiled.rule }

    func observe(_ e: Event, context: ContextScope, sink: FindingSink) {
        if firstEvent == nil { firstEvent = e }
        lastEvent = e
        let base = EvalContext(event: e, params: compiled.params, history: self, files: files)
        switch rule.check {
        case .every(let selector, let expect, let policy):
            if let term = Evaluator.matches(selector, e, base) {
                let ctx = anchorContext(e, term: term, base: base)
                let verdict: Bool?
                switch expect {
                case .expression(let x): verdict = Evaluator.evaluate(x, ctx).truth
                case .selector(let s): verdict = Evaluator.matches(s, e, ctx) != nil
                }
                switch verdict ?? (policy == .pass ? true : policy == .fail ? false : nil) {
                case true?: break
                case false?: report(e, ctx, context: context, sink: sink)
                case nil: report(e, ctx, context: context, sink: sink, inconclusive: true, note: "expectation undecided (missing data)")
                }
            }
        case .never(let selector, let after, let before):
            if !afterOpen, let after, Evaluator.matches(after, e, base) != nil {
                afterOpen = true
            } else if afterOpen, !beforeClosed {
                if let before, Evaluator.matches(before, e, base) != nil {
                    beforeClosed = true
                } else if let term = Evaluator.matches(selector, e, base) {
                    report(e, anchorContext(e, term: term, base: base), context: context, sink: sink)
                }
            }
        case .count(let selector, _, let maximum):
            if let term = Evaluator.matches(selector, e, base) {
                matched += 1
                if let maximum, matched > maximum {
                    report(e, anchorContext(e, term: term, base: base), context: context, sink: sink)
                }
            }
        }
        if compiled.usesHistory, compiled.historyNames?.contains(e.ev) ?? true {
            retained.append(e)
        }
    }

    /// The end of the timeline (its source's last event): obligations still open are judged.
    /// - Parameter first: the timeline's first event, where a timeline-wide finding points.
    func finish(context: ContextScope, first: Event?, sink: FindingSink) {
        if case .count(_, let minimum?, _) = rule.check, matched < minimum {
            let anchor = first ?? firstEvent
            let ctx = anchor.map { EvalContext(event: $0, params: compiled.params, history: self, files: files) }
            let note = "\(matched) matching event(s), at least \(minimum) required"
            let finding = Finding(
                file: anchor?.file, line: anchor?.line, t: anchor.flatMap { $0.t.isNaN ? nil : $0.t }, source: context.context.source, gen: anchor?.gen,
                message: ctx.map { message(for: $0, note: note) } ?? "\(rule.title): \(note)",
                context: anchor.map { [TimelineContext.render($0, anchor: true)] } ?? [])
            sink.violations[compiled.index, default: []].append(finding)
        }
    }

    private func anchorContext(_ e: Event, term: Selector.Term, base: EvalContext) -> EvalContext {
        var ctx = base
        if let name = term.capture { ctx.captures[name] = e }
        for (name, expr) in rule.lets { ctx.lets[name] = Evaluator.evaluate(expr, ctx) }
        return ctx
    }

    private func report(
        _ e: Event, _ ctx: EvalContext, context: ContextScope, sink: FindingSink,
        inconclusive: Bool = false, note: String? = nil
    ) {
        let finding = Finding(
            file: e.file, line: e.line, t: e.t.isNaN ? nil : e.t, source: context.context.source, gen: e.gen,
            message: message(for: ctx, note: note), context: context.context.lines(anchor: e, scope: context))
        if inconclusive {
            sink.inconclusive[compiled.index, default: []].append(finding)
            context.context.awaitAfter(violation: false, rule: compiled.index, index: sink.inconclusive[compiled.index]!.count - 1, scope: context)
        } else {
            sink.violations[compiled.index, default: []].append(finding)
            context.context.awaitAfter(violation: true, rule: compiled.index, index: sink.violations[compiled.index]!.count - 1, scope: context)
        }
    }

    /// The rule's `message:` with its holes filled in (the title when it has none).
    private func message(for ctx: EvalContext, note: String?) -> String {
        var text: String
        if let template = rule.message {
            text = ""
            for part in template.parts {
                switch part {
                case .text(let s): text += s
                case .expr(let x):
                    switch Evaluator.evaluate(x, ctx) {
                    case .value(let v): text += v.rendered()
                    case .event(let ev): text += "\(ev.ev) at line \(ev.line)"
                    case .undecided: text += "?"
                    }
                }
            }
        } else {
            text = rule.title
        }
        if let note { text += " (\(note))" }
        return text
    }

    // MARK: - HistoryProvider

    func candidates(for call: HistoryCall, context: EvalContext) -> HistoryCandidates {
        var events = retained[...]
        switch call.since {
        case nil: break
        case .capture(let name)?:
            if let captured = context.captures[name] {
                if let cut = events.lastIndex(where: { $0.seq <= captured.seq }) { events = events[(cut + 1)...] }
            } else {
                events = retained[retained.endIndex...]
            }
        case .selector(let s)?:
            if let cut = events.lastIndex(where: { Evaluator.matches(s, $0, context.looking(at: $0)) != nil }) {
                events = events[(cut + 1)...]
            }
        }
        return HistoryCandidates(events: events)
    }
}

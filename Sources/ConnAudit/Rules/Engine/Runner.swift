/// Runs one rule over one timeline, event by event.
///
/// The base class holds what every check kind shares: the rule's history (the events its history
/// functions may look back at, and nothing else), how a finding is reported, and how its message is
/// written. Each check kind is a subclass (every/never/count, sequences and obligations, classify).
class Runner: HistoryProvider {
    let compiled: CompiledRule
    let files: [String]
    /// Events the history functions may read, oldest first (only those their selectors can match).
    private(set) var retained: [Event] = []
    /// The source's clock, for deadlines; nil on the corpus timeline.
    weak var clock: SourceClock?

    init(_ compiled: CompiledRule, files: [String]) {
        self.compiled = compiled
        self.files = files
    }

    var rule: Rule { compiled.rule }

    /// Handles `e` (the subclass's work), then remembers it for history functions.
    final func observe(_ e: Event, context: ContextScope, sink: FindingSink) {
        handle(e, context: context, sink: sink)
        if compiled.usesHistory, compiled.historyNames?.contains(e.ev) ?? true {
            retained.append(e)
        }
    }

    /// What the check does with one event of its timeline. Subclasses override.
    func handle(_ e: Event, context: ContextScope, sink: FindingSink) {}

    /// The source's clock passed `now`: obligations whose deadline is before it are decided.
    func expire(now: Double, context: ContextScope, sink: FindingSink) {}

    /// The end of the timeline (its source's last event, at `lastT`): open obligations are judged.
    /// - Parameter first: the timeline's first event, where a timeline-wide finding points.
    func finish(context: ContextScope, first: Event?, lastT: Double?, sink: FindingSink) {}

    // MARK: - Contexts

    /// A context looking at `e` with `captures`, and the rule's lets bound lazily to it.
    func context(_ e: Event, captures: [String: Event] = [:]) -> EvalContext {
        var ctx = EvalContext(event: e, params: compiled.params, history: self, files: files)
        ctx.captures = captures
        if !rule.lets.isEmpty {
            let scope = LetScope(rule.lets)
            ctx.letScope = scope
            scope.context = ctx
        }
        return ctx
    }

    // MARK: - Findings

    enum Kind { case violation, inconclusive }

    /// Records a finding at `anchor`; `ctx` fills the message's holes.
    func report(
        _ kind: Kind, at anchor: Event?, _ ctx: EvalContext?, context: ContextScope, sink: FindingSink,
        note: String? = nil, waitForAfter: Bool = true
    ) {
        let shown = context.context.lines(anchor: anchor, scope: context)
        let finding = Finding(
            file: anchor?.file, line: anchor?.line, t: anchor.flatMap { $0.t.isNaN ? nil : $0.t },
            source: context.context.source, gen: anchor?.gen,
            message: message(for: ctx, note: note), context: shown.lines)
        let index = compiled.index
        // Events after the anchor that have not arrived yet are added as they come.
        let missing = waitForAfter && anchor != nil ? TimelineContext.after - shown.after : 0
        switch kind {
        case .violation:
            sink.violations[index, default: []].append(finding)
            context.context.awaitAfter(violation: true, rule: index, index: sink.violations[index]!.count - 1, scope: context, count: missing)
        case .inconclusive:
            sink.inconclusive[index, default: []].append(finding)
            context.context.awaitAfter(violation: false, rule: index, index: sink.inconclusive[index]!.count - 1, scope: context, count: missing)
        }
    }

    /// The rule's `message:` with its holes filled in (the title when it has none).
    func message(for ctx: EvalContext?, note: String?) -> String {
        var text: String
        if let template = rule.message, let ctx {
            text = ""
            for part in template.parts {
                switch part {
                case .text(let s): text += s
                case .expr(let x):
                    switch Evaluator.evaluate(x, ctx) {
                    case .value(let v): text += v.rendered()
                    case .event(let ev): text += "\(ev.ev) at \(Int(ev.file) < files.count ? files[Int(ev.file)] : "?"):\(ev.line)"
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

/// The deadlines of one source: obligations are decided as soon as an event of the source has a
/// later `t` (rules.md: the clock is the source's, whatever the timeline).
final class SourceClock {
    private var heap: [(deadline: Double, runner: Runner, scope: ContextScope)] = []

    func schedule(_ deadline: Double, runner: Runner, scope: ContextScope) {
        heap.append((deadline, runner, scope))
        var i = heap.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            if heap[parent].deadline <= heap[i].deadline { break }
            heap.swapAt(parent, i)
            i = parent
        }
    }

    /// Tells every runner with a deadline before `now` to decide; each runner checks its own.
    func advance(to now: Double, sink: FindingSink) {
        var due: [(Runner, ContextScope)] = []
        while let top = heap.first, top.deadline < now {
            due.append((top.runner, top.scope))
            let last = heap.removeLast()
            if !heap.isEmpty {
                heap[0] = last
                var i = 0
                while true {
                    let l = 2 * i + 1, r = l + 1
                    var m = i
                    if l < heap.count, heap[l].deadline < heap[m].deadline { m = l }
                    if r < heap.count, heap[r].deadline < heap[m].deadline { m = r }
                    if m == i { break }
                    heap.swapAt(i, m)
                    i = m
                }
            }
        }
        var seen = Set<ObjectIdentifier>()
        for (runner, scope) in due where seen.insert(ObjectIdentifier(runner)).inserted {
            runner.expire(now: now, context: scope, sink: sink)
        }
    }
}

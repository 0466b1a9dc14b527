#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The events a runner was given, kept to check its history answers against a plain scan.
///
/// A history call is answered by the cheapest road the engine has for it: a running aggregate, a
/// counted index, a hash index, a `$seq` bound, or the list of the events its selector names. Each
/// road must give what the plain scan gives: every event the runner was given before the one being
/// processed, after the call's `since` cut, tried one by one with the call's selector. When the
/// check is on, every answer is compared with the scan's, and a difference stops the run with
/// both answers and the rule: an index that answers wrongly cannot pass the test suite unseen.
///
/// It is on in debug builds, which the test suite runs, and off in release builds; the
/// environment variable `CONN_AUDIT_CROSS_CHECK` set to `1` or `0` turns it on or off in either. It
/// gives up on a timeline past ``limit`` events, so a long test log stays linear, and on a runner
/// set back from a retired timeline's state, which stands for events it was not given.
final class HistoryCrossCheck {
    static let enabled = enabled(
        environment: getenv("CONN_AUDIT_CROSS_CHECK").map { String(cString: $0) },
        debugBuild: isDebugBuild)

    /// On when `CONN_AUDIT_CROSS_CHECK` is `1`, off when it is set to anything else, and
    /// otherwise on in a debug build only.
    static func enabled(environment: String?, debugBuild: Bool) -> Bool {
        environment.map { $0 == "1" } ?? debugBuild
    }

    #if DEBUG
        static let isDebugBuild = true
    #else
        static let isDebugBuild = false
    #endif

    /// Whether runners made on this task check their answers, when ``enabled``: a test of what
    /// a runner keeps turns it off around itself (the check keeps every event).
    @TaskLocal static var isOn = true

    /// The events kept at most: the scan of each call is linear in them, so a timeline costs at
    /// most `limit` scans of `limit` events per call site.
    static let limit = 300

    /// The events given, oldest first, while ``isComplete``.
    private(set) var events: [Event] = []
    /// False once the events kept are not all the runner was given.
    private(set) var isComplete = true
    /// Set while a scan runs: the calls it makes are not checked again.
    var scanning = false
    /// Answers compared so far.
    var compared = 0

    func add(_ e: Event) {
        guard isComplete else { return }
        guard events.count < Self.limit else { return giveUp() }
        events.append(e)
    }

    func giveUp() {
        isComplete = false
        events = []
    }

    /// As a new runner's check is (``Runner/setBack()``).
    func setBack() {
        events = []
        isComplete = true
        scanning = false
        compared = 0
    }
}

extension Runner {
    /// Compares `answer`, read from a running aggregate for a let that is that aggregate's call
    /// (``LetTable/direct``), with the scan's answer to the let's call (`expr`) in `ctx` looking
    /// at `e`: the check the evaluator's answer to the call would have had.
    func crossCheckDirect(_ expr: Expr, _ answer: Eval, _ ctx: EvalContext, _ e: Event) {
        guard let check = crossCheck, case .history(let call) = expr else { return }
        crossCheck(call, answer, ctx.isLooking(at: e) ? ctx : ctx.looking(at: e), check)
    }

    /// Compares `answer`, the engine's answer to `call` in `ctx`, with the plain scan's, and
    /// stops the run when they differ. Look-aheads (`next`) are not compared: their answers wait
    /// for events still to come. Nor is an answer given after the work or regex limit stopped the
    /// runner: it is cut short on purpose.
    func crossCheck(
        _ call: HistoryCall, _ answer: Eval, _ ctx: EvalContext, _ check: HistoryCrossCheck
    ) {
        guard check.isComplete, !check.scanning, call.kind != .next, !stopped else { return }
        if usesRegex, regexBudget?.isExhausted == true { return }
        check.scanning = true
        defer { check.scanning = false }
        let scanned = uncharged { scan(call, ctx, check.events) }
        check.compared += 1
        guard !Self.same(answer, scanned, existence: call.existence) else { return }
        let event = judging ?? ctx.event
        fatalError(
            "history cross-check: rule \(rule.id), \(call.kind.rawValue)(…) at offset \(call.at) "
                + "of its expression, evaluated at line \(event.line) (seq \(event.seq)): the "
                + "engine answered \(Self.describe(answer)), a scan of the timeline "
                + "\(Self.describe(scanned))")
    }

    /// The scan's answer: the events before the one processed, after the `since` cut, tried in
    /// a context whose bindings and lets are copies, so that nothing it binds is seen outside.
    private func scan(_ call: HistoryCall, _ ctx: EvalContext, _ all: [Event]) -> Eval {
        var own = ctx
        own.historyResults = ctx.historyResults?.copy()
        own.letScope = ctx.letScope?.copy(results: own.historyResults)
        let before = judging?.seq ?? Int.max
        var cut = Int.min
        switch call.since {
        case nil: break
        case .capture(let name)?:
            guard let captured = own.captures[name] else {
                return Evaluator.search(call, own, HistoryCandidates(events: []), provider: Free())
            }
            cut = captured.seq
        case .selector(let s)?:
            for e in all.reversed() where e.seq < before {
                if Evaluator.matches(s, e, own.looking(at: e)) != nil {
                    cut = e.seq
                    break
                }
            }
        }
        let events = all.filter { $0.seq > cut && $0.seq < before }
        return Evaluator.search(call, own, HistoryCandidates(events: events[...]), provider: Free())
    }

    /// Whether two answers are the same: the same event, equal values, or both undecided; for an
    /// existence test, only whether there is a match.
    private static func same(_ a: Eval, _ b: Eval, existence: Bool) -> Bool {
        switch (a, b) {
        case (.undecided, .undecided): return true
        case (.undecided, _), (_, .undecided): return false
        default: break
        }
        if existence { return found(a) == found(b) }
        switch (a, b) {
        case (.event(let x), .event(let y)): return x === y
        case (.value(let x), .value(let y)): return x == y
        default: return false
        }
    }

    private static func found(_ a: Eval) -> Bool {
        switch a {
        case .event: return true
        case .value(let v): return v != .null && v != .bool(false)
        case .undecided: return false
        }
    }

    /// An answer as the failure says it: an event by its place, a value by its type and, for a
    /// number, the number (nothing of a log's text).
    private static func describe(_ a: Eval) -> String {
        switch a {
        case .undecided: return "undecided"
        case .event(let e): return "the event at line \(e.line) (seq \(e.seq))"
        case .value(.int(let i)): return "\(i)"
        case .value(.double(let d)): return "\(d)"
        case .value(.bool(let b)): return "\(b)"
        case .value(.null): return "null"
        case .value(let v): return "a value of type \(v.typeName)"
        }
    }

    /// What the scan is answered with: it spends nothing (the runner's work is set back anyway)
    /// and asks for no candidates of its own.
    private struct Free: HistoryProvider {
        func candidates(for call: HistoryCall, context: EvalContext) -> HistoryCandidates {
            HistoryCandidates(events: [])
        }
    }
}

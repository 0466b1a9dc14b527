/// A term's `where:` that is a conjunction of counted history calls, each keyed by the text of
/// one field of the term's own candidate and compared with a constant, decided from the counted
/// indexes with no capture bound.
///
/// `count({ev: sse.event, where: 'text(id) == text(e.id)'}) == 0 and count({…}) == 0`, where
/// `e` is the term's `as:`, has this shape (sse.no-lost-events' first step). The general way
/// binds `e` to the candidate in a copy of the context, and each call reads `text(e.id)` from
/// that binding and looks its number up (``CountedCall/count(_:)``). Here the field's words are
/// read once where the candidate holds them, and each call's index is asked for the count under
/// that key's number, as ``CountedCall`` asks it: the calls' `where:` is that one equality, so
/// they have no `$seq` bounds. Each count is compared as ``CompiledExpression`` compares a
/// counted call with its constant (`count(S) op k`; an existence test, `first(S) == null`,
/// as `count(S) == 0`), and the parts are combined as `and` combines booleans, left to right.
///
/// It answers only where the general way would take the counted indexes' answers: an engine
/// context binding nothing of its own, a runner that answers every call from a counted index,
/// and a field that is a short ASCII text (or one with no number). Elsewhere it gives nil
/// before anything is decided, and the general way answers: the reads here change nothing.
/// Where the runner cross-checks its history answers (``HistoryCrossCheck``), the general way
/// answers, and this form's answer is checked against it: a difference stops the run, as a
/// history answer unlike the scan's does.
///
/// Calls whose `where:` is the one equality `FIELD == capture.F` (`gen == g.gen`, the first
/// steps that take a ws generation's first event) are searched, the general way, in their
/// runner's ``KeyedIndex`` under the value of the candidate's `F`: the key it looks up with
/// `capture` bound. When the index has no event under that key, the search finds none, spends
/// no work and binds nothing, so each such call counts 0 (an existence test finds null), read
/// here with no capture bound. A key that has events is left to the general way.
/// Tests: `InPlaceWhereGivesTheGeneralAnswerTests`.
final class CountedWhere: Sendable {
    /// One call compared with a constant: `count op k`.
    private struct Part {
        let slot: Int
        let op: Expr.BinaryOp
        let k: Int64
    }

    private let parts: [Part]
    /// The candidate's field whose text (or, when ``keyed``, value) every call looks up.
    private let field: String
    private let fieldID: Int32
    /// Whether every call is searched in a ``KeyedIndex`` (else every one is counted).
    private let keyed: Bool

    /// The counted form of `expr`, the `where:` of a term that captures its candidate as
    /// `capture`; nil when it has another shape.
    init?(_ expr: Expr, capture: String) {
        var parts: [Part] = []
        var key: (String, Int32, Bool)?
        func part(_ op: Expr.BinaryOp, _ call: HistoryCall, _ v: Value) -> Bool {
            guard let (asked, k) = Self.comparison(op, call, v),
                let read = Self.keyField(call, capture) ?? Self.equalField(call, capture)
            else { return false }
            if let key, key != read { return false }
            key = read
            parts.append(Part(slot: call.slot, op: asked, k: k))
            return true
        }
        func add(_ x: Expr) -> Bool {
            switch x {
            case .binary(.and, let l, let r, _): add(l) && add(r)
            case .binary(let op, .history(let call), .literal(let v), _): part(op, call, v)
            // `k op call` is `call op' k`.
            case .binary(let op, .literal(let v), .history(let call), _):
                part(op.mirrored, call, v)
            default: false
            }
        }
        guard add(expr), let key else { return nil }
        self.parts = parts
        (field, fieldID, keyed) = key
    }

    /// `call op v` as `count op' k`: a count compared with an integer, or an existence test
    /// compared with null; nil for any other comparison.
    private static func comparison(_ op: Expr.BinaryOp, _ call: HistoryCall, _ v: Value)
        -> (Expr.BinaryOp, Int64)?
    {
        guard op.isComparison else { return nil }
        switch v {
        case .int(let k) where call.kind == .count: return (op, k)
        case .null where call.existence && call.resultCaptures.isEmpty:
            switch op {
            case .equal: return (.equal, 0)
            case .notEqual: return (.greater, 0)
            default: return nil
            }
        default: return nil
        }
    }

    /// The field of `capture` whose text `call` counts by: its selector is one term, with no
    /// `not:` and no capture of that name, whose `where:` is `text(FIELD) == text(capture.F)`
    /// (either way round), `F` a field of the event alone.
    private static func keyField(_ call: HistoryCall, _ capture: String) -> (String, Int32, Bool)? {
        guard call.since == nil, call.selector.terms.count == 1 else { return nil }
        let term = call.selector.terms[0]
        guard term.negated == nil, term.capture != capture,
            case .binary(.equal, let a, let b, _)? = term.whereExpr
        else { return nil }
        func candidateText(_ x: Expr) -> Bool {
            guard case .call(.text, let args, _) = x, args.count == 1, case .field = args[0]
            else { return false }
            return true
        }
        func captureText(_ x: Expr) -> (String, Int32)? {
            guard case .call(.text, let args, _) = x, args.count == 1,
                case .member(.name(let name, _, let hint), let field, let id, _) = args[0],
                name == capture, hint.layout >= 0, hint.slot < 0, id >= 0
            else { return nil }
            return (field, id)
        }
        if candidateText(a), let read = captureText(b) { return (read.0, read.1, false) }
        if candidateText(b), let read = captureText(a) { return (read.0, read.1, false) }
        return nil
    }

    /// The field of `capture` whose value `call` is searched by, keyed: its selector is one term,
    /// with no `not:` and no capture of that name, whose `where:` is `FIELD == capture.F` (either
    /// way round); the call is no `next` and binds no result. A runner's plan keys such a call by
    /// `capture.F` where it keys it (``KeyedIndex/split(_:outer:)``: a field is never the outer
    /// side), and `capture` is bound wherever the general way asks it.
    private static func equalField(_ call: HistoryCall, _ capture: String) -> (String, Int32, Bool)?
    {
        guard call.since == nil, call.kind != .next, call.resultCaptures.isEmpty,
            call.selector.terms.count == 1
        else { return nil }
        let term = call.selector.terms[0]
        guard term.negated == nil, term.capture != capture,
            case .binary(.equal, let a, let b, _)? = term.whereExpr
        else { return nil }
        func captureField(_ x: Expr) -> (String, Int32, Bool)? {
            guard case .member(.name(let name, _, let hint), let field, let id, _) = x,
                name == capture, hint.layout >= 0, hint.slot < 0
            else { return nil }
            return (field, id, true)
        }
        if case .field = a, let read = captureField(b) { return read }
        if case .field = b, let read = captureField(a) { return read }
        return nil
    }

    /// The truth of the `where:` for `candidate` in `ctx`, the context it is tried in; nil
    /// where the counted indexes do not answer it so, or the runner cross-checks its answers
    /// (then the general way does).
    @inline(__always) func holds(_ candidate: Event, _ ctx: EvalContext) -> Bool? {
        guard ctx.hasNoLocals, let runner = ctx.runnerRef else { return nil }
        return runner._withUnsafeGuaranteedRef { runner in
            runner.crossCheck == nil ? answer(candidate, ctx, runner) : nil
        }
    }

    /// Where the runner cross-checks its history answers (``HistoryCrossCheck``), compares
    /// `general`, the general way's truth of the `where:` for `candidate` in `ctx`, with this
    /// form's, and stops the run when they differ. Not while the runner is stopped: its answers
    /// are cut short on purpose. Gives the form's truth it compared, if any.
    @discardableResult
    func check(_ general: Bool, _ candidate: Event, _ ctx: EvalContext) -> Bool? {
        guard ctx.hasNoLocals, let runner = ctx.runnerRef else { return nil }
        return runner._withUnsafeGuaranteedRef { runner in
            guard runner.crossCheck != nil, !runner.stopped,
                let truth = answer(candidate, ctx, runner)
            else { return nil }
            guard truth == general else {
                fatalError(
                    "counted where cross-check: rule \(runner.rule.id), evaluated at line "
                        + "\(candidate.line) (seq \(candidate.seq)): the in-place form "
                        + "answered \(truth), the general way \(general)")
            }
            return truth
        }
    }

    /// The form's truth for `candidate` in `ctx`, read from `runner`'s indexes; nil where they
    /// do not answer it so.
    @inline(__always) private func answer(
        _ candidate: Event, _ ctx: EvalContext, _ runner: Runner
    ) -> Bool? {
        if keyed {
            return holds(keyedBy: Evaluator.field(field, id: fieldID, of: candidate, ctx), runner)
        }
        guard let words = candidate.stringWords(field, id: fieldID) else { return nil }
        return holds(words, runner, ctx)
    }

    /// ``holds(_:_:)`` of calls searched in keyed indexes, by the value `key`: nil unless each
    /// call's index is made and has no event under it, up to the first part that is false.
    private func holds(keyedBy key: Value, _ runner: Runner) -> Bool? {
        parts.withUnsafeBufferPointer { parts in
            for part in parts {
                let plan = runner.historyPlans[part.slot]
                guard plan.pointee.aggregate < 0, !plan.pointee.counted, plan.pointee.list >= 0,
                    plan.pointee.keyed != nil, let index = runner.indexes[part.slot],
                    index.candidates(for: key).isEmpty
                else { return nil }
                if !CompiledExpression.compare(0, part.op, part.k) { return false }
            }
            return true
        }
    }

    private func holds(_ words: (UInt64, UInt64), _ runner: Runner, _ ctx: EvalContext) -> Bool? {
        parts.withUnsafeBufferPointer { parts in
            for part in parts {
                let plan = runner.historyPlans[part.slot]
                guard plan.pointee.aggregate < 0, plan.pointee.counted,
                    let call = runner.counted[part.slot],
                    let n = call._withUnsafeGuaranteedRef({ Self.count($0, words, ctx) })
                else { return nil }
                if !CompiledExpression.compare(Int64(n), part.op, part.k) { return false }
            }
            return true
        }
    }

    /// What `call` counts under the key whose words are `words`; nil when they are no short
    /// ASCII text held in place.
    @inline(__always) private static func count(
        _ call: CountedCall, _ words: (UInt64, UInt64), _ ctx: EvalContext
    ) -> Int? {
        let index = call.index
        guard let found = index.keys.number(ofWords: words) else { return nil }
        guard let number = found else { return 0 }
        return index.count(number: number, bounds: [], context: ctx)
    }
}

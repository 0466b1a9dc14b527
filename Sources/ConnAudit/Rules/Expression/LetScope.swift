#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A rule's `let:` bindings, worked out once per rule: one slot per name (the last definition
/// of a name wins: a rule's let over the file's).
public final class LetTable: @unchecked Sendable {
    let names: [String]
    let exprs: [Expr]
    /// ``exprs`` compiled (``CompiledExpression``), as they are evaluated.
    let runs: [CompiledExpression]
    /// Slots whose value depends only on running aggregates and params (see ``StaticLetCache``).
    let isStatic: [Bool]
    /// For static slots: the running aggregates (by position) the value depends on.
    let dependsOn: [[Int]]
    /// Per running aggregate (by position): the static slots whose value depends on it, the
    /// inverse of ``dependsOn``, as a mask of ``StaticLetCache/bit(_:)``s. A change of the
    /// aggregate marks these stale.
    let dependents: [UInt64]
    /// Per slot: the running aggregate a let reads when it is that one static history call and
    /// nothing else (`prev: "last({ev: ws.ping})"`); nil for any other let. Such a let is read
    /// from the aggregate itself, never evaluated or cached (``StaticLets``).
    let direct: [DirectAggregate?]
    /// A ``StaticLetCache``'s values and a ``StaticLets``' marks as they start, made once: each
    /// runner's shares them until it first writes one.
    fileprivate let undecided: [StaticLetCache.Kept]
    fileprivate let notEvaluating: [Bool]

    /// Per slot, for a let that is a running aggregate's `first` or `last` (``direct``): the
    /// aggregate's position times two, plus one for `last`; -1 for any other let. One load
    /// where ``StaticLets/withAggregateEvent(slot:_:)`` reads it, for ``direct``'s optional pair.
    let inPlaceEvents: UnsafeMutablePointer<Int32>
    /// The ``StaticLetCache/bit(_:)``s of the lets that are no running aggregate's answer
    /// (``direct`` nil): those the cache keeps. A let past the first 64 has none.
    let cachedBits: UInt64

    struct DirectAggregate {
        let aggregate: Int
        let kind: HistoryCall.Kind
    }
    /// The ``LetLayouts`` id of `names`: names resolved against it carry their slot.
    let layout: Int32

    init(
        _ definitions: [(name: String, expr: Expr)], staticNames: Set<String> = [],
        dependsOn: [String: Set<Int>] = [:]
    ) {
        var names: [String] = []
        var exprs: [Expr] = []
        for def in definitions {
            if let i = names.firstIndex(of: def.name) {
                exprs[i] = def.expr
            } else {
                names.append(def.name)
                exprs.append(def.expr)
            }
        }
        self.names = names
        self.exprs = exprs
        runs = exprs.map(CompiledExpression.init)
        let statics = names.map { staticNames.contains($0) }
        isStatic = statics
        let deps = names.map { (dependsOn[$0] ?? []).sorted() }
        self.dependsOn = deps
        var dependents = Array(repeating: UInt64(0), count: (deps.joined().max() ?? -1) + 1)
        for (slot, aggregates) in deps.enumerated() where statics[slot] {
            for a in aggregates { dependents[a] |= StaticLetCache.bit(slot) }
        }
        self.dependents = dependents
        direct = names.indices.map { slot in
            // A static let's call is a running aggregate's (``CompiledRule/staticCalls``): its
            // one dependency. One that binds a result, or asks only whether there is a match,
            // answers otherwise.
            guard statics[slot], deps[slot].count == 1, case .history(let call) = exprs[slot],
                call.resultCaptures.isEmpty, !call.existence, call.kind != .next
            else { return nil }
            return DirectAggregate(aggregate: deps[slot][0], kind: call.kind)
        }
        inPlaceEvents = .allocate(capacity: max(1, names.count))
        for (slot, d) in direct.enumerated() {
            let code: Int32 =
                if let d, d.kind == .first || d.kind == .last {
                    Int32(d.aggregate) * 2 + (d.kind == .last ? 1 : 0)
                } else {
                    -1
                }
            inPlaceEvents[slot] = code
        }
        var cached: UInt64 = 0
        for (slot, d) in direct.enumerated() where d == nil { cached |= StaticLetCache.bit(slot) }
        cachedBits = cached
        layout = LetLayouts.id(names)
        let kept = StaticLetCache.Kept(value: .undecided, scalar: .undecided)
        undecided = Array(repeating: kept, count: names.count)
        notEvaluating = Array(repeating: false, count: names.count)
    }

    deinit { inPlaceEvents.deallocate() }

    /// The order ``init`` keeps the names of `definitions` in (a name's first place).
    static func names(of definitions: [(name: String, expr: Expr)]) -> [String] {
        var names: [String] = []
        for def in definitions where !names.contains(def.name) { names.append(def.name) }
        return names
    }

    /// The slot of `name`, from its resolved `hint` when that was made for this layout.
    @inline(__always) func slot(of name: String, hint: LetSlot) -> Int? {
        if hint.layout >= 0, hint.layout == layout { return hint.slot >= 0 ? Int(hint.slot) : nil }
        return slot(of: name)
    }

    /// The slot of `name`; a linear scan (a rule has a handful of lets, compared as small strings).
    @inline(__always) func slot(of name: String) -> Int? {
        for i in names.indices where names[i] == name { return i }
        return nil
    }
}

/// A rule's `let:` bindings for one evaluation: each is evaluated once, on first use, in the
/// context it was created with (the trigger's), whatever nested selector first reads it.
public final class LetScope {
    let table: LetTable
    private enum State { case unset, evaluating, done(Eval) }
    /// A binding's state, and its value as a ``Scalar`` once evaluated (``Scalar/other`` before):
    /// a scalar run reads the let in place (``scalar(slot:)``), without copying its value out.
    /// One array for both: a scope is made per evaluation of a rule with lets that are not static.
    private struct Slot {
        var state: State
        var scalar: Scalar

        mutating func set(_ v: Eval) {
            state = .done(v)
            scalar = Scalar(v)
        }
    }
    private var slots: [Slot]
    /// The trigger's context, kept without its `letScope` (which is this scope) so the two do
    /// not hold each other alive; a binding is evaluated in a copy that points back here. It
    /// keeps its event: a scope may outlive the evaluation that made it (a runner's frozen lets).
    var context: EvalContext? {
        didSet {
            if context?.letScope != nil { context?.letScope = nil }
            context?.keepEvent()
        }
    }

    init(table: LetTable) {
        self.table = table
        slots = Array(repeating: Slot(state: .unset, scalar: .other), count: table.names.count)
    }

    convenience init(_ definitions: [(name: String, expr: Expr)]) {
        self.init(table: LetTable(definitions))
    }

    /// A separate scope with the bindings evaluated so far, whose later evaluations bind history
    /// results in `results` (for an evaluation that must leave this scope as it is).
    func copy(results: HistoryResults?) -> LetScope {
        let c = LetScope(table: table)
        c.slots = slots
        c.cache = cache
        c.context = context
        c.context?.historyResults = results
        return c
    }

    func defines(_ name: String) -> Bool { table.slot(of: name) != nil }

    var names: [String] { table.names }

    /// Bindings that depend only on running aggregates and params, shared across evaluations
    /// of one runner until an aggregate changes.
    var cache: StaticLetCache?

    func value(of name: String, hint: LetSlot = .unresolved) -> Eval? {
        guard let slot = table.slot(of: name, hint: hint) else { return nil }
        return value(slot: slot)
    }

    func value(slot: Int) -> Eval? {
        switch slots[slot].state {
        case .done(let v): return v
        // A binding that reads itself (directly or through others) is undecided, not a loop.
        case .evaluating: return .undecided
        case .unset: break
        }
        if let cache, table.isStatic[slot] {
            if let hit = cache.lookup(slot) {
                slots[slot].set(hit)
                return hit
            }
            let v = evaluate(slot)
            cache.store(slot, v)
            return v
        }
        return evaluate(slot)
    }

    /// The value of the binding at `slot` as a ``Scalar``: read in place once it is evaluated,
    /// else as ``value(slot:)`` gives it (evaluated now).
    @inline(__always) func scalar(slot: Int) -> Scalar {
        let s = slots[slot].scalar
        return s.isOther ? evaluatedScalar(slot: slot) : s
    }

    @inline(never) private func evaluatedScalar(slot: Int) -> Scalar {
        value(slot: slot).map(Scalar.init) ?? .other
    }

    private func evaluate(_ slot: Int) -> Eval {
        guard var context else { return .undecided }
        context.letScope = self
        slots[slot].state = .evaluating
        let v = table.runs[slot](context)
        slots[slot].set(v)
        return v
    }

    /// Evaluates every binding now (an obligation keeps the values of its trigger).
    func evaluateAll() {
        for slot in slots.indices { _ = value(slot: slot) }
    }
}

/// A rule's lets when every one is static: their values depend on the runner's running
/// aggregates and params only, never on the event or captures, so they are evaluated in whatever
/// context first reads them and kept until an aggregate they depend on changes. A let that is
/// one running aggregate's answer (``LetTable/direct``) is read from the aggregate at each read.
/// It is its own cache: a runner makes one object for both.
final class StaticLets: StaticLetCache {
    let table: LetTable
    @inline(__always) var cache: StaticLetCache { self }
    private var evaluating: [Bool]
    /// The runner whose aggregates the direct lets read, not counted: it owns this object.
    var runner: Unmanaged<Runner>? {
        didSet {
            inPlace =
                runner?._withUnsafeGuaranteedRef { $0.crossCheck == nil } == true ? runner : nil
        }
    }
    /// ``runner`` where it reads its aggregates' events in place (``withAggregateEvent(slot:_:)``):
    /// nil while it cross-checks its answers.
    private(set) var inPlace: Unmanaged<Runner>?

    override init(table: LetTable) {
        self.table = table
        evaluating = table.notEvaluating
        super.init(table: table)
    }

    func value(of name: String, hint: LetSlot, _ ctx: EvalContext, _ e: Event) -> Eval? {
        guard let slot = table.slot(of: name, hint: hint) else { return nil }
        return value(slot: slot, ctx, e)
    }

    /// The value of the let at `slot`, read in `ctx` looking at `e` when it must be evaluated.
    func value(slot: Int, _ ctx: EvalContext, _ e: Event) -> Eval {
        if let direct = table.direct[slot], let runner {
            return runner._withUnsafeGuaranteedRef { runner in
                let answer = runner.aggregateAnswer(direct.aggregate, direct.kind)
                if runner.crossCheck != nil {
                    runner.crossCheckDirect(table.exprs[slot], answer, ctx, e)
                }
                return answer
            }
        }
        if let hit = cache.lookup(slot) { return hit }
        // A binding that reads itself (directly or through others) is undecided, not a loop.
        if evaluating[slot] { return .undecided }
        evaluating[slot] = true
        let v = table.runs[slot].run(ctx, e)
        evaluating[slot] = false
        cache.store(slot, v)
        return v
    }

    /// The value of the let at `slot` as a ``Scalar``, where reading it again gives the same
    /// (``isKept(slot:)``): from the cache when it is fresh, else evaluated and kept. ``Scalar/other``
    /// for a let that is never kept, which is left to the general evaluation.
    @inline(__always) func scalar(slot: Int, _ ctx: EvalContext, _ e: Event) -> Scalar {
        if table.cachedBits & StaticLetCache.bit(slot) != 0, let hit = cache.scalarLookup(slot) {
            return hit
        }
        return evaluatedScalar(slot: slot, ctx, e)
    }

    /// The let at `slot` as a ``Scalar`` when the cache holds it fresh: what
    /// ``scalar(slot:_:_:)`` then gives. Nil otherwise, and for a running aggregate's answer.
    @inline(__always) func cachedScalar(slot: Int) -> Scalar? {
        table.cachedBits & StaticLetCache.bit(slot) != 0 ? cache.scalarLookup(slot) : nil
    }

    /// ``scalar(slot:_:_:)`` of a let that is not fresh in the cache, out of line: the reads
    /// that inline the cache's answer stay small.
    @inline(never) private func evaluatedScalar(slot: Int, _ ctx: EvalContext, _ e: Event)
        -> Scalar
    {
        guard isKept(slot: slot) else { return .other }
        return Scalar(value(slot: slot, ctx, e))
    }

    /// Whether a read of the let at `slot` gives what the read before it gave without
    /// evaluating it again (``CompiledExpression/keptLet(_:_:_:_:)``): an aggregate's answer,
    /// or a let the cache keeps (one of the first 64).
    @inline(__always) func isKept(slot: Int) -> Bool {
        table.direct[slot] != nil || StaticLetCache.bit(slot) != 0
    }

    /// `let.field` of the let at `slot` as a ``Scalar``, read in place as ``member(slot:_:id:_:)``
    /// reads it; nil where that gives nil.
    @inline(__always) func scalarMember(slot: Int, _ field: String, id: Int32, _ ctx: EvalContext)
        -> Scalar?
    {
        withAggregateEvent(slot: slot) {
            $0.map { Scalar.field(field, id: id, of: $0, ctx) } ?? .null
        }
    }

    /// Whether the let at `slot` is null, read in place (``withAggregateEvent(slot:_:)``):
    /// whether the aggregate holds no event.
    @inline(__always) func isNull(slot: Int) -> Bool? {
        withAggregateEvent(slot: slot) { $0 == nil }
    }

    /// `let.field` of the let at `slot`, read in place (``withAggregateEvent(slot:_:)``): the
    /// field of the event the aggregate holds, or null when it holds none.
    func member(slot: Int, _ field: String, id: Int32, _ ctx: EvalContext) -> Eval? {
        withAggregateEvent(slot: slot) {
            $0.map { .value(Evaluator.field(field, id: id, of: $0, ctx)) } ?? .null
        }
    }

    /// `body` with the event the let at `slot` stands for, read where its runner holds it (nil:
    /// none yet), when the let is a running aggregate's `first` or `last` (``LetTable/direct``):
    /// the event is not counted and released again for one look. Nil for any other let, and
    /// while the runner cross-checks its answers (``value(slot:_:_:)`` checks each read whole).
    /// The let's aggregate and kind are read as one code (``LetTable/inPlaceEvents``), and the
    /// runner where it reads in place (``inPlace``).
    @inline(__always) private func withAggregateEvent<T>(slot: Int, _ body: (Event?) -> T) -> T? {
        guard let inPlace, case let code = table.inPlaceEvents[slot], code >= 0 else { return nil }
        return inPlace._withUnsafeGuaranteedRef {
            $0.withAggregateEvent(Int(code >> 1), first: code & 1 == 0, body)
        }
    }
}

/// Values of `let:` bindings that read only running aggregates and params, each kept until an
/// aggregate it depends on changes its answer.
///
/// Staleness is pushed, not pulled: the runner reports each change of an aggregate
/// (``changed(aggregate:)``), which marks the lets that depend on it (``LetTable/dependents``)
/// stale. Which lets are fresh is one word, a bit per let (``bit(_:)``): a change clears the
/// aggregate's mask, a read tests one bit. Only the first 64 lets of a rule have a bit: a let
/// past them is never kept, and is evaluated at each read (`StaticLetsBeyondSixtyFourTests`).
/// Subclassed by ``StaticLets`` alone; every member is final.
class StaticLetCache {
    private final let dependents: [UInt64]
    /// The fresh lets' bits: ``values`` holds their values for the aggregates as they are.
    private final var fresh: UInt64 = 0
    private final var values: [Kept]
    /// ``values`` as they start: every let undecided, no value held.
    private final let undecided: [Kept]

    /// A let's value, and the same as a ``Scalar`` (read without copying the value out).
    fileprivate struct Kept {
        var value: Eval
        var scalar: Scalar
    }
    /// How many times any aggregate changed (only grows): a scope of lets evaluated at one count
    /// holds their values for as long as the count stays.
    private(set) final var changes = 0

    init(table: LetTable) {
        dependents = table.dependents
        values = table.undecided
        undecided = table.undecided
    }

    /// The bit that says whether let `slot` is fresh; none (0) past the first 64.
    @inline(__always) static func bit(_ slot: Int) -> UInt64 { slot < 64 ? 1 << UInt64(slot) : 0 }

    /// The value of let `slot`, if it is fresh.
    @inline(__always) final func lookup(_ slot: Int) -> Eval? {
        fresh & Self.bit(slot) != 0 ? values[slot].value : nil
    }

    /// ``lookup(_:)`` as a ``Scalar``.
    @inline(__always) final func scalarLookup(_ slot: Int) -> Scalar? {
        fresh & Self.bit(slot) != 0 ? values[slot].scalar : nil
    }

    final func store(_ slot: Int, _ value: Eval) {
        values[slot] = Kept(value: value, scalar: Scalar(value))
        fresh |= Self.bit(slot)
    }

    /// Aggregate `a` changed its answer: the lets that depend on it are stale.
    @inline(__always) final func changed(aggregate a: Int) {
        changes &+= 1
        if a < dependents.count { fresh &= ~dependents[a] }
    }

    /// Every aggregate changed (set back from a retired timeline's state): every let is stale.
    final func changedAll() {
        changes &+= 1
        fresh = 0
    }

    /// Set back with its runner (``Runner/setBack()``): every let stale, and no value kept, so
    /// that a spare runner holds nothing of the generation it judged.
    final func setBack() {
        changedAll()
        values = undecided
    }
}

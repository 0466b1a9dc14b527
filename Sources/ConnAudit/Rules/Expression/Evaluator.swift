#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What an expression evaluates to: a value, an event (a capture or a history result), or
/// *undecided* (ordering, arithmetic or a function on missing data; see docs/rules.md).
public enum Eval: Sendable {
    case value(Value)
    case event(Event)
    case undecided

    static let null = Eval.value(.null)
    static let `true` = Eval.value(.bool(true))
    static let `false` = Eval.value(.bool(false))

    /// Three-valued truth: true, false, or nil (undecided, or not a boolean).
    var truth: Bool? {
        if case .value(.bool(let b)) = self { return b }
        return nil
    }

    var value: Value? {
        if case .value(let v) = self { return v }
        return nil
    }
}

/// Answers the history functions for the event being evaluated.
public protocol HistoryProvider {
    /// Events before the current one (oldest first) that may match `call`, after the `since` cut.
    func candidates(for call: HistoryCall, context: EvalContext) -> HistoryCandidates
    /// The whole answer, when the provider keeps one ready for this call (nil: search candidates).
    func answer(_ call: HistoryCall, context: EvalContext) -> Eval?
    /// A look-ahead found nothing yet, and the timeline has not ended: the answer may still come.
    func lookAheadIncomplete()
    /// Charges the work of comparing `units` past events; false when the provider's work limit
    /// is passed (the call then answers undecided at once).
    func spend(_ units: Int) -> Bool
}

extension HistoryProvider {
    public func answer(_ call: HistoryCall, context: EvalContext) -> Eval? { nil }
    public func lookAheadIncomplete() {}
    public func spend(_ units: Int) -> Bool { true }
}

/// The events a history function searches, in timeline order.
public struct HistoryCandidates {
    public var events: ArraySlice<Event>
    /// True when the search is a look-ahead (`next`) that the timeline has not yet answered.
    public var incomplete: Bool = false
    public init(events: ArraySlice<Event>, incomplete: Bool = false) {
        self.events = events
        self.incomplete = incomplete
    }
}

/// The events that `first/last/next(SEL)` calls named with `as:` found in one evaluation (nil when
/// the call found none). Shared by reference: a name bound on the left of `and` is read on its
/// right, and by the message written when the check fails.
public final class HistoryResults {
    private var names: [String] = []
    private var events: [Event?] = []
    /// Every name the rule's history calls may bind, bound yet or not.
    let declared: [String]

    public init(declared: [String] = []) {
        self.declared = declared
    }

    func bind(_ name: String, _ event: Event?) {
        if let i = names.firstIndex(of: name) {
            events[i] = event
        } else {
            names.append(name)
            events.append(event)
        }
    }

    /// `.some(nil)`: bound to no event (null); nil: not bound (yet).
    func lookup(_ name: String) -> Event?? {
        guard let i = names.firstIndex(of: name) else { return nil }
        return .some(events[i])
    }

    /// A separate table with the same bindings (for an evaluation whose bindings must not be
    /// seen by this one's).
    func copy() -> HistoryResults {
        let c = HistoryResults(declared: declared)
        c.names = names
        c.events = events
        return c
    }
}

/// What stays the same for every evaluation of one rule: its params and the file paths.
/// Shared by reference, so copying a context does not copy them.
public final class EvalEnvironment: @unchecked Sendable {
    public let params: [String: Value]
    public let files: [String]

    public init(params: [String: Value], files: [String]) {
        self.params = params
        self.files = files
    }
}

/// What every context of one evaluator shares: params and files, the rule's lets when they are
/// all static, and what answers history calls. Made once per runner (or per test context), so a
/// context holds one reference for all of them: making, copying and dropping a context costs one
/// retain and one release here instead of one per part (and no existential to copy or destroy).
public final class EvalShared {
    public let environment: EvalEnvironment
    /// The rule's lets when all of them are static (read only running aggregates and params):
    /// answered from the runner's cache, with no per-evaluation scope.
    let statics: StaticLets?
    /// The engine's runner answering history calls. It owns this object and every context that
    /// holds it (contexts live in its evaluations, obligations and pending judgements only), so
    /// the reference is not counted: no cycle, and nothing to retain per context.
    unowned(unsafe) let runner: Runner?
    /// Any other history provider (tests, fuzzing): held strongly.
    let provider: (any HistoryProvider)?
    /// The regex steps left to this context's searches (nil: no limit); a search that runs out is
    /// undecided, and the budget records where.
    public var regexBudget: RegexStepBudget?

    /// For the engine: `runner` must own this object.
    init(environment: EvalEnvironment, statics: StaticLets?, runner: Runner?) {
        self.environment = environment
        self.statics = statics
        self.runner = runner
        provider = nil
    }

    public init(environment: EvalEnvironment, history: (any HistoryProvider)?) {
        self.environment = environment
        statics = nil
        runner = nil
        provider = history
    }
}

/// Everything an expression can read while it is evaluated.
public struct EvalContext {
    /// The current event: the trigger, or the candidate inside a nested selector.
    public var event: Event
    public var captures = Captures()
    /// Results of history calls named with `as:`, bound as they are evaluated (nil: none named).
    public var historyResults: HistoryResults?
    /// Values bound by name directly (tests, and lets already evaluated).
    public var lets: [String: Eval] {
        get { boundLets ?? [:] }
        set { boundLets = newValue.isEmpty ? nil : newValue }
    }
    /// The storage of ``lets``: nil in the contexts the engine makes (nothing to release).
    var boundLets: [String: Eval]?
    /// The rule's `let:` bindings, evaluated on first use in the context of the event that
    /// started the evaluation (the trigger), and then remembered.
    public var letScope: LetScope?
    /// Params, files, static lets and the history provider (a `let`: as a `var` every context
    /// made would pay for replacing an initial value).
    public let shared: EvalShared

    public var environment: EvalEnvironment { shared.environment }
    var statics: StaticLets? { shared.statics }
    public var params: [String: Value] { shared.environment.params }
    /// File paths by index, for `$file`.
    public var files: [String] { shared.environment.files }

    public init(
        event: Event, params: [String: Value], history: (any HistoryProvider)?, files: [String]
    ) {
        self.event = event
        shared = EvalShared(
            environment: EvalEnvironment(params: params, files: files), history: history)
    }

    public init(event: Event, environment: EvalEnvironment, history: (any HistoryProvider)?) {
        self.event = event
        shared = EvalShared(environment: environment, history: history)
    }

    public init(event: Event, shared: EvalShared) {
        self.event = event
        self.shared = shared
    }

    /// The same context looking at another event (for a nested selector's candidate).
    func looking(at candidate: Event) -> EvalContext {
        var copy = self
        copy.event = candidate
        return copy
    }
}

/// A rule's `let:` bindings, worked out once per rule: one slot per name (the last definition
/// of a name wins: a rule's let over the file's).
public final class LetTable: @unchecked Sendable {
    let names: [String]
    let exprs: [Expr]
    /// Slots whose value depends only on running aggregates and params (see ``StaticLetCache``).
    let isStatic: [Bool]
    /// For static slots: the running aggregates (by position) the value depends on.
    let dependsOn: [[Int]]
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
        isStatic = names.map { staticNames.contains($0) }
        self.dependsOn = names.map { (dependsOn[$0] ?? []).sorted() }
        layout = LetLayouts.id(names)
    }

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
    private var states: [State]
    /// The trigger's context, kept without its `letScope` (which is this scope) so the two do
    /// not hold each other alive; a binding is evaluated in a copy that points back here.
    var context: EvalContext? {
        didSet { if context?.letScope != nil { context?.letScope = nil } }
    }

    init(table: LetTable) {
        self.table = table
        states = Array(repeating: .unset, count: table.names.count)
    }

    convenience init(_ definitions: [(name: String, expr: Expr)]) {
        self.init(table: LetTable(definitions))
    }

    /// A separate scope with the bindings evaluated so far, whose later evaluations bind history
    /// results in `results` (for an evaluation that must leave this scope as it is).
    func copy(results: HistoryResults?) -> LetScope {
        let c = LetScope(table: table)
        c.states = states
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
        switch states[slot] {
        case .done(let v): return v
        // A binding that reads itself (directly or through others) is undecided, not a loop.
        case .evaluating: return .undecided
        case .unset: break
        }
        if let cache, table.isStatic[slot] {
            if let hit = cache.lookup(slot, dependsOn: table.dependsOn[slot]) {
                states[slot] = .done(hit)
                return hit
            }
            let v = evaluate(slot)
            cache.store(slot, v, dependsOn: table.dependsOn[slot])
            return v
        }
        return evaluate(slot)
    }

    private func evaluate(_ slot: Int) -> Eval {
        guard var context else { return .undecided }
        context.letScope = self
        states[slot] = .evaluating
        let v = Evaluator.evaluate(table.exprs[slot], context)
        states[slot] = .done(v)
        return v
    }

    /// Evaluates every binding now (an obligation keeps the values of its trigger).
    func evaluateAll() {
        for slot in states.indices { _ = value(slot: slot) }
    }
}

/// A rule's lets when every one is static: their values depend on the runner's running
/// aggregates and params only, never on the event or captures, so they are evaluated in whatever
/// context first reads them and kept until an aggregate they depend on changes.
final class StaticLets {
    let table: LetTable
    let cache: StaticLetCache
    private var evaluating: [Bool]

    init(table: LetTable, cache: StaticLetCache) {
        self.table = table
        self.cache = cache
        evaluating = Array(repeating: false, count: table.names.count)
    }

    func value(of name: String, hint: LetSlot, _ ctx: EvalContext, _ e: Event) -> Eval? {
        guard let slot = table.slot(of: name, hint: hint) else { return nil }
        let deps = table.dependsOn[slot]
        if let hit = cache.lookup(slot, dependsOn: deps) { return hit }
        // A binding that reads itself (directly or through others) is undecided, not a loop.
        if evaluating[slot] { return .undecided }
        evaluating[slot] = true
        let v = Evaluator.evaluate(table.exprs[slot], ctx, e)
        evaluating[slot] = false
        cache.store(slot, v, dependsOn: deps)
        return v
    }
}

/// Values of `let:` bindings that read only running aggregates and params: valid until an
/// aggregate they depend on changes its answer (each aggregate counts its changes).
final class StaticLetCache {
    /// Per running aggregate: how many times its answer changed.
    var versions: [Int]
    /// Per let: the stamp its value was stored with (-1: none yet), and the value.
    private var stamps: [Int]
    private var values: [Eval]

    init(slots: Int, aggregates: Int) {
        stamps = Array(repeating: -1, count: slots)
        values = Array(repeating: .undecided, count: slots)
        versions = Array(repeating: 0, count: aggregates)
    }

    /// Versions only grow, so their sum over a let's dependencies changes whenever one does.
    @inline(__always) private func stamp(_ deps: [Int]) -> Int {
        var s = 0
        for d in deps { s &+= versions[d] }
        return s
    }

    func lookup(_ slot: Int, dependsOn deps: [Int]) -> Eval? {
        guard stamps[slot] >= 0, stamps[slot] == stamp(deps) else { return nil }
        return values[slot]
    }

    func store(_ slot: Int, _ value: Eval, dependsOn deps: [Int]) {
        stamps[slot] = stamp(deps)
        values[slot] = value
    }
}

/// Which term of a selector matched (its place in ``Selector/terms``), for what its `as:`
/// captures. An index, not the capture's text: most matches are only tested, and copying the
/// text out of the term for each would retain and release it.
public struct SelectorMatch {
    public let term: Int

    /// The `as:` name of the term that matched, in `selector` (the one that was matched).
    @inline(__always) public func capture(in selector: Selector) -> String? {
        selector.terms[term].capture
    }
}

/// Evaluates expressions and selectors; pure functions over an ``EvalContext``.
public enum Evaluator {
    // MARK: - Expressions

    public static func evaluate(_ expr: Expr, _ ctx: EvalContext) -> Eval {
        evaluate(expr, ctx, ctx.event)
    }

    /// Evaluates `expr` with `e` as the current event (the trigger, or a nested selector's
    /// candidate): everything else comes from `ctx`, which is not copied to look at another
    /// event. Code outside the evaluator that reads `ctx.event` (history providers) is handed a
    /// context looking at `e`.
    ///
    /// Recursive, as deep as the expression (at most ``ExpressionParser/maxDepth`` levels, the
    /// selectors nested in it included) with the lets it reads (at most
    /// ``FileLoader/maxEvaluationDepth`` levels in all).
    static func evaluate(_ expr: Expr, _ ctx: EvalContext, _ e: Event) -> Eval {
        switch expr {
        case .literal(let v):
            return .value(v)
        case .field(let name, let id):
            return .value(field(name, id: id, of: e, ctx))
        case .name(let name, _, let hint):
            if let bound = ctx.boundLets?[name] { return bound }
            if let scope = ctx.letScope, let bound = scope.value(of: name, hint: hint) {
                return bound
            }
            if let statics = ctx.statics, let bound = statics.value(of: name, hint: hint, ctx, e) {
                return bound
            }
            if !ctx.captures.isEmpty, let captured = ctx.captures[name] { return .event(captured) }
            if let results = ctx.historyResults, let bound = results.lookup(name) {
                return bound.map { .event($0) } ?? .null
            }
            // In a rule, a name left bare by its resolution is a let, a capture, a named result or
            // `params`, never a field: one read where it is not bound (yet) is null. A bare
            // `params` is the event's field of that name. An expression nobody resolved reads
            // every bare name as a field.
            if hint == .unresolved || name == "params" { return .value(field(name, of: e, ctx)) }
            return .null
        case .member(let base, let name, let id, _):
            if case .name(let baseName, _, _) = base, baseName.utf8.count == 6,
                baseName == "params", ctx.boundLets?["params"] == nil,
                ctx.captures["params"] == nil,
                ctx.letScope?.defines("params") != true,
                ctx.statics?.table.slot(of: "params") == nil
            {
                return .value(ctx.params[name] ?? .null)
            }
            switch evaluate(base, ctx, e) {
            case .event(let found): return .value(field(name, id: id, of: found, ctx))
            case .value(.null): return .null
            case .value(let v):
                if case .object = v { return .value(v[name] ?? .null) }
                return .undecided
            case .undecided: return .undecided
            }
        case .index(let base, let indexExpr):
            let b = evaluate(base, ctx, e)
            let k = evaluate(indexExpr, ctx, e)
            guard case .value(let key) = k else { return .undecided }
            switch b {
            case .value(.object(let entries)):
                guard let text = key.text else { return key == .null ? .null : .undecided }
                return .value(entries.last(where: { $0.key == text })?.value ?? .null)
            case .value(.array(let items)):
                guard case .int(let i) = key else { return .undecided }
                return i >= 0 && i < items.count ? .value(items[Int(i)]) : .null
            case .value(.null): return .null
            default: return .undecided
            }
        case .list(let items):
            var values: [Value] = []
            for item in items {
                guard case .value(let v) = evaluate(item, ctx, e) else { return .undecided }
                values.append(v)
            }
            return .value(.array(values))
        case .map(let entries):
            var out: [Value.ObjectEntry] = []
            for (k, item) in entries {
                guard case .value(let v) = evaluate(item, ctx, e) else { return .undecided }
                out.append(.init(k, v))
            }
            return .value(.object(out))
        case .unary(let op, let operand):
            let v = evaluate(operand, ctx, e)
            switch op {
            case .not:
                guard let b = v.truth else { return .undecided }
                return .value(.bool(!b))
            case .negate:
                switch v {
                case .value(.int(let i)) where i != Int64.min: return .value(.int(-i))
                case .value(let x):
                    if let d = x.number { return .value(.double(-d)) }
                    return .undecided
                default: return .undecided
                }
            }
        case .binary(let op, let l, let r, _):
            return binary(op, l, r, ctx, e)
        case .conditional(let c, let a, let b):
            switch evaluate(c, ctx, e).truth {
            case true?: return evaluate(a, ctx, e)
            case false?: return evaluate(b, ctx, e)
            case nil: return .undecided
            }
        case .call(let function, let args, _):
            return call(function, args, ctx, e)
        case .history(let call):
            return history(call, ctx, e)
        case .regex(let subject, let regex):
            switch evaluate(subject, ctx, e) {
            case .value(.string(let text)):
                guard let budget = ctx.shared.regexBudget else {
                    return .value(.bool(regex.matches(text)))
                }
                return budget.matches(regex, text, at: e).map { .value(.bool($0)) } ?? .undecided
            default: return .undecided
            }
        }
    }

    /// ``field(_:of:_:)`` for a name with its ``FieldNames`` id or built-in code (-1: by name).
    @inline(__always) static func field(_ name: String, id: Int32, of e: Event, _ ctx: EvalContext)
        -> Value
    {
        if id == -1 { return field(name, of: e, ctx) }
        if id == FieldNames.file { return fileName(of: e, ctx) }
        return e.value(of: name, id: id) ?? .null
    }

    static func fileName(of e: Event, _ ctx: EvalContext) -> Value {
        let i = Int(e.file)
        return i >= 0 && i < ctx.files.count ? .string(ctx.files[i]) : .null
    }

    /// A field of an event as rules read it: missing is null; `$file`, `$line`, `$seq` are built
    /// in.
    static func field(_ name: String, of e: Event, _ ctx: EvalContext) -> Value {
        if name == "$file" {
            let i = Int(e.file)
            return i >= 0 && i < ctx.files.count ? .string(ctx.files[i]) : .null
        }
        return e.value(of: name) ?? .null
    }

    private static func binary(
        _ op: Expr.BinaryOp, _ l: Expr, _ r: Expr, _ ctx: EvalContext, _ e: Event
    ) -> Eval {
        switch op {
        case .and:
            let a = evaluate(l, ctx, e).truth
            if a == false { return .false }
            let b = evaluate(r, ctx, e).truth
            if b == false { return .false }
            if a == true && b == true { return .true }
            return .undecided
        case .or:
            let a = evaluate(l, ctx, e).truth
            if a == true { return .true }
            let b = evaluate(r, ctx, e).truth
            if b == true { return .true }
            if a == false && b == false { return .false }
            return .undecided
        case .coalesce:
            switch evaluate(l, ctx, e) {
            case .value(.null), .undecided: return evaluate(r, ctx, e)
            case let other: return other
            }
        default:
            break
        }
        let a = evaluate(l, ctx, e)
        let b = evaluate(r, ctx, e)
        switch op {
        case .equal, .notEqual:
            let same: Bool
            switch (a, b) {
            case (.undecided, _), (_, .undecided): return .undecided
            case (.value(let x), .value(let y)): same = x.looselyEquals(y)
            case (.event(let x), .event(let y)):
                same = x.file == y.file && x.line == y.line && x.seq == y.seq
            default: same = false
            }
            return .value(.bool(op == .equal ? same : !same))
        case .less, .lessEqual, .greater, .greaterEqual:
            guard case .value(let x) = a, case .value(let y) = b, let order = x.order(y) else {
                return .undecided
            }
            switch op {
            case .less: return .value(.bool(order < 0))
            case .lessEqual: return .value(.bool(order <= 0))
            case .greater: return .value(.bool(order > 0))
            default: return .value(.bool(order >= 0))
            }
        case .isIn, .notIn:
            guard case .value(let x) = a, case .value(.array(let items)) = b else {
                return .undecided
            }
            let found = items.contains { $0.looselyEquals(x) }
            return .value(.bool(op == .isIn ? found : !found))
        case .add, .subtract, .multiply, .divide, .remainder:
            guard case .value(let x) = a, case .value(let y) = b else { return .undecided }
            if op == .add, case .string(let s) = x, case .string(let t) = y {
                return .value(.string(s + t))
            }
            return arithmetic(op, x, y)
        default:
            return .undecided
        }
    }

    private static func arithmetic(_ op: Expr.BinaryOp, _ x: Value, _ y: Value) -> Eval {
        if case .int(let i) = x, case .int(let j) = y {
            switch op {
            case .add:
                let (r, o) = i.addingReportingOverflow(j)
                if !o { return .value(.int(r)) }
            case .subtract:
                let (r, o) = i.subtractingReportingOverflow(j)
                if !o { return .value(.int(r)) }
            case .multiply:
                let (r, o) = i.multipliedReportingOverflow(by: j)
                if !o { return .value(.int(r)) }
            case .remainder:
                if j == 0 { return .undecided }
                if !(i == Int64.min && j == -1) { return .value(.int(i % j)) }
            default: break
            }
        }
        guard let p = x.number, let q = y.number else { return .undecided }
        let r: Double
        switch op {
        case .add: r = p + q
        case .subtract: r = p - q
        case .multiply: r = p * q
        case .divide:
            if q == 0 { return .undecided }
            r = p / q
        case .remainder:
            if q == 0 { return .undecided }
            r = fmod(p, q)
        default: return .undecided
        }
        guard r.isFinite else { return .undecided }
        // Times with fractions add up in decimal, as they were logged (see DecimalRounding).
        switch op {
        case .add: return .value(.double(DecimalRounding.sum(p, q)))
        case .subtract: return .value(.double(DecimalRounding.sum(p, -q)))
        default: return .value(.double(DecimalRounding.rounded(r)))
        }
    }

    /// A value function. Every argument is evaluated (left to right) before any is judged, as
    /// history calls among them bind their `as:` names; no argument list is built for the
    /// functions of one or two arguments.
    private static func call(
        _ function: Expr.Function, _ args: [Expr], _ ctx: EvalContext, _ e: Event
    ) -> Eval {
        switch function {
        case .type:
            switch evaluate(args[0], ctx, e) {
            case .value(let v): return .value(.string(v.typeName))
            case .event: return .value(.string("event"))
            case .undecided: return .undecided
            }
        case .str, .json:
            // `json` as JSON: a string quoted, a number with a fraction keeps it (`1.0`), so a
            // message can show why `"150"` or `1.0` is not the integer it looks like.
            switch evaluate(args[0], ctx, e) {
            case .value(let v): return .value(.string(v.rendered(bare: function == .str)))
            case .event(let found): return .value(.string("\(found.ev) at line \(found.line)"))
            case .undecided: return .undecided
            }
        case .isInt:
            switch evaluate(args[0], ctx, e) {
            case .value(.int), .value(.bigInt): return .true
            case .undecided: return .undecided
            default: return .false
            }
        case .text:
            guard let v = decided(evaluate(args[0], ctx, e)) else { return .undecided }
            // A number with a fraction or exponent: its shortest round-trip decimal (`1.50` is
            // "1.5"). A whole one from 2^53 up may stand for several integers (a 20-digit id read
            // as a double): undecided, rather than one text for different ids.
            if case .double(let d) = v, d.isFinite {
                if d == d.rounded(), Swift.abs(d) >= 9.007199254740992e15 { return .undecided }
                return .value(.string(String(d)))
            }
            return v.text.map { .value(.string($0)) } ?? .undecided
        case .len:
            switch decided(evaluate(args[0], ctx, e)) {
            case .string(let s)?: return .value(.int(Int64(s.count)))
            case .array(let items)?: return .value(.int(Int64(items.count)))
            case .object(let entries)?: return .value(.int(Int64(entries.count)))
            default: return .undecided
            }
        case .abs:
            guard let v = decided(evaluate(args[0], ctx, e)) else { return .undecided }
            if case .int(let i) = v, i != Int64.min { return .value(.int(Swift.abs(i))) }
            guard let d = v.number else { return .undecided }
            return .value(.double(Swift.abs(d)))
        case .pow:
            let a = evaluate(args[0], ctx, e)
            let b = evaluate(args[1], ctx, e)
            guard let x = decided(a), let y = decided(b), let base = x.number, let e = y.number
            else { return .undecided }
            let r = Foundation_pow(base, e)
            guard r.isFinite else { return .undecided }
            if case .int = x, case .int = y, r == r.rounded(), Swift.abs(r) < 9.0e15 {
                return .value(.int(Int64(r)))
            }
            return .value(.double(r))
        case .min, .max:
            let wantsMin = function == .min
            if args.count == 2 {
                let a = evaluate(args[0], ctx, e)
                let b = evaluate(args[1], ctx, e)
                guard let x = decided(a), let y = decided(b), let order = y.numericOrder(x) else {
                    return .undecided
                }
                return .value((wantsMin ? order < 0 : order > 0) ? y : x)
            }
            var values: [Value] = []
            values.reserveCapacity(args.count)
            var allDecided = true
            for arg in args {
                if let v = decided(evaluate(arg, ctx, e)) {
                    values.append(v)
                } else {
                    allDecided = false
                }
            }
            guard allDecided else { return .undecided }
            let items: [Value]
            if values.count == 1, case .array(let list) = values[0] {
                items = list
            } else {
                items = values
            }
            guard !items.isEmpty else { return .undecided }
            var best = items[0]
            for v in items {
                guard let order = v.numericOrder(best) else { return .undecided }
                if wantsMin ? order < 0 : order > 0 { best = v }
            }
            return best.number == nil ? .undecided : .value(best)
        case .matches:
            // Parsed into `.regex` (its pattern must be a literal); never called by name.
            return .undecided
        }
    }

    /// A function argument's value; nil when it is undecided, null or an event.
    @inline(__always) private static func decided(_ e: Eval) -> Value? {
        guard case .value(let v) = e, v != .null else { return nil }
        return v
    }

    private static func Foundation_pow(_ a: Double, _ b: Double) -> Double { pow(a, b) }

    // MARK: - History

    private static func history(_ call: HistoryCall, _ ctx: EvalContext, _ e: Event) -> Eval {
        // History providers read the current event from the context: one looking at `e` (a copy
        // only when `e` is a nested selector's candidate).
        let result =
            ctx.event === e ? historyAnswer(call, ctx) : historyAnswer(call, ctx.looking(at: e))
        if let results = ctx.historyResults {
            let names = call.resultCaptures
            if !names.isEmpty {
                // The name of the term that matched the event found is that event; the others null.
                var matched: String?
                if case .event(let found) = result {
                    matched = matches(call.selector, found, ctx)?.capture(in: call.selector)
                }
                for name in names {
                    if case .event(let e) = result, name == matched {
                        results.bind(name, e)
                    } else {
                        results.bind(name, nil)
                    }
                }
            }
        }
        return result
    }

    private static func historyAnswer(_ call: HistoryCall, _ ctx: EvalContext) -> Eval {
        // The engine's runner is called directly; any other provider through the protocol.
        if let runner = ctx.shared.runner {
            let answer = historyAnswer(call, ctx, provider: runner)
            if let check = runner.crossCheck { runner.crossCheck(call, answer, ctx, check) }
            return answer
        }
        guard let provider = ctx.shared.provider else { return .undecided }
        return historyAnswer(call, ctx, provider: provider)
    }

    private static func historyAnswer<P: HistoryProvider>(
        _ call: HistoryCall, _ ctx: EvalContext, provider: P
    ) -> Eval {
        if let ready = provider.answer(call, context: ctx) { return ready }
        return search(call, ctx, provider.candidates(for: call, context: ctx), provider: provider)
    }

    /// The answer of `call` from the events `found`, tried one by one with its selector.
    static func search<P: HistoryProvider>(
        _ call: HistoryCall, _ ctx: EvalContext, _ found: HistoryCandidates, provider: P
    ) -> Eval {
        // Every candidate compared is work the provider charges, in rounds of ``spendRound``
        // (a call over a long list stops early once the limit is passed: undecided).
        var tried = 0
        @inline(__always) func affordable() -> Bool {
            tried &+= 1
            return tried & (spendRound - 1) != 0 || provider.spend(spendRound)
        }
        defer { _ = provider.spend(tried & (spendRound - 1)) }
        switch call.kind {
        case .count:
            if found.incomplete { return .undecided }
            var n: Int64 = 0
            for e in found.events {
                guard affordable() else { return .undecided }
                if matches(call.selector, e, ctx) != nil { n += 1 }
            }
            return .value(.int(n))
        case .first, .next:
            for e in found.events {
                guard affordable() else { return .undecided }
                if matches(call.selector, e, ctx) != nil { return .event(e) }
            }
            if found.incomplete {
                provider.lookAheadIncomplete()
                return .undecided
            }
            return .null
        case .last:
            for e in found.events.reversed() {
                guard affordable() else { return .undecided }
                if matches(call.selector, e, ctx) != nil { return .event(e) }
            }
            return .null
        case .maxof, .minof:
            var best: Value?
            for e in found.events {
                guard affordable() else { return .undecided }
                guard matches(call.selector, e, ctx) != nil else { continue }
                guard let v = call.value.flatMap({ Evaluator.evaluate($0, ctx, e).value }),
                    v.number != nil
                else { continue }
                if let b = best, let order = v.numericOrder(b),
                    call.kind == .maxof ? order <= 0 : order >= 0
                {
                    continue
                }
                best = v
            }
            return .value(best ?? .null)
        }
    }

    /// How many candidates a history call compares between two charges of its work.
    static let spendRound = 64

    // MARK: - Selectors

    /// Whether `candidate` matches; returns the matching term (for its capture), or nil.
    /// Bare names in `where:` read the candidate; captures and lets of `ctx` stay visible.
    public static func matches(_ selector: Selector, _ candidate: Event, _ ctx: EvalContext)
        -> SelectorMatch?
    {
        guard selector.mayMatch(candidate.evID) else { return nil }
        // Terms are read in place: a copy of a term retains each of its parts.
        return selector.terms.withUnsafeBufferPointer { terms in
            for i in terms.indices where termMatches(terms[i], candidate, ctx) {
                return SelectorMatch(term: i)
            }
            return nil
        }
    }

    static func termMatches(_ term: Selector.Term, _ candidate: Event, _ ctx: EvalContext) -> Bool {
        guard termTestsHold(term, candidate, ctx) else { return false }
        if let negated = term.negated, matches(negated, candidate, ctx) != nil { return false }
        if let whereExpr = term.whereExpr {
            // The candidate is the current event; the context is copied only to bind a capture.
            if term.whereReadsCapture, let name = term.capture {
                var inner = ctx
                inner.captures[name] = candidate
                guard evaluate(whereExpr, inner, candidate).truth == true else { return false }
            } else {
                guard evaluate(whereExpr, ctx, candidate).truth == true else { return false }
            }
        }
        return true
    }

    /// Whether `candidate` passes a term's `ev` names and field tests (not its `not:` or `where:`),
    /// which read nothing but the candidate (and the file names).
    @inline(__always)
    static func termTestsHold(_ term: Selector.Term, _ candidate: Event, _ ctx: EvalContext) -> Bool
    {
        if let ids = term.evIDs, !ids.contains(candidate.evID) { return false }
        return !term.checksFields
            || term.tests.withUnsafeBufferPointer { tests in
                for i in tests.indices where Selector.Term.leftToCheck(tests[i], evIDs: term.evIDs)
                {
                    let v: Value
                    let present: Bool
                    if tests[i].fieldID == FieldNames.file {
                        v = fileName(of: candidate, ctx)
                        present = true
                    } else if let found = candidate.value(of: tests[i].field, id: tests[i].fieldID)
                    {
                        v = found
                        present = true
                    } else {
                        v = .null
                        present = false
                    }
                    guard
                        predicate(tests[i].predicate, v, present: present, ctx.shared, candidate)
                            == true
                    else {
                        return false
                    }
                }
                return true
            }
    }

    /// A field predicate of `e`; nil is undecided (which a selector treats as no match). A regex
    /// takes its steps from `shared`'s budget, if it has one.
    static func predicate(
        _ p: Selector.Predicate, _ v: Value, present: Bool, _ shared: EvalShared, _ e: Event
    )
        -> Bool?
    {
        switch p {
        case .equals(let x): return v.looselyEquals(x)
        case .glob(let g):
            guard case .string(let s) = v else { return false }
            return g.matches(s)
        case .oneOf(let options):
            for option in options where predicate(option, v, present: present, shared, e) == true {
                return true
            }
            return false
        case .exists(let wanted): return (present && v != .null) == wanted
        case .notIn(let values): return !values.contains { $0.looselyEquals(v) }
        case .compare(let op, let x):
            guard v != .null, let order = v.order(x) else { return nil }
            switch op {
            case .less: return order < 0
            case .lessEqual: return order <= 0
            case .greater: return order > 0
            default: return order >= 0
            }
        case .all(let ps):
            for q in ps {
                guard let r = predicate(q, v, present: present, shared, e) else { return nil }
                if !r { return false }
            }
            return true
        case .not(let q):
            return predicate(q, v, present: present, shared, e).map { !$0 }
        case .matches(let regex):
            guard case .string(let s) = v else { return nil }
            guard let budget = shared.regexBudget else { return regex.matches(s) }
            return budget.matches(regex, s, at: e)
        }
    }
}

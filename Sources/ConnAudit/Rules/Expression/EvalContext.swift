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
    /// answered from the runner's cache, with no per-evaluation scope. Not counted: the runner
    /// that made this object holds them for as long as it lives, and it owns this object (see
    /// ``runnerRef``). Read through ``withStatics(_:)``.
    private let staticsRef: Unmanaged<StaticLets>?
    /// The engine's runner answering history calls. It owns this object and every context that
    /// holds it (contexts live in its evaluations, obligations and pending judgements only), so
    /// the reference is not counted: no cycle, and nothing to retain per context or per call.
    /// Read through ``withRunner(_:)``, or ``EvalContext/runnerRef``.
    let runnerRef: Unmanaged<Runner>?
    /// Any other history provider (tests, fuzzing): held strongly.
    let provider: (any HistoryProvider)?
    /// The regex steps left to this context's searches (nil: no limit); a search that runs out is
    /// undecided, and the budget records where.
    public var regexBudget: RegexStepBudget?
    /// Storage for the captures of a `where:` that binds its own candidate
    /// (``EvalContext/binding(_:to:_:)``), kept between evaluations: binding them then allocates
    /// nothing. Empty while it is in use (a nested one makes its own).
    var spareCaptures = Captures()

    /// For the engine: `runner` must own this object.
    init(environment: EvalEnvironment, statics: StaticLets?, runner: Runner?) {
        self.environment = environment
        staticsRef = statics.map { Unmanaged.passUnretained($0) }
        runnerRef = runner.map { Unmanaged.passUnretained($0) }
        provider = nil
    }

    public init(environment: EvalEnvironment, history: (any HistoryProvider)?) {
        self.environment = environment
        staticsRef = nil
        runnerRef = nil
        provider = history
    }

    /// `body` with the static lets, if there are any; nil when there are none. The lets are used
    /// without a retain: their runner holds them for as long as this object lives.
    @inline(__always) func withStatics<T>(_ body: (StaticLets) -> T?) -> T? {
        guard let staticsRef else { return nil }
        return staticsRef._withUnsafeGuaranteedRef(body)
    }

    /// `body` with the engine's runner, if this object has one; nil when it has none. The runner
    /// is used without a retain: it owns this object, and so outlives every use of it.
    @inline(__always) func withRunner<T>(_ body: (Runner) -> T) -> T? {
        guard let runnerRef else { return nil }
        return runnerRef._withUnsafeGuaranteedRef(body)
    }
}

/// Everything an expression can read while it is evaluated.
public struct EvalContext {
    /// The current event: the trigger, or the candidate inside a nested selector. Held
    /// uncounted (``eventRef``); setting it on a context that keeps its event keeps the new one.
    public var event: Event {
        get { eventRef.takeUnretainedValue() }
        set {
            eventRef = Unmanaged.passUnretained(newValue)
            if locals?.eventOwner != nil { ownLocals().eventOwner = newValue }
        }
    }

    /// ``event``, not counted: making and dropping a context then costs nothing for it. A
    /// context made with a public initializer, or told to (``keepEvent()``), keeps the event
    /// alive in its ``locals`` box. An engine context (``init(event:borrowing:)``) does not: it
    /// lives in one evaluation of its event, which its caller holds, or is kept next to its event
    /// (a trigger waiting with it, an obligation with its anchor), or keeps it (a let scope's).
    private var eventRef: Unmanaged<Event>

    /// `body` with ``event``, not retained: it is alive while the context is (see ``eventRef``).
    @inline(__always) func withEvent<T>(_ body: (Event) -> T) -> T {
        eventRef._withUnsafeGuaranteedRef(body)
    }

    /// Whether ``event`` is `e` (compared without a reference counted).
    @inline(__always) func isLooking(at e: Event) -> Bool {
        eventRef.toOpaque() == Unmanaged.passUnretained(e).toOpaque()
    }

    /// `body` with a copy of this context in which `name` is bound to `candidate` as well (a
    /// selector's `where:` that reads its own `as:` name). The copy's captures are this
    /// context's, written into the spare storage of its ``EvalShared`` and given back emptied
    /// once `body` is done: emptying keeps the storage only when nothing else kept those
    /// captures (a copy shares them; the array then makes new storage, and the copy's stay as
    /// they were).
    @inline(__always) func binding<T>(
        _ name: String, to candidate: Event, _ body: (EvalContext) -> T
    ) -> T {
        var inner = self
        inner.captures = withShared { shared in
            var spare = Captures()
            swap(&spare, &shared.spareCaptures)
            return spare
        }
        if !captures.isEmpty { inner.captures.bindAll(of: captures) }
        inner.captures[name] = candidate
        let result = body(inner)
        var used = Captures()
        swap(&used, &inner.captures)
        used.unbindAll()
        withShared { shared in swap(&used, &shared.spareCaptures) }
        return result
    }

    /// Makes the context keep its event alive itself (for a context kept longer than its
    /// maker holds the event).
    mutating func keepEvent() {
        let own = ownLocals()
        if own.eventOwner !== event { own.eventOwner = event }
    }
    public var captures = Captures()
    /// Results of history calls named with `as:`, bound as they are evaluated (nil: none named).
    public var historyResults: HistoryResults? {
        get { locals?.historyResults }
        set {
            if newValue == nil, locals?.historyResults == nil { return }
            ownLocals().historyResults = newValue
        }
    }
    /// Values bound by name directly (tests, and lets already evaluated).
    public var lets: [String: Eval] {
        get { boundLets ?? [:] }
        set { boundLets = newValue.isEmpty ? nil : newValue }
    }
    /// The storage of ``lets``: nil in the contexts the engine makes (nothing to release).
    var boundLets: [String: Eval]? {
        get { locals?.boundLets }
        set {
            if newValue == nil, locals?.boundLets == nil { return }
            ownLocals().boundLets = newValue
        }
    }
    /// The rule's `let:` bindings, evaluated on first use in the context of the event that
    /// started the evaluation (the trigger), and then remembered.
    public var letScope: LetScope? {
        get { locals?.letScope }
        set {
            if newValue == nil, locals?.letScope == nil { return }
            ownLocals().letScope = newValue
        }
    }
    /// The storage of the three above (nil: none is set), in one box: a context is made, copied
    /// and dropped with one optional reference for them, not three.
    private var locals: EvalLocals?

    /// Whether lets are bound by name (``lets``), and the ``letScope``, not counted: the
    /// context's box holds the scope for as long as the context is alive and unchanged. For an
    /// expression's read of a let, which would otherwise count the box's references for a look.
    @inline(__always) var letsInPlace: (byName: Bool, scope: Unmanaged<LetScope>?) {
        // Two short reads of the box: bound to a name, it would be retained for the caller.
        (locals?.bindsByName ?? false, locals?.letScopeRef)
    }

    /// Whether the context binds nothing of its own (no ``locals`` box): no lets by name, no
    /// scope of lets, no history results, as the engine's plain contexts. One read, where
    /// ``letsInPlace`` reads the box twice.
    @inline(__always) var hasNoLocals: Bool { locals == nil }

    /// The box of ``locals`` to change: made when there is none, copied when another context
    /// shares it (each context's three are its own, as a value's fields are).
    private mutating func ownLocals() -> EvalLocals {
        if isKnownUniquelyReferenced(&locals), let own = locals { return own }
        let own = locals?.copy() ?? EvalLocals()
        locals = own
        return own
    }

    /// Params, files, static lets and the history provider, not counted: making, copying and
    /// dropping a context then costs nothing for it. Whoever makes the context keeps the object
    /// alive for as long as the context lives: the engine's runner, which owns the object and
    /// every context it makes (``init(event:borrowing:)``), or the context's own ``locals`` box
    /// (the other initializers). Read through ``withShared(_:)`` (or ``shared``).
    private let sharedRef: Unmanaged<EvalShared>

    /// ``sharedRef`` as a counted reference (retained for the caller: off the hot paths).
    public var shared: EvalShared { sharedRef.takeUnretainedValue() }

    /// `body` with ``shared``, not retained: the context's maker keeps it alive (see
    /// ``sharedRef``), and the context is alive while `body` runs.
    @inline(__always) public func withShared<T>(_ body: (EvalShared) -> T) -> T {
        sharedRef._withUnsafeGuaranteedRef(body)
    }

    /// The engine's runner of ``shared``, uncounted (see ``EvalShared/runnerRef``): two loads,
    /// with no closure and no reference counted. Nil when the context has another provider.
    @inline(__always) var runnerRef: Unmanaged<Runner>? { withShared { $0.runnerRef } }

    public var environment: EvalEnvironment { withShared { $0.environment } }
    public var params: [String: Value] { withShared { $0.environment.params } }
    /// File paths by index, for `$file`.
    public var files: [String] { withShared { $0.environment.files } }

    public init(
        event: Event, params: [String: Value], history: (any HistoryProvider)?, files: [String]
    ) {
        self.init(
            event: event,
            shared: EvalShared(
                environment: EvalEnvironment(params: params, files: files), history: history))
    }

    public init(event: Event, environment: EvalEnvironment, history: (any HistoryProvider)?) {
        self.init(event: event, shared: EvalShared(environment: environment, history: history))
    }

    /// A context that keeps `shared` alive itself, in its ``locals`` box (a copy of the context
    /// shares the box, a changed copy copies it).
    public init(event: Event, shared: EvalShared) {
        eventRef = Unmanaged.passUnretained(event)
        sharedRef = Unmanaged.passUnretained(shared)
        let locals = EvalLocals()
        locals.sharedOwner = shared
        locals.eventOwner = event
        self.locals = locals
    }

    /// A context that keeps neither `event` nor `shared` alive: for the engine, whose runner owns
    /// `shared` (``Runner/sharedRef(_:)``) and every context it makes, so `shared` outlives them
    /// all, and which holds `event` for as long as the context lives (see ``eventRef``).
    init(event: Event, borrowing shared: EvalShared) {
        self.init(event: event, borrowing: Unmanaged.passUnretained(shared))
    }

    /// ``init(event:borrowing:)`` with the reference as its maker holds it, uncounted.
    init(event: Event, borrowing shared: Unmanaged<EvalShared>) {
        eventRef = Unmanaged.passUnretained(event)
        sharedRef = shared
    }

    /// The same context looking at another event (for a nested selector's candidate), for one
    /// evaluation: the candidate is held by the history list it comes from meanwhile, and the
    /// copy is not kept.
    func looking(at candidate: Event) -> EvalContext {
        var copy = self
        copy.eventRef = Unmanaged.passUnretained(candidate)
        return copy
    }
}

/// What one context binds for itself (see ``EvalContext/locals``).
final class EvalLocals {
    var historyResults: HistoryResults?
    var boundLets: [String: Eval]? { didSet { bindsByName = boundLets != nil } }
    var letScope: LetScope? { didSet { letScopeRef = letScope.map(Unmanaged.passUnretained) } }
    /// Whether ``boundLets`` is set, and ``letScope`` not counted (this box holds it): read in
    /// place by ``EvalContext/letsInPlace``, with no reference counted for a look.
    private(set) var bindsByName = false
    private(set) var letScopeRef: Unmanaged<LetScope>?
    /// The context's ``EvalContext/shared`` when the context keeps it alive (nil: its maker does).
    var sharedOwner: EvalShared?
    /// The context's ``EvalContext/event`` when the context keeps it alive (nil: its maker does).
    var eventOwner: Event?

    func copy() -> EvalLocals {
        let c = EvalLocals()
        c.historyResults = historyResults
        c.boundLets = boundLets
        c.letScope = letScope
        c.sharedOwner = sharedOwner
        c.eventOwner = eventOwner
        return c
    }
}

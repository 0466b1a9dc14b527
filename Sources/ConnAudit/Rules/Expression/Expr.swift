import Synchronization

/// An expression of the rule language, parsed from a string in a rules file.
///
/// See docs/rules.md for the language. Positions are byte offsets into the expression text;
/// the loader turns them into file:line:column.
public indirect enum Expr: Sendable {
    case literal(Value)
    /// A bare name: a field of the current event, or a `let:` binding / capture when so bound.
    /// `slot` says, once the rule is compiled, which of the rule's lets it is (if any).
    case name(String, at: Int, slot: LetSlot = .unresolved)
    /// A bare name that can only be a field of the current event: resolved when the rule was
    /// compiled, because the rule binds no let or capture of that name (see `NameResolution`);
    /// `id` is the name's ``FieldNames`` id (a code below -1 for a built-in name).
    case field(String, id: Int32)
    /// `base.field`: a field of a captured or looked-up event, `params.x`, or a key of an object
    /// value. `id` is the field name's ``FieldNames`` id once the rule is compiled (-1 before; a
    /// code below -1 for a built-in name).
    case member(Expr, String, id: Int32, at: Int)
    /// `base[index]`: a key of a map literal or object, an element of a list.
    case index(Expr, Expr)
    case list([Expr])
    case map([(String, Expr)])
    case unary(UnaryOp, Expr)
    case binary(BinaryOp, Expr, Expr, at: Int)
    case conditional(Expr, Expr, Expr)
    /// A value function: `min max abs pow text is_int type len str` (`matches` is ``regex``).
    case call(Function, [Expr], at: Int)
    /// A history function over the rule's timeline: `first last next count`.
    case history(HistoryCall)
    /// `matches(x, "literal regex")`, compiled once when the rule loads.
    case regex(Expr, BoundedRegex)

    public enum UnaryOp: Sendable { case not, negate }
    public enum Function: String, Sendable {
        case min, max, abs, pow, text, isInt = "is_int", type, matches, len, str, json
    }
    public enum BinaryOp: String, Sendable {
        case add = "+", subtract = "-", multiply = "*", divide = "/", remainder = "%"
        case equal = "==", notEqual = "!=", less = "<", lessEqual = "<=", greater = ">",
            greaterEqual = ">="
        case and, or, coalesce = "??", isIn = "in", notIn = "not in"
    }
}

/// Where a bare name sits among a rule's lets, worked out when the rule is compiled: valid for
/// a ``LetTable`` of the same `layout` (the same let names in the same order), where `slot` is
/// the name's place, or -1 when the name is not a let there. A table of another layout ignores it
/// and looks the name up.
///
/// `capture` is, for a name that is no let of its rule but one of its `as:` names, the name's
/// place among those names in name order (-1 for any other name): where ``Captures`` of the
/// rule hold it when every name before it is bound (``Captures/withEvent(slot:_:_:)``).
public struct LetSlot: Sendable, Equatable {
    public var layout: Int32
    public var slot: Int32
    public var capture: Int32 = -1
    public static let unresolved = LetSlot(layout: -1, slot: -1)
}

/// `first(SEL)`, `last(SEL)`, `next(SEL)`, `count(SEL)`, `maxof(SEL, EXPR)`, `minof(SEL, EXPR)`,
/// optionally `since: SEL-or-capture`.
public struct HistoryCall: Sendable {
    public enum Kind: String, Sendable { case first, last, next, count, maxof, minof }

    /// The parts, in one copy-on-write box: evaluating a call binds a copy of it, which then
    /// retains one box instead of each of its parts.
    private final class Storage: @unchecked Sendable {
        var kind: Kind
        var selector: Selector
        var value: Expr? {
            didSet { compiledValue = value.map(CompiledExpression.init) }
        }
        /// ``value`` compiled, as each candidate's value is taken with it.
        var compiledValue: CompiledExpression?
        var since: Since?
        var slot: Int
        var at: Int
        var existence = false

        init(kind: Kind, selector: Selector, value: Expr?, since: Since?, slot: Int, at: Int) {
            self.kind = kind
            self.selector = selector
            self.value = value
            compiledValue = value.map(CompiledExpression.init)
            self.since = since
            self.slot = slot
            self.at = at
        }

        func copy() -> Storage {
            let c = Storage(
                kind: kind, selector: selector, value: value, since: since, slot: slot, at: at)
            c.existence = existence
            return c
        }
    }

    private var storage: Storage

    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    public var kind: Kind {
        get { storage.kind }
        set { unique().kind = newValue }
    }
    public var selector: Selector {
        get { storage.selector }
        set { unique().selector = newValue }
    }
    /// For `maxof`/`minof`: the value taken from each matching event (read as the candidate's).
    public var value: Expr? {
        get { storage.value }
        set { unique().value = newValue }
    }
    /// ``value`` compiled.
    var compiledValue: CompiledExpression? { storage.compiledValue }
    /// Look back only to the latest event matching this (or to this capture).
    public var since: Since? {
        get { storage.since }
        set { unique().since = newValue }
    }
    /// A number unique to this call in the process: runners keep per-call indexes under it.
    public var slot: Int {
        get { storage.slot }
        set { unique().slot = newValue }
    }
    public var at: Int {
        get { storage.at }
        set { unique().at = newValue }
    }
    /// A `first` made from `count(S) > 0` (or `== 0`) when the rule was compiled, and read only by
    /// the `!= null` (`== null`) it sits in: its answer need only be null or not, so a provider
    /// may answer it with any non-null value (``CountedIndex``).
    public var existence: Bool {
        get { storage.existence }
        set { unique().existence = newValue }
    }
    /// For `first`/`last`/`next`: the `as:` names of the selector, bound to the call's result (the
    /// event found, or null) for the rest of the evaluation (rules.md: `as:` may name a
    /// `first/last/next` result).
    public var resultCaptures: [String] {
        switch kind {
        case .first, .last, .next: return selector.captures
        default: return []
        }
    }

    public init(
        kind: Kind, selector: Selector, value: Expr? = nil, since: Since?, slot: Int = -1, at: Int
    ) {
        storage = Storage(
            kind: kind, selector: selector, value: value, since: since, slot: slot, at: at)
    }

    private static let counter = Mutex<Int>(0)
    static func nextSlot() -> Int {
        counter.withLock {
            $0 += 1; return $0
        }
    }

    public enum Since: Sendable {
        case selector(Selector)
        case capture(String)
    }
}

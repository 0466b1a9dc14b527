#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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

/// What expressions and selectors are evaluated with: pure functions over an ``EvalContext``.
///
/// An expression runs compiled (``CompiledExpression``): each node calls the function here
/// for its kind (``combine(_:_:_:)``, ``member(_:_:id:_:)``, ``bound(_:_:_:_:)``…) on its
/// evaluated operands. Selectors are matched here (``matches(_:_:_:)``), history calls answered
/// (``history(_:_:_:)``).
public enum Evaluator {
    // MARK: - Expressions

    /// Whether `params` in `params.x` is the rule's params in `ctx`: no let, capture or
    /// binding of that name.
    @inline(__always) static func paramsUnbound(_ ctx: EvalContext) -> Bool {
        ctx.boundLets?["params"] == nil && ctx.captures["params"] == nil
            && ctx.letScope?.defines("params") != true
            && ctx.withShared({ $0.withStatics { $0.table.slot(of: "params") } }) == nil
    }

    /// `base[key]` on the evaluated base and key: a key of an object, an element of a list;
    /// null of null.
    static func index(_ base: Eval, _ key: Eval) -> Eval {
        guard case .value(let key) = key else { return .undecided }
        switch base {
        case .value(.object(let entries)):
            guard let text = key.text else { return key == .null ? .null : .undecided }
            return .value(entries.last(where: { $0.key == text })?.value ?? .null)
        case .value(.array(let items)):
            guard case .int(let i) = key else { return .undecided }
            return i >= 0 && i < items.count ? .value(items[Int(i)]) : .null
        case .value(.null): return .null
        default: return .undecided
        }
    }

    /// A bare name's value: a let, then a capture, then a named result.
    ///
    /// In a rule, a name left bare by its resolution is a let, a capture, a named result or
    /// `params`, never a field: one read where it is not bound (yet) is null. A bare `params` is
    /// the event's field of that name. An expression nobody resolved reads every bare name as a
    /// field.
    static func bound(_ name: String, _ hint: LetSlot, _ ctx: EvalContext, _ e: Event) -> Eval {
        if let bound = ctx.boundLets?[name] { return bound }
        if let scope = ctx.letScope, let bound = scope.value(of: name, hint: hint) {
            return bound
        }
        if let bound = ctx.withShared({
            $0.withStatics { $0.value(of: name, hint: hint, ctx, e) }
        }) {
            return bound
        }
        return captureOrResult(name, ctx) ?? unbound(name, hint, ctx, e)
    }

    /// `name` as a capture or a named result of `ctx`; nil when it is neither.
    @inline(__always) static func captureOrResult(_ name: String, _ ctx: EvalContext) -> Eval? {
        if !ctx.captures.isEmpty, let captured = ctx.captures[name] { return .event(captured) }
        if let results = ctx.historyResults, let bound = results.lookup(name) {
            return bound.map { .event($0) } ?? .null
        }
        return nil
    }

    /// A bare name bound to nothing in `ctx` (see ``bound(_:_:_:_:)``).
    @inline(__always)
    static func unbound(_ name: String, _ hint: LetSlot, _ ctx: EvalContext, _ e: Event) -> Eval {
        if hint == .unresolved || name == "params" { return .value(field(name, of: e, ctx)) }
        return .null
    }

    /// `base.name` for an evaluated base: a field of an event, a key of an object; null of null.
    @inline(__always)
    static func member(_ base: Eval, _ name: String, id: Int32, _ ctx: EvalContext) -> Eval {
        switch base {
        case .event(let found): return .value(field(name, id: id, of: found, ctx))
        case .value(.null): return .null
        case .value(let v):
            if case .object = v { return .value(v[name] ?? .null) }
            return .undecided
        case .undecided: return .undecided
        }
    }

    /// `not v` and `-v`.
    @inline(__always) static func unary(_ op: Expr.UnaryOp, _ v: Eval) -> Eval {
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
    }

    /// `matches(subject, regex)` for an evaluated subject, with the steps of `ctx`'s budget (a
    /// search of `e`'s rule).
    static func search(_ regex: BoundedRegex, _ subject: Eval, _ ctx: EvalContext, _ e: Event)
        -> Eval
    {
        switch subject {
        case .value(.string(let text)):
            guard let budget = ctx.withShared({ $0.regexBudget }) else {
                return .value(.bool(regex.matches(text)))
            }
            return budget.matches(regex, text, at: e).map { .value(.bool($0)) } ?? .undecided
        default: return .undecided
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

    /// `and`, `or` and `??` on the left operand's value: the right one is evaluated only when
    /// the left leaves the answer open. `and`, `or` are three-valued (docs/rules.md, "Missing
    /// data").
    @inline(__always)
    static func shortCircuit(_ op: Expr.BinaryOp, _ left: Eval, _ right: () -> Eval) -> Eval {
        switch op {
        case .and:
            let a = left.truth
            if a == false { return .false }
            let b = right().truth
            if b == false { return .false }
            if a == true && b == true { return .true }
            return .undecided
        case .or:
            let a = left.truth
            if a == true { return .true }
            let b = right().truth
            if b == true { return .true }
            if a == false && b == false { return .false }
            return .undecided
        default:
            switch left {
            case .value(.null), .undecided: return right()
            case let other: return other
            }
        }
    }

    /// `if c then a else b` on the condition's value: only the branch taken is evaluated.
    @inline(__always)
    static func choose(_ test: Eval, _ yes: () -> Eval, _ no: () -> Eval) -> Eval {
        switch test.truth {
        case true?: return yes()
        case false?: return no()
        case nil: return .undecided
        }
    }

    /// A binary operator other than `and`, `or` and `??` on its evaluated operands.
    static func combine(_ op: Expr.BinaryOp, _ a: Eval, _ b: Eval) -> Eval {
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

    /// `pow(a, b)` on its evaluated arguments.
    static func power(_ a: Eval, _ b: Eval) -> Eval {
        guard let x = decided(a), let y = decided(b), let base = x.number, let e = y.number
        else { return .undecided }
        let r = Foundation_pow(base, e)
        guard r.isFinite else { return .undecided }
        if case .int = x, case .int = y, r == r.rounded(), Swift.abs(r) < 9.0e15 {
            return .value(.int(Int64(r)))
        }
        return .value(.double(r))
    }

    /// `min(a, b)` (`wantsMin`) or `max(a, b)` on its evaluated arguments.
    static func extreme(_ wantsMin: Bool, _ a: Eval, _ b: Eval) -> Eval {
        guard let x = decided(a), let y = decided(b), let order = y.numericOrder(x) else {
            return .undecided
        }
        return .value((wantsMin ? order < 0 : order > 0) ? y : x)
    }

    /// `min` or `max` of any other number of evaluated arguments (one list argument: its items).
    static func extreme(_ wantsMin: Bool, _ args: [Eval]) -> Eval {
        var values: [Value] = []
        values.reserveCapacity(args.count)
        var allDecided = true
        for arg in args {
            if let v = decided(arg) {
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
    }

    /// A function of one argument (`type str json is_int text len abs`) on its evaluated
    /// argument; undecided for any other function. The argument is taken over (consumed): a
    /// text's `text(…)` hands it back as it came, with nothing copied out and dropped.
    static func apply(_ function: Expr.Function, _ arg: consuming Eval) -> Eval {
        switch function {
        case .type:
            switch arg {
            case .value(let v): return .value(.string(v.typeName))
            case .event: return .value(.string("event"))
            case .undecided: return .undecided
            }
        case .str, .json:
            // `json` as JSON: a string quoted, a number with a fraction keeps it (`1.0`), so a
            // message can show why `"150"` or `1.0` is not the integer it looks like.
            switch arg {
            case .value(let v): return .value(.string(v.rendered(bare: function == .str)))
            case .event(let found): return .value(.string("\(found.ev) at line \(found.line)"))
            case .undecided: return .undecided
            }
        case .isInt:
            switch arg {
            case .value(.int), .value(.bigInt): return .true
            case .undecided: return .undecided
            default: return .false
            }
        case .text:
            if case .value(.string) = arg { return arg }
            guard let v = decided(arg) else { return .undecided }
            // A number with a fraction or exponent: its shortest round-trip decimal (`1.50` is
            // "1.5"). A whole one from 2^53 up may stand for several integers (a 20-digit id read
            // as a double): undecided, rather than one text for different ids.
            if case .double(let d) = v, d.isFinite {
                if d == d.rounded(), Swift.abs(d) >= 9.007199254740992e15 { return .undecided }
                return .value(.string(String(d)))
            }
            return v.text.map { .value(.string($0)) } ?? .undecided
        case .len:
            switch decided(arg) {
            case .string(let s)?: return .value(.int(Int64(s.count)))
            case .array(let items)?: return .value(.int(Int64(items.count)))
            case .object(let entries)?: return .value(.int(Int64(entries.count)))
            default: return .undecided
            }
        case .abs:
            guard let v = decided(arg) else { return .undecided }
            if case .int(let i) = v, i != Int64.min { return .value(.int(Swift.abs(i))) }
            guard let d = v.number else { return .undecided }
            return .value(.double(Swift.abs(d)))
        default: return .undecided
        }
    }

    /// A function argument's value; nil when it is undecided, null or an event.
    @inline(__always) private static func decided(_ e: Eval) -> Value? {
        guard case .value(let v) = e, v != .null else { return nil }
        return v
    }

    private static func Foundation_pow(_ a: Double, _ b: Double) -> Double { pow(a, b) }
}

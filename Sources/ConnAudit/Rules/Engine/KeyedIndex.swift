/// The side of a history `where:` conjunct that reads only what is bound outside the candidate:
/// an index's key looked up, or a `$seq` bound (`strict`: `>`, not `>=`). `bindings`: the names
/// it reads that must be bound where the call runs for it to mean that (``Runner/binds(_:_:)``).
/// Made once per rule (``CompiledRule/seqSideTable()``, ``CompiledRule/keyedShapeTable()``),
/// with its expression compiled; a class, so that a runner reading it from the rule's table
/// counts one reference.
final class OuterSide {
    let expr: Expr
    /// `expr` compiled, evaluated in the history call's context.
    let value: CompiledExpression
    let strict: Bool
    let bindings: [String]

    init(_ expr: Expr, strict: Bool = false, bindings: [String]) {
        self.expr = expr
        value = CompiledExpression(expr)
        self.strict = strict
        self.bindings = bindings
    }
}

/// A history call an equality index can answer (``CompiledRule/keyedShape(_:)``): the list it
/// reads, the candidate's side as the index files events under it, and the outer side whose
/// value is the key looked up.
final class KeyedShape {
    let list: Int
    let key: IndexKey
    let outer: OuterSide

    init(list: Int, key: IndexKey, outer: OuterSide) {
        self.list = list
        self.key = key
        self.outer = outer
    }
}

/// A hash index of one history list by an expression over the candidate event.
final class KeyedIndex {
    let list: Int
    let key: IndexKey
    /// The events by their key, exactly (``normalized(_:)``).
    private var buckets = ValueBuckets()
    /// The events whose key is an integer that a double cannot hold (2^53 and up, in magnitude),
    /// by the double it rounds to: `==` compares an integer with a double as doubles, so a double
    /// key finds them here. Empty unless such keys come (a `gen` from a nanosecond clock).
    private var byRounding = ValueBuckets()

    init(list: Int, key: IndexKey) {
        self.list = list
        self.key = key
    }

    /// Literal values that are the same, bit for bit: `0.0` and `-0.0` are `==` but not the same
    /// text (`text(-0.0)` is "-0.0"), so two keys differing in them must not share an index.
    static func identical(_ x: Value, _ y: Value) -> Bool {
        switch (x, y) {
        case (.double(let a), .double(let b)): return a.bitPattern == b.bitPattern
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { identical($0, $1) }
        case (.object(let a), .object(let b)):
            return a.count == b.count
                && zip(a, b).allSatisfy { $0.key == $1.key && identical($0.value, $1.value) }
        case (.string(let a), .string(let b)): return a.hasSameBytes(as: b)
        default: return x == y
        }
    }

    /// Whether two candidate-side keys are the same expression (then they index a list the same
    /// way). Conservative: shapes not listed here are never the same, which only costs an index.
    static func sameKey(_ a: Expr, _ b: Expr) -> Bool {
        switch (a, b) {
        case (.literal(let x), .literal(let y)): return identical(x, y)
        case (.field(let m, _), .field(let n, _)): return m == n
        case (.name(let m, _, _), .name(let n, _, _)): return m == n
        case (.member(let x, let m, _, _), .member(let y, let n, _, _)):
            return m == n && sameKey(x, y)
        case (.index(let x, let i), .index(let y, let j)): return sameKey(x, y) && sameKey(i, j)
        case (.unary(let o, let x), .unary(let p, let y)): return o == p && sameKey(x, y)
        case (.binary(let o, let x, let y, _), .binary(let p, let u, let v, _)):
            return o == p && sameKey(x, u) && sameKey(y, v)
        case (.conditional(let c, let x, let y), .conditional(let d, let u, let v)):
            return sameKey(c, d) && sameKey(x, u) && sameKey(y, v)
        case (.call(let f, let xs, _), .call(let g, let ys, _)):
            return f == g && xs.count == ys.count && zip(xs, ys).allSatisfy { sameKey($0, $1) }
        default: return false
        }
    }

    /// ``sameKey(_:_:)`` with an index key made with its shape (``CountedShape/key``).
    static func sameKey(_ a: Expr, _ b: IndexKey) -> Bool { sameKey(a, b.expr) }

    /// ``add(_:shared:)`` with a counted `shared` (alive for the call).
    func add(_ e: Event, shared: EvalShared) { add(e, shared: Unmanaged.passUnretained(shared)) }

    func add(_ e: Event, shared: Unmanaged<EvalShared>) {
        // The runner that calls this owns `shared` for its life (``Runner/sharedRef(_:)``).
        let ctx = EvalContext(event: e, borrowing: shared)
        // `null == null` holds, so null is a key like any other; undecided is none.
        guard case .value(let k) = key(e, ctx) else { return }
        let exact = Self.normalized(k)
        buckets.append(e, for: exact)
        if let rounded = Self.rounding(exact) { byRounding.append(e, for: rounded) }
    }

    /// The events whose key `==` calls equal to `key` (and maybe others, which the selector's
    /// full test, run on each, drops), in the order they were added.
    ///
    /// `==` compares two integers exactly and an integer with a double as doubles: from 2^53 up,
    /// 2^53 + 1 equals the double 2^53 but not the integer 2^53. So an integer key finds the
    /// integer's events and those of its double; a double key past 2^53 finds its doubles and the
    /// integers that round to it. Integers stay in buckets of their own: a `gen` taken from a
    /// nanosecond clock shares a double with 256 others, which one bucket would make a scan.
    func candidates(for key: Value) -> ArraySlice<Event> {
        let exact = Self.normalized(key)
        let found = buckets.events(for: exact)
        let also: ArraySlice<Event>?
        switch exact {
        case .int, .bigInt:
            guard let rounded = Self.rounding(exact) else { return found ?? [] }
            also = buckets.events(for: rounded)
        case .double(let d) where d.magnitude >= 0x1p53:
            also = byRounding.events(for: exact)
        default:
            return found ?? []
        }
        guard let also, !also.isEmpty else { return found ?? [] }
        guard let found, !found.isEmpty else { return also }
        // Both: merged by seq, the order of the list they came from.
        var merged: [Event] = []
        merged.reserveCapacity(found.count + also.count)
        var i = found.startIndex, j = also.startIndex
        while i < found.endIndex, j < also.endIndex {
            if found[i].seq <= also[j].seq {
                merged.append(found[i])
                i += 1
            } else {
                merged.append(also[j])
                j += 1
            }
        }
        merged.append(contentsOf: found[i...])
        merged.append(contentsOf: also[j...])
        return merged[...]
    }

    /// A key as its bucket holds it: numbers by value (1 and 1.0 are one key), a whole double
    /// below 2^53 as the integer it is; integers that a double cannot hold stay exact (see
    /// ``candidates(for:)``).
    static func normalized(_ v: Value) -> Value {
        if case .double(let d) = v, d.magnitude < 0x1p53, let i = Int64(exactly: d) {
            return .int(i)
        }
        return v
    }

    /// For an integer key a double cannot hold (2^53 and up in magnitude, `.bigInt` too), the
    /// double `==` compares it as; nil for any other key.
    static func rounding(_ exact: Value) -> Value? {
        switch exact {
        case .int(let i) where i.magnitude >= 1 << 53: return .double(Double(i))
        case .bigInt: return exact.number.map { .double($0) }
        default: return nil
        }
    }

    /// For a one-term selector with a `where`: the expression, the names bound outside it
    /// (`outer`: every name the rule declares — ``CompiledRule/declaredNames``), and the term's own
    /// capture — which is the candidate while `where` runs, but not when an index is built or a
    /// bound is taken: a side that reads it is neither (see ``reads``).
    ///
    /// The names are the rule's, not those bound when a call first runs: a call in a let runs
    /// where a later step's capture is not bound yet (the name is then null) and where it is,
    /// and a shape decided from the first of those made verdicts depend on which came first. A
    /// declared name is never a candidate's field; where it is not bound, the call scans
    /// (``Runner/binds(_:_:)``).
    static func whereParts(_ selector: Selector, outer: Set<String>) -> (
        Expr, Set<String>, String?
    )? {
        guard selector.terms.count == 1, let whereExpr = selector.terms[0].whereExpr else {
            return nil
        }
        var outerNames = outer
        let own = selector.terms[0].capture
        if let own { outerNames.remove(own) }
        return (whereExpr, outerNames, own)
    }

    /// Splits a selector's `where` into (candidate side, outer side) of an equality conjunct.
    static func split(_ selector: Selector, outer: Set<String>) -> (Expr, Expr)? {
        guard let (whereExpr, outerNames, own) = KeyedIndex.whereParts(selector, outer: outer)
        else { return nil }
        for conjunct in conjuncts(whereExpr) {
            guard case .binary(.equal, let a, let b, _) = conjunct else { continue }
            if reads(a, candidateOnly: true, outer: outerNames, own: own),
                reads(b, candidateOnly: false, outer: outerNames, own: own)
            {
                return (a, b)
            }
            if reads(b, candidateOnly: true, outer: outerNames, own: own),
                reads(a, candidateOnly: false, outer: outerNames, own: own)
            {
                return (b, a)
            }
        }
        return nil
    }

    static func conjuncts(_ e: Expr) -> [Expr] {
        if case .binary(.and, let a, let b, _) = e { return conjuncts(a) + conjuncts(b) }
        return [e]
    }

    /// Whether `e` reads only the candidate's fields (`candidateOnly`), or only outer names and
    /// params (not). Neither side may use history functions.
    static func reads(_ e: Expr, candidateOnly: Bool, outer: Set<String>, own: String? = nil)
        -> Bool
    {
        var ok = true
        var sawName = false
        NameWalker.walk(e) { sub in
            switch sub {
            case .history: ok = false
            case .name(let n, _, _):
                if n == own { ok = false; return }
                if n == "params" { if candidateOnly { ok = false }; return }
                sawName = true
                if outer.contains(n) == candidateOnly { ok = false }
            case .field:
                // A field of the candidate.
                sawName = true
                if !candidateOnly { ok = false }
            default: break
            }
        }
        return ok && (sawName || !candidateOnly)
    }
}

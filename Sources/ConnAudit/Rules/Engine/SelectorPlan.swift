/// How a sequence runner looks for what an event does to its open partial matches and obligations,
/// per selector: the tests that read the event alone, and an equality that finds the matches it
/// can concern by a key.
///
/// Both are decided when the runner is made, from the names the rule declares, and neither
/// changes what matches: they only spare the matches an event cannot concern.
/// - `admits`: a selector matches a partial only if one of its terms passes its `ev` and field
///   tests and the conjuncts of its `where` that read neither a capture nor a let nor a history
///   result — the same for every partial. An event that fails them is tried against none.
/// - `key`: a one-term selector whose `where` has a conjunct `A == B`, A reading only the event's
///   fields and B only captures bound before the step (and params), matches a partial only if
///   B's value for it equals A's for the event. Partials are kept by that key (``PartialIndex``).
///
/// A class, never changed once made: the per-event paths take a plan out of the runner's lists,
/// which counts one reference, where taking out a struct counts one for each of its parts.
final class SelectorPlan {
    let selector: Selector
    /// Per term: the conjunction of its `where`'s conjuncts that read the event alone (nil: none),
    /// compiled.
    private let eventOnly: [CompiledExpression?]
    /// The equality that keys the partials: the event's side and the partial's side.
    let key: (event: Expr, partial: Expr)?
    /// ``key``'s two sides compiled once, when the rule loads: the per-event paths run these
    /// (``CompiledExpression``).
    let compiledKey: (event: CompiledExpression, partial: CompiledExpression)?

    /// - Parameters:
    ///   - declared: every name the rule declares (captures, lets, history results).
    ///   - bound: the captures bound before the step, which a partial waiting at it holds.
    init(_ selector: Selector, declared: Set<String>, bound: Set<String>) {
        self.selector = selector
        eventOnly = selector.terms.map { term in
            guard let whereExpr = term.whereExpr else { return nil }
            let parts = KeyedIndex.conjuncts(whereExpr).filter {
                Self.readsEventOnly($0, declared: declared, own: term.capture)
            }
            return parts.dropFirst().reduce(parts.first) { .binary(.and, $0!, $1, at: 0) }
                .map(CompiledExpression.init)
        }
        key = Self.key(selector, declared: declared, bound: bound)
        compiledKey = key.map { (CompiledExpression($0.event), CompiledExpression($0.partial)) }
    }

    /// A sequence check's plans per step (see ``CompiledRule/stagePlans``).
    static func stages(of compiled: CompiledRule) -> [[SelectorPlan?]] {
        let steps: [Step]
        var sequenceWithout: Selector?
        switch compiled.rule.check {
        case .forbid(let s, let without): steps = s.steps; sequenceWithout = without
        case .response(let s, _, _, _, _), .precedence(let s, _), .neverAfter(let s, _):
            steps = s.steps
        default: return []
        }
        let declared = compiled.declaredNames
        var plans: [[SelectorPlan?]] = []
        var bound = Set<String>()
        for (i, step) in steps.enumerated() {
            plans.append([
                SelectorPlan(step.selector, declared: declared, bound: bound),
                step.without.map { SelectorPlan($0, declared: declared, bound: bound) },
                i == 0
                    ? nil
                    : sequenceWithout.map { SelectorPlan($0, declared: declared, bound: bound) }
            ])
            bound.formUnion(CompiledRule.captureNames(step.selector))
        }
        return plans
    }

    /// An `each … followed_by` check's plans for its obligations: `followed_by`'s and `unless`'s.
    static func obligations(of compiled: CompiledRule) -> [SelectorPlan?] {
        guard case .response(let s, let followedBy, _, let unless, _) = compiled.rule.check else {
            return [nil, nil]
        }
        let bound = Set(s.steps.flatMap { CompiledRule.captureNames($0.selector) })
        let declared = compiled.declaredNames
        return [
            SelectorPlan(followedBy, declared: declared, bound: bound),
            unless.map { SelectorPlan($0, declared: declared, bound: bound) }
        ]
    }

    /// Whether two selectors are written alike (so match alike): the same terms, each with the
    /// same `ev` names, field tests and `where`, no capture and no `not:`. Conservative: shapes
    /// it does not compare are different.
    static func same(_ a: Selector, _ b: Selector) -> Bool {
        guard a.terms.count == b.terms.count else { return false }
        for (x, y) in zip(a.terms, b.terms) {
            guard x.capture == nil, y.capture == nil, x.negated == nil, y.negated == nil,
                x.evNames == y.evNames, x.tests.count == y.tests.count
            else { return false }
            for (s, t) in zip(x.tests, y.tests) {
                guard s.field == t.field, samePredicate(s.predicate, t.predicate) else {
                    return false
                }
            }
            switch (x.whereExpr, y.whereExpr) {
            case (nil, nil): break
            case (let u?, let v?): guard KeyedIndex.sameKey(u, v) else { return false }
            default: return false
            }
        }
        return true
    }

    private static func samePredicate(_ p: Selector.Predicate, _ q: Selector.Predicate) -> Bool {
        switch (p, q) {
        case (.equals(let u), .equals(let v)): return KeyedIndex.identical(u, v)
        case (.exists(let u), .exists(let v)): return u == v
        case (.glob(let u), .glob(let v)): return u.pattern == v.pattern
        case (.oneOf(let u), .oneOf(let v)), (.all(let u), .all(let v)):
            return u.count == v.count && zip(u, v).allSatisfy { samePredicate($0, $1) }
        case (.not(let u), .not(let v)): return samePredicate(u, v)
        default: return false
        }
    }

    /// Whether a complete match of `compiled`'s sequence can be dropped once its anchor is
    /// reported or has its obligation open: everything it could still do would be dropped as the
    /// same anchor's. So with `report_at` naming an earlier step's capture: a `forbid` reports an
    /// anchor once; an `each` keeps one obligation per anchor, and when `followed_by` is the last
    /// step's `without` (and there is no `unless`), the event that answers the obligation also
    /// ends the match, and one that fails it reports the anchor. (`sse.no-lost-events`: each lost
    /// event's match would otherwise be completed again by every later commit.)
    static func completedMatchesRetire(_ compiled: CompiledRule) -> Bool {
        switch compiled.rule.check {
        case .forbid(let s, _):
            guard let at = s.reportAt, let last = s.steps.last else { return false }
            return !CompiledRule.captureNames(last.selector).contains(at)
        case .response(let s, let followedBy, _, let unless, _):
            guard let at = s.reportAt, unless == nil, let last = s.steps.last,
                let without = last.without,
                !CompiledRule.captureNames(last.selector).contains(at)
            else { return false }
            return same(without, followedBy)
        default:
            return false
        }
    }

    /// Whether some term of the selector passes what it tests of the event alone (its `ev`, its
    /// field tests, the `where` conjuncts that read nothing else): else no partial can match.
    func admits(_ e: Event, _ ctx: EvalContext) -> Bool {
        guard selector.mayMatch(e.evID) else { return false }
        for (i, term) in selector.terms.enumerated() where Evaluator.termTestsHold(term, e, ctx) {
            guard let test = eventOnly[i] else { return true }
            var inner = ctx
            if let own = term.capture { inner.captures[own] = e }
            if test.holds(inner, e) == true { return true }
        }
        return false
    }

    /// Whether `x` gives the same value for an event whatever partial it is tried with: it reads
    /// no declared name but the term's own capture (the event itself), and no history call of
    /// it is cut by a capture (`since: c`).
    static func readsEventOnly(_ x: Expr, declared: Set<String>, own: String?) -> Bool {
        var ok = true
        NameWalker.walk(x) { sub in
            switch sub {
            case .name(let n, _, _): if n != own, declared.contains(n) { ok = false }
            case .history(let call): if case .capture? = call.since { ok = false }
            default: break
            }
        }
        return ok
    }

    /// The `A == B` conjunct of a one-term selector's `where` whose A reads only fields of the
    /// event and B only captures in `bound` and params: neither side calls history, reads a let,
    /// a result, the term's own capture or a capture not yet bound.
    private static func key(_ selector: Selector, declared: Set<String>, bound: Set<String>) -> (
        Expr, Expr
    )? {
        guard selector.terms.count == 1, let whereExpr = selector.terms[0].whereExpr else {
            return nil
        }
        let own = selector.terms[0].capture
        func eventSide(_ x: Expr) -> Bool {
            var ok = true, field = false
            NameWalker.walk(x) { sub in
                switch sub {
                case .history: ok = false
                case .name(let n, _, _):
                    if n == own || n == "params" || declared.contains(n) {
                        ok = false
                    } else {
                        field = true
                    }
                case .field: field = true
                default: break
                }
            }
            return ok && field
        }
        func partialSide(_ x: Expr) -> Bool {
            var ok = true
            NameWalker.walk(x) { sub in
                switch sub {
                case .history, .field: ok = false
                case .name(let n, _, _):
                    if n != "params", n == own || !bound.contains(n) { ok = false }
                default: break
                }
            }
            return ok
        }
        for conjunct in KeyedIndex.conjuncts(whereExpr) {
            guard case .binary(.equal, let a, let b, _) = conjunct else { continue }
            if eventSide(a), partialSide(b) { return (a, b) }
            if eventSide(b), partialSide(a) { return (b, a) }
        }
        return nil
    }
}

/// Open partial matches (or obligations) by the value of their side of a ``SelectorPlan``'s key:
/// each value's ordinals, oldest first. `==` decides which keys meet, as in ``KeyedIndex``:
/// numbers by value, integers past 2^53 also under the double they round to.
///
/// Ordinals of entries that have gone stay in their buckets until the bucket is next looked up:
/// a lookup keeps only those `alive` says are, so each ordinal is passed over once.
struct PartialIndex {
    private var exact: [Key: [Int]] = [:]
    private var byRounding: [Key: [Int]] = [:]

    /// A value as a dictionary key: hashed by ``BucketHash`` (equal values alike), compared by
    /// `==`.
    private struct Key: Hashable {
        let value: Value
        static func == (a: Key, b: Key) -> Bool { a.value == b.value }
        func hash(into hasher: inout Hasher) { hasher.combine(BucketHash.hash(value)) }
    }

    mutating func add(_ ordinal: Int, key: Value) {
        let k = KeyedIndex.normalized(key)
        exact[Key(value: k), default: []].append(ordinal)
        if let r = KeyedIndex.rounding(k) { byRounding[Key(value: r), default: []].append(ordinal) }
    }

    /// The live ordinals whose key `==` may call equal to `key`, ascending.
    mutating func ordinals(for key: Value, alive: (Int) -> Bool) -> [Int] {
        let k = KeyedIndex.normalized(key)
        var found = Self.take(&exact, k, alive)
        switch k {
        case .int, .bigInt:
            if let r = KeyedIndex.rounding(k) {
                found = Self.merged(found, Self.take(&exact, r, alive))
            }
        case .double(let d) where d.magnitude >= 0x1p53:
            found = Self.merged(found, Self.take(&byRounding, k, alive))
        default: break
        }
        return found
    }

    private static func take(_ table: inout [Key: [Int]], _ k: Value, _ alive: (Int) -> Bool)
        -> [Int]
    {
        let key = Key(value: k)
        guard let list = table[key] else { return [] }
        let live = list.filter(alive)
        if live.isEmpty { table[key] = nil } else if live.count != list.count { table[key] = live }
        return live
    }

    private static func merged(_ a: [Int], _ b: [Int]) -> [Int] {
        guard !a.isEmpty else { return b }
        guard !b.isEmpty else { return a }
        var out: [Int] = []
        out.reserveCapacity(a.count + b.count)
        var i = 0, j = 0
        while i < a.count, j < b.count {
            if a[i] == b[j] {
                out.append(a[i]); i += 1; j += 1
            } else if a[i] < b[j] {
                out.append(a[i]); i += 1
            } else {
                out.append(b[j]); j += 1
            }
        }
        out += a[i...]
        out += b[j...]
        return out
    }
}

/// Up to three ``PartialIndex``es, held inline: a stage's per role, or the obligations' for
/// `followed_by` and `unless` (a list of them would be an allocation per runner).
struct KeyIndexes {
    private var first: PartialIndex?
    private var second: PartialIndex?
    private var third: PartialIndex?

    /// Whether index `i` is made (without copying it out).
    func isMade(_ i: Int) -> Bool { i == 0 ? first != nil : i == 1 ? second != nil : third != nil }

    subscript(_ i: Int) -> PartialIndex? {
        get { i == 0 ? first : i == 1 ? second : third }
        set {
            switch i {
            case 0: first = newValue
            case 1: second = newValue
            default: third = newValue
            }
        }
    }
}

/// A history `count` answered from the seqs of the events it counts, keyed by their text.
///
/// `count({ev: sse.processed, ok: true, where: 'text(id) == text(c.id)'})` asks how many earlier
/// events pass the term's tests and have the key the outer side names. When its `where:` is that
/// one equality — the candidate's side a `text(…)` call that reads only the candidate, the other
/// side only what is bound outside — and, besides it, only bounds on the candidate's `$seq`
/// (`$seq < e.$seq`), the answer needs no event: the index keeps, per key, the seqs of the events
/// that passed the term's tests when they were recorded (oldest first), and the answer is how many
/// of the key's seqs lie within the bounds.
///
/// It is exact: `text(…)` is a string or undecided, so only an outer value that is a string can be
/// `==` to it, and two strings are `==` exactly when they are one key of the runner's
/// ``CountedKeys``, whose numbers the index files seqs under.
/// A bound whose value is not a number (or NaN) orders nothing, so nothing is counted, as `<` on
/// it is undecided. A runner whose every call on a history list is answered this way stops
/// keeping that list's events (``Runner``): on a long SSE session the ids' events are most of the
/// memory, where the seqs and keys are a fraction of it.
final class CountedIndex {
    let list: Int
    /// The candidate's side of the equality (a `text(…)` call).
    let key: Expr
    private let keyOf: IndexKey
    /// The selector's term: its `ev` names and field tests are checked when an event is added.
    let term: Selector.Term
    /// The runner's keys: shared by its indexes, so that an event's key is numbered once.
    let keys: CountedKeys
    private var seqs = SeqsByNumber()
    /// The term's tests and key when they read the event alone (``EventTests``); nil when one
    /// needs a context (a `$file` test, a glob, a regex, a key run compiled).
    private let eventTests: EventTests?

    init(list: Int, key: IndexKey, term: Selector.Term, keys: CountedKeys) {
        self.list = list
        self.keys = keys
        self.key = key.expr
        keyOf = key
        self.term = term
        eventTests = key.readsEventAlone ? EventTests(term) : nil
    }

    /// Forgets every seq and key, as a new index of the same call (``Runner/setBack()``): the
    /// keys are shared with the runner's other indexes, and set back with them.
    func setBack() {
        seqs.setBack()
        keys.setBack()
    }

    /// Records `e` if it passes the term's tests: its seq under its key if that is decided.
    /// - Parameter idMatched: the term's `ev` names are known to match `e`'s id (the runner's
    ///   ``CountedRows``): they are not looked at again.
    @inline(__always) func add(_ e: Event, idMatched: Bool = false, shared: Unmanaged<EvalShared>) {
        let k: Value?
        if let eventTests {
            guard eventTests.hold(e, idMatched: idMatched) else { return }
            // A key that is a short ASCII text is numbered by its words, read where the event
            // holds it (``CountedKeys/number(addingWords:)``): nothing is copied or released.
            if let w = keyOf.textWords(of: e), let number = keys.number(addingWords: w) {
                seqs.append(e.seq, for: number)
                return
            }
            k = keyOf.value(of: e)
        } else {
            // The runner that calls this owns `shared` for its life (``Runner/sharedRef(_:)``).
            let ctx = EvalContext(event: e, borrowing: shared)
            guard Evaluator.termTestsHold(term, e, ctx) else { return }
            k = keyOf.value(e, ctx)
        }
        // A text is a string; any other key is never `==` to one, and is never counted.
        guard case .string(let text)? = k else { return }
        seqs.append(e.seq, for: keys.number(adding: text))
    }

    /// A term's `ev` names and field tests, decided at load time to read the event alone:
    /// `equals` and `exists` tests of fields other than `$file`. They are what
    /// ``Evaluator/termTestsHold(_:_:_:)`` checks, without the context it takes for a file's
    /// name or a regex's step budget. (`CountedIndexAddsWithoutAContextTests` compares both.)
    struct EventTests {
        /// A test as the index checks it: plain cases, so that reading one in place copies no
        /// box (``Selector/Predicate`` is indirect) and retains nothing.
        private enum Check {
            case equals(Value)
            /// `equals` of a boolean: only that boolean is loosely equal to it (a boolean is no
            /// number), so the field is compared where the event holds it.
            case isBool(Bool)
            case exists(Bool)
        }

        private let evIDs: [Int32]?
        private let fields: [(name: String, id: Int32)]
        private let checks: [Check]

        /// Nil when a test needs a context.
        init?(_ term: Selector.Term) {
            evIDs = term.evIDs
            var fields: [(name: String, id: Int32)] = []
            var checks: [Check] = []
            for test in term.tests where Selector.Term.leftToCheck(test, evIDs: term.evIDs) {
                guard test.fieldID != -1, test.fieldID != FieldNames.file else { return nil }
                switch test.predicate {
                case .equals(.bool(let b)) where test.fieldID >= 0: checks.append(.isBool(b))
                case .equals(let x): checks.append(.equals(x))
                case .exists(let wanted): checks.append(.exists(wanted))
                default: return nil
                }
                fields.append((test.field, test.fieldID))
            }
            self.fields = fields
            self.checks = checks
        }

        /// Whether `e` passes: its `ev` is one of the names (unless `idMatched` says so), and
        /// every test holds (an absent field is null, and does not exist).
        @inline(__always) func hold(_ e: Event, idMatched: Bool = false) -> Bool {
            if !idMatched, let evIDs, !evIDs.contains(e.evID) { return false }
            return fields.withUnsafeBufferPointer { fields in
                checks.withUnsafeBufferPointer { checks in
                    for i in fields.indices {
                        if case .isBool(let wanted) = checks[i] {
                            guard e.isBool(wanted, fields[i].name, id: fields[i].id) else {
                                return false
                            }
                            continue
                        }
                        let found = e.value(of: fields[i].name, id: fields[i].id)
                        switch checks[i] {
                        case .isBool: break
                        case .equals(let x):
                            guard (found ?? .null).looselyEquals(x) else { return false }
                        case .exists(let wanted):
                            guard (found != nil && found != .null) == wanted else { return false }
                        }
                    }
                    return true
                }
            }
        }
    }

    /// How many events recorded with the key numbered `number` (``CountedKeys``) have a seq
    /// within `bounds`.
    func count(number: Int32, bounds: [CountedShape.Bound], context: EvalContext) -> Int {
        // Without bounds, the key's count: its seqs are not looked at.
        if bounds.isEmpty { return seqs.count(for: number) }
        guard let found = seqs.seqs(for: number) else { return 0 }
        var lo = found.startIndex, hi = found.endIndex
        for bound in bounds {
            guard case .value(let x) = bound.compiled(context) else { return 0 }
            // How the seq at position i orders against x (nil: not a number, or NaN).
            func order(_ i: Int) -> Int? { Value.int(Int64(found[i])).order(x) }
            guard lo < hi, order(lo) != nil else { return 0 }
            // Seqs rise, so each bound keeps a prefix (`<`, `<=`) or a suffix (`>`, `>=`).
            let keepsPrefix = bound.op == .less || bound.op == .lessEqual
            func kept(_ i: Int) -> Bool {
                let o = order(i)!
                switch bound.op {
                case .less: return o < 0
                case .lessEqual: return o <= 0
                case .greater: return o > 0
                default: return o >= 0
                }
            }
            // The first position where `kept` changes.
            var a = lo, b = hi
            while a < b {
                let mid = (a + b) / 2
                if kept(mid) == keepsPrefix { a = mid + 1 } else { b = mid }
            }
            if keepsPrefix { hi = a } else { lo = a }
            if lo >= hi { return 0 }
        }
        return hi - lo
    }

    /// Whether two terms test the same fields the same way (then one index serves both).
    /// Conservative: only `equals` and `exists` tests are compared; others are never the same.
    static func sameTests(_ a: Selector.Term, _ b: Selector.Term) -> Bool {
        guard a.evIDs == b.evIDs, a.tests.count == b.tests.count else { return false }
        for (x, y) in zip(a.tests, b.tests) {
            guard x.field == y.field, x.fieldID == y.fieldID else { return false }
            switch (x.predicate, y.predicate) {
            case (.equals(let u), .equals(let v)): if !KeyedIndex.identical(u, v) { return false }
            case (.exists(let u), .exists(let v)): if u != v { return false }
            default: return false
            }
        }
        return true
    }
}

/// What of a `count` call (or an existence test, ``HistoryCall/existence``) a ``CountedIndex``
/// answers: the candidate's key, the outer side of the equality (the key looked up) and the `$seq`
/// bounds. Worked out when the rule is compiled (``CompiledRule/countedShapes``).
struct CountedShape: @unchecked Sendable {
    struct Bound {
        /// How the candidate's `$seq` must order against `value` (`$seq < value`: `.less`).
        var op: Expr.BinaryOp
        var value: Expr {
            didSet { compiled = CompiledExpression(value) }
        }
        /// `value`, compiled.
        private(set) var compiled: CompiledExpression

        init(op: Expr.BinaryOp, value: Expr) {
            self.op = op
            self.value = value
            compiled = CompiledExpression(value)
        }
    }
    /// The selector's one term (its tests are checked as events are recorded).
    var term: Selector.Term
    /// The candidate's side, read as the index files events (made once per rule).
    let key: IndexKey
    /// The outer side, read as the shape says (``OuterKey``).
    let outer: OuterKey
    var bounds: [Bound]

    init(term: Selector.Term, key: Expr, outer: Expr, bounds: [Bound]) {
        self.term = term
        self.key = IndexKey(key)
        self.outer = OuterKey(outer)
        self.bounds = bounds
    }

    /// The shape of `call` when the names in `outer` (the rule's lets and captures) are what its
    /// `where:` may read outside the candidate; nil when a ``CountedIndex`` cannot answer it.
    /// A `where:` that reads one of `results` (names of history results, `first({…, as: z})`)
    /// is never counted: such a name is bound for each candidate only once its call has been
    /// evaluated for it.
    static func of(
        _ call: HistoryCall, outer names: Set<String>, paramLets: Set<String>,
        results: Set<String>
    ) -> CountedShape? {
        guard call.kind == .count || (call.existence && call.resultCaptures.isEmpty),
            call.since == nil,
            call.selector.terms.count == 1
        else { return nil }
        let term = call.selector.terms[0]
        guard term.negated == nil, !term.whereReadsCapture, let whereExpr = term.whereExpr else {
            return nil
        }
        var readsResult = false
        NameWalker.walk(whereExpr) {
            if case .name(let n, _, _) = $0, results.contains(n) { readsResult = true }
        }
        if readsResult { return nil }
        let own = term.capture
        var outerNames = names
        if let own { outerNames.remove(own) }
        func outside(_ x: Expr) -> Bool {
            KeyedIndex.reads(x, candidateOnly: false, outer: outerNames, own: own)
        }
        func candidate(_ x: Expr) -> Bool {
            guard case .call(.text, _, _) = x else { return false }
            return KeyedIndex.reads(x, candidateOnly: true, outer: outerNames, own: own)
        }
        let orders: [Expr.BinaryOp] = [.less, .lessEqual, .greater, .greaterEqual]
        var found: (Expr, Expr)?
        var bounds: [Bound] = []
        for conjunct in KeyedIndex.conjuncts(whereExpr) {
            switch conjunct {
            case .binary(.equal, let a, let b, _) where found == nil:
                if candidate(a), outside(b) {
                    found = (a, b)
                } else if candidate(b), outside(a) {
                    found = (b, a)
                } else {
                    return nil
                }
            case .binary(let op, .field("$seq", _), let x, _) where orders.contains(op):
                guard outside(x) else { return nil }
                bounds.append(Bound(op: op, value: x))
            case .binary(let op, let x, .field("$seq", _), _) where orders.contains(op):
                guard outside(x) else { return nil }
                // `x < $seq` is `$seq > x`.
                let flipped: Expr.BinaryOp =
                    op == .less
                    ? .greater
                    : op == .lessEqual ? .greaterEqual : op == .greater ? .less : .lessEqual
                bounds.append(Bound(op: flipped, value: x))
            default:
                return nil
            }
        }
        guard let (key, outerSide) = found else { return nil }
        // What the outer side and the bounds read. A bare `params` (not `params.x`, which is a
        // constant by now) is the current event's field, and so is a let that reads one, when
        // evaluated for a candidate: not outer. A capture not bound where the call runs is null
        // there, for the index as for a scan.
        var readsEvent = false
        for x in [outerSide] + bounds.map(\.value) {
            NameWalker.walk(x) { sub in
                guard case .name(let n, _, _) = sub else { return }
                if n == "params" || paramLets.contains(n) { readsEvent = true }
            }
        }
        if readsEvent { return nil }
        return CountedShape(term: term, key: key, outer: outerSide, bounds: bounds)
    }
}

/// A call answered from a ``CountedIndex``: the index and the call's shape.
final class CountedCall {
    let index: CountedIndex
    let shape: CountedShape

    /// The index's keys, uncounted (the index holds them): a call reads them without a retain.
    private let keys: Unmanaged<CountedKeys>

    init(index: CountedIndex, shape: CountedShape) {
        self.index = index
        self.shape = shape
        keys = .passUnretained(index.keys)
    }

    /// The count; for an existence test (``HistoryCall/existence``), `true` when there is one
    /// and null when there is none (the `first(S) != null` it sits in reads nothing else). A
    /// capture the call reads that is not bound here is null, so the outer side is null and no
    /// key is counted, as a scan finds.
    func answer(_ context: EvalContext, existence: Bool) -> Eval {
        answer(looking: context, existence: existence)
    }

    private func answer(looking context: EvalContext, existence: Bool) -> Eval {
        let n = count(context)
        if existence { return n > 0 ? .true : .null }
        return .value(.int(Int64(n)))
    }

    /// How many recorded events the call finds in `context` (``answer(_:existence:)``'s count).
    @inline(__always) func count(_ context: EvalContext) -> Int {
        // A short text held in place is looked up by its words, read where the captured event
        // holds it (``OuterKey/textWords(_:)``).
        if let w = shape.outer.textWords(context),
            let found = keys._withUnsafeGuaranteedRef({ $0.number(ofWords: w) })
        {
            guard let number = found else { return 0 }
            return index.count(number: number, bounds: shape.bounds, context: context)
        }
        // Only a string can be `==` to a text (``CountedIndex``): any other key counts nothing,
        // and so does a text no event was filed under.
        guard let k = shape.outer.value(context), case .string(let text) = k,
            let number = keys._withUnsafeGuaranteedRef({ $0.number(of: text) })
        else { return 0 }
        return index.count(number: number, bounds: shape.bounds, context: context)
    }
}

/// The seqs a ``CountedIndex`` filed under each key number (``CountedKeys``), oldest first.
///
/// A number's entry is found at its position: the entries reach as far as the largest number
/// filed (the runner's indexes share the numbers, so an index holds a place for each key
/// numbered before its own last one, 16 bytes). Most keys have one seq, held in the entry; a
/// key with more has an array of them all.
///
/// The entries are kept in plain storage owned by one object (``Storage``), written in place:
/// no copy-on-write check, bounds check or array growth per seq. A copy of the struct shares
/// that storage; its owner (a ``CountedIndex``) keeps one and never copies it. Its mirror shows
/// the entries filed, not where they are kept.
struct SeqsByNumber: CustomReflectable {
    private let storage = Storage()
    /// Per entry with more than one seq: all of them.
    private var rest: [[Int]] = []
    /// The one-seq list an entry with one seq is answered with (written in place).
    private var single: [Int] = []

    fileprivate struct Entry {
        /// The first seq; meaningless when ``more`` is -1.
        var first = 0
        /// -1: no seq; 0: one, ``first``; otherwise the index + 1 of its seqs in ``rest``.
        var more: Int32 = -1
    }

    /// The entries, plain integers (``PlainEntries``).
    fileprivate final class Storage {
        var entries = PlainEntries<Entry>()

        deinit { entries.free() }
    }

    var customMirror: Mirror {
        let entries = (0..<storage.entries.count).map {
            let entry = storage.entries.start[$0]
            return (first: entry.first, more: entry.more)
        }
        return Mirror(self, children: ["entries": entries, "rest": rest, "single": single])
    }

    /// Files nothing, as new: small storage is kept (at most ``Runner/listCapacityKept``).
    mutating func setBack() {
        storage.entries.removeAll(keepingUpTo: Runner.listCapacityKept)
        if !rest.isEmpty { rest = [] }
        single.removeAll(keepingCapacity: true)
    }

    /// Files `seq` under `number`. Inlined where an index adds an event: a key's first seq is
    /// written in place, and only room to grow (``PlainEntries/grow(toHold:)``) or a key's second seq
    /// (``appendMore(_:at:)``) takes a call.
    @inline(__always) mutating func append(_ seq: Int, for number: Int32) {
        let n = Int(number)
        let storage = storage
        if n >= storage.entries.count {
            if n >= storage.entries.capacity { storage.entries.grow(toHold: n + 1) }
            let entries = storage.entries.start
            (entries + storage.entries.count).initialize(
                repeating: Entry(), count: n - storage.entries.count)
            (entries + n).initialize(to: Entry(first: seq, more: 0))
            storage.entries.count = n + 1
            return
        }
        appendMore(seq, at: n)
    }

    /// ``append(_:for:)`` of a seq under number `n`, which has an entry.
    @inline(never) private mutating func appendMore(_ seq: Int, at n: Int) {
        let entry = storage.entries.start + n
        let m = Int(entry.pointee.more)
        if m > 0 {
            rest[m - 1].append(seq)
        } else if m == 0 {
            rest.append([entry.pointee.first, seq])
            entry.pointee.more = Int32(rest.count)
        } else {
            entry.pointee = Entry(first: seq, more: 0)
        }
    }

    /// How many seqs `number` has.
    mutating func count(for number: Int32) -> Int {
        let n = Int(number)
        guard n >= 0, n < storage.entries.count else { return 0 }
        let m = Int(storage.entries.start[n].more)
        return m > 0 ? rest[m - 1].count : m + 1
    }

    /// The seqs of `number`, oldest first; nil when it has none.
    mutating func seqs(for number: Int32) -> ArraySlice<Int>? {
        let n = Int(number)
        guard n >= 0, n < storage.entries.count else { return nil }
        let entry = storage.entries.start[n]
        if entry.more > 0 { return rest[Int(entry.more) - 1][...] }
        guard entry.more == 0 else { return nil }
        if single.isEmpty { single = [entry.first] } else { single[0] = entry.first }
        return single[...]
    }
}

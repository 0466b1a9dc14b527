/// What every runner of one `classify` rule shares, worked out once per plan: its labels, and for
/// each event id the checks (a label's `has` or `lacks`) whose selector may match it, in the order
/// the runner makes them.
final class ClassifyShape: @unchecked Sendable {
    let labels: [Classification.Label]
    /// A check: `2 * label` for its `has`, `2 * label + 1` for its `lacks`. The checks of id `i`
    /// are `checks[starts[i]..<starts[i + 1]]`; ids past the table take ``anyChecks``.
    private let checks: [Int32]
    private let starts: [Int32]
    /// Every check, in order; and those whose selector may match any event.
    private let allChecks: [Int32]
    private let anyChecks: [Int32]
    /// The checks of each id in the table as bits (bit `c` for check `c`), then those of the ids
    /// past it (``anyChecks``) last; empty when the checks do not fit in a word (more than 32
    /// labels).
    private let masks: [UInt64]
    /// Per running aggregate (by position in ``CompiledRule/staticCalls``): the checks that may
    /// read it, as bits (bit `c` for check `c`), through their `where:`s and the lets those read.
    /// Zero for an aggregate read by none: nothing here says it may be left behind. Empty when the
    /// checks do not fit in a word, or when the rule searches with a regex: moving an aggregate
    /// may run a search, which spends the runner's regex budget whether or not a label reads the
    /// answer, so every aggregate keeps moving.
    let readers: [UInt64]

    init(_ compiled: CompiledRule) {
        if case .classify(let c, _, _, _) = compiled.rule.check {
            labels = c.labels
        } else {
            labels = []
        }
        var all: [(check: Int32, selector: Selector)] = []
        for (i, label) in labels.enumerated() {
            if let has = label.has { all.append((Int32(2 * i), has)) }
            if let lacks = label.lacks { all.append((Int32(2 * i + 1), lacks)) }
        }
        let top = all.compactMap { $0.selector.ids?.max() }.max() ?? -1
        var checks: [Int32] = []
        var starts: [Int32] = [0]
        if top >= 0 {
            for id in 0...top {
                checks += all.filter { $0.selector.mayMatch(id) }.map(\.check)
                starts.append(Int32(checks.count))
            }
        }
        self.checks = checks
        self.starts = starts
        allChecks = all.map(\.check)
        anyChecks = all.filter { $0.selector.ids == nil }.map(\.check)
        if labels.count <= 32 {
            func bits(_ list: some Swift.Sequence<Int32>) -> UInt64 {
                list.reduce(0) { $0 | 1 << UInt64($1) }
            }
            masks =
                (0..<starts.count - 1).map { bits(checks[Int(starts[$0])..<Int(starts[$0 + 1])]) }
                + [bits(anyChecks)]
        } else {
            masks = []
        }
        readers = labels.count <= 32 && !compiled.usesRegex ? Self.readers(all, compiled) : []
    }

    private static func readers(
        _ checks: [(check: Int32, selector: Selector)], _ compiled: CompiledRule
    ) -> [UInt64] {
        var readers = Array(repeating: UInt64(0), count: compiled.staticCalls.count)
        let lets = Dictionary(
            compiled.rule.lets.map { ($0.name, $0.expr) }, uniquingKeysWith: { a, _ in a })
        for (check, selector) in checks {
            var names: [String] = []
            var seen = Set<String>()
            func visit(_ e: Expr) {
                switch e {
                case .history(let call):
                    if let i = compiled.staticSlots[call.slot] { readers[i] |= 1 << UInt64(check) }
                case .name(let n, _, _):
                    if lets[n] != nil, seen.insert(n).inserted { names.append(n) }
                default: break
                }
            }
            NameWalker.walkSelector(selector, visit)
            while let n = names.popLast() { NameWalker.walk(lets[n]!, visit) }
        }
        return readers
    }

    /// The checks ``withChecks(for:_:)`` gives an event with this id, as bits (bit `c` for
    /// check `c`); nil for an id no rule names (-1) or when they do not fit in a word.
    @inline(__always) func mask(for id: Int32) -> UInt64? {
        guard id >= 0, !masks.isEmpty else { return nil }
        return masks.withUnsafeBufferPointer { $0[min(Int(id), $0.count - 1)] }
    }

    /// Calls `body` with the checks that may match an event with this id (none: not called).
    @inline(__always) func withChecks(for id: Int32, _ body: (UnsafeBufferPointer<Int32>) -> Void) {
        if id >= 0, Int(id) + 1 < starts.count {
            let (from, to) = (Int(starts[Int(id)]), Int(starts[Int(id) + 1]))
            guard from < to else { return }
            checks.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[from..<to])) }
        } else if id < 0 {
            // An id no rule names (-1): looked at only when a selector without names may match
            // any event, then each selector asked as ``Selector/mayMatch(_:)`` answers.
            guard !anyChecks.isEmpty else { return }
            let matching = allChecks.filter { c in
                let label = labels[Int(c >> 1)]
                return (c & 1 == 0 ? label.has : label.lacks)?.mayMatch(id) == true
            }
            guard !matching.isEmpty else { return }
            matching.withUnsafeBufferPointer(body)
        } else if !anyChecks.isEmpty {
            anyChecks.withUnsafeBufferPointer(body)
        }
    }
}

/// Labels one generation for a `classify` rule: a label holds when the generation has an event
/// matching its `has` (if given) and none matching its `lacks` (if given). Selectors look back
/// over the generation, from the event being matched.
final class ClassifyRunner: Runner {
    private let shape: ClassifyShape
    private var labels: [Classification.Label] { shape.labels }
    private var has: [Bool]
    private var lacks: [Bool]
    /// The flags of ``has`` and ``lacks`` that are set, as bits (bit `2 * label` for its `has`,
    /// `2 * label + 1` for its `lacks`), kept with them when the shape has masks
    /// (``ClassifyShape/mask(for:)``).
    private var setChecks: UInt64 = 0 {
        didSet { quietAggregates = Self.quiet(shape.readers, setChecks) }
    }

    /// The running aggregates (the first 64) that some check reads and whose every reader's flag
    /// is set: no check that reads them is made again, so nothing they would answer can change a
    /// label.
    private static func quiet(_ readers: [UInt64], _ set: UInt64) -> UInt64 {
        var quiet: UInt64 = 0
        for (i, r) in readers.enumerated() where i < 64 && r != 0 && r & ~set == 0 {
            quiet |= 1 << UInt64(i)
        }
        return quiet
    }

    /// - Parameter shape: the rule's, shared by its runners (made here when not given).
    init(_ compiled: CompiledRule, files: [String], shape: ClassifyShape? = nil) {
        let shape = shape ?? ClassifyShape(compiled)
        self.shape = shape
        has = Array(repeating: false, count: shape.labels.count)
        lacks = has
        super.init(compiled, files: files)
    }

    override func handle(_ e: Event, context: ContextScope, sink: FindingSink) {
        // Most events of a generation concern no label, or meet only checks whose flags are
        // set already: one word of the shape's tells, without a look at the checks.
        if let m = shape.mask(for: e.evID), m & ~setChecks == 0 { return }
        // The others: one table lookup, and the checks that may match in the order of the
        // labels (each label's `has`, then its `lacks`); those whose flag is set are passed over
        // without a context or a look at the labels.
        shape.withChecks(for: e.evID) { checks in
            for c in checks where !(c & 1 == 0 ? has[Int(c >> 1)] : lacks[Int(c >> 1)]) {
                evaluate(checks, e)
                return
            }
        }
    }

    /// Makes `checks` on `e`, in order, those whose flag is set passed over (``handle``: at
    /// least one is not): each check that matches sets its flag.
    @inline(never)
    private func evaluate(_ checks: UnsafeBufferPointer<Int32>, _ e: Event) {
        var ctx: EvalContext?
        // Labels are read in place: a copy of one retains its name and both selectors.
        shape.labels.withUnsafeBufferPointer { labels in
            for c in checks {
                let i = Int(c >> 1)
                if c & 1 == 0 {
                    if !has[i] {
                        if ctx == nil { ctx = self.context(e) }
                        if Evaluator.matches(labels[i].has!, e, ctx!) != nil {
                            has[i] = true
                            setChecks |= 1 &<< UInt64(c)
                        }
                    }
                } else if !lacks[i] {
                    if ctx == nil { ctx = self.context(e) }
                    if Evaluator.matches(labels[i].lacks!, e, ctx!) != nil {
                        lacks[i] = true
                        setChecks |= 1 &<< UInt64(c)
                    }
                }
            }
        }
    }

    /// Which labels hold on what the generation showed so far.
    private var results: [LabelResult] {
        labels.indices.map { i in
            LabelResult(
                rule: compiled.index, name: labels[i].name,
                holds: (labels[i].has == nil || has[i]) && (labels[i].lacks == nil || !lacks[i]))
        }
    }

    /// The runner's own state: each label's `has` flag, then each one's `lacks` flag; nil while
    /// all are unset (a fresh runner's).
    var flags: [Bool]? { has.contains(true) || lacks.contains(true) ? has + lacks : nil }

    /// Sets the state ``flags`` gave (a retired generation rebuilt without replaying its events).
    func restore(_ flags: [Bool]?) {
        setChecks = 0
        guard let flags else {
            has = Array(repeating: false, count: labels.count)
            lacks = has
            return
        }
        has = Array(flags[..<labels.count])
        lacks = Array(flags[labels.count...])
        for i in labels.indices {
            if has[i] { setChecks |= 1 &<< UInt64(2 * i) }
            if lacks[i] { setChecks |= 1 &<< UInt64(2 * i + 1) }
        }
    }

    override var canBeSetBack: Bool { baseCanBeSetBack }

    override func setBack() {
        for i in has.indices {
            has[i] = false
            lacks[i] = false
        }
        setChecks = 0
        super.setBack()
    }

    /// A label depends on nothing but the generation's events: always retirable.
    override func retirement() -> Retirement { .now(results) }

    override func finish(context: ContextScope, first: Event?, lastT: Double?, sink: FindingSink) {
        sink.count(results)
    }
}

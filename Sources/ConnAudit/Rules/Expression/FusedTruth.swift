/// The truth of an expression made of time comparisons, scalar comparisons of fields, null
/// tests of lets, constants, and the `and`, `or`, `not` and `if` around them, decided from what
/// it reads in place.
///
/// `open != null and (if prev == null then t >= open.t + I else … t >= answer.t + I …)` has this
/// shape: a comparison `x.t OP y.t + K` (``TimeComparison``: `- K`, the sides swapped, or no
/// amount) of the event's `t` or a let's that is a running aggregate's `first` or `last` event
/// (``LetTable/inPlaceEvents``), with an amount that is a constant or a static let the cache
/// keeps; `let == null` (or `!=`) of such a let. So has `gen == null or gen >= (last(SEL).gen ??
/// gen)`: a comparison of two scalars (``Scalar/combine(_:_:_:)``), each a constant, a field of
/// the event, a field of such a let's event or of a `first` or `last` call's running aggregate,
/// or `x ?? y` of them (``Operand``), read as the scalar closures read them
/// (``CompiledExpression/scalarPair(_:_:_:)``). The shape is found in the expression once
/// (``init(_:table:staticSlots:)``) and laid out as its tests, each with the test (or final
/// answer) each of its answers leads to: the truth tables of ``Evaluator/shortCircuit(_:_:_:)``,
/// ``Evaluator/choose(_:_:_:)`` and ``Evaluator/unary(_:_:)`` as jumps (``emit``). Each
/// evaluation runs the tests in one loop, reading the times and fields where the event and the
/// aggregates hold them and the amounts where the cache keeps them: no closure or call per node,
/// no `t` made a ``Scalar`` where a double decides it. So it gives the truth of the compiled
/// expression's answer.
///
/// What it cannot read in place gives ``Answer/unread``, and the expression is then evaluated the
/// general way, which reads everything again: a context with lets of its own, a runner that
/// cross-checks its aggregates' answers, a static let the cache does not hold fresh or that is no
/// scalar, a comparison of a text with a number. Reading in place evaluates nothing, so that
/// second evaluation is as it would have been. Where the runner cross-checks its answers, the
/// general way's truth is compared with the form's (``check(_:_:_:)``).
/// Tests: `FusedTruthGivesTheGeneralAnswerTests`,
/// `FusedScalarComparisonsGiveTheGeneralAnswerTests`.
final class FusedTruth: @unchecked Sendable {
    /// A decision: the truth, undecided (no boolean), or nothing read (``unread``).
    enum Answer: UInt8 {
        case no, yes, undecided
        /// Something could not be read in place: the general evaluation must answer.
        case unread

        /// The truth of a scalar a comparison gives (a boolean, or undecided).
        @inline(__always) init(_ s: Scalar) {
            switch s {
            case .bool(let b): self = b ? .yes : .no
            default: self = .undecided
            }
        }

        /// The three-valued truth (never asked of ``unread``).
        var truth: Bool? {
            switch self {
            case .yes: true
            case .no: false
            default: nil
            }
        }
    }

    /// A leaf test: a null test, a time comparison or a scalar comparison, trivially copied, with
    /// the step to take on each answer (``step(_:)``).
    private struct Test {
        /// A null test (`let == null`, `equal`; `!=` else), a scalar comparison (``isScalar``,
        /// compared by `op`), or a time comparison.
        var isNullTest = false
        var equal = false
        var isScalar = false
        var op = Expr.BinaryOp.equal
        /// A null test: `a` its let's event code. A scalar comparison: `a` and `b` its operands'
        /// indexes (``Operand``; `b` -1: `a` compared with null, `equal` for `==`). A time
        /// comparison: `a` the time compared as it is and `b` the moved one (-1: the event's `t`,
        /// else an event code), `c` the amount's let slot (``constantAmount``, ``noAmount``).
        var a: Int32 = 0
        var b: Int32 = 0
        var c: Int32 = 0
        var comparison = TimeComparison(op: .less, timeFirst: true, subtract: false)
        /// A comparison's constant amount.
        var constant = Scalar.null
        /// Where each answer leads: another test's index, or a final answer (``step(_:)``).
        var onNo: Int32 = 0
        var onYes: Int32 = 0
        var onUndecided: Int32 = 0
    }

    private static let constantAmount: Int32 = -1
    private static let noAmount: Int32 = -2
    /// The most tests a fused form holds, and the most parts laid out to make it: `and` and `or`
    /// repeat their right part for a left part that may be undecided, so that a deep nesting is
    /// not fused. Parts are counted as well as tests: an undecided constant (`null or (null or
    /// …)`) is repeated as its parent is but adds no test, and without the count the work would
    /// double at each level.
    private static let mostTests = 64
    private static let mostParts = 256

    /// The step that gives `answer` as the final one: -1, -2 or -3 (no test has a negative index).
    private static func step(_ answer: Answer) -> Int32 { -1 - Int32(answer.rawValue) }

    /// The tests and the scalar comparisons' operands, in storage of their own, read through
    /// plain pointers; and the first step.
    private let tests: UnsafeMutablePointer<Test>
    private let operands: UnsafeMutablePointer<Operand>
    private let operandCount: Int
    private let first: Int32
    /// The lets whose slots and event codes the tests hold: an evaluation with other static lets
    /// reads nothing.
    let table: LetTable
    /// Whether a test reads a let (its event or its kept value): then the runner's static lets
    /// must be `table`'s. A form that reads none needs only the runner.
    private let readsLets: Bool

    /// The fused form of `expr`, whose names are resolved against `table` and whose history
    /// calls' running aggregates `staticSlots` gives (``CompiledRule/staticSlots``); nil when any
    /// part of it has another shape.
    init?(_ expr: Expr, table: LetTable, staticSlots: SlotTable<Int>? = nil) {
        var builder = Builder(table: table, staticSlots: staticSlots)
        guard let shape = Shape(expr, &builder) else { return nil }
        var built: [Test] = []
        var parts = Self.mostParts
        guard
            let first = Self.emit(
                shape, yes: Self.step(.yes), no: Self.step(.no),
                undecided: Self.step(.undecided), &built, &parts)
        else { return nil }
        self.first = first
        tests = .allocate(capacity: max(1, built.count))
        tests.initialize(from: built, count: built.count)
        operandCount = builder.operands.count
        operands = .allocate(capacity: max(1, operandCount))
        operands.initialize(from: builder.operands, count: operandCount)
        self.table = table
        readsLets = builder.readsLets
    }

    deinit {
        tests.deallocate()
        operands.deinitialize(count: operandCount)
        operands.deallocate()
    }

    /// An expression of the fused shape, as a tree.
    private indirect enum Shape {
        case constant(Answer)
        case test(Test)
        case not(Shape)
        case and(Shape, Shape)
        case or(Shape, Shape)
        case choose(Shape, Shape, Shape)

        init?(_ expr: Expr, _ builder: inout Builder) {
            switch expr {
            case .literal(let v):
                guard case .bool(let b) = v else {
                    self = .constant(.undecided)
                    return
                }
                self = .constant(b ? .yes : .no)
            case .unary(.not, let x):
                guard let x = Shape(x, &builder) else { return nil }
                self = .not(x)
            case .binary(let op, let l, let r, _) where op == .and || op == .or:
                guard let l = Shape(l, &builder), let r = Shape(r, &builder) else { return nil }
                self = op == .and ? .and(l, r) : .or(l, r)
            case .conditional(let c, let yes, let no):
                guard let c = Shape(c, &builder), let yes = Shape(yes, &builder),
                    let no = Shape(no, &builder)
                else { return nil }
                self = .choose(c, yes, no)
            default:
                guard let test = builder.test(expr) else { return nil }
                self = .test(test)
            }
        }

        /// Whether the part may be undecided (a null test never is).
        var mayBeUndecided: Bool {
            switch self {
            case .constant(let a): a == .undecided
            case .test(let test): !test.isNullTest
            case .not(let x): x.mayBeUndecided
            case .and(let a, let b), .or(let a, let b): a.mayBeUndecided || b.mayBeUndecided
            case .choose(let c, let a, let b):
                c.mayBeUndecided || a.mayBeUndecided || b.mayBeUndecided
            }
        }
    }

    /// Appends the tests of `shape` to `tests`, each answer of the whole leading to the step
    /// given for it, as three-valued short-circuit code: `a and b` goes to `b` where `a` holds,
    /// and to a second `b`, whose `yes` leads to `undecided`, where `a` is undecided; `or` as the
    /// negation of `and` over the negated parts; `not` swaps `yes` and `no`; `if` goes from its
    /// test to either branch. The step the shape starts at; nil past ``mostTests`` tests or
    /// ``mostParts`` parts (`parts` counts down).
    private static func emit(
        _ shape: Shape, yes: Int32, no: Int32, undecided: Int32, _ tests: inout [Test],
        _ parts: inout Int
    ) -> Int32? {
        parts -= 1
        guard parts >= 0 else { return nil }
        switch shape {
        case .constant(let a):
            return a == .yes ? yes : a == .no ? no : undecided
        case .test(var test):
            guard tests.count < mostTests else { return nil }
            test.onYes = yes
            test.onNo = no
            test.onUndecided = undecided
            tests.append(test)
            return Int32(tests.count - 1)
        case .not(let x):
            return emit(x, yes: no, no: yes, undecided: undecided, &tests, &parts)
        case .and(let a, let b):
            guard let held = emit(b, yes: yes, no: no, undecided: undecided, &tests, &parts),
                let unsure =
                    a.mayBeUndecided
                    ? emit(b, yes: undecided, no: no, undecided: undecided, &tests, &parts)
                    : undecided
            else { return nil }
            return emit(a, yes: held, no: no, undecided: unsure, &tests, &parts)
        case .or(let a, let b):
            // `a or b` is `not (not a and not b)`, in three values as in two: the same jumps.
            return emit(
                .and(.not(a), .not(b)), yes: no, no: yes, undecided: undecided, &tests, &parts)
        case .choose(let c, let a, let b):
            guard let then = emit(a, yes: yes, no: no, undecided: undecided, &tests, &parts),
                let otherwise = emit(b, yes: yes, no: no, undecided: undecided, &tests, &parts)
            else { return nil }
            return emit(c, yes: then, no: otherwise, undecided: undecided, &tests, &parts)
        }
    }

    /// An operand of a scalar comparison: a constant (``code`` ``constantOperand``), a field of
    /// the event (-1), or a field of the event a let or a running aggregate holds (its event
    /// code, ``LetTable/inPlaceEvents``); read as ``Scalar/field(_:id:of:_:)`` reads it, null
    /// where the aggregate holds no event. `fallback` is the operand of `?? y` (-1: none), read
    /// where this one is null or undecided, as the scalar `??` reads it.
    private struct Operand {
        var code: Int32
        var constant = Scalar.null
        var name = ""
        var id: Int32 = 0
        var fallback: Int32 = -1
    }

    private static let constantOperand: Int32 = -2

    /// Whether a field with ``FieldNames`` id `id` is read in place: one with an id, `t`, `gen`.
    private static func reads(_ id: Int32) -> Bool {
        id >= 0 || id == FieldNames.t || id == FieldNames.gen
    }

    /// What the shapes are read against while the form is made, and the operands made so far.
    private struct Builder {
        let table: LetTable
        let staticSlots: SlotTable<Int>?
        var operands: [Operand] = []
        var readsLets = false

        /// A leaf test: a null test of a let, a time comparison, or a scalar comparison.
        mutating func test(_ expr: Expr) -> Test? {
            guard case .binary(let op, let l, let r, _) = expr, op.isComparison else { return nil }
            if op == .equal || op == .notEqual, let test = nullTest(op, l, r) { return test }
            if let test = comparison(expr) { return test }
            return scalarComparison(op, l, r)
        }

        /// `let == null` or `let != null` (`op`) of a let that is a running aggregate's `first`
        /// or `last` event.
        private mutating func nullTest(_ op: Expr.BinaryOp, _ l: Expr, _ r: Expr) -> Test? {
            let tested: Expr
            if case .literal(.null) = r {
                tested = l
            } else if case .literal(.null) = l {
                tested = r
            } else {
                return nil
            }
            guard case .name(let name, _, let hint) = tested, name != "params",
                let code = eventCode(hint), code >= 0
            else { return nil }
            readsLets = true
            return Test(isNullTest: true, equal: op == .equal, a: code)
        }

        /// A comparison of two times (``TimeComparison``), each the event's `t` or a direct
        /// let's, moved by a constant or a static let the cache keeps.
        private mutating func comparison(_ expr: Expr) -> Test? {
            guard let parts = TimeComparison.parts(expr), let a = time(parts.plain),
                let b = time(parts.base)
            else { return nil }
            var test = Test(a: a, b: b, comparison: parts.comparison)
            switch parts.amount.map(TimeComparison.Amount.init) {
            case nil: test.c = FusedTruth.noAmount
            case .constant(let s)??:
                test.c = FusedTruth.constantAmount
                test.constant = s
            case .slot(let hint)??:
                // A static let the cache keeps: one of the first 64, no aggregate's answer.
                guard hint.layout == table.layout, hint.slot < 64,
                    table.cachedBits & StaticLetCache.bit(Int(hint.slot)) != 0
                else { return nil }
                test.c = hint.slot
                readsLets = true
            case .some(nil): return nil
            }
            if a >= 0 || b >= 0 { readsLets = true }
            return test
        }

        /// Where `expr` reads a time: -1 for the event's `t`, the event code of a let that is a
        /// running aggregate's `first` or `last` for its `t`; nil for anything else.
        private func time(_ expr: Expr) -> Int32? {
            switch expr {
            case .field(_, let id) where id == FieldNames.t:
                return -1
            case .member(.name(let name, _, let hint), _, let id, _)
            where id == FieldNames.t && name != "params":
                guard let code = eventCode(hint), code >= 0 else { return nil }
                return code
            default:
                return nil
            }
        }

        /// `l op r` compared as scalars (``Scalar/combine(_:_:_:)``), each side a constant, a
        /// field of the event, a field of a let's or a running aggregate's event, or `x ?? y` of
        /// such parts.
        private mutating func scalarComparison(_ op: Expr.BinaryOp, _ l: Expr, _ r: Expr)
            -> Test?
        {
            // `x == null`, `x != null` (either way round): `b` -1, decided by `x` alone.
            if op == .equal || op == .notEqual {
                if case .literal(.null) = r, let a = operand(l) {
                    return Test(equal: op == .equal, isScalar: true, a: a, b: -1)
                }
                if case .literal(.null) = l, let a = operand(r) {
                    return Test(equal: op == .equal, isScalar: true, a: a, b: -1)
                }
            }
            guard let a = operand(l), let b = operand(r) else { return nil }
            return Test(isScalar: true, op: op, a: a, b: b)
        }

        /// The index of `expr` as an operand (``Operand``); nil for any other part.
        private mutating func operand(_ expr: Expr) -> Int32? {
            var made: Operand
            switch expr {
            case .literal(let v):
                let s = Scalar(v)
                guard !s.isOtherOrNonScalar else { return nil }
                made = Operand(code: FusedTruth.constantOperand, constant: s)
            case .field(let name, let id) where FusedTruth.reads(id):
                made = Operand(code: -1, name: name, id: id)
            case .member(.name(let name, _, let hint), let field, let id, _)
            where name != "params" && FusedTruth.reads(id):
                guard let code = eventCode(hint), code >= 0 else { return nil }
                readsLets = true
                made = Operand(code: code, name: field, id: id)
            case .member(.history(let call), let field, let id, _)
            where call.resultCaptures.isEmpty && (call.kind == .first || call.kind == .last)
                && FusedTruth.reads(id):
                guard let i = staticSlots?[call.slot], i >= 0, i < Int(Int32.max / 2) else {
                    return nil
                }
                made = Operand(
                    code: Int32(i) * 2 + (call.kind == .last ? 1 : 0), name: field, id: id)
            case .binary(.coalesce, let x, let y, _):
                // `x ?? y` with `x` a leaf: its fallback is `y`, any operand.
                if case .binary = x { return nil }
                guard let leaf = operand(x), let fallback = operand(y) else { return nil }
                operands[Int(leaf)].fallback = fallback
                return leaf
            default:
                return nil
            }
            guard operands.count < FusedTruth.mostTests else { return nil }
            operands.append(made)
            return Int32(operands.count - 1)
        }

        /// The event code (``LetTable/inPlaceEvents``) of the let `hint` resolves to in `table`;
        /// nil when it resolves to no let of it.
        private func eventCode(_ hint: LetSlot) -> Int32? {
            guard hint.layout >= 0, hint.layout == table.layout, hint.slot >= 0,
                Int(hint.slot) < table.names.count
            else { return nil }
            return table.inPlaceEvents[Int(hint.slot)]
        }
    }

    /// The answer for `e` in `ctx`: ``Answer/unread`` where a part cannot be read in place.
    @inline(__always) func answer(_ ctx: EvalContext, _ e: Event) -> Answer {
        guard ctx.hasNoLocals else { return .unread }
        return ctx.withShared { shared -> Answer in
            guard readsLets else {
                guard let runner = shared.runnerRef,
                    runner._withUnsafeGuaranteedRef({ $0.crossCheck == nil })
                else { return .unread }
                return reads(nil, runner, e).answer(tests, from: first)
            }
            return shared.withStatics { statics -> Answer? in
                guard statics.table === table, let runner = statics.inPlace else { return nil }
                return reads(.passUnretained(statics), runner, e).answer(tests, from: first)
            } ?? .unread
        }
    }

    /// Where the runner cross-checks its history answers (``HistoryCrossCheck``), and so reads
    /// nothing in place (``answer(_:_:)``), compares `general`, the general way's truth for `e`
    /// in `ctx`, with this form's, read as it is without the cross-check; a difference stops the
    /// run, as a history answer unlike the scan's does. Not while the runner is stopped.
    func check(_ general: Bool?, _ ctx: EvalContext, _ e: Event) {
        guard ctx.hasNoLocals, let runner = ctx.runnerRef else { return }
        let answer = ctx.withShared { shared -> Answer in
            guard readsLets else { return reads(nil, runner, e).answer(tests, from: first) }
            return shared.withStatics { statics -> Answer? in
                guard statics.table === table else { return nil }
                return reads(.passUnretained(statics), runner, e).answer(tests, from: first)
            } ?? .unread
        }
        runner._withUnsafeGuaranteedRef { runner in
            guard runner.crossCheck != nil, !runner.stopped, answer != .unread,
                answer.truth != general
            else { return }
            fatalError(
                "fused expectation cross-check: rule \(runner.rule.id), evaluated at line "
                    + "\(e.line) (seq \(e.seq)): the fused form answered "
                    + "\(String(describing: answer.truth)), the general way "
                    + "\(String(describing: general))")
        }
    }

    private func reads(_ statics: Unmanaged<StaticLets>?, _ runner: Unmanaged<Runner>, _ e: Event)
        -> Reads
    {
        Reads(statics: statics, runner: runner, event: .passUnretained(e), operands: operands)
    }

    /// One evaluation's reads: the static lets (where the form reads lets) and the runner holding
    /// the aggregates, the event, and the operands (none counted: the context and the form hold
    /// them).
    private struct Reads {
        let statics: Unmanaged<StaticLets>?
        let runner: Unmanaged<Runner>
        let event: Unmanaged<Event>
        let operands: UnsafeMutablePointer<Operand>

        /// The tests run from `step` on, each answer leading to the next, until a final answer.
        func answer(_ tests: UnsafeMutablePointer<Test>, from step: Int32) -> Answer {
            var at = step
            while at >= 0 {
                let test = tests + Int(at)
                switch answer(test) {
                case .yes: at = test.pointee.onYes
                case .no: at = test.pointee.onNo
                case .undecided: at = test.pointee.onUndecided
                case .unread: return .unread
                }
            }
            return Answer(rawValue: UInt8(-1 - at)) ?? .unread
        }

        @inline(__always) private func answer(_ test: UnsafeMutablePointer<Test>) -> Answer {
            if test.pointee.isScalar {
                let x = read(test.pointee.a)
                if test.pointee.b < 0 {
                    // As ``Scalar/combine(_:_:_:)`` compares a scalar with null: only null is
                    // equal to it; undecided is undecided.
                    switch x {
                    case .null: return test.pointee.equal ? .yes : .no
                    case .undecided: return .undecided
                    case .other: return .unread
                    default: return test.pointee.equal ? .no : .yes
                    }
                }
                let s = Scalar.combine(test.pointee.op, x, read(test.pointee.b))
                return s.isOther ? .unread : Answer(s)
            }
            if test.pointee.isNullTest {
                let isNull = withEvent(test.pointee.a) { $0 == nil }
                return isNull == test.pointee.equal ? .yes : .no
            }
            let x = time(test.pointee.a), y = time(test.pointee.b)
            let c = test.pointee.c
            if c == FusedTruth.noAmount { return Answer(test.pointee.comparison.compare(x, y)) }
            let amount: Scalar
            if c == FusedTruth.constantAmount {
                amount = test.pointee.constant
            } else {
                guard
                    let kept = statics?._withUnsafeGuaranteedRef({
                        $0.cachedScalar(slot: Int(c))
                    }), !kept.isOtherOrNonScalar
                else { return .unread }
                amount = kept
            }
            return Answer(test.pointee.comparison.compare(x, at: y, amount: amount))
        }

        /// Operand `i`'s scalar, and where it is null or undecided its fallback's (`??`).
        @inline(__always) private func read(_ i: Int32) -> Scalar {
            var at = i
            while true {
                let o = operands + Int(at)
                let code = o.pointee.code
                let v =
                    code == FusedTruth.constantOperand
                    ? o.pointee.constant
                    : code < 0
                        ? event._withUnsafeGuaranteedRef { Self.field(o, of: $0) }
                        : withEvent(code) { $0.map { Self.field(o, of: $0) } ?? .null }
                at = o.pointee.fallback
                guard at >= 0 else { return v }
                switch v {
                case .null, .undecided: continue
                default: return v
                }
            }
        }

        /// The field `o` reads of `e`, as ``Scalar/field(_:id:of:_:)`` reads it: `t`, `gen` as
        /// ``Event/value(of:id:)`` gives it (an integer past `Int64` is no scalar), or a field with
        /// an id.
        @inline(__always) private static func field(_ o: UnsafeMutablePointer<Operand>, of e: Event)
            -> Scalar
        {
            let id = o.pointee.id
            if id == FieldNames.t { return Scalar.time(of: e) }
            if id == FieldNames.gen {
                guard let gen = e.gen else { return .null }
                return gen <= UInt64(Int64.max) ? .int(Int64(gen)) : .nonScalar
            }
            return e.fields.withUnsafeBufferPointer { fields in
                var i = fields.count
                while i > 0 {
                    i -= 1
                    let f = fields[i].id
                    if f == id || (f < 0 && fields[i].key == o.pointee.name) {
                        return Scalar(fields[i].value)
                    }
                }
                return .null
            }
        }

        /// The time `code` reads: the event's, or that of the event a let stands for (NaN, as a
        /// null time, where its aggregate holds none).
        @inline(__always) private func time(_ code: Int32) -> Double {
            code < 0 ? event._withUnsafeGuaranteedRef { $0.t } : withEvent(code) { $0?.t ?? .nan }
        }

        @inline(__always) private func withEvent<T>(_ code: Int32, _ body: (Event?) -> T) -> T {
            runner._withUnsafeGuaranteedRef {
                $0.withAggregateEvent(Int(code >> 1), first: code & 1 == 0, body)
            }
        }
    }
}

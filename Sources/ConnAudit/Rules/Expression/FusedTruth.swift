/// The truth of an expression made of time comparisons, null tests of lets, constants, and the
/// `and`, `or`, `not` and `if` around them, decided from the times read in place.
///
/// `open != null and (if prev == null then t >= open.t + I else … t >= answer.t + I …)` has this
/// shape: a comparison `x.t OP y.t + K` (``TimeComparison``: `- K`, the sides swapped, or no
/// amount) of the event's `t` or a let's that is a running aggregate's `first` or `last` event
/// (``LetTable/inPlaceEvents``), with an amount that is a constant or a static let the cache
/// keeps; `let == null` (or `!=`) of such a let. The shape is found in the expression once
/// (``init(_:table:)``) and laid out as its tests, each with the test (or final answer) each of
/// its answers leads to: the truth tables of ``Evaluator/shortCircuit(_:_:_:)``,
/// ``Evaluator/choose(_:_:_:)`` and ``Evaluator/unary(_:_:)`` as jumps (``emit``). Each
/// evaluation runs the tests in one loop, reading the times where the aggregates hold their
/// events and the amounts where the cache keeps them: no closure or call per node, no `t` made a
/// ``Scalar`` where a double decides it. So it gives the truth of the compiled expression's
/// answer.
///
/// What it cannot read in place gives ``Answer/unread``, and the expression is then evaluated the
/// general way, which reads everything again: a context with lets of its own, a runner that
/// cross-checks its aggregates' answers, a static let the cache does not hold fresh or that is no
/// scalar. Reading in place evaluates nothing, so that second evaluation is as it would have been.
/// Tests: `FusedTruthGivesTheGeneralAnswerTests`.
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

    /// A leaf test: a null test or a comparison, trivially copied, with the step to take on each
    /// answer (``step(_:)``).
    private struct Test {
        /// A null test (`let == null`, `equal`; `!=` else), or a comparison.
        var isNullTest = false
        var equal = false
        /// A null test: `a` its let's event code. A comparison: `a` the time compared as it is
        /// and `b` the moved one (-1: the event's `t`, else an event code), `c` the amount's let
        /// slot (``constantAmount``, ``noAmount``).
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

    /// The tests, in storage of their own, read through a plain pointer; and the first step.
    private let tests: UnsafeMutablePointer<Test>
    private let first: Int32
    /// The lets whose slots and event codes the tests hold: an evaluation with other static lets
    /// reads nothing.
    let table: LetTable

    /// The fused form of `expr`, whose names are resolved against `table`; nil when any part of
    /// it has another shape.
    init?(_ expr: Expr, table: LetTable) {
        guard let shape = Shape(expr, table) else { return nil }
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
        self.table = table
    }

    deinit { tests.deallocate() }

    /// An expression of the fused shape, as a tree.
    private indirect enum Shape {
        case constant(Answer)
        case test(Test)
        case not(Shape)
        case and(Shape, Shape)
        case or(Shape, Shape)
        case choose(Shape, Shape, Shape)

        init?(_ expr: Expr, _ table: LetTable) {
            switch expr {
            case .literal(let v):
                guard case .bool(let b) = v else {
                    self = .constant(.undecided)
                    return
                }
                self = .constant(b ? .yes : .no)
            case .unary(.not, let x):
                guard let x = Shape(x, table) else { return nil }
                self = .not(x)
            case .binary(let op, let l, let r, _) where op == .and || op == .or:
                guard let l = Shape(l, table), let r = Shape(r, table) else { return nil }
                self = op == .and ? .and(l, r) : .or(l, r)
            case .conditional(let c, let yes, let no):
                guard let c = Shape(c, table), let yes = Shape(yes, table),
                    let no = Shape(no, table)
                else { return nil }
                self = .choose(c, yes, no)
            case .binary(let op, let l, let r, _) where op == .equal || op == .notEqual:
                guard let test = FusedTruth.nullTest(op, l, r, table) else { return nil }
                self = .test(test)
            default:
                guard let test = FusedTruth.comparison(expr, table) else { return nil }
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

    /// `let == null` or `let != null` (`op`) of a let that is a running aggregate's `first` or
    /// `last` event.
    private static func nullTest(_ op: Expr.BinaryOp, _ l: Expr, _ r: Expr, _ table: LetTable)
        -> Test?
    {
        let tested: Expr
        if case .literal(.null) = r {
            tested = l
        } else if case .literal(.null) = l {
            tested = r
        } else {
            return nil
        }
        guard case .name(let name, _, let hint) = tested, name != "params",
            let code = eventCode(hint, table), code >= 0
        else { return nil }
        return Test(isNullTest: true, equal: op == .equal, a: code)
    }

    /// A comparison of two times (``TimeComparison``), each the event's `t` or a direct let's,
    /// moved by a constant or a static let the cache keeps.
    private static func comparison(_ expr: Expr, _ table: LetTable) -> Test? {
        guard let parts = TimeComparison.parts(expr), let a = time(parts.plain, table),
            let b = time(parts.base, table)
        else { return nil }
        var test = Test(a: a, b: b, comparison: parts.comparison)
        switch parts.amount.map(TimeComparison.Amount.init) {
        case nil: test.c = noAmount
        case .constant(let s)??:
            test.c = constantAmount
            test.constant = s
        case .slot(let hint)??:
            // A static let the cache keeps: one of the first 64, no aggregate's answer.
            guard hint.layout == table.layout, hint.slot < 64,
                table.cachedBits & StaticLetCache.bit(Int(hint.slot)) != 0
            else { return nil }
            test.c = hint.slot
        case .some(nil): return nil
        }
        return test
    }

    /// Where `expr` reads a time: -1 for the event's `t`, the event code of a let that is a
    /// running aggregate's `first` or `last` for its `t`; nil for anything else.
    private static func time(_ expr: Expr, _ table: LetTable) -> Int32? {
        switch expr {
        case .field(_, let id) where id == FieldNames.t:
            return -1
        case .member(.name(let name, _, let hint), _, let id, _)
        where id == FieldNames.t && name != "params":
            guard let code = eventCode(hint, table), code >= 0 else { return nil }
            return code
        default:
            return nil
        }
    }

    /// The event code (``LetTable/inPlaceEvents``) of the let `hint` resolves to in `table`; nil
    /// when it resolves to no let of it.
    private static func eventCode(_ hint: LetSlot, _ table: LetTable) -> Int32? {
        guard hint.layout >= 0, hint.layout == table.layout, hint.slot >= 0,
            Int(hint.slot) < table.names.count
        else { return nil }
        return table.inPlaceEvents[Int(hint.slot)]
    }

    /// The answer for `e` in `ctx`: ``Answer/unread`` where a part cannot be read in place.
    @inline(__always) func answer(_ ctx: EvalContext, _ e: Event) -> Answer {
        guard ctx.hasNoLocals else { return .unread }
        return ctx.withShared { shared in
            shared.withStatics { statics -> Answer? in
                guard statics.table === table, let runner = statics.inPlace else { return nil }
                let reads = Reads(
                    statics: Unmanaged.passUnretained(statics), runner: runner, t: e.t)
                return reads.answer(tests, from: first)
            }
        } ?? .unread
    }

    /// One evaluation's reads: the static lets and the runner holding the aggregates (neither
    /// counted: the context holds them), and the event's time.
    private struct Reads {
        let statics: Unmanaged<StaticLets>
        let runner: Unmanaged<Runner>
        let t: Double

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
                    let kept = statics._withUnsafeGuaranteedRef({
                        $0.cachedScalar(slot: Int(c))
                    }), !kept.isOtherOrNonScalar
                else { return .unread }
                amount = kept
            }
            return Answer(test.pointee.comparison.compare(x, at: y, amount: amount))
        }

        /// The time `code` reads: the event's, or that of the event a let stands for (NaN, as a
        /// null time, where its aggregate holds none).
        @inline(__always) private func time(_ code: Int32) -> Double {
            code < 0 ? t : withEvent(code) { $0?.t ?? .nan }
        }

        @inline(__always) private func withEvent<T>(_ code: Int32, _ body: (Event?) -> T) -> T {
            runner._withUnsafeGuaranteedRef {
                $0.withAggregateEvent(Int(code >> 1), first: code & 1 == 0, body)
            }
        }
    }
}

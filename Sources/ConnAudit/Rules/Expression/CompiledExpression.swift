/// An expression compiled once, when its rule loads, into nested closures: the one way the
/// product evaluates an expression.
///
/// A compiled node holds its children's closures and its constants in its own context, which
/// the caller keeps alive: an evaluation reads them in place, and takes nothing out of an enum
/// box. Each node calls the function its kind is evaluated with (``Evaluator/combine(_:_:_:)``,
/// ``Evaluator/shortCircuit(_:_:_:)``, ``Evaluator/choose(_:_:_:)``, ``Evaluator/unary(_:_:)``,
/// ``Evaluator/member(_:_:id:_:)``, ``Evaluator/index(_:_:)``, ``Evaluator/apply(_:_:)``,
/// ``Evaluator/power(_:_:)``, ``Evaluator/extreme(_:_:_:)``, ``Evaluator/search(_:_:_:_:)``,
/// ``Evaluator/history(_:_:_:)``, ``Evaluator/bound(_:_:_:_:)``), with its operands evaluated
/// left to right. A bare name its rule resolved reads the let's slot, or skips the lets, as its
/// resolution says (``bare(_:_:)``); in a context whose lets are laid out otherwise it is looked
/// up by name. So a compiled expression gives, in every context, what walking its tree node by
/// node gives: the tests keep such a tree walker as the reference and compare the two
/// (`CompiledExpressionAgreesWithTreeWalkerTests`, `ResolvedNamesGiveTheTreeWalkersAnswerTests`).
struct CompiledExpression: Sendable {
    typealias Run = @Sendable (EvalContext, Event) -> Eval

    /// Evaluates the expression with `e` as the current event (the trigger, or a nested
    /// selector's candidate); everything else comes from the context.
    let run: Run

    /// The root's scalar form and its general form, where the root has a scalar form
    /// (``hasTruth``): ``holds(_:_:)`` runs them as ``run`` does (the scalar form first, the
    /// general form when that gives no scalar), and reads the answer's truth without making an
    /// ``Eval``. Not optional: a closure taken out of an optional is retained for the call.
    private let scalar: Scalar.Run
    private let general: Run
    let hasTruth: Bool

    init(_ expr: Expr) {
        let root = Self.node(expr, scalar: false)
        guard let operand = root.scalar else {
            run = root.run
            scalar = Self.noScalar
            general = root.run
            hasTruth = false
            return
        }
        scalar = operand.closure
        general = root.run
        run = Self.scalarFirst(scalar, general: general)
        hasTruth = true
    }

    /// ``scalar`` of an expression without a scalar form: never called.
    private static let noScalar: Scalar.Run = { _, _ in .other }

    /// The truth of ``run``'s answer with `e` as the current event (``Eval/truth``).
    @inline(__always) func holds(_ ctx: EvalContext, _ e: Event) -> Bool? {
        guard hasTruth else { return run(ctx, e).truth }
        let v = scalar(ctx, e)
        return v.isOtherOrNonScalar ? general(ctx, e).truth : v.truth
    }

    /// `expr` compiled each time it runs: for an expression replaced before a rule runs (a
    /// `where:` as parsed, which resolving its rule's names compiles anew), so that compiling
    /// it once is not thrown away. Only an expression evaluated outside a compiled rule (a
    /// test's) runs so.
    static func compilingEachRun(_ expr: Expr) -> CompiledExpression {
        .init(run: { ctx, e in compile(expr)(ctx, e) })
    }

    private init(run: @escaping Run) {
        self.run = run
        scalar = Self.noScalar
        general = run
        hasTruth = false
    }

    /// Evaluates the expression with `ctx`'s event as the current event.
    @inline(__always) func callAsFunction(_ ctx: EvalContext) -> Eval {
        ctx.withEvent { run(ctx, $0) }
    }

    /// ``holds(_:_:)`` with `ctx`'s event as the current event.
    @inline(__always) func holds(_ ctx: EvalContext) -> Bool? {
        ctx.withEvent { holds(ctx, $0) }
    }

    /// A binary operator other than `and`, `or`, `??` on its compiled operands `a` and `b`
    /// (of `l` and `r`). A literal operand is handed to the operator where this closure holds
    /// it: run as a node, it would be copied out (its text or list retained) and dropped again.
    private static func binary(
        _ op: Expr.BinaryOp, _ a: @escaping Run, _ b: @escaping Run, _ l: Expr, _ r: Expr
    ) -> Run {
        if case .literal(let v) = r {
            let right = Eval.value(v)
            return { ctx, e in Evaluator.combine(op, a(ctx, e), right) }
        }
        if case .literal(let v) = l {
            let left = Eval.value(v)
            return { ctx, e in Evaluator.combine(op, left, b(ctx, e)) }
        }
        return { ctx, e in
            let x = a(ctx, e)
            return Evaluator.combine(op, x, b(ctx, e))
        }
    }

    /// `expr` compiled, and compiled as a scalar where it is a kind a scalar run reads
    /// (``Scalar``): a unary, binary or conditional node whose parts all are, and a leaf when
    /// `wanted` (its parent may read it so). The general form of a node with a scalar form runs
    /// only when the scalar run gave no scalar. It evaluates an operator's parts the general way,
    /// and each part of `??` and `if` that is itself an operator scalar first (``inner(_:_:)``).
    /// The scalar form of `and` and `or` always answers: a part that gives no scalar is evaluated
    /// the general way alone. So a text compared in one part (`id == p.id and t < p.t + T`) does
    /// not send the other parts the general way too.
    /// A leaf's scalar form is read in its parent's closure (``ScalarOperand``); an operator
    /// node's is a closure of its own.
    private static func node(_ expr: Expr, scalar wanted: Bool) -> Node {
        switch expr {
        case .unary(let op, let operand):
            let a = node(operand, scalar: true)
            let run = a.run
            return Node(
                { ctx, e in Evaluator.unary(op, run(ctx, e)) },
                a.scalar.map { s in
                    let s = s.closure
                    return .run({ Scalar.unary(op, s($0, $1)) })
                },
                searches: a.searches
            )
        case .binary(let op, let l, let r, _):
            if let (name, hint) = nullTested(op, l, r) {
                return Node(
                    letNullTest(name, hint, equal: op == .equal),
                    .nullTest(hint, op == .equal)
                )
            }
            if let search = searchComparison(op, l, r) {
                let a = node(l, scalar: false), b = node(r, scalar: false)
                return Node(binaryNode(op, first(a), first(b), l, r), .run(search), searches: true)
            }
            if let text = textComparison(op, l, r) {
                let a = node(l, scalar: false), b = node(r, scalar: false)
                return Node(binaryNode(op, first(a), first(b), l, r), .run(text))
            }
            // Leaves are made scalar only where both sides can be (no closure made for nothing).
            let parts = op != .isIn && op != .notIn && scalarKind(l) && scalarKind(r)
            let a = node(l, scalar: parts), b = node(r, scalar: parts)
            // `and` and `or` always answer; any other operator could give no scalar after a
            // part that searched, and be evaluated again (``Node/searches``).
            let logical = op == .and || op == .or
            if let x = a.scalar, let y = b.scalar, logical || !a.searches && !b.searches,
                let s = scalarBinary(op, x, y, generalA: a.run, generalB: b.run)
            {
                let shortCircuit = logical || op == .coalesce
                return Node(
                    binaryNode(
                        op, shortCircuit ? inner(l, a) : a.run, shortCircuit ? inner(r, b) : b.run,
                        l, r),
                    (op == .add || op == .subtract) && isLeaf(l) && isLeaf(r)
                        ? .sum(x, y, subtract: op == .subtract, s) : .run(s),
                    searches: a.searches || b.searches
                )
            }
            return Node(binaryNode(op, first(a), first(b), l, r), nil)
        case .conditional(let c, let yes, let no):
            let parts = scalarKind(c) && scalarKind(yes) && scalarKind(no)
            let t = node(c, scalar: parts), a = node(yes, scalar: parts)
            let b = node(no, scalar: parts)
            // A branch could give no scalar after a test that searched (``Node/searches``).
            if let st = t.scalar, let sa = a.scalar, let sb = b.scalar, !t.searches {
                return Node(
                    choice(inner(c, t), inner(yes, a), inner(no, b)),
                    .run(scalarConditional(st, sa, sb)),
                    searches: a.searches || b.searches
                )
            }
            return Node(choice(first(t), first(a), first(b)), nil)
        default:
            return Node(compileOther(expr), wanted ? scalarOperand(expr) : nil)
        }
    }

    /// Whether `expr` is no operator node: its scalar form is a leaf (``scalarOperand(_:)``).
    private static func isLeaf(_ expr: Expr) -> Bool {
        switch expr {
        case .unary, .binary, .conditional: false
        default: true
        }
    }

    /// A compiled node: its general form, and its scalar form where it has one. A struct, not a
    /// tuple: the compiler copies a tuple of a closure and an enum through the runtime's generic
    /// tuple code, looking its type up each time.
    private struct Node {
        let run: Run
        let scalar: ScalarOperand?
        /// Whether the scalar form asks a history call (``searchComparison(_:_:_:)``). Such a form
        /// gives a boolean or undecided once the call has run, never ``Scalar/other``; a parent
        /// whose scalar form could still give ``Scalar/other`` after it keeps only its general
        /// form, so the call is never asked twice in one evaluation.
        let searches: Bool

        init(_ run: @escaping Run, _ scalar: ScalarOperand?, searches: Bool = false) {
            self.run = run
            self.scalar = scalar
            self.searches = searches
        }
    }

    /// A compiled node as it runs on its own: its scalar form first, where it has one.
    private static func first(_ node: Node) -> Run {
        guard let scalar = node.scalar else { return node.run }
        return scalarFirst(scalar.closure, general: node.run)
    }

    /// A part of `and`, `or`, `??` or `if` as the general form of a node with a scalar form runs
    /// it: an operator scalar first (``first(_:)``); a leaf the general way, as its scalar read
    /// gave none or it is read once more in the general order.
    private static func inner(_ expr: Expr, _ node: Node) -> Run {
        switch expr {
        case .unary, .binary, .conditional: first(node)
        default: node.run
        }
    }

    /// `if test then a else b` on compiled parts.
    private static func choice(_ test: @escaping Run, _ a: @escaping Run, _ b: @escaping Run)
        -> Run
    {
        { ctx, e in Evaluator.choose(test(ctx, e), { a(ctx, e) }, { b(ctx, e) }) }
    }

    /// The name a let's comparison with null tests (``letNullTest(_:_:equal:)``), if it is one.
    private static func nullTested(_ op: Expr.BinaryOp, _ l: Expr, _ r: Expr) -> (
        String, LetSlot
    )? {
        guard op == .equal || op == .notEqual else { return nil }
        if case .literal(.null) = r, case .name(let name, _, let hint) = l, hint.layout >= 0,
            hint.slot >= 0, name != "params"
        {
            return (name, hint)
        }
        if case .literal(.null) = l, case .name(let name, _, let hint) = r, hint.layout >= 0,
            hint.slot >= 0, name != "params"
        {
            return (name, hint)
        }
        return nil
    }

    /// A binary node on its compiled operands `a` and `b` (of `l` and `r`), other than a let's
    /// comparison with null (``letNullTest(_:_:equal:)``).
    private static func binaryNode(
        _ op: Expr.BinaryOp, _ a: @escaping Run, _ b: @escaping Run, _ l: Expr, _ r: Expr
    ) -> Run {
        switch op {
        // The operator is a constant of each closure: its switch folds away.
        case .and: return { ctx, e in Evaluator.shortCircuit(.and, a(ctx, e)) { b(ctx, e) } }
        case .or: return { ctx, e in Evaluator.shortCircuit(.or, a(ctx, e)) { b(ctx, e) } }
        case .coalesce:
            return { ctx, e in Evaluator.shortCircuit(.coalesce, a(ctx, e)) { b(ctx, e) } }
        default: return binary(op, a, b, l, r)
        }
    }

    private static func compile(_ expr: Expr) -> Run { first(node(expr, scalar: false)) }

    /// Any node but a unary, binary or conditional one (``node(_:scalar:)``).
    private static func compileOther(_ expr: Expr) -> Run {
        switch expr {
        case .literal(let v):
            let answer = Eval.value(v)
            return { _, _ in answer }
        case .field(let name, let id):
            return { ctx, e in .value(Evaluator.field(name, id: id, of: e, ctx)) }
        case .member(let base, let name, let id, _):
            if case .name(let bound, _, let hint) = base, hint.layout >= 0, bound != "params" {
                return hint.slot < 0
                    ? captureMember(bound, hint, name, id) : letMember(bound, hint, name, id)
            }
            let b = compile(base)
            if case .name("params", _, _) = base {
                // `params.x` left to run time (the rule binds `params`, or it was not resolved).
                return { ctx, e in
                    Evaluator.paramsUnbound(ctx)
                        ? .value(ctx.params[name] ?? .null)
                        : Evaluator.member(b(ctx, e), name, id: id, ctx)
                }
            }
            return { ctx, e in Evaluator.member(b(ctx, e), name, id: id, ctx) }
        case .index(let base, let key):
            let b = compile(base), k = compile(key)
            return { ctx, e in
                let x = b(ctx, e)
                return Evaluator.index(x, k(ctx, e))
            }
        case .list(let items):
            let runs = items.map(compile)
            return { ctx, e in
                var values: [Value] = []
                for run in runs {
                    guard case .value(let v) = run(ctx, e) else { return .undecided }
                    values.append(v)
                }
                return .value(.array(values))
            }
        case .map(let entries):
            let keys = entries.map(\.0), runs = entries.map { compile($0.1) }
            return { ctx, e in
                var out: [Value.ObjectEntry] = []
                for (key, run) in zip(keys, runs) {
                    guard case .value(let v) = run(ctx, e) else { return .undecided }
                    out.append(.init(key, v))
                }
                return .value(.object(out))
            }
        case .unary, .binary, .conditional:
            return compile(expr)
        case .call(let function, let args, _):
            switch function {
            case .type, .str, .json, .isInt, .text, .len, .abs:
                let a = compile(args[0])
                return { ctx, e in Evaluator.apply(function, a(ctx, e)) }
            case .pow:
                let a = compile(args[0]), b = compile(args[1])
                return { ctx, e in
                    let x = a(ctx, e)
                    return Evaluator.power(x, b(ctx, e))
                }
            case .min, .max:
                let wantsMin = function == .min
                if args.count == 2 {
                    let a = compile(args[0]), b = compile(args[1])
                    return { ctx, e in
                        let x = a(ctx, e)
                        return Evaluator.extreme(wantsMin, x, b(ctx, e))
                    }
                }
                let runs = args.map(compile)
                return { ctx, e in Evaluator.extreme(wantsMin, runs.map { $0(ctx, e) }) }
            case .matches:
                // Parsed into `.regex` (its pattern must be a literal); never called by name.
                return { _, _ in .undecided }
            }
        case .regex(let subject, let regex):
            let a = compile(subject)
            return { ctx, e in Evaluator.search(regex, a(ctx, e), ctx, e) }
        case .history(let call):
            return { ctx, e in Evaluator.history(call, ctx, e) }
        case .name(let name, _, let hint) where hint.layout >= 0 && name != "params":
            return bare(name, hint)
        case .name(let name, _, let hint):
            return { ctx, e in Evaluator.bound(name, hint, ctx, e) }
        }
    }
}

@testable import ConnAudit

/// The tree walker: evaluates an expression by walking its tree, node by node.
///
/// The product evaluates compiled expressions only (``CompiledExpression``). This walker is the
/// tests' reference for them: it reads each node as the rules' docs say, through the same
/// functions the compiled nodes call (``Evaluator/combine(_:_:_:)``, ``Evaluator/bound(_:_:_:_:)``
/// and the rest), with no layout, slot or shortcut of its own. The agreement tests
/// (`CompiledExpressionAgreesWithTreeWalkerTests`, `ResolvedNamesGiveTheTreeWalkersAnswerTests`,
/// `IndexKeyAgreesWithTreeWalkerTests`) compare the two on every node kind and context.
extension Evaluator {
    /// Evaluates `expr` with `ctx`'s event as the current event.
    static func evaluate(_ expr: Expr, _ ctx: EvalContext) -> Eval {
        ctx.withEvent { evaluate(expr, ctx, $0) }
    }

    /// Evaluates `expr` with `e` as the current event (the trigger, or a nested selector's
    /// candidate): everything else comes from `ctx`.
    static func evaluate(_ expr: Expr, _ ctx: EvalContext, _ e: Event) -> Eval {
        switch expr {
        case .literal(let v):
            return .value(v)
        case .field(let name, let id):
            return .value(field(name, id: id, of: e, ctx))
        case .name(let name, _, let hint):
            return bound(name, hint, ctx, e)
        case .member(let base, let name, let id, _):
            if case .name(let baseName, _, _) = base, baseName == "params", paramsUnbound(ctx) {
                return .value(ctx.params[name] ?? .null)
            }
            return member(evaluate(base, ctx, e), name, id: id, ctx)
        case .index(let base, let indexExpr):
            let b = evaluate(base, ctx, e)
            return index(b, evaluate(indexExpr, ctx, e))
        case .list(let items):
            var values: [Value] = []
            for item in items {
                guard case .value(let v) = evaluate(item, ctx, e) else { return .undecided }
                values.append(v)
            }
            return .value(.array(values))
        case .map(let entries):
            var out: [Value.ObjectEntry] = []
            for (k, item) in entries {
                guard case .value(let v) = evaluate(item, ctx, e) else { return .undecided }
                out.append(.init(k, v))
            }
            return .value(.object(out))
        case .unary(let op, let operand):
            return unary(op, evaluate(operand, ctx, e))
        case .binary(let op, let l, let r, _):
            switch op {
            case .and, .or, .coalesce:
                return shortCircuit(op, evaluate(l, ctx, e)) { evaluate(r, ctx, e) }
            default:
                let a = evaluate(l, ctx, e)
                return combine(op, a, evaluate(r, ctx, e))
            }
        case .conditional(let c, let a, let b):
            return choose(evaluate(c, ctx, e), { evaluate(a, ctx, e) }, { evaluate(b, ctx, e) })
        case .call(let function, let args, _):
            return walkCall(function, args, ctx, e)
        case .history(let call):
            return history(call, ctx, e)
        case .regex(let subject, let regex):
            return search(regex, evaluate(subject, ctx, e), ctx, e)
        }
    }

    /// A value function: every argument evaluated, left to right, before any is judged.
    private static func walkCall(
        _ function: Expr.Function, _ args: [Expr], _ ctx: EvalContext, _ e: Event
    ) -> Eval {
        switch function {
        case .type, .str, .json, .isInt, .text, .len, .abs:
            return apply(function, evaluate(args[0], ctx, e))
        case .pow:
            let a = evaluate(args[0], ctx, e)
            return power(a, evaluate(args[1], ctx, e))
        case .min, .max:
            if args.count == 2 {
                let a = evaluate(args[0], ctx, e)
                return extreme(function == .min, a, evaluate(args[1], ctx, e))
            }
            return extreme(function == .min, args.map { evaluate($0, ctx, e) })
        case .matches:
            // Parsed into `.regex` (its pattern must be a literal); never called by name.
            return .undecided
        }
    }
}

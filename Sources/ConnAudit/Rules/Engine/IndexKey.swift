/// The candidate's side of an index's key (``CountedIndex``, ``KeyedIndex``), made once with the
/// key's shape: the value an index files an event under.
///
/// A key `text(FIELD)` reads the field and takes its text through the function a compiled
/// `text(…)` applies (``Evaluator/apply(_:_:)``), with no closure: the ids of the SSE rules are
/// keyed so. Any other key runs compiled (``CompiledExpression``).
/// (`IndexKeyAgreesWithTreeWalkerTests` compares both with the tests' tree walker.)
struct IndexKey: Sendable {
    let expr: Expr
    private let field: (name: String, id: Int32)?
    private let compiled: CompiledExpression?

    init(_ expr: Expr) {
        self.expr = expr
        if case .call(.text, let args, _) = expr, args.count == 1,
            case .field(let name, let id) = args[0]
        {
            field = (name, id)
            compiled = nil
        } else {
            field = nil
            compiled = CompiledExpression(expr)
        }
    }

    /// Whether the key is read without an expression (`text(FIELD)`).
    var readsFieldDirectly: Bool { field != nil }

    /// The key of `e`, with `ctx` as the context it is evaluated in (its event is `e`).
    @inline(__always) func callAsFunction(_ e: Event, _ ctx: EvalContext) -> Eval {
        if let field {
            return Evaluator.apply(
                .text, .value(Evaluator.field(field.name, id: field.id, of: e, ctx)))
        }
        return compiled!.run(ctx, e)
    }
}

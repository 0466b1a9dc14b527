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

    /// Whether the key reads its field from the event alone (not `$file`, which names a file
    /// of the context's, nor a field found by name): then ``value(of:)`` needs no context.
    var readsEventAlone: Bool {
        guard let field else { return false }
        return field.id != -1 && field.id != FieldNames.file
    }

    /// The key of `e`, with `ctx` as the context it is evaluated in (its event is `e`).
    @inline(__always) func callAsFunction(_ e: Event, _ ctx: EvalContext) -> Eval {
        if let field {
            return Evaluator.apply(
                .text, .value(Evaluator.field(field.name, id: field.id, of: e, ctx)))
        }
        return compiled!.run(ctx, e)
    }

    /// ``callAsFunction(_:_:)`` as a value; nil when it is undecided or an event.
    @inline(__always) func value(_ e: Event, _ ctx: EvalContext) -> Value? {
        if let field { return Self.text(Evaluator.field(field.name, id: field.id, of: e, ctx)) }
        guard case .value(let k) = compiled!.run(ctx, e) else { return nil }
        return k
    }

    /// ``value(_:_:)`` of a key that ``readsEventAlone``.
    @inline(__always) func value(of e: Event) -> Value? {
        let field = field!
        return Self.text(e.value(of: field.name, id: field.id) ?? .null)
    }

    /// `text(v)` as a compiled `text(…)` gives it (``Evaluator/apply(_:_:)``); nil when that is
    /// undecided. A string is its own text: it is returned without a call.
    @inline(__always) static func text(_ v: Value) -> Value? {
        if case .string = v { return v }
        guard case .value(let k) = Evaluator.apply(.text, .value(v)) else { return nil }
        return k
    }
}

/// The outer side of a counted call (``CountedShape``), made once with its shape: the key looked
/// up, as a value.
///
/// `text(CAPTURE.FIELD)` (`text(c.id)`: the SSE rules' shape) reads the field where the context's
/// captures hold the event and takes its text, as the compiled expression's `capture.field`
/// (``CompiledExpression/captureMember(_:_:_:_:)``) and `text(…)` do, without the `Eval`s
/// between them. Where the name is not read so (lets bound by name or laid out otherwise than
/// the rule's resolution says, or no capture of that name), and for any other side, the
/// compiled expression runs. (`OuterKeyAgreesWithCompiledTests` compares both.)
struct OuterKey: Sendable {
    let expr: Expr
    private let member: (capture: String, hint: LetSlot, field: String, id: Int32)?
    private let compiled: CompiledExpression

    init(_ expr: Expr) {
        self.expr = expr
        compiled = CompiledExpression(expr)
        if case .call(.text, let args, _) = expr, args.count == 1,
            case .member(.name(let capture, _, let hint), let field, let id, _) = args[0],
            hint.layout >= 0, hint.slot < 0, capture != "params"
        {
            member = (capture, hint, field, id)
        } else {
            member = nil
        }
    }

    /// Whether the side is read without the compiled expression where the captures allow.
    var readsCaptureDirectly: Bool { member != nil }

    /// The side's value in `ctx`; nil when it is undecided or an event.
    @inline(__always) func value(_ ctx: EvalContext) -> Value? {
        if let member, !ctx.captures.isEmpty, CompiledExpression.hintHolds(member.hint, ctx),
            let v = ctx.captures.withEvent(
                member.capture, { Evaluator.field(member.field, id: member.id, of: $0, ctx) })
        {
            return IndexKey.text(v)
        }
        guard case .value(let k) = compiled(ctx) else { return nil }
        return k
    }
}

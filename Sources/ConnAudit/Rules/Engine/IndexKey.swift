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
    /// The field's name and id again, each a field of its own: read from the key in place, not
    /// copied out of a tuple (which retains its strings). -1 and empty without a field.
    private let fieldName: String
    private let fieldID: Int32
    private let compiled: CompiledExpression?

    init(_ expr: Expr) {
        self.expr = expr
        if case .call(.text, let args, _) = expr, args.count == 1,
            case .field(let name, let id) = args[0]
        {
            field = (name, id)
            (fieldName, fieldID) = (name, id)
            compiled = nil
        } else {
            field = nil
            (fieldName, fieldID) = ("", -1)
            compiled = CompiledExpression(expr)
        }
    }

    /// The words (``Swift/String/words``) of `e`'s key when the key reads a field of the event
    /// alone (not by name, not a built-in one) and the field is a string: a string is its own
    /// text (``text(_:)``). Read where the event holds it; nil otherwise, when ``value(of:)``
    /// reads the key.
    @inline(__always) func textWords(of e: Event) -> (UInt64, UInt64)? {
        guard fieldID >= 0 else { return nil }
        return e.stringWords(fieldName, id: fieldID)
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
/// between them. A capture its rule resolved to a slot (``LetSlot/capture``) is read there, as
/// the compiled expression reads it; any other is read by name where the lets are laid out as
/// the rule's resolution says. Where the name is not read so (lets bound by name or laid out
/// otherwise, or no capture of that name), and for any other side, the compiled expression runs.
/// (`OuterKeyAgreesWithCompiledTests` compares both.)
struct OuterKey: Sendable {
    let expr: Expr
    /// `text(CAPTURE.FIELD)`'s parts, each a field of its own: read from the key in place, not
    /// copied out of a tuple (which retains its strings).
    private let direct: Bool
    private let capture: String
    private let hint: LetSlot
    private let field: String
    private let id: Int32
    /// Whether the field is read from the event alone (not `$file`, nor a field found by
    /// name): then the read takes no context.
    private let eventAlone: Bool
    private let compiled: CompiledExpression

    init(_ expr: Expr) {
        self.expr = expr
        compiled = CompiledExpression(expr)
        if case .call(.text, let args, _) = expr, args.count == 1,
            case .member(.name(let capture, _, let hint), let field, let id, _) = args[0],
            hint.layout >= 0, hint.slot < 0, capture != "params"
        {
            (direct, self.capture, self.hint, self.field, self.id) = (
                true, capture, hint, field, id
            )
        } else {
            (direct, capture, hint, field, id) = (false, "", .unresolved, "", -1)
        }
        eventAlone = id != -1 && id != FieldNames.file
    }

    /// Whether the side is read without the compiled expression where the captures allow.
    var readsCaptureDirectly: Bool { direct }

    /// The words (``Swift/String/words``) of the side's value when it is `text(CAPTURE.FIELD)` of
    /// a capture read at its slot, whose field, of the event alone, is a string (a string is its
    /// own text): read where the captured event holds it. Nil when the side is read otherwise,
    /// or the field is no string: ``value(_:)`` then reads it.
    @inline(__always) func textWords(_ ctx: EvalContext) -> (UInt64, UInt64)? {
        guard direct, eventAlone, hint.capture >= 0, !ctx.captures.isEmpty else { return nil }
        return ctx.captures.withEvent(slot: Int(hint.capture), capture) {
            $0.stringWords(field, id: id)
        } ?? nil
    }

    /// The side's value in `ctx`; nil when it is undecided or an event.
    @inline(__always) func value(_ ctx: EvalContext) -> Value? {
        if direct, !ctx.captures.isEmpty {
            let slot = Int(hint.capture)
            // A name resolved to a capture's slot is that capture wherever the rule's
            // expressions run, as the compiled expression reads it: the lets are not asked.
            let found: Value?
            if slot >= 0 {
                found =
                    eventAlone
                    ? ctx.captures.withEvent(slot: slot, capture) {
                        $0.value(of: field, id: id) ?? .null
                    }
                    : ctx.captures.withEvent(slot: slot, capture) {
                        Evaluator.field(field, id: id, of: $0, ctx)
                    }
            } else if CompiledExpression.hintHolds(hint, ctx) {
                found = ctx.captures.withEvent(capture) {
                    Evaluator.field(field, id: id, of: $0, ctx)
                }
            } else {
                found = nil
            }
            if let found { return IndexKey.text(found) }
        }
        guard case .value(let k) = compiled(ctx) else { return nil }
        return k
    }
}

import Testing

@testable import ConnAudit

/// A context holds its event uncounted. One made with a public initializer keeps it alive
/// itself, and so does one whose event is set afterwards, and a let scope's context (a runner's
/// frozen lets outlive the evaluation that made them): each event here is made for the context
/// alone, and still read after every other reference to it is gone.
@Suite struct EvalContextEventLifetimeTests {
    private func value(_ text: String, _ ctx: EvalContext) throws -> Value? {
        let expr = try ExpressionParser.parse(text, compileSelector: FileLoader.compileSelector)
        return Evaluator.evaluate(expr, ctx).value
    }

    private func context(t: Double) -> EvalContext {
        EvalContext(event: Event(t: t, ev: "ws.ping"), params: [:], history: nil, files: [])
    }

    @Test func aContextMadeWithAnEventKeepsItAlive() throws {
        let ctx = context(t: 5)
        #expect(try value("t", ctx) == .int(5))
        #expect(ctx.event.ev == "ws.ping")
    }

    @Test func anEventSetOnAContextIsKeptByIt() throws {
        var ctx = context(t: 1)
        ctx.event = Event(t: 9, ev: "ws.pong")
        #expect(try value("t + 1", ctx) == .int(10))
        #expect(try value("ev", ctx) == .string("ws.pong"))
    }

    @Test func aCopyKeepsTheEventItWasMadeWith() throws {
        var ctx = context(t: 2)
        let copy = ctx
        ctx.event = Event(t: 3, ev: "ws.pong")
        #expect(try value("t", copy) == .int(2))
        #expect(try value("t", ctx) == .int(3))
    }

    @Test func aLetScopeKeepsTheEventOfItsContext() throws {
        let shared = EvalShared(environment: EvalEnvironment(params: [:], files: []), history: nil)
        let expr = try ExpressionParser.parse("t * 2", compileSelector: FileLoader.compileSelector)
        let scope = LetScope([(name: "x", expr: expr)])
        // An engine context does not keep its event: its maker holds it while the scope takes the
        // context, and then lets go. Only the scope's copy of the context keeps it from there.
        var event: Event? = Event(t: 4, ev: "ws.ping")
        weak let watched = event
        scope.context = EvalContext(event: event!, borrowing: shared)
        event = nil
        #expect(watched != nil)
        #expect(scope.value(of: "x")?.value == .int(8))
    }

    @Test func aContextMadeWithAnEventIsWhatKeepsIt() {
        var event: Event? = Event(t: 6, ev: "ws.ping")
        weak let watched = event
        let ctx = EvalContext(event: event!, params: [:], history: nil, files: [])
        event = nil
        #expect(watched != nil)
        #expect(ctx.event.t == 6)
    }
}

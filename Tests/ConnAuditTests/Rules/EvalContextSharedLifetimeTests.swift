import Testing

@testable import ConnAudit

/// A context holds its ``EvalShared`` uncounted. One made with a public initializer keeps the
/// object alive itself: the object made for it, which nothing else holds, is still read (params,
/// file names, the history provider) after every other reference to it is gone, in the context
/// and in each copy of it, changed or not.
@Suite struct EvalContextSharedLifetimeTests {
    private struct OneEvent: HistoryProvider {
        let event: Event
        func candidates(for call: HistoryCall, context: EvalContext) -> HistoryCandidates {
            HistoryCandidates(events: [event][...])
        }
    }

    private func value(_ text: String, _ ctx: EvalContext) throws -> Value? {
        let expr = try ExpressionParser.parse(text, compileSelector: FileLoader.compileSelector)
        return Evaluator.evaluate(expr, ctx).value
    }

    /// A context whose shared object was made inside this function only.
    private func context(files: [String], history: (any HistoryProvider)?) -> EvalContext {
        EvalContext(
            event: Event(t: 5, ev: "ws.ping", file: 0, line: 1),
            params: ["limit": .int(7)], history: history, files: files)
    }

    @Test func aContextMadeWithParamsKeepsThemAlive() throws {
        let ctx = context(files: ["a.jsonl"], history: nil)
        #expect(try value("params.limit", ctx) == .int(7))
        #expect(try value("$file", ctx) == .string("a.jsonl"))
    }

    @Test func aChangedCopyStillReadsTheSharedParts() throws {
        var copy = context(files: ["b.jsonl"], history: nil)
        copy.lets = ["x": .value(.int(1))]
        copy.historyResults = HistoryResults(declared: ["p"])
        #expect(try value("params.limit + x", copy) == .int(8))
        #expect(try value("$file", copy) == .string("b.jsonl"))
    }

    @Test func aContextMadeWithAProviderKeepsItAlive() throws {
        // The name is registered now: run alone, the suite makes the event before any selector.
        let earlier = Event(t: 1, ev: "ws.connect", gen: 3, evID: EvNames.id("ws.connect"))
        let ctx = context(files: [], history: OneEvent(event: earlier))
        #expect(try value("last({ev: ws.connect}).gen", ctx) == .int(3))
        #expect(try value("count({ev: ws.connect})", ctx) == .int(1))
    }

    @Test func aContextMadeFromASharedObjectIsWhatKeepsIt() {
        var shared: EvalShared? = EvalShared(
            environment: EvalEnvironment(params: [:], files: []), history: nil)
        weak let watched = shared
        let ctx = EvalContext(event: Event(t: 0, ev: "ws.ping"), shared: shared!)
        shared = nil
        #expect(watched != nil)
        #expect(ctx.files.isEmpty)
    }

    @Test func aContextMadeFromASharedObjectKeepsItAlive() throws {
        let ctx = EvalContext(
            event: Event(t: 0, ev: "ws.ping"),
            shared: EvalShared(
                environment: EvalEnvironment(params: ["limit": .int(2)], files: []),
                history: nil))
        #expect(try value("params.limit * 3", ctx) == .int(6))
    }
}
